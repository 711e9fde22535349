/* fuzz_config.c: .nogvl-lint.yml (config_parse_text, libyaml), then the
 * queries a run makes on a parsed configuration, and the glob matcher. */
#include "config.h"
#include "fuzz.h"

static const char *const paths[] = {
	"/fuzz/proj/ext/a.c", "/fuzz/proj/ext/sub/dir/b.cc", "/fuzz/proj/vendor/x.c", "/fuzz/other/c.c", "/fuzz/proj",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 64 * 1024)
		return 0;
	fuzz_quiet();
	struct config *c = NULL;
	char *err = NULL;
	if (config_parse_text("/fuzz/proj/.nogvl-lint.yml", (const char *)data, size, &c, &err) != 0) {
		if (!err || !*err)
			abort();
		free(err);
	} else {
		int sev = -1;
		config_rule_enabled(c, "ruby-api-without-gvl", true, &sev);
		config_rule_enabled(c, "debug-no-gvl", false, &sev);
		config_rule_named_on(c, "offload-candidate");
		config_fail_level(c);
		config_report_unused(c);
		config_ruby_include(c);
		for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
			config_excludes(c, paths[i]);
			config_includes(c, paths[i]);
		}
		strlist args = {0};
		config_extra_args(c, &args);
		strlist_free(&args);
		config_free(c);
	}
	/* the glob matcher on its own: pattern NUL path */
	char *s = fuzz_cstr(data, size);
	const char *nul = memchr(data, '\0', size);
	const char *rel = nul ? s + (nul - (const char *)data) + 1 : "ext/sub/a.c";
	config_glob_match(s, rel);
	free(s);
	return 0;
}
