/* json_stream: a document written member by member and element by element
 * is byte for byte what json_dumpf writes for the whole tree (the JSON
 * report relies on it: its bytes did not change when it began streaming). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_stream.h"

/* What the streamed writer produced, and what json_dumpf does for the tree. */
struct pair {
	char *got, *want;
	size_t got_len, want_len;
	FILE *f;
};

static void pair_open(struct pair *p)
{
	memset(p, 0, sizeof(*p));
	p->f = open_memstream(&p->got, &p->got_len);
	assert_non_null(p->f);
}

static void pair_check(struct pair *p, json_t *tree, int rc)
{
	assert_int_equal(rc, 0);
	fclose(p->f);
	FILE *w = open_memstream(&p->want, &p->want_len);
	assert_int_equal(json_dumpf(tree, w, JSON_INDENT(2)), 0);
	fputc('\n', w);
	fclose(w);
	assert_string_equal(p->got, p->want);
	free(p->got);
	free(p->want);
	json_decref(tree);
}

/* A member of every kind, arrays streamed empty, with one and with several
 * elements (nested objects, arrays, escapes, numbers), and null. */
static void same_bytes_as_the_tree(void **state)
{
	(void)state;
	struct pair p;
	pair_open(&p);
	json_t *tree = json_object();
	struct json_stream js;
	jstream_begin(&js, p.f);

	json_t *tool = json_pack("{s:s, s:i, s:[i,i], s:{}}", "name", "x \"q\" \\ \n\t\x01 é", "n", -3, "a", 1, 2, "o");
	json_object_set(tree, "tool", tool);
	jstream_member(&js, "tool", tool);

	json_object_set_new(tree, "empty", json_array());
	jstream_array_begin(&js, "empty");
	jstream_array_end(&js);

	json_t *one = json_array();
	json_t *e1 = json_pack("{s:f, s:n, s:b}", "real", 0.25, "null", "t", 1);
	json_array_append(one, e1);
	json_object_set_new(tree, "one", one);
	jstream_array_begin(&js, "one");
	jstream_array_elem(&js, e1);
	jstream_array_end(&js);

	json_t *many = json_array();
	jstream_array_begin(&js, "many");
	for (int i = 0; i < 4; i++) {
		json_t *e =
			i == 2 ? json_pack("[]") : json_pack("{s:i, s:[{s:s}], s:{}}", "i", i, "deep", "k", "v", "e");
		json_array_append(many, e);
		jstream_array_elem(&js, e);
	}
	json_object_set_new(tree, "many", many);
	jstream_array_end(&js);

	json_object_set_new(tree, "nothing", json_null());
	jstream_member(&js, "nothing", NULL);
	json_object_set_new(tree, "scalar", json_string("s"));
	jstream_member(&js, "scalar", json_string("s"));
	pair_check(&p, tree, jstream_end(&js));
}

/* No member at all: "{}" as json_dumpf writes it. */
static void empty_document(void **state)
{
	(void)state;
	struct pair p;
	pair_open(&p);
	struct json_stream js;
	jstream_begin(&js, p.f);
	pair_check(&p, json_object(), jstream_end(&js));
}

/* A write error is reported. */
static void write_error(void **state)
{
	(void)state;
	FILE *f = fopen("/dev/full", "w");
	if (!f)
		skip();
	setvbuf(f, NULL, _IONBF, 0);
	struct json_stream js;
	jstream_begin(&js, f);
	jstream_member(&js, "a", json_string("b"));
	assert_int_equal(jstream_end(&js), -1);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(same_bytes_as_the_tree),
		cmocka_unit_test(empty_document),
		cmocka_unit_test(write_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
