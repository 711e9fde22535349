/* The rule documentation pages (rules/docs/<slug>.md) against the descriptors.
 * Iterates over rule_list, so a rule added later without a page, or with a
 * page that drifted from its descriptor, fails here. Debug rules are exempt. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "ruledoc.h"
#include "rule.h"

static const char *const sections[] = {"## Why",  "## How to fix", "## Examples",
				       "### Bad", "### Good",      "## Known limits"};

/* Checks one page; returns NULL or what is wrong (static buffer). */
static const char *check_page(const struct rule_desc *rd, const char *page)
{
	static char why[512];
	strlist lines = {0};
	for (const char *p = page; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		vec_push(&lines, xstrndup(p, n));
		p += n + (nl ? 1 : 0);
	}
	const char *err = NULL;
	char *want = NULL;
	if (lines.n < 5) {
		err = "too short";
		goto out;
	}
	want = xasprintf("# %s", rd->slug);
	if (strcmp(lines.v[0], want) != 0) {
		snprintf(why, sizeof(why), "first line is '%s', want '%s'", lines.v[0], want);
		err = why;
		goto out;
	}
	free(want);
	want = xasprintf("**Severity:** %s · **Category:** %s", severity_name(rd->severity), rd->category);
	if (*lines.v[1] || strcmp(lines.v[2], want) != 0 || *lines.v[3]) {
		snprintf(why, sizeof(why), "line 3 is '%s', want '%s' between blank lines", lines.v[2], want);
		err = why;
		goto out;
	}
	/* the summary paragraph, verbatim (it may be wrapped) */
	struct strbuf sb = {0};
	size_t i = 4;
	for (; i < lines.n && *lines.v[i]; i++) {
		if (sb.len)
			sb_putc(&sb, ' ');
		sb_puts(&sb, lines.v[i]);
	}
	if (strcmp(sb_str(&sb), rd->summary) != 0) {
		snprintf(why, sizeof(why), "summary is '%s', want the descriptor's '%s'", sb_str(&sb), rd->summary);
		sb_free(&sb);
		err = why;
		goto out;
	}
	sb_free(&sb);
	/* the sections, in order, each with some text; headings inside code fences do not count */
	size_t next = 0;
	bool fence = false, content = true;
	for (; i < lines.n; i++) {
		const char *l = lines.v[i];
		if (strncmp(l, "```", 3) == 0)
			fence = !fence;
		if (!fence && l[0] == '#') {
			if (!content && next > 0 && strcmp(sections[next - 1], "## Examples") != 0) {
				snprintf(why, sizeof(why), "section '%s' is empty", sections[next - 1]);
				err = why;
				goto out;
			}
			if (next >= ARRAY_SIZE(sections) || strcmp(l, sections[next]) != 0) {
				snprintf(why, sizeof(why), "heading '%s' where '%s' was expected", l,
					 next < ARRAY_SIZE(sections) ? sections[next] : "(no more headings)");
				err = why;
				goto out;
			}
			next++;
			content = false;
		} else if (*l) {
			content = true;
		}
	}
	if (next != ARRAY_SIZE(sections)) {
		snprintf(why, sizeof(why), "missing section '%s'", sections[next]);
		err = why;
	} else if (!content) {
		err = "section '## Known limits' is empty";
	}
out:
	free(want);
	strlist_free(&lines);
	return err;
}

static void every_rule_has_a_matching_page(void **state)
{
	(void)state;
	int bad = 0;
	for (unsigned i = 0; i < rule_count; i++) {
		const struct rule_desc *rd = rule_list[i];
		if (rd->flags & RULE_DEBUG)
			continue;
		const char *page = rule_doc_find(rd->slug);
		if (!page) {
			print_error("rules/docs/%s.md: missing (every non-debug rule needs a page)\n", rd->slug);
			bad++;
			continue;
		}
		const char *err = check_page(rd, page);
		if (err) {
			print_error("rules/docs/%s.md: %s\n", rd->slug, err);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

static void every_page_names_a_rule(void **state)
{
	(void)state;
	int bad = 0;
	for (unsigned i = 0; i < rule_doc_count; i++) {
		const struct rule_desc *rd = rule_find(rule_docs[i].slug);
		if (!rd || (rd->flags & RULE_DEBUG)) {
			print_error("rules/docs/%s.md: no such (non-debug) rule in rule_list\n", rule_docs[i].slug);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/* The embedded copy is the one in the source tree (a stale build would hide drift). */
static void embedded_pages_match_the_sources(void **state)
{
	(void)state;
	for (unsigned i = 0; i < rule_doc_count; i++) {
		char *path = xasprintf("%s/rules/docs/%s.md", NOGVL_SOURCE_DIR, rule_docs[i].slug);
		char *text = read_file(path, NULL, 1u << 20);
		assert_non_null(text);
		assert_string_equal(text, rule_docs[i].text);
		free(text);
		free(path);
	}
}

static void the_checker_catches_drift(void **state)
{
	(void)state;
	const struct rule_desc *rd = rule_find("removed-api");
	assert_non_null(rd);
	const char *page = rule_doc_find("removed-api");
	assert_null(check_page(rd, page));
	char *bad = xstrdup(page);
	char *sev = strstr(bad, "error");
	memcpy(sev, "note ", 5);
	assert_non_null(check_page(rd, bad));
	free(bad);
	bad = xstrdup(page);
	char *h = strstr(bad, "## Known limits");
	h[3] = 'X';
	assert_non_null(check_page(rd, bad));
	free(bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_rule_has_a_matching_page),
		cmocka_unit_test(every_page_names_a_rule),
		cmocka_unit_test(embedded_pages_match_the_sources),
		cmocka_unit_test(the_checker_catches_drift),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
