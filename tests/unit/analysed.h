/* analysed.h: a model linked from one small source file of the test's own,
 * for the unit tests that read the linked model (header-only; include after
 * cmocka.h). th_analysed_setup is a cmocka group setup: it writes the file
 * into a fresh directory and runs the analysis on it. */
#ifndef NOGVL_TEST_ANALYSED_H
#define NOGVL_TEST_ANALYSED_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "helpers.h"
#include "log.h"
#include "run.h"

struct th_analysed {
	char *dir;
	struct options o;
	struct run r;
};

/* *state: a struct th_analysed for file `name` holding `source`; 0 when the
 * analysis ran and linked a model. */
static inline int th_analysed_setup(void **state, const char *name, const char *source)
{
	struct th_analysed *a = calloc(1, sizeof(*a));
	a->dir = th_mkdtemp();
	free(th_write(a->dir, name, source));
	char *argv[] = {"nogvl-lint", "--jobs", "1", a->dir};
	options_init(&a->o);
	*state = a;
	if (options_parse(&a->o, 4, argv, stderr) != 0)
		return -1;
	FILE *devnull = fopen("/dev/null", "w");
	log_stream = devnull;
	int rc = run_analysis(&a->o, &a->r);
	log_stream = NULL;
	fclose(devnull);
	return rc == 0 && a->r.model ? 0 : -1;
}

static inline int th_analysed_teardown(void **state)
{
	struct th_analysed *a = *state;
	run_free(&a->r);
	options_free(&a->o);
	th_rm_rf(a->dir);
	free(a->dir);
	free(a);
	return 0;
}

/* The model's function named name (fails the test when there is none). */
static inline const struct mfunc *th_fn_named(const struct model *m, const char *name)
{
	for (size_t i = 0; i < m->fns.n; i++)
		if (strcmp(m->fns.v[i].f->name, name) == 0)
			return &m->fns.v[i];
	fail_msg("no function %s", name);
	return NULL;
}

#endif
