/* fuzz_models.c: a user library model file (models_load_text, libyaml
 * events), then the queries the gates make. The built-in models load once;
 * every input is loaded as a user file on top and dropped again. */
#include "fuzz.h"
#include "libmodel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 256 * 1024)
		return 0;
	fuzz_quiet();
	models_reset();
	char *err = NULL;
	if (models_load_text("/fuzz/proj/models.yml", (const char *)data, size, true, &err) != 0) {
		if (!err || !*err)
			abort();
		free(err);
	}
	static const char *const names[] = {"f", "deflate", "strtok", "__builtin_memcpy", "PQexec", "", "x*"};
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		const struct lib_model *lm = model_find(names[i]);
		if (lm) {
			char where[256];
			model_where(lm, where, sizeof(where));
			(void)lm_thread_safety(lm);
			for (size_t k = 0; lm->registered_by && lm->registered_by[k]; k++)
				(void)lm->registered_by[k][0];
		}
	}
	size_t n = 0;
	models_all(&n);
	models_reset();
	return 0;
}
