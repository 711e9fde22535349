/* fuzz_suppress.c: the suppression-comment scanner (suppress_scan), then
 * applying the suppressions to a finding on every line and reporting the
 * unused ones, as a run does. */
#include "fuzz.h"
#include "rule.h"
#include "suppress.h"

#define FILE_PATH "/fuzz/proj/ext/a.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 64 * 1024)
		return 0;
	fuzz_quiet();
	struct suppress_file *sf = xcalloc(1, sizeof(*sf));
	sf->path = xstrdup(FILE_PATH);
	char *text = fuzz_cstr(data, size);
	suppress_file_load(sf, text, size);
	free(text);
	for (size_t i = 0; i < sf->v.n; i++) {
		const struct suppression *s = &sf->v.v[i];
		if (s->first > s->last || !s->nslugs || s->nslugs > SUPPRESS_MAX_SLUGS || !s->reason)
			abort();
	}
	struct suppress_set ss = {0};
	hmap_put(&ss.files, sf->path, sf);
	/* one finding of one rule on every line (capped) */
	struct findings fs = {0};
	const struct rule_desc *rd = rule_find("ruby-api-without-gvl");
	const struct rule_desc *unused = rule_find("unused-suppression");
	uint32_t lines = (uint32_t)(sf->nlines < 2000 ? sf->nlines : 2000);
	for (uint32_t l = 1; l <= lines + 1; l++) {
		struct loc loc = {sf->path, l, 1, 0};
		finding_add(&fs, rd, SEV_ERROR, &loc, "f", "m");
	}
	suppress_apply(&ss, &fs, NULL);
	suppress_report_unused(&ss, &fs, unused, SEV_WARNING, NULL, NULL);
	findings_free(&fs);
	suppress_set_free(&ss);
	return 0;
}
