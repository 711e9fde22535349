/* fuzz_diff.c: the unified-diff reader of --changed-lines (changed_parse),
 * then a lookup of every line it marked and of lines around them. */
#include <stdlib.h>

#include "changed.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 256 * 1024)
		return 0;
	fuzz_quiet();
	char *text = fuzz_cstr(data, size);
	struct changed_lines cl = {0};
	char *err = NULL;
	int rc = changed_parse(text, size, "/fuzz/proj", &cl, &err);
	if (rc != 0 && !err)
		abort(); /* a failure always says why */
	size_t marked = 0;
	for (size_t i = 0; i < cl.files.n; i++) {
		const struct changed_file *f = cl.files.v[i];
		if (hmap_get(&cl.by_path, f->path) != f)
			abort();
		for (size_t k = 0; k < f->ranges.n; k++) {
			const struct line_range *r = &f->ranges.v[k];
			if (r->lo == 0 || r->lo > r->hi)
				abort();
			marked += r->hi - r->lo + 1;
			if (!changed_touches(&cl, f->path, r->lo) || !changed_touches(&cl, f->path, r->hi))
				abort();
		}
	}
	if (marked != cl.nlines)
		abort();
	free(err);
	changed_free(&cl);
	free(text);
	return 0;
}
