/* parse.h: parallel parsing of translation units into facts. */
#ifndef NOGVL_PARSE_H
#define NOGVL_PARSE_H

#include "extract.h"
#include "facts.h"

struct facts_cache;

/* One translation unit to analyse. */
/* The largest source file read (parsed, scanned for includes, hashed). */
#define MAX_SOURCE_BYTES (64u * 1024 * 1024)

struct tu_job {
	char *file;      /* absolute path of the main file */
	char *display;   /* path shown to the user */
	char *directory; /* working directory for relative paths in args */
	strlist args;    /* compiler arguments, without the input file */
	strlist dropped; /* flags dropped from the compile command */
	bool buildless;
	bool cxx;
	/* extconf.rb builds this file only where this function exists
	 * (`if have_func("...")` around `$srcs << file`), or NULL */
	char *build_probe;
};

void tu_job_free(struct tu_job *j);

struct parse_opts {
	unsigned jobs;
	const struct file_classifier *fc;
	int verbose;
	bool recover;              /* stub recovery for files that do not parse */
	double tu_timeout;         /* seconds; 0 = none */
	double deadline;           /* now_seconds() after which no file is started (--time-budget); 0 = none */
	double memory_limit_mb;    /* resident memory of each parser process (its RLIMIT_AS: twice
				    * that); 0 = none */
	struct facts_cache *cache; /* --cache, or NULL */
	bool no_pch;               /* --no-pch: parse Ruby's headers in every file */
	struct pch_set *pch;       /* set by parse_all */
	const struct CXUnsavedFile *virtual_files; /* e.g. the buildless extconf.h */
	unsigned nvirtual;
	void (*progress)(void *ctx, size_t done, size_t total, const char *file);
	void *progress_ctx;
};

/* Parses every job; returns an array of n facts (never NULL entries). */
struct tu_facts **parse_all(struct tu_job *jobs, size_t n, const struct parse_opts *o);

/* Parses one job with the given index (exposed for tests). */
struct tu_facts *parse_one(void *cxindex, const struct tu_job *job, const struct parse_opts *o);
/* Frees what parse_one keeps between calls (its verdicts on compiler arguments). */
void parse_one_done(void);

#endif
