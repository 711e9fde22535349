/* run.h: one analysis run (inputs -> parse -> link -> rules -> findings). */
#ifndef NOGVL_RUN_H
#define NOGVL_RUN_H

#include "cli.h"
#include "inputs.h"
#include "model.h"
#include "report.h"

struct run {
	struct inputs in;
	struct tu_facts **tus;
	size_t ntus;
	struct model *model;
	struct findings findings;
	struct summary sum;
	double t_parse, t_link, t_rules;
};

/* Runs the analysis. Returns 0 when the run produced results (possibly
 * partial), 2 on a usage/config error or when nothing could be analysed
 * (the reason is logged). */
int run_analysis(const struct options *o, struct run *r);
void run_free(struct run *r);

/* Is the rule enabled under these options? */
bool rule_enabled(const struct options *o, const struct rule_desc *rd);

/* Exit status for a finished run: 1 when findings reach the fail level. */
int run_exit_status(const struct options *o, const struct run *r);

/* Prints a human-readable dump of the facts (--dump-facts). */
void dump_facts(FILE *out, struct run *r);

#endif
