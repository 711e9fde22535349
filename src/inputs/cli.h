/* cli.h: command-line options. */
#ifndef NOGVL_CLI_H
#define NOGVL_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "util.h"

enum output_format {
	FMT_TEXT = 0,
	FMT_JSON,
	FMT_SARIF,
	FMT_GITHUB,
	FMT_HTML,
};

/* One requested output: --format F, optionally followed by -o FILE. */
struct config_set;

struct output_spec {
	int format;       /* enum output_format */
	const char *file; /* NULL: stdout */
};

/* borrowed strings (argv, or the options' arena) */
typedef VEC(const char *) cstrlist;

/* Files are parsed in worker processes with this limit unless --tu-timeout 0. */
#define NOGVL_DEFAULT_TU_TIMEOUT 300.0
/* Each parser process's resident memory (MiB) unless --memory-limit (its
 * address space: twice that). The heaviest real files measured parse in
 * about 220 MiB (a gRPC C++ test with gtest; Ruby's ripper 135 MiB); a
 * 730-byte file of nested doubling macros (tests/fuzz/pipeline/regressions/
 * macro-doubling.c) would take 2.5 GiB and is stopped here. */
#define NOGVL_DEFAULT_MEMORY_LIMIT_MB 1024.0

struct options {
	cstrlist paths;                  /* positional: files or directories */
	const char *compile_commands;    /* --compile-commands FILE or -p DIR/compile_commands.json */
	cstrlist ruby_includes;          /* --ruby-include DIR */
	cstrlist extra_args;             /* --extra-arg ARG, -D, -I */
	cstrlist enable;                 /* --enable SLUG (also debug rules) */
	cstrlist disable;                /* --disable SLUG */
	unsigned jobs;                   /* --jobs N; 0 = cores */
	int verbose;                     /* -v count */
	int format;                      /* enum output_format (of the last --format) */
	const char *output;              /* -o FILE (of the last output) */
	VEC(struct output_spec) outputs; /* every --format/-o pair; empty: text to stdout */
	int fail_level;                  /* enum severity */
	bool fail_level_set;             /* --fail-level given (wins over the config) */
	const char *baseline;            /* --baseline FILE: report only new findings */
	const char *write_baseline;      /* --write-baseline FILE */
	const char *config_file;         /* --config FILE: this config for every file */
	bool no_config;                  /* --no-config: ignore .nogvl-lint.yml files */
	cstrlist models;                 /* --models FILE: user library models */
	bool report_unused_suppressions; /* --report-unused-suppressions */
	bool progress_off;               /* --no-progress */
	bool list_rules, help, version;
	const char *explain;          /* --explain SLUG */
	bool no_recover;              /* --no-recover: no stub recovery */
	bool ruby34_view;             /* analyse as Ruby 3.4+ (default on) */
	bool include_vendor;          /* --include-vendor: do not skip vendor/ tmp/ pkg/ */
	bool dump_facts;              /* --dump-facts (debug) */
	const char *cache_dir;        /* --cache DIR */
	double tu_timeout;            /* --tu-timeout SECONDS: worker processes' limit; 0: threads */
	bool no_pch;                  /* --no-pch: no shared precompiled Ruby headers */
	bool allow_incomplete;        /* --allow-incomplete: missing headers / unread sources: 0, not 3 */
	bool roundtrip_facts;         /* --roundtrip-facts (debug): facts through facts_io */
	bool dump_commands;           /* --dump-commands: each file's compile command, then exit */
	double time_budget;           /* --time-budget SECONDS for all parsing; 0: none */
	double memory_limit_mb;       /* --memory-limit MIB per parser process; 0: none */
	bool allow_outside_root;      /* --allow-outside-root: a symlinked root may lead out */
	bool fix;                     /* --fix: apply fixes in place */
	bool fix_dry_run;             /* --fix-dry-run / --diff: print them as a diff */
	const char *explain_callback; /* --explain-callback NAME */
	bool color;                   /* colour text output */
	int color_mode;               /* -1 auto, 0 never, 1 always */
	const char *libclang;         /* --libclang PATH */
	const char *changed_lines;    /* --changed-lines REF, or "-": a diff on stdin */
	struct config_set *configs;   /* set by the driver: per-file .nogvl-lint.yml */
	struct arena arena;           /* strings made while parsing */
};

void options_init(struct options *o);
void options_free(struct options *o);

/* Parses argv by the option table (cli.c), from which --help comes too. On
 * error prints one line to err and returns -1; returns 0 on success. */
int options_parse(struct options *o, int argc, char **argv, FILE *err);

void print_usage(FILE *out);
/* "text" -> FMT_TEXT ...; -1 when unknown. */
int output_format_parse(const char *s);

#endif
