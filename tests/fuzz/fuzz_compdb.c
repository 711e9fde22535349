/* fuzz_compdb.c: compile_commands.json (compdb_parse), then each entry's
 * command through filter_flags (response files, plugin refusal, dropping),
 * as inputs.c does. Response files are read relative to the entry's
 * directory, as in a real run. */
#include "compdb.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 256 * 1024)
		return 0;
	fuzz_quiet();
	struct compdb db = {0};
	char *err = NULL;
	if (compdb_parse((const char *)data, size, "/nonexistent/fuzz/build", &db, &err) != 0) {
		if (!err || !*err)
			abort(); /* a failure always says why */
		free(err);
		compdb_free(&db);
		return 0;
	}
	for (size_t i = 0; i < db.entries.n; i++) {
		const struct compdb_entry *e = &db.entries.v[i];
		if (e->file[0] != '/' || e->directory[0] != '/' || !e->argv.n)
			abort(); /* compdb.h: absolute paths, argv[0] present */
		strlist keep = {0}, dropped = {0};
		char *ferr = NULL;
		if (filter_flags(e->argv.v, e->argv.n, e->file, e->directory, &keep, &dropped, &ferr) != 0) {
			if (!ferr)
				abort();
			free(ferr);
		} else {
			/* nothing that loads code survives */
			for (size_t k = 0; k < keep.n; k++)
				if (flag_loads_plugin(keep.v[k], k + 1 < keep.n ? keep.v[k + 1] : NULL))
					abort();
		}
		strlist_free(&keep);
		strlist_free(&dropped);
	}
	compdb_free(&db);
	return 0;
}
