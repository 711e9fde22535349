/* fuzz_shell_split.c: shell_split (compdb.c), which splits a compile
 * database's "command" strings and response files into words. */
#include "compdb.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 64 * 1024)
		return 0;
	char *s = fuzz_cstr(data, size);
	strlist words = {0};
	if (shell_split(s, &words) == 0) {
		/* no word holds a NUL; together they are never longer than the input */
		size_t total = 0;
		for (size_t i = 0; i < words.n; i++)
			total += strlen(words.v[i]);
		if (total > strlen(s))
			abort();
	}
	strlist_free(&words);
	free(s);
	return 0;
}
