/* fix.c: see fix.h. */
#include "fix.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clang_api.h"
#include <xxhash.h>

#include "log.h"
#include "outguard.h"
#include "parse.h"
#include "sigclean.h"
#include "rule.h"

char *apply_edits(const char *text, size_t len, const struct edit *edits, size_t n, size_t *out_len)
{
	struct strbuf sb = {0};
	size_t pos = 0;
	for (size_t i = 0; i < n; i++) {
		size_t off = edits[i].off <= len ? edits[i].off : len;
		if (off < pos)
			continue; /* overlapping: callers filter these out */
		sb_add(&sb, text + pos, off - pos);
		sb_puts(&sb, edits[i].text);
		pos = off + edits[i].len <= len ? off + edits[i].len : len;
	}
	sb_add(&sb, text + pos, len - pos);
	if (out_len)
		*out_len = sb.len;
	return sb_detach(&sb);
}

/* ---- unified diff (Myers would be overkill: compare lines, then hunks) ---- */

struct lines {
	const char **p;
	size_t *n;
	size_t count;
};

static void split_lines(const char *t, size_t len, struct lines *l)
{
	size_t cap = 16;
	l->p = xmalloc(cap * sizeof(char *));
	l->n = xmalloc(cap * sizeof(size_t));
	l->count = 0;
	size_t i = 0;
	while (i < len) {
		size_t s = i;
		while (i < len && t[i] != '\n')
			i++;
		if (i < len)
			i++;
		if (l->count == cap) {
			cap *= 2;
			l->p = xrealloc(l->p, cap * sizeof(char *));
			l->n = xrealloc(l->n, cap * sizeof(size_t));
		}
		l->p[l->count] = t + s;
		l->n[l->count] = i - s;
		l->count++;
	}
}

static bool line_eq(const struct lines *a, size_t i, const struct lines *b, size_t j)
{
	return a->n[i] == b->n[j] && memcmp(a->p[i], b->p[j], a->n[i]) == 0;
}

static void put_line(FILE *out, char tag, const char *p, size_t n)
{
	fputc(tag, out);
	fwrite(p, 1, n, out);
	if (!n || p[n - 1] != '\n')
		fputs("\n\\ No newline at end of file\n", out);
}

void write_unified_diff(FILE *out, const char *label, const char *old_text, size_t old_len, const char *new_text,
			size_t new_len)
{
	struct lines a, b;
	split_lines(old_text, old_len, &a);
	split_lines(new_text, new_len, &b);
	/* common prefix and suffix; the edits are local, so one pass per changed
	 * region is enough: find regions by walking both with a small lookahead */
	while (*label == '/')
		label++; /* a/usr/src/x.c, not a//usr/src/x.c */
	fprintf(out, "--- a/%s\n+++ b/%s\n", label, label);
	size_t i = 0, j = 0, done_a = 0, done_b = 0;
	const size_t ctx = 3;
	while (i < a.count || j < b.count) {
		if (i < a.count && j < b.count && line_eq(&a, i, &b, j)) {
			i++, j++;
			continue;
		}
		/* a change starts at (i, j): find where they sync again */
		size_t ei = a.count, ej = b.count;
		bool found = false;
		for (size_t d = 0; d <= (a.count - i) + (b.count - j) && !found; d++) {
			for (size_t x = 0; x <= d && !found; x++) {
				size_t ii = i + x, jj = j + (d - x);
				if (ii >= a.count || jj >= b.count)
					continue;
				/* require 3 equal lines (or the end) to call it a sync point */
				size_t k = 0;
				while (k < ctx && ii + k < a.count && jj + k < b.count &&
				       line_eq(&a, ii + k, &b, jj + k))
					k++;
				if (k == ctx || ii + k == a.count || jj + k == b.count) {
					ei = ii;
					ej = jj;
					found = true;
				}
			}
		}
		size_t hs_a = i > ctx ? i - ctx : 0, hs_b = j > ctx ? j - ctx : 0;
		if (hs_a < done_a)
			hs_a = done_a; /* do not repeat the previous hunk's trailing context */
		if (hs_b < done_b)
			hs_b = done_b;
		size_t he_a = ei + ctx < a.count ? ei + ctx : a.count, he_b = ej + ctx < b.count ? ej + ctx : b.count;
		fprintf(out, "@@ -%zu,%zu +%zu,%zu @@\n", hs_a + 1, he_a - hs_a, hs_b + 1, he_b - hs_b);
		for (size_t k = hs_a; k < i; k++)
			put_line(out, ' ', a.p[k], a.n[k]);
		for (size_t k = i; k < ei; k++)
			put_line(out, '-', a.p[k], a.n[k]);
		for (size_t k = j; k < ej; k++)
			put_line(out, '+', b.p[k], b.n[k]);
		for (size_t k = ei; k < he_a; k++)
			put_line(out, ' ', a.p[k], a.n[k]);
		i = done_a = he_a;
		j = done_b = he_b;
	}
	free(a.p);
	free(a.n);
	free(b.p);
	free(b.n);
}

/* ---- test hooks (compiled in only with -DNOGVL_TEST_HOOKS=ON: the test
 * builds; release and installed builds ignore these variables) ---- */

#ifdef NOGVL_TEST_HOOKS
static void hook_wait(const char *var, const char *what, const char *name)
{
	const char *v = getenv(var);
	long ms = v ? strtol(v, NULL, 10) : 0;
	if (ms <= 0)
		return;
	if (ms > 60000)
		ms = 60000;
	log_info("nogvl-lint: fix: waiting %ld ms %s %s (%s)", ms, what, name, var);
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* NOGVL_LINT_FIX_DELAY_MS=N: wait N ms before fixing each file, announced on
 * stderr, so that a test can change a file between its analysis and its
 * fix, or kill the process between files. */
static void test_delay(const char *display)
{
	hook_wait("NOGVL_LINT_FIX_DELAY_MS", "before", display);
}

/* NOGVL_LINT_FIX_RENAME_DELAY_MS=N: wait N ms between writing the temporary
 * file and renaming it over the file (a test kills the process there). */
static void test_delay_window(const char *path)
{
	hook_wait("NOGVL_LINT_FIX_RENAME_DELAY_MS", "before renaming the temporary file over", path);
}
#else
static void test_delay(const char *display)
{
	(void)display;
}

static void test_delay_window(const char *path)
{
	(void)path;
}
#endif

/* ---- atomic replace ---- */

#define TEMP_INFIX ".nogvl-lint."

/* A name for the temporary file next to path: ".<base>.nogvl-lint.XXXXXX". */
static char *temp_name(const char *path, unsigned attempt)
{
	char *dir = path_dirname(path);
	static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	uint64_t x = XXH3_64bits(path, strlen(path)) ^ ((uint64_t)getpid() << 20) ^
		     (uint64_t)attempt * 0x9E3779B97F4A7C15u ^ (uint64_t)(now_seconds() * 1e6);
	char suffix[7];
	for (int i = 0; i < 6; i++, x /= 62)
		suffix[i] = chars[x % 62];
	suffix[6] = '\0';
	char *t = xasprintf("%s/.%s" TEMP_INFIX "%s", dir, path_basename(path), suffix);
	free(dir);
	return t;
}

/* Is name (a directory entry) a temporary file of ours for base? */
static bool is_our_temp(const char *name, const char *base)
{
	size_t bl = strlen(base), il = strlen(TEMP_INFIX);
	return name[0] == '.' && strncmp(name + 1, base, bl) == 0 && strncmp(name + 1 + bl, TEMP_INFIX, il) == 0 &&
	       strlen(name + 1 + bl + il) == 6;
}

/* Removes temporary files a killed earlier --fix left next to path. */
static void remove_stale_temps(const char *path)
{
	char *dir = path_dirname(path);
	const char *base = path_basename(path);
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *de;
		while ((de = readdir(d)) != NULL) {
			if (!is_our_temp(de->d_name, base))
				continue;
			char *t = path_join(dir, de->d_name);
			struct stat st;
			if (lstat(t, &st) == 0 && S_ISREG(st.st_mode) && unlink(t) == 0)
				log_verbose(1, "removed %s, left by an interrupted --fix", t);
			free(t);
		}
		closedir(d);
	}
	free(dir);
}

static int write_all(int fd, const char *data, size_t len)
{
	size_t done = 0;
	while (done < len) {
		ssize_t w = write(fd, data + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		done += (size_t)w;
	}
	return 0;
}

/* The file's content still hashes to `hash`. */
static bool unchanged(const char *path, uint64_t hash)
{
	size_t len = 0;
	char *text = read_file(path, &len, 0);
	bool same = text && XXH3_64bits(text, len) == hash;
	free(text);
	return same;
}

/* Writes data to a new file in path's directory with path's permissions (and
 * owner, where allowed), fsynced, under a temporary name; returns that name.
 * The file is made anonymous (O_TMPFILE) and given its name only once it is
 * complete, so that a process killed while writing leaves nothing behind;
 * where O_TMPFILE or /proc is missing, a named mkstemp file is used. */

static char *write_temp(const char *path, const struct stat *st, const char *data, size_t len, bool allow_anon,
			const uint64_t *expect_hash, char **err)
{
	char *dir = path_dirname(path);
	int fd = allow_anon ? open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600) : -1;
	bool anon = fd >= 0;
	char *name = NULL;
	if (!anon) {
		name = xasprintf("%s/.%s" TEMP_INFIX "XXXXXX", dir, path_basename(path));
		fd = mkstemp(name);
	}
	free(dir);
	if (fd < 0) {
		*err = xasprintf("cannot create a temporary file next to %s: %s", path, strerror(errno));
		free(name);
		return NULL;
	}
	/* keeping the owner is best effort (only root may give files away); a
	 * file that could not keep it does not keep set-user/group-ID either */
	mode_t mode = st->st_mode & 07777;
	if (fchown(fd, st->st_uid, st->st_gid) != 0)
		mode &= ~(mode_t)06000;
	if (write_all(fd, data, len) != 0 || fchmod(fd, mode) != 0 || fsync(fd) != 0) {
		*err = xasprintf("cannot write a temporary file next to %s: %s", path, strerror(errno));
		close(fd);
		if (name)
			unlink(name);
		free(name);
		return NULL;
	}
	/* the last look before the switch, made before the temporary has a
	 * name, so that a kill between the two leaves nothing: a file changed
	 * while we wrote stays */
	if (expect_hash && !unchanged(path, *expect_hash)) {
		*err = xasprintf("%s: changed while it was being fixed; not fixing it (run again)", path);
		close(fd);
		if (name)
			unlink(name);
		free(name);
		return NULL;
	}
	if (anon) {
		char proc[64];
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		for (unsigned attempt = 0; attempt < 100 && !name; attempt++) {
			char *t = temp_name(path, attempt);
			if (linkat(AT_FDCWD, proc, AT_FDCWD, t, AT_SYMLINK_FOLLOW) == 0) {
				name = t;
				break;
			}
			free(t);
			if (errno != EEXIST)
				break;
		}
		if (!name) {
			close(fd);
			/* no /proc: the named way */
			return write_temp(path, st, data, len, false, expect_hash, err);
		}
	}
	close(fd);
	return name;
}

int atomic_replace(const char *path, const char *data, size_t len, const uint64_t *expect_hash, char **err)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		*err = xasprintf("%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		*err = xasprintf("%s: not a regular file", path);
		return -1;
	}
	/* a read-only file stays as it is (root could write it anyway) */
	if (!(st.st_mode & 0222) || access(path, W_OK) != 0) {
		*err = xasprintf("%s: read-only; not fixing it", path);
		return -1;
	}
	char *tmp = write_temp(path, &st, data, len, true, expect_hash, err);
	if (!tmp)
		return -1;
	sigclean_file(tmp); /* SIGTERM between here and the rename leaves nothing */
	test_delay_window(path);
	if (rename(tmp, path) != 0) {
		*err = xasprintf("cannot replace %s: %s", path, strerror(errno));
		unlink(tmp);
		sigclean_file(NULL);
		free(tmp);
		return -1;
	}
	sigclean_file(NULL);
	free(tmp);
	/* the rename itself reaches the disk */
	char *dir = path_dirname(path);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	free(dir);
	return 0;
}

int atomic_write(const char *path, const char *data, size_t len, char **err)
{
	return atomic_replace(path, data, len, NULL, err);
}

/* ---- collecting and applying ---- */

/* Most line ends of the text are CRLF. */
static bool uses_crlf(const char *text, size_t len)
{
	size_t crlf = 0, lf = 0;
	for (size_t i = 0; i < len; i++)
		if (text[i] == '\n') {
			if (i && text[i - 1] == '\r')
				crlf++;
			else
				lf++;
		}
	return crlf > lf;
}

/* The text with each LF not already after a CR made CRLF. */
static char *to_crlf(const char *t)
{
	struct strbuf sb = {0};
	sb_puts(&sb, "");
	for (const char *p = t; *p; p++) {
		if (*p == '\n' && (p == t || p[-1] != '\r'))
			sb_putc(&sb, '\r');
		sb_putc(&sb, *p);
	}
	return sb_detach(&sb);
}

struct fedit {
	struct edit e;
	size_t order;
};

static int fedit_cmp(const void *a, const void *b)
{
	const struct fedit *x = a, *y = b;
	if (x->e.off != y->e.off)
		return x->e.off < y->e.off ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static const struct tu_facts *tu_of(const struct run *r, const char *path, const struct tu_file **tf)
{
	for (size_t t = 0; t < r->ntus; t++)
		for (size_t i = 0; i < r->tus[t]->files.n; i++)
			if (strcmp(r->tus[t]->files.v[i].path, path) == 0) {
				*tf = &r->tus[t]->files.v[i];
				return r->tus[t];
			}
	return NULL;
}

static const struct tu_job *job_of(const struct run *r, const char *path)
{
	for (size_t i = 0; i < r->in.jobs.n; i++)
		if (strcmp(r->in.jobs.v[i].file, path) == 0)
			return &r->in.jobs.v[i];
	return NULL;
}

/* Below a directory the user named (inputs.h: write_roots)? */
static bool inside_roots(const struct run *r, const char *real)
{
	for (size_t i = 0; i < r->in.write_roots.n; i++)
		if (path_is_below(real, r->in.write_roots.v[i]))
			return true;
	return false;
}

/* Parses the rewritten file again; true when it has no more errors than before. */
static bool reparse_ok(const struct run *r, const char *path, unsigned before)
{
	const struct tu_job *job = job_of(r, path);
	if (!job)
		return true;          /* a header: checked through the TUs that include it on the next run */
	struct parse_opts po = r->po; /* the run's flags, virtual files and classifier */
	po.jobs = 1;
	po.progress = NULL;
	struct out_guard guard; /* libclang's own printing is not ours */
	out_guard_start(&guard, po.verbose);
	CXIndex idx = clang_createIndex(0, 0);
	struct tu_facts *tu = parse_one(idx, job, &po);
	bool ok = tu->status != TU_FAILED && tu->nerrors <= before;
	tu_facts_free(tu);
	clang_disposeIndex(idx);
	out_guard_stop(&guard);
	return ok;
}

/* temporaries an earlier --fix killed between writing and renaming left next
 * to any file of this run, fixed this time or not */
static void remove_stale_run_temps(struct run *r)
{
	for (size_t t = 0; t < r->ntus; t++)
		for (size_t i = 0; i < r->tus[t]->files.n; i++)
			if (inside_roots(r, r->tus[t]->files.v[i].path))
				remove_stale_temps(r->tus[t]->files.v[i].path);
}

/* the files the fixes of unsuppressed findings edit, in a stable order */
static void files_to_fix(const struct run *r, strlist *files)
{
	for (size_t i = 0; i < r->findings.v.n; i++) {
		const struct finding *f = r->findings.v.v[i];
		if (f->suppressed)
			continue;
		for (size_t k = 0; k < f->fixes.n; k++) {
			bool seen = false;
			for (size_t j = 0; j < files->n && !seen; j++)
				seen = strcmp(files->v[j], f->fixes.v[k].file) == 0;
			if (!seen)
				vec_push(files, xstrdup(f->fixes.v[k].file));
		}
	}
}

typedef VEC(struct edit) editvec;

/* path's edits, sorted; identical edits (the same fallback define for two
 * calls) once, overlaps dropped */
static void edits_of(const struct run *r, const char *path, editvec *keep)
{
	VEC(struct fedit) eds = {0};
	size_t order = 0;
	for (size_t i = 0; i < r->findings.v.n; i++) {
		const struct finding *f = r->findings.v.v[i];
		if (f->suppressed)
			continue;
		for (size_t k = 0; k < f->fixes.n; k++)
			if (strcmp(f->fixes.v[k].file, path) == 0) {
				struct fedit e = {{f->fixes.v[k].off, f->fixes.v[k].len, f->fixes.v[k].text}, order++};
				vec_push(&eds, e);
			}
	}
	xqsort(eds.v, eds.n, sizeof(*eds.v), fedit_cmp);
	for (size_t i = 0; i < eds.n; i++) {
		const struct edit *e = &eds.v[i].e;
		if (keep->n) {
			const struct edit *p = &keep->v[keep->n - 1];
			if (p->off == e->off && p->len == e->len && strcmp(p->text, e->text) == 0)
				continue;
			if (e->off < p->off + p->len) {
				log_warning("%s: overlapping fixes at offset %u; one was skipped", path, e->off);
				continue;
			}
		}
		vec_push(keep, *e);
	}
	vec_free(&eds);
}

/* One file's fixed text written in place of the original (inside the roots,
 * through a symlink to its target), then re-parsed: the original comes back
 * when the fixed file no longer parses cleanly. 1 fixed, -1 not. */
static int write_fixed(struct run *r, const char *path, const char *display, const char *text, size_t len,
		       const char *ntext, size_t nlen, size_t nedits)
{
	const struct tu_file *tf = NULL;
	const struct tu_facts *tu = tu_of(r, path, &tf);
	char *real = path_absolute(path);
	struct stat ls;
	bool link = lstat(path, &ls) == 0 && S_ISLNK(ls.st_mode);
	int rc = -1;
	char *err = NULL;
	const char *target = link ? real : path;
	if (!inside_roots(r, real)) {
		if (link)
			log_error("%s: a symlink to %s, outside the analysed tree; not fixing it", display, real);
		else
			log_error("%s: outside the analysed tree (reached through a symlink?); not fixing it", display);
		free(real);
		return -1;
	}
	remove_stale_temps(target);
	if (atomic_replace(target, ntext, nlen, &tf->hash, &err) != 0) {
		log_error("%s", err);
		free(err);
	} else if (!reparse_ok(r, path, tu ? tu->nerrors : 0)) {
		log_error("%s: the fixed file no longer parses cleanly; restored the original", display);
		if (atomic_write(target, text, len, &err) != 0) {
			log_error("%s", err);
			free(err);
		}
	} else {
		log_info("fixed %s (%zu edit%s)", display, nedits, nedits == 1 ? "" : "s");
		rc = 1;
	}
	free(real);
	return rc;
}

/* One file: its edits applied, as a diff (dry_run) or written. 1 changed,
 * -1 not (logged). */
static int fix_file(struct run *r, const char *path, bool dry_run, FILE *out)
{
	editvec keep = {0};
	edits_of(r, path, &keep);
	const struct tu_file *tf = NULL;
	tu_of(r, path, &tf);
	char *display = display_path(path);
	if (!dry_run)
		test_delay(display);
	size_t len = 0;
	char *text = read_file(path, &len, 0);
	int rc = -1;
	if (!text) {
		log_error("%s: cannot read: %s", display, strerror(errno));
	} else if (!tf || XXH3_64bits(text, len) != tf->hash) {
		log_error("%s: changed since it was analysed; not fixing it (run again)", display);
	} else {
		/* a file with CRLF line ends keeps them: the edits' new lines too */
		strlist crlf_texts = {0};
		if (uses_crlf(text, len))
			for (size_t k = 0; k < keep.n; k++) {
				char *c = to_crlf(keep.v[k].text);
				vec_push(&crlf_texts, c);
				keep.v[k].text = c;
			}
		size_t nlen = 0;
		char *ntext = apply_edits(text, len, keep.v, keep.n, &nlen);
		strlist_free(&crlf_texts);
		if (dry_run) {
			write_unified_diff(out, display, text, len, ntext, nlen);
			rc = 1;
		} else {
			rc = write_fixed(r, path, display, text, len, ntext, nlen, keep.n);
		}
		free(ntext);
	}
	free(display);
	free(text);
	vec_free(&keep);
	return rc;
}

int fix_run(struct run *r, bool dry_run, FILE *out)
{
	if (!dry_run)
		remove_stale_run_temps(r);
	strlist files = {0};
	files_to_fix(r, &files);
	int changed = 0, failed = 0;
	for (size_t fi = 0; fi < files.n; fi++) {
		if (fix_file(r, files.v[fi], dry_run, out) > 0)
			changed++;
		else
			failed++;
	}
	strlist_free(&files);
	return failed ? -1 : changed;
}
