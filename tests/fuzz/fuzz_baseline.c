/* fuzz_baseline.c: reading a --baseline file (baseline_read, jansson), then
 * applying it to a few findings. The input is written to a file, as
 * baseline_read reads a path. */
#include <fcntl.h>
#include <unistd.h>

#include "baseline.h"
#include "fuzz.h"
#include "rule.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 256 * 1024)
		return 0;
	fuzz_quiet();
	static char *path;
	if (!path)
		path = path_join(fuzz_tmpdir(), "baseline.json");
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
	struct baseline b;
	char *err = NULL;
	if (baseline_read(path, &b, &err) != 0) {
		if (!err || !*err)
			abort();
		free(err);
		baseline_free(&b);
		return 0;
	}
	struct findings fs = {0};
	const struct rule_desc *rd = rule_find("ruby-api-without-gvl");
	for (uint32_t l = 1; l <= 3; l++) {
		struct loc loc = {"/fuzz/proj/ext/a.c", l, 1, 0};
		struct finding *f = finding_add(&fs, rd, SEV_ERROR, &loc, "f", "m");
		/* fingerprints the file may name */
		if (l <= b.v.n)
			snprintf(f->fingerprint, sizeof(f->fingerprint), "%s", b.v.v[l - 1].fingerprint);
	}
	struct hmap analysed = {0};
	for (size_t i = 0; i < b.v.n && i < 8; i++)
		hmap_put(&analysed, b.v.v[i].file, (void *)1);
	baseline_apply(&b, &fs, &analysed);
	hmap_free(&analysed);
	findings_free(&fs);
	baseline_free(&b);
	return 0;
}
