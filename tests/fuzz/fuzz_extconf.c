/* fuzz_extconf.c: the static extconf.rb reader (extconf_parse; the file is
 * never run). Ruby probes are answered from the small header set the
 * pipeline harness uses. */
#include "extconf.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 64 * 1024)
		return 0;
	char *text = fuzz_cstr(data, size);
	strlist ruby_dirs = {0};
	vec_push(&ruby_dirs, xstrdup(FUZZ_RUBY_DIR));
	struct extconf_info ei = {0};
	extconf_parse(text, "/fuzz/proj/ext", &ruby_dirs, &ei);
	for (size_t i = 0; i < ei.include_dirs.n; i++)
		if (ei.include_dirs.v[i][0] != '/')
			abort(); /* extconf.h: absolute */
	extconf_info_free(&ei);
	strlist_free(&ruby_dirs);
	free(text);
	return 0;
}
