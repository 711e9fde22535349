/* cli.c: option parsing (getopt_long). */
#include "cli.h"

#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

void options_init(struct options *o)
{
	memset(o, 0, sizeof(*o));
	o->fail_level = SEV_WARNING;
	o->ruby34_view = true;
	o->color_mode = -1;
	o->tu_timeout = NOGVL_DEFAULT_TU_TIMEOUT;
	o->memory_limit_mb = NOGVL_DEFAULT_MEMORY_LIMIT_MB;
}

void options_free(struct options *o)
{
	vec_free(&o->paths);
	vec_free(&o->ruby_includes);
	vec_free(&o->extra_args);
	vec_free(&o->enable);
	vec_free(&o->disable);
	vec_free(&o->models);
	vec_free(&o->outputs);
	arena_free(&o->arena);
}

int output_format_parse(const char *s)
{
	static const char *const names[] = {"text", "json", "sarif", "github", "html"};
	for (int i = 0; i < (int)ARRAY_SIZE(names); i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

/* ---- the options: one table, from which getopt's tables and --help come ---- */

/* What a setter sees: the options, where errors go, and an -o waiting for
 * its --format. Setters return 0, or -1 after printing one line to err. */
struct opt_state {
	struct options *o;
	FILE *err;
	const char *pending_out;
};
struct opt_spec;
typedef int (*opt_setter)(struct opt_state *st, const struct opt_spec *s, char *arg);

struct opt_spec {
	const char *section; /* the --help heading printed before this row */
	const char *name;    /* --name; NULL: a short option or a row of --help only */
	int short_name;      /* -x; 0: none */
	int has_arg;         /* no_argument, required_argument or optional_argument */
	const char *arg;     /* the argument in --help ("DIR"; "=WHEN" when optional) */
	size_t field;        /* offsetof(struct options, ...), for the generic setters */
	opt_setter set;      /* NULL: a row of --help only */
	const char *label;   /* --help's left column when not "-x, --name ARG" */
	const char *help;    /* NULL: not in --help; lines after the first are indented */
};

#define FIELD_AT(st, s, type) ((type *)((char *)(st)->o + (s)->field))

static int set_true(struct opt_state *st, const struct opt_spec *s, char *arg)
{
	*FIELD_AT(st, s, bool) = true;
	return 0;
}

static int set_false(struct opt_state *st, const struct opt_spec *s, char *arg)
{
	*FIELD_AT(st, s, bool) = false;
	return 0;
}

static int set_count(struct opt_state *st, const struct opt_spec *s, char *arg)
{
	(*FIELD_AT(st, s, int))++;
	return 0;
}

static int set_string(struct opt_state *st, const struct opt_spec *s, char *arg)
{
	*FIELD_AT(st, s, const char *) = arg;
	return 0;
}

static int push_string(struct opt_state *st, const struct opt_spec *s, char *arg)
{
	vec_push(FIELD_AT(st, s, cstrlist), arg);
	return 0;
}

/* --enable/--disable SLUG[,SLUG] */
static int push_csv(struct opt_state *st, const struct opt_spec *s, char *arg)
{
	char *save = NULL;
	for (char *t = strtok_r(arg, ",", &save); t; t = strtok_r(NULL, ",", &save))
		vec_push(FIELD_AT(st, s, cstrlist), t);
	return 0;
}

/* -D NAME[=V], -I DIR: the flag with its value in one argument */
static int push_flag(struct opt_state *st, const struct opt_spec *s, char *arg)
{
	vec_push(FIELD_AT(st, s, cstrlist), arena_printf(&st->o->arena, "-%c%s", s->short_name, arg));
	return 0;
}

static int set_build_dir(struct opt_state *st, const struct opt_spec *s, char *arg)
{
	if (path_is_dir(arg)) {
		char *j = path_join(arg, "compile_commands.json");
		st->o->compile_commands = arena_strdup(&st->o->arena, j);
		free(j);
	} else {
		st->o->compile_commands = arg;
	}
	return 0;
}

static int set_fail_level(struct opt_state *st, const struct opt_spec *s, char *arg)
{
	int sev = severity_parse(arg);
	if (sev < 0) {
		fprintf(st->err, "nogvl-lint: error: --fail-level takes note, warning, error or none, not '%s'\n", arg);
		return -1;
	}
	st->o->fail_level = sev;
	st->o->fail_level_set = true;
	return 0;
}

static int set_jobs(struct opt_state *st, const struct opt_spec *s, char *arg)
{
	char *end = NULL;
	long n = strtol(arg, &end, 10);
	if (!end || *end || n < 1 || n > 1024) {
		fprintf(st->err, "nogvl-lint: error: --jobs takes a number from 1 to 1024, not '%s'\n", arg);
		return -1;
	}
	st->o->jobs = (unsigned)n;
	return 0;
}

/* -o belongs to the latest --format that has no file yet (RuboCop's -f/-o
 * pairing); given before any --format it waits for the next one, and alone
 * it redirects the default text output */
static int set_output(struct opt_state *st, const struct opt_spec *s, char *arg)
{
	struct options *o = st->o;
	if (o->outputs.n && !o->outputs.v[o->outputs.n - 1].file) {
		o->outputs.v[o->outputs.n - 1].file = arg;
	} else if (st->pending_out) {
		fprintf(st->err, "nogvl-lint: error: -o %s: give a --format before each further -o\n", arg);
		return -1;
	} else if (o->outputs.n) {
		fprintf(st->err, "nogvl-lint: error: -o %s: the preceding --format already has -o %s\n", arg,
			o->outputs.v[o->outputs.n - 1].file);
		return -1;
	} else {
		st->pending_out = arg;
	}
	o->output = arg;
	return 0;
}

static int set_format(struct opt_state *st, const struct opt_spec *s, char *arg)
{
	int f = output_format_parse(arg);
	if (f < 0) {
		fprintf(st->err, "nogvl-lint: error: unknown --format '%s' (text, json, sarif, github, html)\n", arg);
		return -1;
	}
	struct output_spec sp = {f, st->pending_out};
	st->pending_out = NULL;
	vec_push(&st->o->outputs, sp);
	st->o->format = f;
	return 0;
}

/* --time-budget SECONDS, --memory-limit MIB: 0 for none */
static int set_limit(struct opt_state *st, const struct opt_spec *s, char *arg)
{
	char *end = NULL;
	double t = strtod(arg, &end);
	bool budget = s->field == offsetof(struct options, time_budget);
	if (!end || *end || !(t >= 0) || t > (budget ? 30 * 86400.0 : 1048576.0)) {
		fprintf(st->err, "nogvl-lint: error: %s takes %s (0 for none), not '%s'\n",
			budget ? "--time-budget" : "--memory-limit", budget ? "seconds" : "MiB", arg);
		return -1;
	}
	*FIELD_AT(st, s, double) = t;
	return 0;
}

static int set_tu_timeout(struct opt_state *st, const struct opt_spec *s, char *arg)
{
	char *end = NULL;
	double t = strtod(arg, &end);
	if (!end || *end || !(t >= 0) || t > 86400) {
		fprintf(st->err,
			"nogvl-lint: error: --tu-timeout takes seconds (0 for no worker processes), not '%s'\n", arg);
		return -1;
	}
	st->o->tu_timeout = t;
	return 0;
}

/* a revision, never an option for git */
static int set_changed_lines(struct opt_state *st, const struct opt_spec *s, char *arg)
{
	if (!*arg || (arg[0] == '-' && arg[1])) {
		fprintf(st->err,
			"nogvl-lint: error: --changed-lines takes a git revision or '-' (a diff on "
			"stdin), not '%s'\n",
			arg);
		return -1;
	}
	st->o->changed_lines = arg;
	return 0;
}

static int set_color(struct opt_state *st, const struct opt_spec *s, char *arg)
{
	if (!arg || strcmp(arg, "always") == 0)
		st->o->color_mode = 1;
	else if (strcmp(arg, "never") == 0)
		st->o->color_mode = 0;
	else if (strcmp(arg, "auto") == 0)
		st->o->color_mode = -1;
	else {
		fprintf(st->err, "nogvl-lint: error: --color takes always, never or auto\n");
		return -1;
	}
	return 0;
}

#define F(field) offsetof(struct options, field)
#define NOARG no_argument, NULL
#define ARG(name) required_argument, name
static const struct opt_spec opt_table[] = {
	/* section, name, short, argument, field, setter, label, help */
	{"Inputs", NULL, 0, NOARG, 0, NULL, "PATH...", ".c/.cc/.cpp files or directories (buildless mode)"},
	{NULL, "build-dir", 'p', ARG("DIR"), 0, set_build_dir, NULL, "read DIR/compile_commands.json"},
	{NULL, "compile-commands", 0, ARG("F"), F(compile_commands), set_string, NULL, "read the compile database F"},
	{NULL, "ruby-include", 0, ARG("DIR"), F(ruby_includes), push_string, NULL,
	 "Ruby header directory (repeatable; default: from ruby)"},
	{NULL, NULL, 'D', ARG("NAME[=V]"), F(extra_args), push_flag, "-D NAME[=V], -I DIR",
	 "extra defines and include directories"},
	{NULL, NULL, 'I', ARG("DIR"), F(extra_args), push_flag, NULL, NULL},
	{NULL, "extra-arg", 0, ARG("ARG"), F(extra_args), push_string, NULL, "extra compiler argument (repeatable)"},
	{NULL, "include-vendor", 0, NOARG, F(include_vendor), set_true, NULL,
	 "also scan vendor/, tmp/ and pkg/ directories"},
	{NULL, "no-offload-view", 0, NOARG, F(ruby34_view), set_false, NULL,
	 "analyse against the installed headers only (no\nRB_NOGVL_OFFLOAD_SAFE when they lack it)"},
	{NULL, "no-recover", 0, NOARG, F(no_recover), set_true, NULL, "no stub recovery for files that do not parse"},
	{NULL, "allow-incomplete", 0, NOARG, F(allow_incomplete), set_true, NULL,
	 "exit 0, not 3, when headers are missing or sources\nare in a language libclang cannot read (a warning)"},
	{NULL, "libclang", 0, ARG("PATH"), F(libclang), set_string, NULL,
	 "the libclang to load (default: $NOGVL_LINT_LIBCLANG,\nelse the build's, else the newest libclang-N.so of\n"
	 "LLVM 14 to 19 in the standard library directories)"},

	{"Analysis and output", "jobs", 'j', ARG("N"), 0, set_jobs, NULL, "parse N files in parallel (default: cores)"},
	{NULL, "cache", 0, ARG("DIR"), F(cache_dir), set_string, NULL,
	 "keep each file's facts in DIR; unchanged files (and\nheaders) are not parsed again"},
	{NULL, "no-pch", 0, NOARG, F(no_pch), set_true, NULL,
	 "parse Ruby's headers in every file (no shared\nprecompiled preamble)"},
	{NULL, "tu-timeout", 0, ARG("SECONDS"), 0, set_tu_timeout, NULL,
	 "give up on a file whose parse takes longer (default 300);\nfiles are parsed in worker processes, so a file "
	 "that\ncrashes or hangs libclang only loses that file;\n0: parse on threads in this process (faster, but "
	 "such\na file ends the run)"},
	{NULL, "memory-limit", 0, ARG("MIB"), F(memory_limit_mb), set_limit, NULL,
	 "memory of each parser process (default 1024;\n0: none); a file that needs more is \"not analysed:\n"
	 "resource limit\""},
	{NULL, "time-budget", 0, ARG("SECONDS"), F(time_budget), set_limit, NULL,
	 "the whole run's parsing time (default: none); files\nnot started by then are \"not analysed: budget\""},
	{NULL, "allow-outside-root", 0, NOARG, F(allow_outside_root), set_true, NULL,
	 "accept a named root that is a symlink leading out of\nthe current directory (--fix writes only below the\n"
	 "real paths of the named roots)"},
	{NULL, "enable", 0, ARG("SLUG[,SLUG]"), F(enable), push_csv, NULL, "enable rules (also the debug-* rules)"},
	{NULL, "disable", 0, ARG("SLUG[,SLUG]"), F(disable), push_csv, NULL, "disable rules"},
	{NULL, "fail-level", 0, ARG("LEVEL"), 0, set_fail_level, NULL,
	 "exit 1 on findings at or above note|warning|error|none\n(default: warning; info is the same as note)"},
	{NULL, "changed-lines", 0, ARG("REF"), 0, set_changed_lines, NULL,
	 "report only findings whose line or call chain touches\na line changed since git revision REF (git diff -U0\n"
	 "REF); '-' reads a unified diff from stdin"},
	{NULL, "fix", 0, NOARG, F(fix), set_true, NULL,
	 "apply the fixes findings carry (RB_NOGVL_OFFLOAD_SAFE\npatches): each file replaced atomically, then "
	 "re-parsed;\nthen print the findings that remain (exit 1 at or above\nthe fail level)"},
	{NULL, "fix-dry-run", 0, NOARG, F(fix_dry_run), set_true, "    --fix-dry-run, --diff",
	 "print those fixes as a unified diff instead (the\nfindings go to stderr)"},
	{NULL, "diff", 0, NOARG, F(fix_dry_run), set_true, NULL, NULL},
	{NULL, "explain-callback", 0, ARG("NAME"), F(explain_callback), set_string, NULL,
	 "print the offload gate checklist of callback NAME"},
	{NULL, "format", 0, ARG("FORMAT"), 0, set_format, NULL,
	 "text (default), json, sarif, github or html (one\nself-contained page); repeat it to write several\nformats "
	 "in one run"},
	{NULL, "output", 'o', ARG("FILE"), 0, set_output, NULL,
	 "write the preceding --format to FILE (default: stdout)"},
	{NULL, "config", 0, ARG("FILE"), F(config_file), set_string, NULL,
	 "use FILE for every analysed file instead of the\nnearest .nogvl-lint.yml"},
	{NULL, "no-config", 0, NOARG, F(no_config), set_true, NULL, "ignore .nogvl-lint.yml files"},
	{NULL, "models", 0, ARG("FILE"), F(models), push_string, NULL,
	 "add or override library models (what a library\nfunction does: thread safety, blocking ...) from\nFILE, a "
	 "YAML file like rules/models/*.yml (repeatable)"},
	{NULL, "baseline", 0, ARG("FILE"), F(baseline), set_string, NULL,
	 "report only findings not recorded in FILE, and list\nrecorded ones that are fixed"},
	{NULL, "write-baseline", 0, ARG("FILE"), F(write_baseline), set_string, NULL,
	 "record the current findings in FILE"},
	{NULL, "report-unused-suppressions", 0, NOARG, F(report_unused_suppressions), set_true, NULL,
	 "report nogvl-lint: ignore comments that suppress nothing"},
	{NULL, "no-progress", 0, NOARG, F(progress_off), set_true, NULL, "no progress line on a terminal"},
	{NULL, "color", 0, optional_argument, "=WHEN", 0, set_color, NULL, "always|never|auto"},
	{NULL, "verbose", 'v', NOARG, F(verbose), set_count, NULL,
	 "more detail: Ruby headers used, dropped compiler\nflags, files with parse errors (-vv: more)"},
	{NULL, "dump-facts", 0, NOARG, F(dump_facts), set_true, NULL, NULL},           /* debug */
	{NULL, "roundtrip-facts", 0, NOARG, F(roundtrip_facts), set_true, NULL, NULL}, /* debug */

	{"Information", "list-rules", 0, NOARG, F(list_rules), set_true, NULL, "list the rules"},
	{NULL, "explain", 0, ARG("SLUG"), F(explain), set_string, NULL, "print a rule's documentation"},
	{NULL, "dump-commands", 0, NOARG, F(dump_commands), set_true, NULL,
	 "print the compiler arguments each file would be parsed\nwith (a compile_commands.json), without parsing"},
	{NULL, "help", 'h', NOARG, F(help), set_true, NULL, "this help"},
	{NULL, "version", 0, NOARG, F(version), set_true, NULL, "version"},
};
#undef F
#undef NOARG
#undef ARG

#define HELP_COLUMN 28 /* where --help's descriptions start */

/* One row of --help: the option's column, then its description, whose
 * further lines are indented to HELP_COLUMN. A column too wide for its
 * description puts it on the next line, unless the row still fits 80. */
static void print_option(FILE *out, const struct opt_spec *s)
{
	struct strbuf sb = {0};
	sb_puts(&sb, "  ");
	if (s->label)
		sb_puts(&sb, s->label);
	else {
		sb_puts(&sb, s->short_name ? "" : "    ");
		if (s->short_name)
			sb_printf(&sb, "-%c%s", s->short_name, s->name ? ", " : "");
		if (s->name)
			sb_printf(&sb, "--%s", s->name);
		if (s->arg)
			sb_printf(&sb, "%s%s", s->arg[0] == '=' ? "" : " ", s->arg);
	}
	size_t col = strlen(sb_str(&sb)), first = strcspn(s->help, "\n");
	if (col < HELP_COLUMN)
		fprintf(out, "%-*s", HELP_COLUMN, sb_str(&sb));
	else if (col + 2 + first <= 80)
		fprintf(out, "%s  ", sb_str(&sb));
	else
		fprintf(out, "%s\n%*s", sb_str(&sb), HELP_COLUMN, "");
	sb_free(&sb);
	for (const char *p = s->help;;) {
		size_t n = strcspn(p, "\n");
		fprintf(out, "%.*s\n", (int)n, p);
		if (!p[n])
			break;
		p += n + 1;
		fprintf(out, "%*s", HELP_COLUMN, "");
	}
}

void print_usage(FILE *out)
{
	fputs("usage: nogvl-lint [options] PATH...\n"
	      "       nogvl-lint [options] -p BUILD_DIR [FILE...]\n"
	      "\n"
	      "Finds unsafe code around GVL releases (rb_nogvl, rb_thread_call_without_gvl, ...)\n"
	      "in Ruby C extensions and callbacks that can take RB_NOGVL_OFFLOAD_SAFE.\n",
	      out);
	for (size_t i = 0; i < ARRAY_SIZE(opt_table); i++) {
		const struct opt_spec *s = &opt_table[i];
		if (s->section)
			fprintf(out, "\n%s:\n", s->section);
		if (s->help)
			print_option(out, s);
	}
	fputs("\n"
	      "Exit status: 0 clean (notes allowed), 1 findings at or above the fail level,\n"
	      "2 usage or configuration error, or nothing could be analysed, 3 no such\n"
	      "findings but some files could not be analysed (crash, timeout, unreadable).\n",
	      out);
}

/* getopt_long's tables from opt_table: a long option returns 1000 + its row */
enum {
	OPT_ROW = 1000
};
static void getopt_tables(struct option *longopts, char *shortopts)
{
	size_t nl = 0;
	char *p = shortopts;
	*p++ = ':'; /* a missing value is ':', not '?' */
	for (size_t i = 0; i < ARRAY_SIZE(opt_table); i++) {
		const struct opt_spec *s = &opt_table[i];
		if (!s->set)
			continue;
		if (s->name)
			longopts[nl++] = (struct option){s->name, s->has_arg, NULL, OPT_ROW + (int)i};
		if (s->short_name) {
			*p++ = (char)s->short_name;
			if (s->has_arg != no_argument)
				*p++ = ':';
			if (s->has_arg == optional_argument)
				*p++ = ':';
		}
	}
	*p = 0;
	longopts[nl] = (struct option){NULL, 0, NULL, 0};
}

/* The row getopt_long's answer c names, NULL for an error (printed). */
static const struct opt_spec *option_row(int c, char **argv, FILE *err)
{
	if (c >= OPT_ROW && c < OPT_ROW + (int)ARRAY_SIZE(opt_table))
		return &opt_table[c - OPT_ROW];
	for (size_t i = 0; c > 0 && c < 256 && c != ':' && c != '?' && i < ARRAY_SIZE(opt_table); i++)
		if (opt_table[i].short_name == c && opt_table[i].set)
			return &opt_table[i];
	if (c == ':')
		fprintf(err, "nogvl-lint: error: option '%s' needs a value (see --help)\n", argv[optind - 1]);
	else if (optopt && optopt < 256)
		fprintf(err, "nogvl-lint: error: unknown option '-%c' (see --help)\n", optopt);
	else
		fprintf(err, "nogvl-lint: error: unknown option '%s' (see --help)\n", argv[optind - 1]);
	return NULL;
}

/* What the options say together. */
static int options_check(struct opt_state *st)
{
	struct options *o = st->o;
	if (st->pending_out) {
		struct output_spec sp = {FMT_TEXT, st->pending_out};
		vec_push(&o->outputs, sp);
	}
	/* at most one output on stdout: machine output never shares a stream */
	unsigned on_stdout = 0;
	for (size_t i = 0; i < o->outputs.n; i++)
		on_stdout += o->outputs.v[i].file == NULL;
	if (on_stdout > 1) {
		fprintf(st->err,
			"nogvl-lint: error: several --format outputs on stdout; give each but one a -o FILE\n");
		return -1;
	}
	if (o->config_file && o->no_config) {
		fprintf(st->err, "nogvl-lint: error: --config and --no-config contradict each other\n");
		return -1;
	}
	return 0;
}

int options_parse(struct options *o, int argc, char **argv, FILE *err)
{
	struct option longopts[ARRAY_SIZE(opt_table) + 1];
	char shortopts[3 * ARRAY_SIZE(opt_table) + 2];
	getopt_tables(longopts, shortopts);
	struct opt_state st = {o, err, NULL};
	optind = 0; /* reset (GNU: also re-initialises) */
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		const struct opt_spec *s = option_row(c, argv, err);
		if (!s || s->set(&st, s, optarg) != 0)
			return -1;
	}
	for (int i = optind; i < argc; i++)
		vec_push(&o->paths, argv[i]);
	return options_check(&st);
}
