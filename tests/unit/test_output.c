/* The machine formats on a hand-made run: fixes and notes in SARIF and JSON,
 * escaping in GitHub commands, text that is not UTF-8. With NOGVL_SARIF_OUT
 * set, the SARIF is also written there (tests/cli/sarif_validate.sh runs the
 * official validator on it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output.h"
#include "rule.h"

static char cwd[4096];

static void make_run(struct run *r, const char *file)
{
	memset(r, 0, sizeof(*r));
	r->in.buildless = true;
	r->ran = xcalloc(rule_count, 1);
	struct loc l = {file, 2, 3, 0}, site = {file, 5, 2, 0};
	struct finding *f = finding_add(&r->findings, rule_find("ruby-api-without-gvl"), SEV_ERROR, &l, "cb",
					"'rb_raise' raises a Ruby exception without the GVL");
	finding_note(f, &site, "'cb' passed to %s here", "rb_nogvl");
	finding_fix(f, file, 40, 8, 5, 2, "rb_nogvl(cb, NULL, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE)");
	finding_fix(f, file, 0, 0, 1, 1, "#ifndef RB_NOGVL_OFFLOAD_SAFE\n#define RB_NOGVL_OFFLOAD_SAFE 0\n#endif\n");
	f->fix_desc = xstrdup("pass RB_NOGVL_OFFLOAD_SAFE \"quoted\" 100%");
	strcpy(f->fingerprint, "0123456789abcdef0123456789abcdef");
	struct loc l2 = {file, 3, 1, 0};
	struct finding *g = finding_add(&r->findings, rule_find("removed-api"), SEV_WARNING, &l2, NULL,
					"bad \xff byte, a::b %0A and\nnewline");
	strcpy(g->fingerprint, "fedcba9876543210fedcba9876543210");
	r->sum.files = 1;
	r->sum.errors = 1;
	r->sum.warnings = 1;
}

static json_t *dump(int (*w)(FILE *, const struct options *, const struct run *), struct run *r)
{
	struct options o;
	options_init(&o);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(w(f, &o, r), 0);
	fclose(f);
	json_error_t je;
	json_t *j = json_loads(buf, 0, &je);
	if (!j)
		print_error("not JSON: %s\n%s\n", je.text, buf);
	assert_non_null(j);
	free(buf);
	options_free(&o);
	return j;
}

static void sarif_fixes_and_flows(void **state)
{
	(void)state;
	char *file = xasprintf("%s/ext.c", cwd);
	struct run r;
	make_run(&r, file);
	json_t *s = dump(report_sarif, &r);
	json_t *res = json_array_get(json_object_get(json_array_get(json_object_get(s, "runs"), 0), "results"), 0);
	json_t *fx = json_array_get(json_object_get(res, "fixes"), 0);
	assert_string_equal(json_string_value(json_object_get(json_object_get(fx, "description"), "text")),
			    "pass RB_NOGVL_OFFLOAD_SAFE \"quoted\" 100%.");
	json_t *ch = json_array_get(json_object_get(fx, "artifactChanges"), 0);
	assert_int_equal(json_array_size(json_object_get(fx, "artifactChanges")), 1); /* one file */
	assert_string_equal(json_string_value(json_object_get(json_object_get(ch, "artifactLocation"), "uri")),
			    "ext.c");
	json_t *rep = json_array_get(json_object_get(ch, "replacements"), 0);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(rep, "deletedRegion"), "charOffset")), 40);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(rep, "deletedRegion"), "charLength")), 8);
	assert_int_equal(json_array_size(json_object_get(ch, "replacements")), 2);
	json_t *tfl = json_object_get(
		json_array_get(json_object_get(json_array_get(json_object_get(res, "codeFlows"), 0), "threadFlows"), 0),
		"locations");
	assert_int_equal(json_array_size(tfl), 2);
	const char *fp =
		json_string_value(json_object_get(json_object_get(res, "partialFingerprints"), "nogvlLint/v1"));
	assert_string_equal(fp, "0123456789abcdef0123456789abcdef");
	/* text that is not UTF-8 still makes valid JSON */
	json_t *res2 = json_array_get(json_object_get(json_array_get(json_object_get(s, "runs"), 0), "results"), 1);
	assert_string_equal(json_string_value(json_object_get(json_object_get(res2, "message"), "text")),
			    "bad \xef\xbf\xbd byte, a::b %0A and\nnewline.");
	const char *out = getenv("NOGVL_SARIF_OUT");
	if (out) {
		FILE *f = fopen(out, "w");
		assert_non_null(f);
		assert_int_equal(json_dumpf(s, f, JSON_INDENT(2)), 0);
		fclose(f);
	}
	json_decref(s);

	json_t *j = dump(report_json, &r);
	json_t *jf = json_array_get(json_object_get(j, "findings"), 0);
	json_t *jfx = json_object_get(jf, "fixes");
	assert_int_equal(json_array_size(json_object_get(jfx, "replacements")), 2);
	assert_string_equal(
		json_string_value(json_object_get(json_array_get(json_object_get(jfx, "replacements"), 0), "text")),
		"rb_nogvl(cb, NULL, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE)");
	assert_true(json_is_true(json_object_get(jf, "buildless")));
	assert_int_equal(json_array_size(json_object_get(jf, "notes")), 1);
	json_decref(j);
	findings_free(&r.findings);
	config_set_free(&r.cfg); /* fail levels are looked up per file and cached */
	free(r.ran);
	free(file);
}

static void github_escaping(void **state)
{
	(void)state;
	struct run r;
	make_run(&r, "/x/we,ird:na%me.c");
	struct options o;
	options_init(&o);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(report_github(f, &o, &r), 0);
	fclose(f);
	/* two findings, two lines */
	size_t lines = 0;
	for (char *p = buf; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 2);
	assert_non_null(strstr(buf, "::warning file=/x/we%2Cird%3Ana%25me.c,line=3,col=1,title=removed-api::bad "));
	assert_non_null(strstr(buf, "a::b %250A and%0Anewline"));
	free(buf);
	options_free(&o);
	findings_free(&r.findings);
	config_set_free(&r.cfg); /* fail levels are looked up per file and cached */
	free(r.ran);
}

static void uri_encoding(void **state)
{
	(void)state;
	char *u = uri_encode_path("dir name/a%b#c?.c");
	assert_string_equal(u, "dir%20name/a%25b%23c%3F.c");
	free(u);
	u = uri_encode_path("/abs/x y.c");
	assert_string_equal(u, "file:///abs/x%20y.c");
	free(u);
}

int main(void)
{
	if (!getcwd(cwd, sizeof(cwd)))
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sarif_fixes_and_flows),
		cmocka_unit_test(github_escaping),
		cmocka_unit_test(uri_encoding),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
