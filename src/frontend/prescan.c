/* prescan.c: see prescan.h. */
#include "prescan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

static void scan_text(struct scan *s, const char *path, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	while (p < end && !s->ps->refused) {
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
			q += kw;
			while (kw && q < le && (*q == ' ' || *q == '\t'))
				q++;
			if (kw && q < le && (*q == '"' || *q == '<')) {
				char close = *q == '"' ? '"' : '>';
				const char *ne = memchr(q + 1, close, (size_t)(le - q - 1));
				if (ne) {
					char *name = xstrndup(q + 1, (size_t)(ne - q - 1));
					resolve(s, path, name, close == '"');
					free(name);
				}
			}
		}
		p = le + 1;
	}
}

static void add_override(struct prescan *ps, const char *path, const char *text, size_t len)
{
	char *n = prescan_neutralise(text, len);
	if (!n)
		return;
	char *name = xstrdup(path);
	vec_push(&ps->store, name);
	vec_push(&ps->store, n);
	struct CXUnsavedFile u = {name, n, (unsigned long)len};
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

void prescan_run(struct prescan *ps, const char *file, const char *text, size_t len, char *const *args,
		 size_t nargs, const char *const *sys_dirs, size_t nsys)
{
	memset(ps, 0, sizeof(*ps));
	struct scan s = {0};
	s.ps = ps;
	s.sys = sys_dirs;
	s.nsys = nsys;
	for (size_t i = 0; i < nargs; i++)
		dir_arg(&s, args, nargs, &i);
	/* -include FILE, -imacros FILE: opened as named */
	for (size_t i = 0; i + 1 < nargs && !ps->refused; i++)
		if (strcmp(args[i], "-include") == 0 || strcmp(args[i], "-imacros") == 0)
			check_named(&s, file, args[i + 1], true);
	hmap_put(&s.seen, xstrdup(file), (void *)1);
	add_override(ps, file, text, len);
	scan_text(&s, file, text, len);
	for (size_t qi = 0; qi < s.queue.n && qi < MAX_SCANNED_FILES && !ps->refused; qi++) {
		size_t hl = 0;
		char *h = read_file(s.queue.v[qi], &hl, MAX_SCANNED_BYTES);
		if (!h)
			continue;
		add_override(ps, s.queue.v[qi], h, hl);
		scan_text(&s, s.queue.v[qi], h, hl);
		free(h);
	}
	hmap_foreach(&s.seen, e) free((char *)e->key);
	hmap_free(&s.seen);
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
