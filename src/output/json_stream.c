/* json_stream.c: see json_stream.h.
 *
 * Each piece is dumped by jansson itself, wrapped so that it sits at the
 * depth it has in the whole document: a member as the only member of an
 * object, {"key": value}; an element as the only element of an array member,
 * {"k": [elem]}. The wrapper's own bytes (known from the same dump of an
 * empty wrapper) are cut off and the rest written, so indentation, escaping
 * and number formatting stay jansson's. */
#include "json_stream.h"

#include <string.h>

#define JSTREAM_FLAGS JSON_INDENT(2)

static void put(struct json_stream *js, const char *s, size_t n)
{
	if (n && fwrite(s, 1, n, js->out) != n)
		js->rc = -1;
}

/* The dump of {key: value} without its first byte and its last skip_tail
 * bytes; takes the reference to value. */
static void put_wrapped(struct json_stream *js, const char *key, json_t *value, size_t skip_head, size_t skip_tail)
{
	json_t *w = json_object();
	json_object_set_new(w, key, value ? value : json_null());
	char *s = json_dumps(w, JSTREAM_FLAGS);
	json_decref(w);
	if (!s) {
		js->rc = -1;
		return;
	}
	size_t n = strlen(s);
	if (n >= skip_head + skip_tail)
		put(js, s + skip_head, n - skip_head - skip_tail);
	else
		js->rc = -1;
	free(s);
}

void jstream_begin(struct json_stream *js, FILE *out)
{
	memset(js, 0, sizeof(*js));
	js->out = out;
	put(js, "{", 1);
}

void jstream_member(struct json_stream *js, const char *key, json_t *value)
{
	if (js->any_member)
		put(js, ",", 1);
	js->any_member = true;
	/* "{" "\n  \"key\": VALUE" "\n}" */
	put_wrapped(js, key, value, 1, 2);
}

void jstream_array_begin(struct json_stream *js, const char *key)
{
	if (js->any_member)
		put(js, ",", 1);
	js->any_member = true;
	js->in_array = true;
	js->array_elems = 0;
	/* "{" "\n  \"key\": [" "]\n}": the member up to its opening bracket */
	put_wrapped(js, key, json_array(), 1, 3);
}

void jstream_array_elem(struct json_stream *js, json_t *elem)
{
	if (js->array_elems++)
		put(js, ",", 1);
	/* "{\n  \"k\": [" "\n    ELEM" "\n  ]\n}" */
	json_t *a = json_array();
	json_array_append_new(a, elem ? elem : json_null());
	put_wrapped(js, "k", a, strlen("{\n  \"k\": ["), strlen("\n  ]\n}"));
}

void jstream_array_end(struct json_stream *js)
{
	/* an empty array is "[]"; a filled one closes on a line of its own */
	if (js->array_elems)
		put(js, "\n  ]", 4);
	else
		put(js, "]", 1);
	js->in_array = false;
	js->array_elems = 0;
}

int jstream_end(struct json_stream *js)
{
	put(js, js->any_member ? "\n}\n" : "}\n", js->any_member ? 3 : 2);
	return js->rc;
}
