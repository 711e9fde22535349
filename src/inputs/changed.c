/* changed.c: see changed.h. */
#include "changed.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "process.h"

static struct changed_file *file_get(struct changed_lines *cl, const char *path)
{
	struct changed_file *f = hmap_get(&cl->by_path, path);
	if (f)
		return f;
	f = xcalloc(1, sizeof(*f));
	f->path = xstrdup(path);
	vec_push(&cl->files, f);
	hmap_put(&cl->by_path, f->path, f);
	return f;
}

static void mark(struct changed_lines *cl, struct changed_file *f, unsigned line)
{
	if (!f || line == 0)
		return;
	if (f->ranges.n) {
		struct line_range *last = &f->ranges.v[f->ranges.n - 1];
		if (line >= last->lo && line <= last->hi)
			return;
		if (line == last->hi + 1) {
			last->hi = line;
			cl->nlines++;
			return;
		}
	}
	struct line_range r = {line, line};
	vec_push(&f->ranges, r);
	cl->nlines++;
}

/* A file name of a "---"/"+++" line: git's "quoted" form undone, a trailing
 * tab and time stamp (diff -u) dropped. NULL for /dev/null. */
static char *diff_name(const char *s, size_t n)
{
	struct strbuf sb = {0};
	if (n && s[0] == '"') {
		size_t i = 1;
		for (; i < n && s[i] != '"'; i++) {
			if (s[i] != '\\' || i + 1 >= n) {
				sb_putc(&sb, s[i]);
				continue;
			}
			char c = s[++i];
			if (c >= '0' && c <= '7') {
				unsigned v = 0;
				for (int k = 0; k < 3 && i < n && s[i] >= '0' && s[i] <= '7'; k++, i++)
					v = v * 8 + (unsigned)(s[i] - '0');
				i--;
				sb_putc(&sb, (char)v);
			} else {
				static const char from[] = "ntrabfv", to[] = "\n\t\r\a\b\f\v";
				const char *k = c ? strchr(from, c) : NULL;
				sb_putc(&sb, k ? to[k - from] : c);
			}
		}
	} else {
		size_t e = 0;
		while (e < n && s[e] != '\t')
			e++;
		sb_add(&sb, s, e);
	}
	char *name = sb_detach(&sb);
	if (!name)
		name = xstrdup("");
	if (strcmp(name, "/dev/null") == 0 || !*name) {
		free(name);
		return NULL;
	}
	return name;
}

/* "@@ -a[,b] +c[,d] @@": c and d (d is 1 when absent). */
static bool hunk_header(const char *s, size_t n, unsigned *start, unsigned *count, unsigned *old_count)
{
	char buf[128];
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	unsigned a = 0, b = 1, c = 0, d = 1;
	const char *p = buf + 3;
	char *end;
	if (*p != '-')
		return false;
	a = (unsigned)strtoul(p + 1, &end, 10);
	if (end == p + 1)
		return false;
	p = end;
	if (*p == ',') {
		b = (unsigned)strtoul(p + 1, &end, 10);
		if (end == p + 1)
			return false;
		p = end;
	}
	if (p[0] != ' ' || p[1] != '+')
		return false;
	p += 2;
	c = (unsigned)strtoul(p, &end, 10);
	if (end == p)
		return false;
	p = end;
	if (*p == ',') {
		d = (unsigned)strtoul(p + 1, &end, 10);
		if (end == p + 1)
			return false;
		p = end;
	}
	if (strncmp(p, " @@", 3) != 0)
		return false;
	(void)a;
	*start = c;
	*count = d;
	*old_count = b;
	return true;
}

/* Where changed_parse is in the diff. */
struct diff_pos {
	struct changed_file *cur;
	bool old_has_a;
	bool seen_header, seen_hunk;
	unsigned newline, old_left, new_left;
	bool pending_delete;
};

/* A line s (n bytes) inside a hunk: marks the new lines it adds or deletes
 * next to. -1 when it is none of a hunk's lines. */
static int hunk_line(struct changed_lines *cl, struct diff_pos *d, const char *s, size_t n)
{
	char c = n ? s[0] : ' ';
	if (c == '\\')
		return 0; /* "\ No newline at end of file" */
	if (c == '+' && d->new_left) {
		mark(cl, d->cur, d->newline);
		d->newline++;
		d->new_left--;
		d->pending_delete = false;
		return 0;
	}
	if (c == '-' && d->old_left) {
		d->old_left--;
		d->pending_delete = true;
		if (!d->old_left && !d->new_left) {
			mark(cl, d->cur, d->newline ? d->newline - 1 : 0);
			mark(cl, d->cur, d->newline);
			d->pending_delete = false;
		}
		return 0;
	}
	if ((c == ' ' || n == 0) && d->old_left && d->new_left) {
		if (d->pending_delete) {
			mark(cl, d->cur, d->newline ? d->newline - 1 : 0);
			mark(cl, d->cur, d->newline);
			d->pending_delete = false;
		}
		d->newline++;
		d->old_left--;
		d->new_left--;
		return 0;
	}
	return -1;
}

/* A "+++ NAME" line: the file the next hunks change (NULL when the name
 * cannot be read), relative to base. */
static void new_file_header(struct changed_lines *cl, struct diff_pos *d, const char *s, size_t n, const char *base)
{
	d->seen_header = true;
	char *name = diff_name(s + 4, n - 4);
	d->cur = NULL;
	if (name) {
		const char *rel = name;
		if (d->old_has_a && strncmp(rel, "b/", 2) == 0)
			rel += 2;
		char *joined = rel[0] == '/' ? xstrdup(rel) : path_join(base, rel);
		char *abs = path_absolute(joined);
		d->cur = file_get(cl, abs);
		free(abs);
		free(joined);
		free(name);
	}
}

/* A "@@ " hunk header; NULL, or what is wrong with it. */
static const char *hunk_start(struct diff_pos *d, const char *s, size_t n)
{
	unsigned start, count, old_count;
	if (!hunk_header(s, n, &start, &count, &old_count))
		return "a malformed hunk header";
	if (!d->seen_header)
		return "a hunk before any file header (+++)";
	d->seen_hunk = true;
	d->newline = start;
	d->old_left = old_count;
	d->new_left = count;
	d->pending_delete = false;
	if (count == 0 && old_count == 0)
		return NULL;
	if (count == 0) { /* a deletion after line start */
		/* counted down by the '-' lines, marked at the end */
		d->newline = start + 1;
	}
	return NULL;
}

int changed_parse(const char *text, size_t len, const char *base, struct changed_lines *cl, char **err)
{
	struct diff_pos d = {0};
	bool any_text = false;
	size_t lineno = 0;
	for (size_t pos = 0; pos < len;) {
		const char *s = text + pos;
		const char *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		pos += n + (nl ? 1 : 0);
		lineno++;
		if (n && s[n - 1] == '\r')
			n--;
		if (n)
			any_text = true;
		if (d.old_left || d.new_left) { /* inside a hunk */
			if (hunk_line(cl, &d, s, n) == 0)
				continue;
			*err = xasprintf("line %zu: the hunk ends early (not a unified diff?)", lineno);
			return -1;
		}
		if (n >= 4 && strncmp(s, "--- ", 4) == 0) {
			d.old_has_a = n >= 6 && (strncmp(s + 4, "a/", 2) == 0 || strncmp(s + 4, "\"a/", 3) == 0);
			d.seen_header = true;
			continue;
		}
		if (n >= 4 && strncmp(s, "+++ ", 4) == 0) {
			new_file_header(cl, &d, s, n, base);
			continue;
		}
		if (n >= 3 && strncmp(s, "@@ ", 3) == 0) {
			const char *bad = hunk_start(&d, s, n);
			if (bad) {
				*err = xasprintf("line %zu: %s", lineno, bad);
				return -1;
			}
			continue;
		}
		/* anything else between files (diff --git, index, mode lines, text
		 * before the first file) */
	}
	if (d.old_left || d.new_left) {
		*err = xasprintf("the diff ends inside a hunk (truncated?)");
		return -1;
	}
	if (any_text && !d.seen_hunk && !d.seen_header) {
		*err = xstrdup("not a unified diff (no '---'/'+++' file lines or '@@' hunks)");
		return -1;
	}
	return 0;
}

/* Runs argv in dir (run_process: no shell, closed descriptors, at most
 * CHANGED_GIT_TIMEOUT_MS); stdout (up to max bytes) in *out, the first line
 * of stderr in *why. Returns the exit status, or -1 when it did not run to
 * its end. */
static int run_in(char *const argv[], const char *dir, size_t max, struct strbuf *out, char **why)
{
	struct run_spec spec = {.argv = argv,
				.dir = dir,
				.timeout_ms = CHANGED_GIT_TIMEOUT_MS,
				.max_out = max,
				.keep_err = true};
	struct run_result r;
	run_process(&spec, &r);
	int ret = -1;
	switch (r.outcome) {
	case RUN_CANNOT:
		*why = xasprintf("cannot run %s: %s", argv[0], strerror(errno));
		break;
	case RUN_NOT_FOUND:
		*why = xasprintf("cannot run %s: not found", argv[0]);
		break;
	case RUN_TOO_MUCH:
		if (max >= (1u << 20))
			*why = xasprintf("the output of %s is larger than %zu MB", argv[0], max >> 20);
		else
			*why = xasprintf("the output of %s is larger than %zu bytes", argv[0], max);
		break;
	case RUN_TIMED_OUT:
		*why = xasprintf("%s took longer than %u s; stopped", argv[0], CHANGED_GIT_TIMEOUT_MS / 1000);
		break;
	case RUN_OK:
	case RUN_FAILED:
		if (r.signal) {
			*why = xasprintf("%s was killed by signal %d", argv[0], r.signal);
			break;
		}
		sb_add(out, r.out, r.out_len);
		ret = r.status;
		if (ret != 0) {
			struct strbuf sb = {0};
			sb_put_visible(&sb, r.err_line && *r.err_line ? r.err_line : "failed");
			*why = sb_detach(&sb);
		}
		break;
	}
	run_result_free(&r);
	return ret;
}

int changed_load(const char *spec, const char *dir, struct changed_lines *cl, char **err)
{
	memset(cl, 0, sizeof(*cl));
	if (strcmp(spec, "-") == 0) {
		struct strbuf sb = {0};
		char buf[65536];
		for (;;) {
			ssize_t r = read(0, buf, sizeof(buf));
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				*err = xasprintf("--changed-lines -: cannot read stdin: %s", strerror(errno));
				sb_free(&sb);
				return -1;
			}
			if (r == 0)
				break;
			if (sb.len + (size_t)r > CHANGED_MAX_DIFF) {
				*err = xasprintf("--changed-lines -: the diff on stdin is larger than %u MB",
						 CHANGED_MAX_DIFF >> 20);
				sb_free(&sb);
				return -1;
			}
			sb_add(&sb, buf, (size_t)r);
		}
		char *cwd = path_absolute(".");
		char *perr = NULL;
		int rc = changed_parse(sb.buf ? sb.buf : "", sb.len, cwd, cl, &perr);
		free(cwd);
		sb_free(&sb);
		if (rc != 0) {
			*err = xasprintf("--changed-lines -: stdin: %s", perr);
			free(perr);
			return -1;
		}
		return 0;
	}
	/* the repository's own settings must not run anything: no fsmonitor
	 * hook, external diff, textconv filter or pager */
	char *top_argv[] = {"git", "-c", "core.fsmonitor=false", "--no-pager", "rev-parse", "--show-toplevel", NULL};
	struct strbuf top = {0};
	char *why = NULL;
	int st = run_in(top_argv, dir, 1u << 16, &top, &why);
	if (st != 0) {
		*err = xasprintf("--changed-lines %s: %s: %s", spec, dir,
				 st < 0 || !why ? (why ? why : "git failed") : why);
		free(why);
		sb_free(&top);
		return -1;
	}
	char *root = xstrndup(sb_str(&top), strcspn(sb_str(&top), "\n"));
	sb_free(&top);
	char *rev = (char *)spec;
	char *diff_argv[] = {"git",
			     "-c",
			     "core.fsmonitor=false",
			     "-c",
			     "core.quotePath=true",
			     "--no-pager",
			     "diff",
			     "--no-ext-diff",
			     "--no-textconv",
			     "--no-color",
			     "--src-prefix=a/",
			     "--dst-prefix=b/",
			     "-U0",
			     rev,
			     "--",
			     NULL};
	struct strbuf diff = {0};
	st = run_in(diff_argv, dir, CHANGED_MAX_DIFF, &diff, &why);
	if (st != 0) {
		struct strbuf sb = {0};
		sb_put_visible(&sb, spec);
		*err = xasprintf("--changed-lines %s: git diff: %s", sb_str(&sb), why ? why : "failed");
		sb_free(&sb);
		free(why);
		free(root);
		sb_free(&diff);
		return -1;
	}
	char *perr = NULL;
	int rc = changed_parse(diff.buf ? diff.buf : "", diff.len, root, cl, &perr);
	free(root);
	sb_free(&diff);
	if (rc != 0) {
		*err = xasprintf("--changed-lines %s: git diff gave %s", spec, perr);
		free(perr);
		return -1;
	}
	return 0;
}

bool changed_touches(const struct changed_lines *cl, const char *file, unsigned line)
{
	if (!file)
		return false;
	const struct changed_file *f = hmap_get(&cl->by_path, file);
	if (!f) {
		char *abs = path_absolute(file);
		f = hmap_get(&cl->by_path, abs);
		free(abs);
	}
	if (!f)
		return false;
	for (size_t i = 0; i < f->ranges.n; i++)
		if (line >= f->ranges.v[i].lo && line <= f->ranges.v[i].hi)
			return true;
	return false;
}

bool changed_finding(const struct changed_lines *cl, const struct finding *f)
{
	if (changed_touches(cl, f->loc.file, f->loc.line))
		return true;
	for (size_t i = 0; i < f->notes.n; i++)
		if (changed_touches(cl, f->notes.v[i].loc.file, f->notes.v[i].loc.line))
			return true;
	return false;
}

void changed_free(struct changed_lines *cl)
{
	for (size_t i = 0; i < cl->files.n; i++) {
		vec_free(&cl->files.v[i]->ranges);
		free(cl->files.v[i]->path);
		free(cl->files.v[i]);
	}
	vec_free(&cl->files);
	hmap_free(&cl->by_path);
	memset(cl, 0, sizeof(*cl));
}
