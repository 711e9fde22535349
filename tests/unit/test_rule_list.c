/* The rule list (rules/rule_list.h) against the tree: sorted, each line's
 * rule file, page and corpus group present, and no rule file left out.
 * Together with test_rule_docs (the page's content) this is what makes
 * "Adding a rule" in rules/rule_list.h machine-checked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "rule.h"
#include "ruledoc.h"
#include "util.h"

struct listed {
	const char *ident;
	bool debug;
};

static const struct listed listed[] = {
#define RULE(id) {#id, false},
#define DEBUG_RULE(id) {#id, true},
#include "rule_list.h"
#undef RULE
#undef DEBUG_RULE
};

static char *slug_of(const char *ident)
{
	char *s = xstrdup(ident);
	for (char *p = s; *p; p++)
		if (*p == '_')
			*p = '-';
	return s;
}

static bool is_listed(const char *ident)
{
	for (size_t i = 0; i < ARRAY_SIZE(listed); i++)
		if (strcmp(listed[i].ident, ident) == 0)
			return true;
	return false;
}

/* Does text have a line with an expect: comment naming slug? */
static bool text_expects(const char *text, const char *slug)
{
	size_t n = strlen(slug);
	for (const char *p = text; (p = strstr(p, "expect:")) != NULL;) {
		p += strlen("expect:");
		const char *eol = strchr(p, '\n');
		const char *end = strstr(p, "*/");
		if (!eol)
			eol = p + strlen(p);
		if (!end || end > eol)
			end = eol;
		for (const char *t = p; t < end;) {
			t += strspn(t, ", \t");
			size_t len = strcspn(t, ", \t\n");
			if (t + len > end)
				len = (size_t)(end - t);
			/* the slug, then maybe @column and :severity */
			size_t sl = strcspn(t, "@:");
			if (sl > len)
				sl = len;
			if (sl == n && strncmp(t, slug, n) == 0)
				return true;
			if (!len)
				break;
			t += len;
		}
	}
	return false;
}

/* Is there a case file below dir with an expectation of slug? */
static bool corpus_expects(const char *dir, const char *slug, unsigned depth)
{
	DIR *d = opendir(dir);
	if (!d || depth > 4) {
		if (d)
			closedir(d);
		return false;
	}
	bool found = false;
	struct dirent *de;
	while (!found && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		char *p = path_join(dir, de->d_name);
		if (path_is_dir(p)) {
			found = corpus_expects(p, slug, depth + 1);
		} else {
			const char *e = path_ext(p);
			if (strcmp(e, ".c") == 0 || strcmp(e, ".cc") == 0 || strcmp(e, ".cpp") == 0 ||
			    strcmp(e, ".h") == 0) {
				char *text = read_file(p, NULL, 1u << 22);
				found = text && text_expects(text, slug);
				free(text);
			}
		}
		free(p);
	}
	closedir(d);
	return found;
}

static void the_list_is_the_registry_sorted(void **state)
{
	(void)state;
	assert_int_equal(ARRAY_SIZE(listed), rule_count);
	int bad = 0;
	for (unsigned i = 0; i < rule_count; i++) {
		char *slug = slug_of(listed[i].ident);
		if (strcmp(rule_list[i]->slug, slug) != 0) {
			print_error("rule_list.h: %s's descriptor has slug '%s', want '%s'\n", listed[i].ident,
				    rule_list[i]->slug, slug);
			bad++;
		}
		if (i && strcmp(rule_list[i - 1]->slug, rule_list[i]->slug) >= 0) {
			print_error("rule_list.h: '%s' comes after '%s': keep the list sorted by slug\n",
				    rule_list[i]->slug, rule_list[i - 1]->slug);
			bad++;
		}
		if (listed[i].debug != ((rule_list[i]->flags & RULE_DEBUG) != 0)) {
			print_error("rule_list.h: %s: DEBUG_RULE exactly for rules with RULE_DEBUG\n", listed[i].ident);
			bad++;
		}
		assert_ptr_equal(rule_find(slug), rule_list[i]);
		free(slug);
	}
	assert_int_equal(bad, 0);
}

static void every_rule_has_file_page_and_corpus_group(void **state)
{
	(void)state;
	int bad = 0;
	for (size_t i = 0; i < ARRAY_SIZE(listed); i++) {
		char *slug = slug_of(listed[i].ident);
		char *file = xasprintf("%s/rules/%s.c", NOGVL_SOURCE_DIR, listed[i].ident);
		if (!path_is_file(file)) {
			print_error("%s: missing (the rule's file)\n", file);
			bad++;
		}
		free(file);
		if (!listed[i].debug) {
			char *page = xasprintf("%s/rules/docs/%s.md", NOGVL_SOURCE_DIR, slug);
			if (!path_is_file(page) || !rule_doc_find(slug)) {
				print_error("%s: missing (every rule needs a page)\n", page);
				bad++;
			}
			free(page);
			char *group = xasprintf("%s/%s", CORPUS_DIR, slug);
			if (!path_is_dir(group)) {
				print_error("%s/: missing (every rule needs a corpus group)\n", group);
				bad++;
			} else if (!corpus_expects(group, slug, 0)) {
				print_error("%s/: no case expects a %s finding\n", group, slug);
				bad++;
			}
			free(group);
		}
		free(slug);
	}
	assert_int_equal(bad, 0);
}

/* A .c file in rules/ that defines a descriptor is in the list (else the rule would be
 * built but never run). */
static void every_rule_file_is_listed(void **state)
{
	(void)state;
	char *dir = xasprintf("%s/rules", NOGVL_SOURCE_DIR);
	DIR *d = opendir(dir);
	assert_non_null(d);
	int bad = 0, files = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(path_ext(de->d_name), ".c") != 0)
			continue;
		char *p = path_join(dir, de->d_name);
		char *text = read_file(p, NULL, 1u << 22);
		assert_non_null(text);
		for (const char *t = text; (t = strstr(t, "\nconst struct rule_desc rule_")) != NULL;) {
			t += strlen("\nconst struct rule_desc rule_");
			char *ident = xstrndup(t, strcspn(t, " ="));
			files++;
			if (!is_listed(ident)) {
				print_error("%s defines rule_%s, which rules/rule_list.h does not list\n", p, ident);
				bad++;
			}
			free(ident);
		}
		free(text);
		free(p);
	}
	closedir(d);
	free(dir);
	assert_int_equal(files, (int)rule_count);
	assert_int_equal(bad, 0);
}

static void the_expectation_reader_is_exact(void **state)
{
	(void)state;
	assert_true(text_expects("x(); // expect: a-b, c-d\n", "c-d"));
	assert_true(text_expects("x(); /* expect: a-b */ y();\n", "a-b"));
	assert_false(text_expects("x(); /* expect: a-b-c */\n", "a-b"));
	assert_false(text_expects("x(); /* expect: a-b */ c-d\n", "c-d"));
	assert_false(text_expects("c-d\n", "c-d"));
	assert_true(text_expects("x(); /* expect: a-b@17:note */\n", "a-b"));
	assert_true(text_expects("x(); /* expect: c-d:error, a-b@3 */\n", "a-b"));
	assert_false(text_expects("x(); /* expect: a-bc@3 */\n", "a-b"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_list_is_the_registry_sorted),
		cmocka_unit_test(every_rule_has_file_page_and_corpus_group),
		cmocka_unit_test(every_rule_file_is_listed),
		cmocka_unit_test(the_expectation_reader_is_exact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
