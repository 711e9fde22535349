/* facts_io.h: struct tu_facts to and from JSON (jansson) or a binary form.
 *
 * The facts cache (--cache) and the isolated parser processes (--tu-timeout)
 * carry facts through this format. Structs are written as positional arrays
 * and every string once, in a per-TU string table, so a file's facts stay
 * small. Reading validates every value: anything unexpected makes the read
 * fail (the caller then parses the file again), never a half-filled TU.
 * Strings are interned in the new TU's pool, so pointer comparisons of paths
 * within a TU keep working.
 */
#ifndef NOGVL_FACTS_IO_H
#define NOGVL_FACTS_IO_H

#include <jansson.h>

#include "facts.h"

/* Bumped whenever the layout, or what the extractor records, changes (cache
 * entries of another version are ignored). 6: a compound literal assigned to
 * a struct records its members (extract_expr.c); 7: a backward goto is a
 * retry region (RG_RETRY, extract_stmt.c); 8: no facts from a preamble that
 * changed the file (system headers before ruby.h, ruby/thread.h the file
 * does not include: pch.h), so entries made with one are dropped; 9: a
 * forward goto is a region too (RG_GOTO, extract_stmt.c); 10: an event's
 * spelling location (always its location: nothing read it) is gone (struct
 * event 72 -> 48 bytes). */
#define FACTS_FORMAT_VERSION 10

json_t *facts_to_json(const struct tu_facts *tu);
/* NULL with *err set (caller frees) when j is not facts of this format. */
struct tu_facts *facts_from_json(const json_t *j, char **err);

/* Compact JSON serialisation to a string (caller frees): readable, for
 * debugging and tests. */
char *facts_dump(const struct tu_facts *tu, size_t *len);
/* The binary form (the same fields as varints and a string table; see
 * facts_io.c), what the parser processes send and the cache stores: several
 * times faster to read than the JSON. Caller frees; *len its length. */
char *facts_pack(const struct tu_facts *tu, size_t *len);
/* Installs the allocator facts_load uses for its JSON tree (call once, before
 * any thread uses jansson). */
void facts_io_init(void);
/* A string as JSON whatever its bytes: a JSON string when it is UTF-8, else
 * {"hex": "..."}; json_bytes_value reverses it (malloc'd; NULL when v is
 * neither, *len its length when len is not NULL). */
json_t *json_bytes(const char *s);
char *json_bytes_value(const json_t *v, size_t *len);
/* Either form (the binary one by its first bytes, "NGVF"). */
struct tu_facts *facts_load(const char *buf, size_t len, char **err);

#endif
