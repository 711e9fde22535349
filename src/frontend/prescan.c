/* prescan.c: see prescan.h. */
#include "prescan.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_SCANNED_FILES 2000
#define MAX_SCANNED_BYTES (8u * 1024 * 1024) /* per file */

char *prescan_neutralise(const char *text, size_t len)
{
	char *copy = NULL;
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *hit = memmem(p, (size_t)(end - p), "__debug", 7);
		if (!hit)
			break;
		/* the line it is on */
		const char *ls = hit;
		while (ls > text && ls[-1] != '\n')
			ls--;
		const char *le = memchr(hit, '\n', (size_t)(end - hit));
		if (!le)
			le = end;
		if (memmem(ls, (size_t)(le - ls), "ragma", 5)) { /* #pragma, _Pragma, __pragma */
			if (!copy) {
				copy = xmalloc(len + 1);
				memcpy(copy, text, len);
				copy[len] = '\0';
			}
			memcpy(copy + (hit - text), "__nodbg", 7);
		}
		p = hit + 7;
	}
	return copy;
}

static bool under(const char *p, const char *dir)
{
	size_t n = strlen(dir);
	return strncmp(p, dir, n) == 0 && (p[n] == '/' || p[n] == '\0');
}

static bool special_place(const char *real)
{
	return under(real, "/dev") || under(real, "/proc") || under(real, "/sys");
}

/* NULL when path may be opened; else why not (static text). */
static const char *bad_target(const char *path, bool *exists, bool *regular)
{
	struct stat st;
	*exists = stat(path, &st) == 0;
	*regular = *exists && S_ISREG(st.st_mode);
	if (!*exists)
		return NULL;
	if (S_ISDIR(st.st_mode))
		return NULL; /* not a match: the preprocessor goes on searching */
	if (!S_ISREG(st.st_mode))
		return S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISSOCK(st.st_mode) ? "a socket" : "a device";
	char *real = realpath(path, NULL);
	bool special = real && special_place(real);
	free(real);
	return special ? "a file under /dev, /proc or /sys" : NULL;
}

struct scan {
	struct prescan *ps;
	strlist quote_dirs, dirs; /* -iquote; -I -isystem -idirafter in order */
	strlist queue;
	struct hmap seen;
	struct hmap macros; /* simple object-like macros: name -> its text */
	strlist deferred;   /* file, macro: #include MACRO not known when met */
	const char *const *sys;
	size_t nsys;
};

static bool is_sys(const struct scan *s, const char *p)
{
	if (under(p, "/usr") || under(p, "/opt") || under(p, "/lib"))
		return true;
	for (size_t i = 0; i < s->nsys; i++)
		if (under(p, s->sys[i]))
			return true;
	return false;
}

static void refuse(struct scan *s, const char *from, const char *name, const char *what)
{
	if (s->ps->refused)
		return;
	s->ps->refused = xasprintf("%s includes '%s', which is %s: not opened", from, name, what);
}

/* Checks a path that is opened as it is (-include FILE, an absolute #include). */
static bool check_named(struct scan *s, const char *from, const char *path, bool enqueue)
{
	bool exists, regular;
	const char *why = bad_target(path, &exists, &regular);
	if (why) {
		refuse(s, from, path, why);
		return true;
	}
	if (exists && regular && enqueue && !hmap_has(&s->seen, path) && !is_sys(s, path)) {
		char *k = xstrdup(path);
		hmap_put(&s->seen, k, (void *)1);
		vec_push(&s->queue, k);
	}
	return exists && regular;
}

static void resolve(struct scan *s, const char *from, const char *name, bool quoted)
{
	if (!*name)
		return;
	if (name[0] == '/') {
		check_named(s, from, name, true);
		return;
	}
	if (quoted) {
		char *d = path_dirname(from);
		char *c = path_join(d, name);
		free(d);
		bool found = check_named(s, from, c, true);
		free(c);
		if (found || s->ps->refused)
			return;
		for (size_t i = 0; i < s->quote_dirs.n; i++) {
			c = path_join(s->quote_dirs.v[i], name);
			found = check_named(s, from, c, true);
			free(c);
			if (found || s->ps->refused)
				return;
		}
	}
	for (size_t i = 0; i < s->dirs.n; i++) {
		char *c = path_join(s->dirs.v[i], name);
		bool found = check_named(s, from, c, true);
		free(c);
		if (found || s->ps->refused)
			return;
	}
}

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static void define_macro(struct scan *s, const char *name, size_t nl, const char *val, size_t vl)
{
	while (vl && (val[vl - 1] == ' ' || val[vl - 1] == '\t' || val[vl - 1] == '\r'))
		vl--;
	char *k = xstrndup(name, nl);
	bool had = hmap_has(&s->macros, k);
	free(hmap_put(&s->macros, k, xstrndup(val, vl)));
	if (had)
		free(k); /* the map keeps its first copy of the name */
}

/* The name an `#include MACRO` stands for when MACRO is a simple macro
 * (through a few levels); NULL otherwise. */
static const char *expand_include(const struct scan *s, const char *q, const char *le)
{
	char name[128];
	for (int depth = 0; depth < 8; depth++) {
		size_t nl = 0;
		while (q + nl < le && ident_char(q[nl]))
			nl++;
		if (!nl || nl >= sizeof(name))
			return NULL;
		memcpy(name, q, nl);
		name[nl] = '\0';
		const char *v = hmap_get(&s->macros, name);
		if (!v)
			return NULL;
		if (*v == '"' || *v == '<')
			return v;
		q = v;
		le = v + strlen(v);
	}
	return NULL;
}

/* What the pre-scan needs of one file, in order: its #define NAME value
 * lines, its #include lines (a name in "" or <>, or a macro name), and its
 * neutralised text (NULL when it has no debug pragma). */
enum {
	D_DEFINE,
	D_INCLUDE_Q,
	D_INCLUDE_A,
	D_INCLUDE_MACRO
};
struct directive {
	int kind;
	char *a, *b; /* name and value; the included name; the macro */
};
struct scanned {
	VEC(struct directive) d;
	char *neutral;
	size_t len;
	char *path; /* when cached: the map's key (overrides name it) */
	off_t size; /* the file's, when cached */
	struct timespec mtime;
};

static void push_directive(struct scanned *sc, int kind, const char *a, size_t al, const char *b, size_t bl)
{
	struct directive d = {kind, xstrndup(a, al), b ? xstrndup(b, bl) : NULL};
	vec_push(&sc->d, d);
}

static struct scanned *extract(const char *text, size_t len)
{
	struct scanned *sc = xcalloc(1, sizeof(*sc));
	sc->neutral = prescan_neutralise(text, len);
	sc->len = len;
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *le = memchr(p, '\n', (size_t)(end - p));
		if (!le)
			le = end;
		const char *q = p;
		while (q < le && (*q == ' ' || *q == '\t'))
			q++;
		if (q < le && *q == '#') {
			q++;
			while (q < le && (*q == ' ' || *q == '\t'))
				q++;
			size_t kw = 0;
			if ((size_t)(le - q) >= 12 && memcmp(q, "include_next", 12) == 0)
				kw = 12;
			else if ((size_t)(le - q) >= 7 && memcmp(q, "include", 7) == 0)
				kw = 7;
			else if ((size_t)(le - q) >= 6 && memcmp(q, "import", 6) == 0)
				kw = 6;
			if (!kw && (size_t)(le - q) >= 7 && memcmp(q, "define", 6) == 0 &&
			    (q[6] == ' ' || q[6] == '\t')) {
				/* `#define NAME value` (not NAME(...)) */
				q += 6;
				while (q < le && (*q == ' ' || *q == '\t'))
					q++;
				const char *n = q;
				while (q < le && ident_char(*q))
					q++;
				if (q > n && !(q < le && *q == '(')) {
					const char *nend = q;
					while (q < le && (*q == ' ' || *q == '\t'))
						q++;
					push_directive(sc, D_DEFINE, n, (size_t)(nend - n), q, (size_t)(le - q));
				}
			}
			q += kw;
			while (kw && q < le && (*q == ' ' || *q == '\t'))
				q++;
			if (kw && q < le && ident_char(*q)) {
				const char *n = q;
				while (q < le && ident_char(*q))
					q++;
				push_directive(sc, D_INCLUDE_MACRO, n, (size_t)(q - n), NULL, 0);
			} else if (kw && q < le && (*q == '"' || *q == '<')) {
				char close = *q == '"' ? '"' : '>';
				const char *ne = memchr(q + 1, close, (size_t)(le - q - 1));
				if (ne)
					push_directive(sc, close == '"' ? D_INCLUDE_Q : D_INCLUDE_A, q + 1,
						       (size_t)(ne - q - 1), NULL, 0);
			}
		}
		p = le + 1;
	}
	return sc;
}

static void scanned_free(struct scanned *sc)
{
	if (!sc)
		return;
	for (size_t i = 0; i < sc->d.n; i++) {
		free(sc->d.v[i].a);
		free(sc->d.v[i].b);
	}
	vec_free(&sc->d);
	free(sc->neutral);
	free(sc->path);
	free(sc);
}

/* The directives of a file, in the order the preprocessor meets them. */
static void replay(struct scan *s, const char *path, const struct scanned *sc)
{
	for (size_t i = 0; i < sc->d.n && !s->ps->refused; i++) {
		const struct directive *d = &sc->d.v[i];
		if (d->kind == D_DEFINE) {
			define_macro(s, d->a, strlen(d->a), d->b, strlen(d->b));
		} else if (d->kind == D_INCLUDE_MACRO) {
			const char *v = expand_include(s, d->a, d->a + strlen(d->a));
			const char *ne = v ? strchr(v + 1, *v == '"' ? '"' : '>') : NULL;
			if (ne) {
				char *name = xstrndup(v + 1, (size_t)(ne - v - 1));
				resolve(s, path, name, *v == '"');
				free(name);
			} else if (s->deferred.n < 4096) {
				/* the macro may come from a header scanned later */
				vec_push(&s->deferred, xstrdup(path));
				vec_push(&s->deferred, xstrdup(d->a));
			}
		} else {
			resolve(s, path, d->a, d->kind == D_INCLUDE_Q);
		}
	}
}

/* Project headers are read once per process (a parser process, or this one
 * with --tu-timeout 0), not once per file that includes them: path ->
 * struct scanned, checked against the file's size and time. Bounded; past
 * the bound a header is read per file again. */
#define CACHE_MAX_FILES 20000
#define CACHE_MAX_BYTES (64u * 1024 * 1024) /* of neutralised texts */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hmap header_cache;
static size_t cache_bytes;

static const struct scanned *cached_header(const char *path, struct scanned **owned)
{
	*owned = NULL;
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return NULL;
	pthread_mutex_lock(&cache_lock);
	const struct scanned *hit = hmap_get(&header_cache, path);
	pthread_mutex_unlock(&cache_lock);
	if (hit && hit->size == st.st_size && hit->mtime.tv_sec == st.st_mtim.tv_sec &&
	    hit->mtime.tv_nsec == st.st_mtim.tv_nsec)
		return hit;
	size_t hl = 0;
	char *h = read_file(path, &hl, MAX_SCANNED_BYTES);
	if (!h)
		return NULL;
	struct scanned *sc = extract(h, hl);
	free(h);
	sc->size = st.st_size;
	sc->mtime = st.st_mtim;
	pthread_mutex_lock(&cache_lock);
	size_t add = sc->neutral ? sc->len : 0;
	if (!hmap_has(&header_cache, path) && header_cache.n < CACHE_MAX_FILES &&
	    cache_bytes + add <= CACHE_MAX_BYTES) {
		sc->path = xstrdup(path);
		hmap_put(&header_cache, sc->path, sc);
		cache_bytes += add;
		pthread_mutex_unlock(&cache_lock);
		return sc; /* entries stay for the process's life, unchanged */
	}
	pthread_mutex_unlock(&cache_lock);
	*owned = sc;
	return sc;
}

static void add_override(struct prescan *ps, const char *path, const struct scanned *sc, bool own)
{
	if (!sc->neutral)
		return;
	const char *name = sc->path ? sc->path : path, *text = sc->neutral;
	if (own || !sc->path) {
		char *n = xstrdup(path), *t = xmalloc(sc->len + 1);
		memcpy(t, sc->neutral, sc->len + 1);
		vec_push(&ps->store, n);
		vec_push(&ps->store, t);
		name = n;
		text = t;
	}
	struct CXUnsavedFile u = {name, text, (unsigned long)sc->len};
	vec_push(&ps->overrides, u);
}

static void dir_arg(struct scan *s, char *const *args, size_t nargs, size_t *i)
{
	static const char *const opts[] = {"-iquote", "-I", "-isystem", "-idirafter"};
	const char *a = args[*i];
	for (size_t k = 0; k < ARRAY_SIZE(opts); k++) {
		size_t ol = strlen(opts[k]);
		if (strncmp(a, opts[k], ol) != 0)
			continue;
		const char *v = a[ol] ? a + ol : (*i + 1 < nargs ? args[++*i] : NULL);
		if (!v || *v == '-')
			return;
		vec_push(k == 0 ? &s->quote_dirs : &s->dirs, xstrdup(v));
		return;
	}
}

void prescan_run(struct prescan *ps, const char *file, const char *text, size_t len, char *const *args, size_t nargs,
		 const char *const *sys_dirs, size_t nsys)
{
	memset(ps, 0, sizeof(*ps));
	struct scan s = {0};
	s.ps = ps;
	s.sys = sys_dirs;
	s.nsys = nsys;
	for (size_t i = 0; i < nargs; i++) {
		/* -DNAME=value, -D NAME=value */
		const char *d = strncmp(args[i], "-D", 2) == 0
					? (args[i][2] ? args[i] + 2 : (i + 1 < nargs ? args[i + 1] : NULL))
					: NULL;
		const char *eq = d ? strchr(d, '=') : NULL;
		if (eq && eq > d)
			define_macro(&s, d, (size_t)(eq - d), eq + 1, strlen(eq + 1));
		dir_arg(&s, args, nargs, &i);
	}
	/* -include FILE, -imacros FILE: opened as named */
	for (size_t i = 0; i + 1 < nargs && !ps->refused; i++)
		if (strcmp(args[i], "-include") == 0 || strcmp(args[i], "-imacros") == 0)
			check_named(&s, file, args[i + 1], true);
	hmap_put(&s.seen, xstrdup(file), (void *)1);
	struct scanned *main_sc = extract(text, len);
	add_override(ps, file, main_sc, true);
	replay(&s, file, main_sc);
	scanned_free(main_sc);
	for (size_t qi = 0; qi < s.queue.n && qi < MAX_SCANNED_FILES && !ps->refused; qi++) {
		struct scanned *owned = NULL;
		const struct scanned *sc = cached_header(s.queue.v[qi], &owned);
		if (!sc)
			continue;
		/* a cached text lives as long as the process: no copy */
		add_override(ps, s.queue.v[qi], sc, owned != NULL);
		replay(&s, s.queue.v[qi], sc);
		scanned_free(owned);
	}
	/* includes through macros a header defined after the include was met
	 * (the scan goes file by file, not in the preprocessor's order): tried
	 * again with every macro seen (this may refuse a file whose include
	 * the real expansion would not make: "not analysed", never a wrong
	 * result; the open guard sees what libclang really opens) */
	for (size_t i = 0; i + 1 < s.deferred.n && !ps->refused; i += 2) {
		const char *m = s.deferred.v[i + 1];
		const char *v = expand_include(&s, m, m + strlen(m));
		const char *ne = v ? strchr(v + 1, *v == '"' ? '"' : '>') : NULL;
		if (ne) {
			char *name = xstrndup(v + 1, (size_t)(ne - v - 1));
			resolve(&s, s.deferred.v[i], name, *v == '"');
			free(name);
		}
	}
	strlist_free(&s.deferred);
	hmap_foreach(&s.seen, e) free((char *)e->key);
	hmap_free(&s.seen);
	hmap_foreach(&s.macros, e)
	{
		free((char *)e->key);
		free(e->val);
	}
	hmap_free(&s.macros);
	vec_free(&s.queue); /* its strings are the keys of seen */
	strlist_free(&s.quote_dirs);
	strlist_free(&s.dirs);
}

void prescan_free(struct prescan *ps)
{
	strlist_free(&ps->store);
	vec_free(&ps->overrides);
	free(ps->refused);
	memset(ps, 0, sizeof(*ps));
}

/* ---- the open guard (prescan.h) ---- */

#define GUARD_LOG 16

static atomic_int guard_armed;
static atomic_ulong guard_seen; /* opens looked at while armed */
static atomic_ulong guard_seq;  /* refusals so far */
static pthread_mutex_t guard_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	unsigned long seq;
	char path[256];
	char text[320];
} guard_log[GUARD_LOG];

static int raw_open(const char *path, int flags, mode_t mode)
{
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

static void guard_record(const char *path, const char *what)
{
	pthread_mutex_lock(&guard_lock);
	unsigned long seq = atomic_fetch_add(&guard_seq, 1) + 1;
	guard_log[seq % GUARD_LOG].seq = seq;
	snprintf(guard_log[seq % GUARD_LOG].path, sizeof(guard_log[0].path), "%s", path);
	snprintf(guard_log[seq % GUARD_LOG].text, sizeof(guard_log[0].text), "includes '%s', which is %s: not opened",
		 path, what);
	pthread_mutex_unlock(&guard_lock);
}

/* Why path must not be opened (static text), or NULL. */
static const char *guard_check(const char *path, struct stat *st)
{
	if (strcmp(path, "/dev/null") == 0) /* empty: harmless (and the flag probe's file) */
		return NULL;
	if (stat(path, st) != 0 || S_ISDIR(st->st_mode))
		return NULL; /* the open fails, or opens a directory, as it would anyway */
	if (!S_ISREG(st->st_mode))
		return S_ISFIFO(st->st_mode) ? "a FIFO" : S_ISSOCK(st->st_mode) ? "a socket" : "a device";
	char *real = realpath(path, NULL);
	bool special = real && special_place(real);
	free(real);
	return special ? "a file under /dev, /proc or /sys" : NULL;
}

static int guarded_open(const char *path, int flags, mode_t mode)
{
	if (!atomic_load(&guard_armed) || !path || (flags & O_ACCMODE) != O_RDONLY ||
	    ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE))
		return raw_open(path, flags, mode);
	atomic_fetch_add(&guard_seen, 1);
	struct stat st, st2;
	const char *why = guard_check(path, &st);
	if (!why) {
		int fd = raw_open(path, flags, mode);
		if (fd < 0 || !S_ISREG(st.st_mode))
			return fd;
		/* what was opened is what was looked at */
		if (fstat(fd, &st2) == 0 && S_ISREG(st2.st_mode) && st2.st_dev == st.st_dev && st2.st_ino == st.st_ino)
			return fd;
		close(fd);
		why = "not the regular file it was a moment before";
	}
	guard_record(path, why);
	errno = EACCES;
	return -1;
}

/* libclang (libLLVM) opens every file it reads with open(): this definition,
 * exported from the executable (CMakeLists.txt), is the one it calls */
int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) {
		va_list ap;
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	return guarded_open(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) {
		va_list ap;
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	return guarded_open(path, flags, mode);
}

unsigned long prescan_guard_arm(void)
{
	atomic_fetch_add(&guard_armed, 1);
	return atomic_load(&guard_seq);
}

char *prescan_guard_disarm(unsigned long token, bool (*mine)(const char *path, void *ctx), void *ctx)
{
	atomic_fetch_sub(&guard_armed, 1);
	char *why = NULL, *first = NULL;
	pthread_mutex_lock(&guard_lock);
	unsigned long last = atomic_load(&guard_seq);
	for (unsigned long q = token + 1; q <= last && !why; q++) {
		if (guard_log[q % GUARD_LOG].seq != q)
			continue;
		if (!first)
			first = xstrdup(guard_log[q % GUARD_LOG].text);
		if (mine && mine(guard_log[q % GUARD_LOG].path, ctx))
			why = xstrdup(guard_log[q % GUARD_LOG].text);
	}
	pthread_mutex_unlock(&guard_lock);
	if (mine) {
		free(first);
		return why;
	}
	return first;
}

bool prescan_guard_effective(void)
{
	return atomic_load(&guard_seen) > 0;
}
