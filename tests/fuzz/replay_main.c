/* replay_main.c: runs a fuzz harness's LLVMFuzzerTestOneInput over files,
 * without libFuzzer, so that ctest replays every seed and every regression
 * input on every build (normal and sanitizer).
 *
 *   replay_<target> PATH...   (files, or directories walked recursively)
 *
 * Exits 0 when every input ran (a crash is a crash: the harness aborts), 1
 * when a path cannot be read or holds no input at all. An input that runs
 * longer than $NOGVL_REPLAY_SECONDS (default 60) is killed by SIGALRM: hangs
 * the fuzzer found stay found.
 */
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int replay(const char *path, size_t *count)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		fprintf(stderr, "replay: %s: cannot stat\n", path);
		return 1;
	}
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		if (!d) {
			fprintf(stderr, "replay: %s: cannot open\n", path);
			return 1;
		}
		strlist names = {0};
		struct dirent *de;
		while ((de = readdir(d)) != NULL)
			if (de->d_name[0] != '.')
				vec_push(&names, path_join(path, de->d_name));
		closedir(d);
		qsort(names.v, names.n, sizeof(char *), name_cmp);
		int rc = 0;
		for (size_t i = 0; i < names.n; i++)
			rc |= replay(names.v[i], count);
		strlist_free(&names);
		return rc;
	}
	size_t len = 0;
	char *data = read_file(path, &len, 0);
	if (!data) {
		fprintf(stderr, "replay: %s: cannot read\n", path);
		return 1;
	}
	/* an exact-size copy, so that ASan sees a read past the input's end */
	uint8_t *copy = malloc(len ? len : 1);
	memcpy(copy, data, len);
	free(data);
	const char *limit = getenv("NOGVL_REPLAY_SECONDS");
	alarm(limit && atoi(limit) > 0 ? (unsigned)atoi(limit) : 60);
	LLVMFuzzerTestOneInput(copy, len);
	alarm(0);
	free(copy);
	(*count)++;
	return 0;
}

int main(int argc, char **argv)
{
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	size_t count = 0;
	int rc = 0;
	for (int i = 1; i < argc; i++)
		rc |= replay(argv[i], &count);
	printf("%zu inputs replayed\n", count);
	if (!count)
		rc = 1;
	return rc;
}
