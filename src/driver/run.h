/* run.h: one analysis run (inputs -> parse -> link -> rules -> findings). */
#ifndef NOGVL_RUN_H
#define NOGVL_RUN_H

#include "baseline.h"
#include "changed.h"
#include "cache.h"
#include "cli.h"
#include "config.h"
#include "inputs.h"
#include "model.h"
#include "report.h"
#include "suppress.h"
#include "sysprobe.h"

struct run {
	struct inputs in;
	struct tu_facts **tus;
	size_t ntus;
	struct model *model;
	struct findings findings;
	struct summary sum;
	double t_parse, t_link, t_rules;
	struct config_set cfg;     /* .nogvl-lint.yml files met */
	struct suppress_set sup;   /* inline suppressions of the project's files */
	struct baseline *baseline; /* --baseline, NULL without */
	uint8_t *ran;              /* per rule_list index: the rule ran */
	/* how the files were parsed, kept for re-parsing fixed files */
	struct file_classifier fc;
	struct parse_opts po;
	strlist vpaths;           /* the virtual extconf.h and create_header stand-ins */
	struct facts_cache cache; /* --cache */
	bool cache_on;
	struct CXUnsavedFile *vf;     /* one per vpaths entry */
	spelling_vec foreign_sp;      /* GVL-release spellings in sources not analysed (inputs.foreign) */
	spelling_vec header_sp;       /* ... in the project's headers and macro bodies (the -v counter) */
	struct changed_lines changed; /* --changed-lines */
	bool changed_on;
	size_t changed_hidden; /* findings outside the changed lines */
};

/* Runs the analysis, phase by phase (configuration, inputs, selection,
 * parse, link, offload verdicts, rules, findings). Returns 0 when the run
 * produced results (possibly partial), -1 on a usage/config error or when
 * nothing could be analysed (the reason is logged). */
int run_analysis(const struct options *o, struct run *r);
void run_free(struct run *r);

/* Is the rule enabled under these options? */
bool rule_enabled(const struct options *o, const struct rule_desc *rd);
/* Named by --enable / --disable (or --disable all). */
bool rule_cli_enabled(const struct options *o, const struct rule_desc *rd);
bool rule_cli_disabled(const struct options *o, const struct rule_desc *rd);

/* Is file within what the run reports on (-p DIR FILE..., named files)? */
bool run_in_report_scope(const struct inputs *in, const char *file);

/* Reported findings at or above their fail level. */
size_t run_failing_count(const struct options *o, const struct run *r);

/* What a finished run amounts to; main.c alone maps it to an exit status
 * (README "Exit codes"). */
enum run_verdict {
	RUNV_CLEAN = 0,        /* analysed, nothing at the fail level */
	RUNV_FAILS,            /* a reported finding at or above its fail level */
	RUNV_INCOMPLETE,       /* nothing fails, but not everything was analysed */
	RUNV_NOTHING_ANALYSED, /* every file tried failed */
};
enum run_verdict run_verdict(const struct options *o, const struct run *r);

/* --dump-commands: the compile command of each file, as a compile_commands.json
 * (plus "nogvl_lint_virtual_dir", where the in-memory stand-in extconf.h is). */
int dump_commands(FILE *out, const struct run *r);

/* Prints a human-readable dump of the facts (--dump-facts). */
void dump_facts(FILE *out, struct run *r);

#endif
