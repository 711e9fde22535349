/* util.c: see util.h. */
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void out_of_memory(size_t n)
{
	fprintf(stderr, "nogvl-lint: out of memory (%zu bytes)\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		out_of_memory(n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		out_of_memory(n * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		out_of_memory(n);
	return q;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	struct strbuf sb = {0};
	sb_vprintf(&sb, fmt, ap);
	if (!sb.buf)
		return xstrdup("");
	return sb.buf;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

void strlist_free(strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	vec_free(l);
}

/* ---- strbuf ---- */

void sb_grow(struct strbuf *sb, size_t extra)
{
	size_t want = sb->len + extra + 1;
	if (want <= sb->cap)
		return;
	size_t nc = sb->cap ? sb->cap * 2 : 64;
	while (nc < want)
		nc *= 2;
	sb->buf = xrealloc(sb->buf, nc);
	sb->cap = nc;
}

void sb_add(struct strbuf *sb, const char *s, size_t n)
{
	sb_grow(sb, n);
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sb_puts(struct strbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

void sb_putc(struct strbuf *sb, char c)
{
	sb_add(sb, &c, 1);
}

void sb_vprintf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	va_copy(cp, ap);
	int n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	sb_grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void sb_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(sb, fmt, ap);
	va_end(ap);
}

const char *sb_str(struct strbuf *sb)
{
	return sb->buf ? sb->buf : "";
}

char *sb_detach(struct strbuf *sb)
{
	char *s = sb->buf ? sb->buf : xstrdup("");
	sb->buf = NULL;
	sb->len = sb->cap = 0;
	return s;
}

void sb_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

void sb_free(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

/* ---- arena ---- */

struct arena_block {
	struct arena_block *next;
	size_t size, used;
	_Alignas(16) unsigned char data[];
};

void *arena_alloc(struct arena *a, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (n > 4096 && a->head && a->head->size - a->head->used < n) {
		/* a block of its own, behind the current one, whose free space
		 * stays in use (facts of a whole gem are held in arenas) */
		struct arena_block *b = xmalloc(sizeof(*b) + n);
		b->size = b->used = n;
		b->next = a->head->next;
		a->head->next = b;
		a->used_total += n;
		memset(b->data, 0, n);
		return b->data;
	}
	if (!a->head || a->head->size - a->head->used < n) {
		size_t sz = n > 32768 ? n : 32768;
		struct arena_block *b = xmalloc(sizeof(*b) + sz);
		b->next = a->head;
		b->size = sz;
		b->used = 0;
		a->head = b;
	}
	void *p = a->head->data + a->head->used;
	a->head->used += n;
	a->used_total += n;
	memset(p, 0, n);
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return s ? arena_strndup(a, s, strlen(s)) : NULL;
}

void *arena_memdup(struct arena *a, const void *p, size_t n)
{
	void *q = arena_alloc(a, n);
	if (n)
		memcpy(q, p, n);
	return q;
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *tmp = xvasprintf(fmt, ap);
	va_end(ap);
	char *s = arena_strdup(a, tmp);
	free(tmp);
	return s;
}

void arena_free(struct arena *a)
{
	struct arena_block *b = a->head;
	while (b) {
		struct arena_block *n = b->next;
		free(b);
		b = n;
	}
	a->head = NULL;
	a->used_total = 0;
}

/* ---- hash map (open addressing, linear probing) ---- */

uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

static struct hmap_entry *hmap_find(const struct hmap *m, const char *key, uint64_t h)
{
	if (!m->cap)
		return NULL;
	size_t mask = m->cap - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct hmap_entry *e = &m->slots[i];
		if (!e->key)
			return e;
		if (e->hash == h && strcmp(e->key, key) == 0)
			return e;
	}
}

void *hmap_get(const struct hmap *m, const char *key)
{
	struct hmap_entry *e = hmap_find(m, key, str_hash(key));
	return e && e->key ? e->val : NULL;
}

bool hmap_has(const struct hmap *m, const char *key)
{
	struct hmap_entry *e = hmap_find(m, key, str_hash(key));
	return e && e->key;
}

void *hmap_put(struct hmap *m, const char *key, void *val)
{
	if ((m->n + 1) * 4 > m->cap * 3) {
		size_t nc = m->cap ? m->cap * 2 : 64;
		struct hmap_entry *old = m->slots;
		size_t oc = m->cap;
		m->slots = xcalloc(nc, sizeof(*m->slots));
		m->cap = nc;
		for (size_t i = 0; i < oc; i++)
			if (old[i].key)
				*hmap_find(m, old[i].key, old[i].hash) = old[i];
		free(old);
	}
	uint64_t h = str_hash(key);
	struct hmap_entry *e = hmap_find(m, key, h);
	if (e->key) {
		void *prev = e->val;
		e->val = val;
		return prev;
	}
	e->key = key;
	e->hash = h;
	e->val = val;
	m->n++;
	return NULL;
}

void hmap_free(struct hmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->n = 0;
}

const char *intern_n(struct strpool *p, const char *s, size_t n)
{
	char stackbuf[256];
	char *tmp = n < sizeof(stackbuf) ? stackbuf : xmalloc(n + 1);
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	const char *found = hmap_get(&p->map, tmp);
	if (!found) {
		char *copy = arena_strndup(&p->arena, tmp, n);
		hmap_put(&p->map, copy, copy);
		found = copy;
	}
	if (tmp != stackbuf)
		free(tmp);
	return found;
}

const char *intern(struct strpool *p, const char *s)
{
	return s ? intern_n(p, s, strlen(s)) : NULL;
}

void strpool_free(struct strpool *p)
{
	hmap_free(&p->map);
	arena_free(&p->arena);
}

/* ---- strings ---- */

bool str_starts(const char *s, const char *prefix)
{
	return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

bool str_ends(const char *s, const char *suffix)
{
	if (!s)
		return false;
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

bool str_eq(const char *a, const char *b)
{
	if (a == b)
		return true;
	if (!a || !b)
		return false;
	return strcmp(a, b) == 0;
}

int str_cmp(const char *a, const char *b)
{
	if (a == b)
		return 0;
	if (!a)
		return -1;
	if (!b)
		return 1;
	return strcmp(a, b);
}

int str_in_list(const char *s, const char *const *list, size_t n)
{
	if (!s)
		return -1;
	for (size_t i = 0; (n ? i < n : list[i] != NULL); i++)
		if (strcmp(s, list[i]) == 0)
			return (int)i;
	return -1;
}

bool str_in_sorted(const char *s, const char *const *sorted, size_t n)
{
	if (!s)
		return false;
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(s, sorted[mid]);
		if (c == 0)
			return true;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return false;
}

/* ---- paths ---- */

char *path_join(const char *a, const char *b)
{
	if (!a || !*a || b[0] == '/')
		return xstrdup(b);
	size_t la = strlen(a);
	return xasprintf("%s%s%s", a, a[la - 1] == '/' ? "" : "/", b);
}

char *path_dirname(const char *p)
{
	const char *slash = strrchr(p, '/');
	if (!slash)
		return xstrdup(".");
	if (slash == p)
		return xstrdup("/");
	return xstrndup(p, (size_t)(slash - p));
}

const char *path_basename(const char *p)
{
	const char *slash = strrchr(p, '/');
	return slash ? slash + 1 : p;
}

char *path_normalize(const char *p)
{
	bool abs = p[0] == '/';
	VEC(char *) parts = {0};
	char *copy = xstrdup(p);
	char *save = NULL;
	for (char *tok = strtok_r(copy, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (strcmp(tok, ".") == 0)
			continue;
		if (strcmp(tok, "..") == 0) {
			if (parts.n && strcmp(parts.v[parts.n - 1], "..") != 0) {
				parts.n--;
				continue;
			}
			if (abs)
				continue;
		}
		vec_push(&parts, tok);
	}
	struct strbuf sb = {0};
	if (abs)
		sb_putc(&sb, '/');
	for (size_t i = 0; i < parts.n; i++) {
		if (i)
			sb_putc(&sb, '/');
		sb_puts(&sb, parts.v[i]);
	}
	if (!sb.len)
		sb_putc(&sb, '.');
	vec_free(&parts);
	free(copy);
	return sb_detach(&sb);
}

char *path_absolute(const char *p)
{
	char buf[PATH_MAX];
	if (realpath(p, buf))
		return xstrdup(buf);
	if (p[0] == '/')
		return path_normalize(p);
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof(cwd)))
		return path_normalize(p);
	char *j = path_join(cwd, p);
	char *n = path_normalize(j);
	free(j);
	return n;
}

bool path_is_below(const char *p, const char *dir)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (strncmp(p, dir, n) != 0)
		return false;
	return p[n] == '/' || p[n] == '\0' || (n == 1 && dir[0] == '/');
}

char *path_relative(const char *p, const char *base)
{
	if (base && path_is_below(p, base)) {
		size_t n = strlen(base);
		while (n > 1 && base[n - 1] == '/')
			n--;
		const char *rest = p + n;
		while (*rest == '/')
			rest++;
		if (*rest)
			return xstrdup(rest);
	}
	return xstrdup(p);
}

bool path_is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

bool path_is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

const char *path_ext(const char *p)
{
	const char *base = path_basename(p);
	const char *dot = strrchr(base, '.');
	return dot && dot != base ? dot : "";
}

char *read_file(const char *path, size_t *len, size_t max_bytes)
{
	/* O_NONBLOCK: opening a FIFO (a "source file" or response file planted in
	 * the analysed tree) would otherwise wait for a writer forever; only
	 * regular files are read, so the flag changes nothing else */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		return NULL;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	if (max_bytes && (size_t)st.st_size > max_bytes) {
		close(fd);
		errno = EFBIG;
		return NULL;
	}
	size_t cap = (size_t)st.st_size + 1, n = 0;
	char *buf = xmalloc(cap);
	for (;;) {
		if (n + 1 >= cap) {
			if (max_bytes && cap > max_bytes) {
				free(buf);
				close(fd);
				errno = EFBIG;
				return NULL;
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

char *read_bounded_text(const char *path, size_t max_bytes, const char *what, size_t *len, char **err)
{
	/* max_bytes + 1: read_file refuses a file that fills its cap exactly */
	char *text = read_file(path, len, max_bytes + 1);
	if (!text) {
		if (errno == EFBIG)
			*err = xasprintf("%s:1:1: larger than %zu KiB: not a %s", path, max_bytes / 1024, what);
		else
			*err = xasprintf("%s: cannot read: %s", path, strerror(errno));
	}
	return text;
}

void sb_put_visible(struct strbuf *sb, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		if (*p < 0x20 && *p != '\t') {
			sb_putc(sb, '^');
			sb_putc(sb, (char)(*p + '@'));
		} else if (*p == 0x7f) {
			sb_puts(sb, "^?");
		} else if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
			sb_printf(sb, "<U+%04X>", p[1]);
			p++;
		} else if (p[0] == 0xe2 && ((p[1] == 0x80 && p[2] >= 0xaa && p[2] <= 0xae) ||
					    (p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9))) {
			sb_printf(sb, "<U+%04X>", 0x2000 | ((p[1] & 0x3f) << 6) | (p[2] & 0x3f));
			p += 2;
		} else {
			sb_putc(sb, (char)*p);
		}
	}
}

void fput_visible(const char *s, FILE *out)
{
	struct strbuf sb = {0};
	sb_put_visible(&sb, s);
	if (sb.len)
		fwrite(sb.buf, 1, sb.len, out);
	sb_free(&sb);
}

const char *run_outcome_text(enum run_outcome r)
{
	switch (r) {
	case RUN_OK:
		return "ok";
	case RUN_FAILED:
		return "failed";
	case RUN_NOT_FOUND:
		return "not found";
	case RUN_TIMED_OUT:
		return "timed out";
	case RUN_TOO_MUCH:
		return "printed too much";
	case RUN_CANNOT:
		return "could not be started";
	}
	return "?";
}

/* In the child: every descriptor above 2 closed (those of other threads'
 * pipes and files included, CLOEXEC or not). */
static void close_from_3(void)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, 3u, ~0u, 0u) == 0)
		return;
#endif
	long max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 65536)
		max = 65536;
	for (int fd = 3; fd < max; fd++)
		close(fd);
}

void run_process(const struct run_spec *spec, struct run_result *r)
{
	memset(r, 0, sizeof(*r));
	r->status = -1;
	r->outcome = RUN_CANNOT;
	int out[2], err[2] = {-1, -1};
	if (pipe2(out, O_CLOEXEC) != 0)
		return;
	if (spec->keep_err && pipe2(err, O_CLOEXEC) != 0) {
		close(out[0]);
		close(out[1]);
		return;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(out[0]);
		close(out[1]);
		if (err[0] >= 0) {
			close(err[0]);
			close(err[1]);
		}
		return;
	}
	if (pid == 0) {
		/* only async-signal-safe calls: its own process group, so a
		 * timeout kills what it started too */
		setpgid(0, 0);
		int devnull = open("/dev/null", O_RDWR);
		if (devnull < 0)
			_exit(126);
		dup2(devnull, 0);
		dup2(out[1], 1);
		dup2(err[1] >= 0 ? err[1] : devnull, 2);
		close_from_3();
		if (spec->dir && chdir(spec->dir) != 0) {
			static const char msg[] = "cannot enter the directory\n";
			ssize_t w = write(2, msg, sizeof(msg) - 1);
			(void)w;
			_exit(126);
		}
		execvp(spec->argv[0], spec->argv);
		_exit(127);
	}
	setpgid(pid, pid); /* (racing the child's own call: either wins) */
	close(out[1]);
	if (err[1] >= 0)
		close(err[1]);
	struct strbuf sb = {0}, eb = {0};
	double deadline = spec->timeout_ms ? now_seconds() + spec->timeout_ms / 1000.0 : 0;
	enum run_outcome res = RUN_OK;
	int ofd = out[0], efd = err[0];
	while (ofd >= 0 || efd >= 0) {
		int wait_ms = -1;
		if (deadline > 0) {
			double left = deadline - now_seconds();
			if (left <= 0) {
				res = RUN_TIMED_OUT;
				break;
			}
			wait_ms = (int)(left * 1000) + 1;
		}
		struct pollfd pfd[2] = {{ofd, POLLIN, 0}, {efd, POLLIN, 0}};
		int pr = poll(pfd, 2, wait_ms);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0)
			break;
		if (pr == 0)
			continue; /* the deadline check above ends it */
		char buf[65536];
		if (ofd >= 0 && pfd[0].revents) {
			ssize_t n = read(ofd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(ofd);
				ofd = -1;
			} else if (sb.len + (size_t)n > spec->max_out) {
				res = RUN_TOO_MUCH;
				break;
			} else {
				sb_add(&sb, buf, (size_t)n);
			}
		}
		if (efd >= 0 && pfd[1].revents) {
			ssize_t n = read(efd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(efd);
				efd = -1;
			} else if (eb.len < 512) { /* the first line is all that is kept */
				sb_add(&eb, buf, (size_t)n < 512 - eb.len ? (size_t)n : 512 - eb.len);
			}
		}
	}
	if (ofd >= 0)
		close(ofd);
	if (efd >= 0)
		close(efd);
	if (res != RUN_OK) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
	}
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status))
		r->status = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		r->signal = WTERMSIG(status);
	if (res == RUN_OK) {
		if (r->status == 127)
			res = RUN_NOT_FOUND;
		else if (r->status != 0)
			res = RUN_FAILED;
	}
	r->outcome = res;
	if (eb.len) {
		char *e = sb_detach(&eb);
		e[strcspn(e, "\r\n")] = '\0';
		r->err_line = e;
	}
	sb_free(&eb);
	if (res == RUN_OK || res == RUN_FAILED) {
		r->out_len = sb.len;
		r->out = sb.buf ? sb_detach(&sb) : xstrdup("");
	}
	sb_free(&sb);
}

void run_result_free(struct run_result *r)
{
	free(r->out);
	free(r->err_line);
	memset(r, 0, sizeof(*r));
}

char *capture_command(char *const argv[], size_t max)
{
	struct run_spec spec = {.argv = argv, .timeout_ms = 60000, .max_out = max};
	struct run_result r;
	run_process(&spec, &r);
	char *out = NULL;
	if (r.outcome == RUN_OK) {
		out = r.out;
		r.out = NULL;
	}
	run_result_free(&r);
	return out;
}

void line_index_build(struct line_index *li, const char *text, size_t len)
{
	size_t n = 1;
	for (size_t i = 0; i < len; i++)
		if (text[i] == '\n')
			n++;
	li->start = xmalloc((n + 1) * sizeof(uint32_t));
	li->n = 0;
	li->start[li->n++] = 0;
	for (size_t i = 0; i < len; i++)
		if (text[i] == '\n')
			li->start[li->n++] = (uint32_t)(i + 1);
}

uint32_t line_index_offset(const struct line_index *li, uint32_t line, uint32_t col)
{
	if (line == 0 || line > li->n)
		return UINT32_MAX;
	return li->start[line - 1] + (col ? col - 1 : 0);
}

void line_index_free(struct line_index *li)
{
	free(li->start);
	li->start = NULL;
	li->n = 0;
}

void xqsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1 && base)
		qsort(base, n, size, cmp);
}

unsigned cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A name that is not a file to replace: a character device, FIFO or socket
 * named directly (`-o /dev/null`, a pipe), or any name in /dev or /proc
 * (`/dev/stdout`, `/proc/self/fd/1`: symlinks the system made, not the
 * analysed tree, whatever they lead to). Renaming a file over such a name would replace the device
 * itself. */
static bool write_in_place(const char *path)
{
	struct stat st;
	if (lstat(path, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		return true;
	char *dir = path_dirname(path);
	char *real = realpath(dir[0] ? dir : ".", NULL);
	free(dir);
	bool sys = real && (strcmp(real, "/dev") == 0 || str_starts(real, "/dev/") || strcmp(real, "/proc") == 0 ||
			    str_starts(real, "/proc/"));
	free(real);
	return sys && stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

#define REPLACE_INFIX ".nogvl-lint."
/* *tmp of an anonymous (O_TMPFILE) temporary starts with this byte; the
 * rest is the template of the name it is given at commit */
#define ANON_MARK '\x01'

/* Removes temporaries (".<base>.nogvl-lint.XXXXXX", regular files) that a
 * run killed with SIGKILL left next to path. */
static void remove_stale_replace_temps(const char *path)
{
	char *dir = path_dirname(path);
	const char *base = path_basename(path);
	size_t bl = strlen(base), il = strlen(REPLACE_INFIX);
	DIR *d = opendir(dir[0] ? dir : ".");
	if (d) {
		struct dirent *de;
		while ((de = readdir(d)) != NULL) {
			const char *n = de->d_name;
			if (n[0] != '.' || strncmp(n + 1, base, bl) != 0 ||
			    strncmp(n + 1 + bl, REPLACE_INFIX, il) != 0 || strlen(n + 1 + bl + il) != 6)
				continue;
			char *t = path_join(dir, n);
			struct stat st;
			if (lstat(t, &st) == 0 && S_ISREG(st.st_mode))
				unlink(t);
			free(t);
		}
		closedir(d);
	}
	free(dir);
}

FILE *file_replace_open(const char *path, char **tmp)
{
	if (write_in_place(path)) {
		*tmp = NULL;
		/* /dev/stderr may lead to a file the caller is appending to */
		int fd = open(path, O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC);
		FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
		if (fd >= 0 && !f)
			close(fd);
		return f;
	}
	remove_stale_replace_temps(path);
	char *dir = path_dirname(path);
	mode_t um = umask(0);
	umask(um);
	/* anonymous while it is written: a run killed (even by SIGKILL)
	 * before the commit leaves nothing; it gets a name (linkat through
	 * /proc/self/fd) only to be renamed at once */
	int fd = access("/proc/self/fd", X_OK) == 0
			 ? open(dir[0] ? dir : ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666 & ~um)
			 : -1;
	if (fd >= 0) {
		*tmp = xasprintf("%c%s/.%s" REPLACE_INFIX "XXXXXX", ANON_MARK, dir, path_basename(path));
	} else {
		*tmp = xasprintf("%s/.%s" REPLACE_INFIX "XXXXXX", dir, path_basename(path));
		fd = mkstemp(*tmp);
	}
	free(dir);
	if (fd < 0) {
		free(*tmp);
		*tmp = NULL;
		return NULL;
	}
	fchmod(fd, 0666 & ~um);
	FILE *f = fdopen(fd, "w");
	if (!f) {
		int e = errno;
		close(fd);
		if (**tmp != ANON_MARK)
			unlink(*tmp);
		free(*tmp);
		*tmp = NULL;
		errno = e;
	}
	return f;
}

/* Gives the anonymous file f a name from template (its XXXXXX replaced). */
static int link_anonymous(FILE *f, char *name)
{
	char proc[64];
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fileno(f));
	size_t n = strlen(name);
	for (unsigned attempt = 0; attempt < 100; attempt++) {
		static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
		uint64_t x = str_hash(name) ^ ((uint64_t)getpid() << 20) ^ (uint64_t)(now_seconds() * 1e9) ^
			     (uint64_t)attempt * 0x9E3779B97F4A7C15u;
		for (size_t i = n - 6; i < n; i++, x /= 62)
			name[i] = chars[x % 62];
		if (linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0)
			return 0;
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

int file_replace_commit(FILE *f, char *tmp, const char *path, bool ok)
{
	if (fflush(f) != 0 || ferror(f))
		ok = false;
	bool anon = tmp && tmp[0] == ANON_MARK;
	char *name = anon ? tmp + 1 : tmp;
	if (anon && ok && link_anonymous(f, name) != 0) {
		ok = false;
		anon = false; /* nothing named to remove */
		name = NULL;
	} else if (anon && !ok) {
		name = NULL; /* never named */
	}
	if (fclose(f) != 0)
		ok = false;
	int e = errno;
	if (!tmp) /* written in place (write_in_place) */
		return ok ? 0 : (errno = e ? e : EIO, -1);
	if (ok) {
		/* rename replaces a symlink at the name, never its target */
		if (rename(name, path) == 0) {
			free(tmp);
			return 0;
		}
		e = errno;
	}
	if (name)
		unlink(name);
	free(tmp);
	errno = e ? e : EIO;
	return -1;
}
