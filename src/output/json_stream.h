/* json_stream.h: a top-level JSON object written member by member, and an
 * array member element by element, byte for byte what json_dumpf(root,
 * JSON_INDENT(2)) writes for the whole tree, without the whole tree in
 * memory at once (the report of a large run is tens of MB of jansson
 * nodes; one site or finding is a few KB).
 *
 *   struct json_stream js;
 *   jstream_begin(&js, out);
 *   jstream_member(&js, "tool", tool);        (takes the reference)
 *   jstream_array_begin(&js, "sites");
 *   jstream_array_elem(&js, site);            (takes the reference)
 *   jstream_array_end(&js);
 *   int rc = jstream_end(&js);                (0, or -1 on a write error)
 */
#ifndef NOGVL_JSON_STREAM_H
#define NOGVL_JSON_STREAM_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

struct json_stream {
	FILE *out;
	int rc;
	bool any_member;    /* a member was written: the next one follows a comma */
	bool in_array;      /* between jstream_array_begin and jstream_array_end */
	size_t array_elems; /* elements written into the open array */
};

void jstream_begin(struct json_stream *js, FILE *out);
/* "key": value (value NULL: JSON null). */
void jstream_member(struct json_stream *js, const char *key, json_t *value);
void jstream_array_begin(struct json_stream *js, const char *key);
void jstream_array_elem(struct json_stream *js, json_t *elem);
void jstream_array_end(struct json_stream *js);
/* Closes the object (and a newline after it, as the reports end). */
int jstream_end(struct json_stream *js);

#endif
