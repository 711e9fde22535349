/* util.h: memory, growable arrays, string buffers, arenas, hash maps, paths.
 *
 * Allocation failure is not recoverable in this tool: the x* functions abort()
 * with a message, the way git's xmalloc does. Nothing below main() calls exit().
 */
#ifndef NOGVL_UTIL_H
#define NOGVL_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "files.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define UNUSED(x) ((void)(x))

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) PRINTF_LIKE(1, 2);
char *xvasprintf(const char *fmt, va_list ap);

/* Growable array: VEC(int) v = {0}; vec_push(&v, 3); free(v.v); */
#define VEC(T)                                                                                                         \
	struct {                                                                                                       \
		T *v;                                                                                                  \
		size_t n, cap;                                                                                         \
	}
#define vec_reserve(vec, want)                                                                                         \
	do {                                                                                                           \
		if ((want) > (vec)->cap) {                                                                             \
			size_t nc_ = (vec)->cap ? (vec)->cap * 2 : 8;                                                  \
			while (nc_ < (want))                                                                           \
				nc_ *= 2;                                                                              \
			(vec)->v = xrealloc((vec)->v, nc_ * sizeof(*(vec)->v));                                        \
			(vec)->cap = nc_;                                                                              \
		}                                                                                                      \
	} while (0)
/* Room for exactly want elements (arrays kept to the end of a run). */
#define vec_exact(vec, want)                                                                                           \
	do {                                                                                                           \
		if ((want) > (vec)->cap) {                                                                             \
			(vec)->v = xrealloc((vec)->v, (want) * sizeof(*(vec)->v));                                     \
			(vec)->cap = (want);                                                                           \
		}                                                                                                      \
	} while (0)
#define vec_push(vec, x)                                                                                               \
	do {                                                                                                           \
		vec_reserve((vec), (vec)->n + 1);                                                                      \
		(vec)->v[(vec)->n++] = (x);                                                                            \
	} while (0)
#define vec_free(vec)                                                                                                  \
	do {                                                                                                           \
		free((vec)->v);                                                                                        \
		(vec)->v = NULL;                                                                                       \
		(vec)->n = (vec)->cap = 0;                                                                             \
	} while (0)

typedef VEC(char *) strlist; /* owned strings; strlist_free() frees them */
void strlist_free(strlist *l);

/* String buffer, always NUL-terminated once anything was added. */
struct strbuf {
	char *buf;
	size_t len, cap;
};
void sb_grow(struct strbuf *sb, size_t extra);
void sb_add(struct strbuf *sb, const char *s, size_t n);
void sb_puts(struct strbuf *sb, const char *s);
void sb_putc(struct strbuf *sb, char c);
void sb_printf(struct strbuf *sb, const char *fmt, ...) PRINTF_LIKE(2, 3);
void sb_vprintf(struct strbuf *sb, const char *fmt, va_list ap);
const char *sb_str(struct strbuf *sb); /* "" when empty */
char *sb_detach(struct strbuf *sb);    /* caller frees; buffer reset */
void sb_reset(struct strbuf *sb);
void sb_free(struct strbuf *sb);

/* Arena: many small allocations freed at once (facts of one TU). */
struct arena_block;
struct arena {
	struct arena_block *head;
	size_t used_total;
};
void *arena_alloc(struct arena *a, size_t n); /* zeroed, 16-byte aligned */
char *arena_strdup(struct arena *a, const char *s);
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_printf(struct arena *a, const char *fmt, ...) PRINTF_LIKE(2, 3);
void *arena_memdup(struct arena *a, const void *p, size_t n);
void arena_free(struct arena *a);

/* String-keyed hash map. Keys are not copied: they must outlive the map. */
struct hmap_entry {
	const char *key;
	void *val;
	uint64_t hash;
};
struct hmap {
	struct hmap_entry *slots;
	size_t cap, n;
};
uint64_t str_hash(const char *s);
void *hmap_get(const struct hmap *m, const char *key);
bool hmap_has(const struct hmap *m, const char *key);
/* Inserts or replaces; returns the previous value or NULL. */
void *hmap_put(struct hmap *m, const char *key, void *val);
void hmap_free(struct hmap *m);
#define hmap_foreach(m, e)                                                                                             \
	for (struct hmap_entry *e = (m)->slots; e && e < (m)->slots + (m)->cap; e++)                                   \
		if (e->key)

/* Interning: one stored copy of each string, compared by pointer. Thread-unsafe:
 * use one pool per thread or per TU.
 *
 * A pool can drop its index (strpool_seal) once it is complete: the facts of
 * every file of a run are kept to the end, their strings rarely looked up
 * again, and the index was 6 MB of a run over Ruby's ext/. A sealed pool
 * still interns: its first few lookups scan the strings, later ones build
 * the index again. */
struct strpool {
	struct hmap map;
	struct arena arena;
	uint32_t unindexed; /* strings stored with no index entry (sealed or strpool_add_unique) */
	uint32_t scans;     /* lookups that scanned the strings */
};
const char *intern(struct strpool *p, const char *s);
const char *intern_n(struct strpool *p, const char *s, size_t n);
/* Stores s[0..n) (no NUL inside) without looking it up: for strings known to
 * be new and distinct from each other (a facts string table). */
const char *strpool_add_unique(struct strpool *p, const char *s, size_t n);
/* Frees the index; the strings stay where they are. */
void strpool_seal(struct strpool *p);
void strpool_free(struct strpool *p);

/* Strings. */
bool str_starts(const char *s, const char *prefix);
bool str_ends(const char *s, const char *suffix);
bool str_eq(const char *a, const char *b); /* NULL-safe */
int str_cmp(const char *a, const char *b); /* NULL sorts first */
/* Index of s in a NULL-terminated or counted list; -1 if absent. */
int str_in_list(const char *s, const char *const *list, size_t n);
/* Binary search in a sorted array of strings. */
bool str_in_sorted(const char *s, const char *const *sorted, size_t n);

/* Appends s to sb with every character that could drive a terminal or start a
 * new line made visible: C0 controls as ^X (tab kept), DEL as ^?, C1 controls
 * written in UTF-8 and the bidirectional overrides (U+202A-U+202E,
 * U+2066-U+2069) as <U+XXXX>. For file names and file contents shown to
 * people (text output, logs). */
void sb_put_visible(struct strbuf *sb, const char *s);
void fput_visible(const char *s, FILE *out);

/* Line index of a buffer: start offsets of each line (1-based lines). */
struct line_index {
	uint32_t *start;
	uint32_t n;
};
void line_index_build(struct line_index *li, const char *text, size_t len);
uint32_t line_index_offset(const struct line_index *li, uint32_t line, uint32_t col);
void line_index_free(struct line_index *li);

/* qsort that accepts an empty (NULL) array. */
void xqsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

unsigned cpu_count(void);
double now_seconds(void);

#endif
