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

/* The size of the next block: the arena's size so far, from 1 KiB up to
 * 8 KiB. The facts of every file of a run are held in arenas, most of them
 * small, and the last block of each is partly unused: fixed 32 KiB blocks
 * left 16 MB of a run over Ruby's ext/ (402 files) unused. */
static size_t arena_next_block(const struct arena *a, size_t n)
{
	size_t sz = a->used_total < 1024 ? 1024 : a->used_total < 8192 ? a->used_total : 8192;
	return n > sz ? n : sz;
}

/* n bytes at the given alignment (a power of two, at most 16), zeroed. */
static void *arena_take(struct arena *a, size_t n, size_t align)
{
	struct arena_block *h = a->head;
	size_t at = h ? (h->used + align - 1) & ~(align - 1) : 0;
	if (n > 256 && h && (at > h->size || h->size - at < n)) {
		/* a block of its own, behind the current one, whose free space
		 * stays in use (at most 256 bytes of a block are left unused) */
		struct arena_block *b = xmalloc(sizeof(*b) + n);
		b->size = b->used = n;
		b->next = h->next;
		h->next = b;
		a->used_total += n;
		memset(b->data, 0, n);
		return b->data;
	}
	if (!h || at > h->size || h->size - at < n) {
		size_t sz = arena_next_block(a, n);
		struct arena_block *b = xmalloc(sizeof(*b) + sz);
		b->next = h;
		b->size = sz;
		b->used = 0;
		a->head = h = b;
		at = 0;
	}
	void *p = h->data + at;
	h->used = at + n;
	a->used_total += n;
	memset(p, 0, n);
	return p;
}

void *arena_alloc(struct arena *a, size_t n)
{
	return arena_take(a, (n + 15) & ~(size_t)15, 16);
}

/* strings unaligned: most interned names are short */
char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_take(a, n + 1, 1);
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

/* Lookups of a sealed pool that scan its strings before the index is built
 * again. */
#define STRPOOL_SCANS 8

/* Every string of the pool's arena, each block a run of NUL-terminated
 * strings (only intern_n and strpool_add_unique write to it); stops at the
 * first for which visit returns non-NULL and returns that. */
static const char *strpool_each(struct strpool *p, const char *(*visit)(struct strpool *p, const char *s, void *ctx),
				void *ctx)
{
	for (struct arena_block *b = p->arena.head; b; b = b->next) {
		const char *s = (const char *)b->data, *end = s + b->used;
		while (s < end) {
			const char *r = visit(p, s, ctx);
			if (r)
				return r;
			s += strlen(s) + 1;
		}
	}
	return NULL;
}

static const char *index_one(struct strpool *p, const char *s, void *ctx)
{
	UNUSED(ctx);
	if (!hmap_has(&p->map, s))
		hmap_put(&p->map, s, (void *)s);
	return NULL;
}

static const char *equal_one(struct strpool *p, const char *s, void *ctx)
{
	UNUSED(p);
	return strcmp(s, ctx) == 0 ? s : NULL;
}

const char *intern_n(struct strpool *p, const char *s, size_t n)
{
	char stackbuf[256];
	char *tmp = n < sizeof(stackbuf) ? stackbuf : xmalloc(n + 1);
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	const char *found = NULL;
	if (p->unindexed && p->scans < STRPOOL_SCANS) {
		p->scans++;
		found = strpool_each(p, equal_one, tmp);
	} else {
		if (p->unindexed) { /* of a string stored twice, the one a scan finds first wins */
			strpool_each(p, index_one, NULL);
			p->unindexed = 0;
		}
		found = hmap_get(&p->map, tmp);
	}
	if (!found) {
		char *copy = arena_strndup(&p->arena, tmp, n);
		if (p->unindexed)
			p->unindexed++;
		else
			hmap_put(&p->map, copy, copy);
		found = copy;
	}
	if (tmp != stackbuf)
		free(tmp);
	return found;
}

const char *strpool_add_unique(struct strpool *p, const char *s, size_t n)
{
	if (!p->unindexed && p->map.n) /* indexed strings already: keep them so */
		return intern_n(p, s, n);
	p->unindexed++;
	return arena_strndup(&p->arena, s, n);
}

void strpool_seal(struct strpool *p)
{
	if (!p->map.n)
		return;
	p->unindexed += (uint32_t)p->map.n;
	p->scans = 0;
	hmap_free(&p->map);
}

const char *intern(struct strpool *p, const char *s)
{
	return s ? intern_n(p, s, strlen(s)) : NULL;
}

void strpool_free(struct strpool *p)
{
	hmap_free(&p->map);
	arena_free(&p->arena);
	p->unindexed = p->scans = 0;
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
