/* cli.c: option parsing (getopt_long). */
#include "cli.h"

#include <getopt.h>
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

void print_usage(FILE *out)
{
	fputs("usage: nogvl-lint [options] PATH...\n"
	      "       nogvl-lint [options] -p BUILD_DIR [FILE...]\n"
	      "\n"
	      "Finds unsafe code around GVL releases (rb_nogvl, rb_thread_call_without_gvl, ...)\n"
	      "in Ruby C extensions and callbacks that can take RB_NOGVL_OFFLOAD_SAFE.\n"
	      "\n"
	      "Inputs:\n"
	      "  PATH...                   .c/.cc/.cpp files or directories (buildless mode)\n"
	      "  -p, --build-dir DIR       read DIR/compile_commands.json\n"
	      "      --compile-commands F  read the compile database F\n"
	      "      --ruby-include DIR    Ruby header directory (repeatable; default: from ruby)\n"
	      "  -D NAME[=V], -I DIR       extra defines and include directories\n"
	      "      --extra-arg ARG       extra compiler argument (repeatable)\n"
	      "      --include-vendor      also scan vendor/, tmp/ and pkg/ directories\n"
	      "      --no-offload-view     analyse against the installed headers only (no\n"
	      "                            RB_NOGVL_OFFLOAD_SAFE when they lack it)\n"
	      "      --no-recover          no stub recovery for files that do not parse\n"
	      "      --allow-incomplete    exit 0, not 3, when headers are missing or sources\n"
	      "                            are in a language libclang cannot read (a warning)\n"
	      "      --libclang PATH       the libclang to load (default: $NOGVL_LINT_LIBCLANG,\n"
	      "                            else the build's, else the newest libclang-N.so of\n"
	      "                            LLVM 14 to 19 in the standard library directories)\n"
	      "\n"
	      "Analysis and output:\n"
	      "  -j, --jobs N              parse N files in parallel (default: cores)\n"
	      "      --cache DIR           keep each file's facts in DIR; unchanged files (and\n"
	      "                            headers) are not parsed again\n"
	      "      --no-pch              parse Ruby's headers in every file (no shared\n"
	      "                            precompiled preamble)\n"
	      "      --tu-timeout SECONDS  give up on a file whose parse takes longer (default 300);\n"
	      "                            files are parsed in worker processes, so a file that\n"
	      "                            crashes or hangs libclang only loses that file;\n"
	      "                            0: parse on threads in this process (faster, but such\n"
	      "                            a file ends the run)\n"
	      "      --memory-limit MIB    address space of each parser process (default 4096;\n"
	      "                            0: none); a file that needs more is not analysed\n"
	      "      --time-budget SECONDS the whole run's parsing time (default: none); files\n"
	      "                            not started by then are \"not analysed: budget\"\n"
	      "      --allow-outside-root  accept a named root that is a symlink leading out of\n"
	      "                            the current directory (--fix writes only below the\n"
	      "                            real paths of the named roots)\n"
	      "      --enable SLUG[,SLUG]  enable rules (also the debug-* rules)\n"
	      "      --disable SLUG[,SLUG] disable rules\n"
	      "      --fail-level LEVEL    exit 1 on findings at or above note|warning|error|none\n"
	      "                            (default: warning; info is the same as note)\n"
	      "      --changed-lines REF   report only findings whose line or call chain touches\n"
	      "                            a line changed since git revision REF (git diff -U0\n"
	      "                            REF); '-' reads a unified diff from stdin\n"
	      "      --fix                 apply the fixes findings carry (RB_NOGVL_OFFLOAD_SAFE\n"
	      "                            patches): each file replaced atomically, then re-parsed;\n"
	      "                            then print the findings that remain (exit 1 at or above\n"
	      "                            the fail level)\n"
	      "      --fix-dry-run, --diff print those fixes as a unified diff instead (the\n"
	      "                            findings go to stderr)\n"
	      "      --explain-callback NAME  print the offload gate checklist of callback NAME\n"
	      "      --format FORMAT       text (default), json, sarif, github or html (one\n"
	      "                            self-contained page); repeat it to write several\n"
	      "                            formats in one run\n"
	      "  -o, --output FILE         write the preceding --format to FILE (default: stdout)\n"
	      "      --config FILE         use FILE for every analysed file instead of the\n"
	      "                            nearest .nogvl-lint.yml\n"
	      "      --no-config           ignore .nogvl-lint.yml files\n"
	      "      --models FILE         add or override library models (what a library\n"
	      "                            function does: thread safety, blocking ...) from\n"
	      "                            FILE, a YAML file like rules/models/*.yml (repeatable)\n"
	      "      --baseline FILE       report only findings not recorded in FILE, and list\n"
	      "                            recorded ones that are fixed\n"
	      "      --write-baseline FILE record the current findings in FILE\n"
	      "      --report-unused-suppressions\n"
	      "                            report nogvl-lint: ignore comments that suppress nothing\n"
	      "      --no-progress         no progress line on a terminal\n"
	      "      --color=WHEN          always|never|auto\n"
	      "  -v, --verbose             more detail: Ruby headers used, dropped compiler\n"
	      "                            flags, files with parse errors (-vv: more)\n"
	      "\n"
	      "Information:\n"
	      "      --list-rules          list the rules\n"
	      "      --explain SLUG        print a rule's documentation\n"
	      "      --dump-commands       print the compiler arguments each file would be parsed\n"
	      "                            with (a compile_commands.json), without parsing\n"
	      "  -h, --help                this help\n"
	      "      --version             version\n"
	      "\n"
	      "Exit status: 0 clean (notes allowed), 1 findings at or above the fail level,\n"
	      "2 usage or configuration error, or nothing could be analysed, 3 no such\n"
	      "findings but some files could not be analysed (crash, timeout, unreadable).\n",
	      out);
}

enum {
	OPT_COMPDB = 1000,
	OPT_RUBY_INCLUDE,
	OPT_EXTRA_ARG,
	OPT_ENABLE,
	OPT_DISABLE,
	OPT_FAIL_LEVEL,
	OPT_LIST_RULES,
	OPT_EXPLAIN,
	OPT_VERSION,
	OPT_NO_RECOVER,
	OPT_NO_OFFLOAD_VIEW,
	OPT_INCLUDE_VENDOR,
	OPT_DUMP_FACTS,
	OPT_COLOR,
	OPT_FORMAT,
	OPT_FIX,
	OPT_ROUNDTRIP_FACTS,
	OPT_CACHE,
	OPT_TU_TIMEOUT,
	OPT_NO_PCH,
	OPT_ALLOW_INCOMPLETE,
	OPT_FIX_DRY_RUN,
	OPT_EXPLAIN_CALLBACK,
	OPT_BASELINE,
	OPT_WRITE_BASELINE,
	OPT_CONFIG,
	OPT_NO_CONFIG,
	OPT_MODELS,
	OPT_REPORT_UNUSED,
	OPT_NO_PROGRESS,
	OPT_DUMP_COMMANDS,
	/* issue 20: bounds and roots (kept together to ease merging) */
	OPT_TIME_BUDGET,
	OPT_MEMORY_LIMIT,
	OPT_ALLOW_OUTSIDE_ROOT,
	OPT_LIBCLANG,
	OPT_CHANGED_LINES,
};

int output_format_parse(const char *s)
{
	static const char *const names[] = {"text", "json", "sarif", "github", "html"};
	for (int i = 0; i < (int)ARRAY_SIZE(names); i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

static void push_csv(struct options *o, bool enable, char *arg)
{
	char *save = NULL;
	for (char *t = strtok_r(arg, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (enable)
			vec_push(&o->enable, t);
		else
			vec_push(&o->disable, t);
	}
}

int options_parse(struct options *o, int argc, char **argv, FILE *err)
{
	static const struct option longopts[] = {
		{"build-dir", required_argument, NULL, 'p'},
		{"compile-commands", required_argument, NULL, OPT_COMPDB},
		{"ruby-include", required_argument, NULL, OPT_RUBY_INCLUDE},
		{"extra-arg", required_argument, NULL, OPT_EXTRA_ARG},
		{"enable", required_argument, NULL, OPT_ENABLE},
		{"disable", required_argument, NULL, OPT_DISABLE},
		{"fail-level", required_argument, NULL, OPT_FAIL_LEVEL},
		{"jobs", required_argument, NULL, 'j'},
		{"output", required_argument, NULL, 'o'},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"list-rules", no_argument, NULL, OPT_LIST_RULES},
		{"explain", required_argument, NULL, OPT_EXPLAIN},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, OPT_VERSION},
		{"verbose", no_argument, NULL, 'v'},
		{"no-recover", no_argument, NULL, OPT_NO_RECOVER},
		{"no-offload-view", no_argument, NULL, OPT_NO_OFFLOAD_VIEW},
		{"include-vendor", no_argument, NULL, OPT_INCLUDE_VENDOR},
		{"dump-facts", no_argument, NULL, OPT_DUMP_FACTS},
		{"color", optional_argument, NULL, OPT_COLOR},
		{"fix", no_argument, NULL, OPT_FIX},
		{"roundtrip-facts", no_argument, NULL, OPT_ROUNDTRIP_FACTS},
		{"cache", required_argument, NULL, OPT_CACHE},
		{"tu-timeout", required_argument, NULL, OPT_TU_TIMEOUT},
		{"no-pch", no_argument, NULL, OPT_NO_PCH},
		{"allow-incomplete", no_argument, NULL, OPT_ALLOW_INCOMPLETE},
		{"fix-dry-run", no_argument, NULL, OPT_FIX_DRY_RUN},
		{"diff", no_argument, NULL, OPT_FIX_DRY_RUN},
		{"explain-callback", required_argument, NULL, OPT_EXPLAIN_CALLBACK},
		{"baseline", required_argument, NULL, OPT_BASELINE},
		{"write-baseline", required_argument, NULL, OPT_WRITE_BASELINE},
		{"config", required_argument, NULL, OPT_CONFIG},
		{"no-config", no_argument, NULL, OPT_NO_CONFIG},
		{"models", required_argument, NULL, OPT_MODELS},
		{"report-unused-suppressions", no_argument, NULL, OPT_REPORT_UNUSED},
		{"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
		{"dump-commands", no_argument, NULL, OPT_DUMP_COMMANDS},
		{"time-budget", required_argument, NULL, OPT_TIME_BUDGET},
		{"memory-limit", required_argument, NULL, OPT_MEMORY_LIMIT},
		{"allow-outside-root", no_argument, NULL, OPT_ALLOW_OUTSIDE_ROOT},
		{"libclang", required_argument, NULL, OPT_LIBCLANG},
		{"changed-lines", required_argument, NULL, OPT_CHANGED_LINES},
		{NULL, 0, NULL, 0},
	};
	const char *pending_out = NULL;
	optind = 0; /* reset (GNU: also re-initialises) */
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":p:j:o:D:I:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (path_is_dir(optarg)) {
				char *j = path_join(optarg, "compile_commands.json");
				o->compile_commands = arena_strdup(&o->arena, j);
				free(j);
			} else {
				o->compile_commands = optarg;
			}
			break;
		case OPT_COMPDB:
			o->compile_commands = optarg;
			break;
		case OPT_RUBY_INCLUDE:
			vec_push(&o->ruby_includes, optarg);
			break;
		case OPT_EXTRA_ARG:
			vec_push(&o->extra_args, optarg);
			break;
		case 'D':
		case 'I':
			/* keep the flag with its value in one argument */
			vec_push(&o->extra_args, arena_printf(&o->arena, "-%c%s", c, optarg));
			break;
		case OPT_ENABLE:
			push_csv(o, true, optarg);
			break;
		case OPT_DISABLE:
			push_csv(o, false, optarg);
			break;
		case OPT_FAIL_LEVEL: {
			int s = severity_parse(optarg);
			if (s < 0) {
				fprintf(err, "nogvl-lint: error: --fail-level takes note, warning, error or none, not '%s'\n",
					optarg);
				return 2;
			}
			o->fail_level = s;
			o->fail_level_set = true;
			break;
		}
		case 'j': {
			char *end = NULL;
			long n = strtol(optarg, &end, 10);
			if (!end || *end || n < 1 || n > 1024) {
				fprintf(err, "nogvl-lint: error: --jobs takes a number from 1 to 1024, not '%s'\n", optarg);
				return 2;
			}
			o->jobs = (unsigned)n;
			break;
		}
		case 'o':
			/* -o belongs to the latest --format that has no file yet (RuboCop's
			 * -f/-o pairing); given before any --format it waits for the next
			 * one, and alone it redirects the default text output */
			if (o->outputs.n && !o->outputs.v[o->outputs.n - 1].file) {
				o->outputs.v[o->outputs.n - 1].file = optarg;
			} else if (pending_out) {
				fprintf(err, "nogvl-lint: error: -o %s: give a --format before each further -o\n", optarg);
				return 2;
			} else if (o->outputs.n) {
				fprintf(err, "nogvl-lint: error: -o %s: the preceding --format already has -o %s\n", optarg,
					o->outputs.v[o->outputs.n - 1].file);
				return 2;
			} else {
				pending_out = optarg;
			}
			o->output = optarg;
			break;
		case OPT_FORMAT: {
			int f = output_format_parse(optarg);
			if (f < 0) {
				fprintf(err, "nogvl-lint: error: unknown --format '%s' (text, json, sarif, github, html)\n",
					optarg);
				return 2;
			}
			struct output_spec sp = {f, pending_out};
			pending_out = NULL;
			vec_push(&o->outputs, sp);
			o->format = f;
			break;
		}
		case OPT_BASELINE:
			o->baseline = optarg;
			break;
		case OPT_WRITE_BASELINE:
			o->write_baseline = optarg;
			break;
		case OPT_CONFIG:
			o->config_file = optarg;
			break;
		case OPT_MODELS:
			vec_push(&o->models, optarg);
			break;
		case OPT_NO_CONFIG:
			o->no_config = true;
			break;
		case OPT_REPORT_UNUSED:
			o->report_unused_suppressions = true;
			break;
		case OPT_NO_PROGRESS:
			o->progress_off = true;
			break;
		case OPT_LIST_RULES:
			o->list_rules = true;
			break;
		case OPT_EXPLAIN:
			o->explain = optarg;
			break;
		case 'h':
			o->help = true;
			break;
		case OPT_VERSION:
			o->version = true;
			break;
		case 'v':
			o->verbose++;
			break;
		case OPT_NO_RECOVER:
			o->no_recover = true;
			break;
		case OPT_NO_OFFLOAD_VIEW:
			o->ruby34_view = false;
			break;
		case OPT_INCLUDE_VENDOR:
			o->include_vendor = true;
			break;
		case OPT_DUMP_FACTS:
			o->dump_facts = true;
			break;
		case OPT_DUMP_COMMANDS:
			o->dump_commands = true;
			break;
		case OPT_TIME_BUDGET:
		case OPT_MEMORY_LIMIT: {
			char *end = NULL;
			double t = strtod(optarg, &end);
			bool budget = c == OPT_TIME_BUDGET;
			if (!end || *end || !(t >= 0) || t > (budget ? 30 * 86400.0 : 1048576.0)) {
				fprintf(err, "nogvl-lint: error: %s takes %s (0 for none), not '%s'\n",
					budget ? "--time-budget" : "--memory-limit", budget ? "seconds" : "MiB", optarg);
				return 2;
			}
			if (budget)
				o->time_budget = t;
			else
				o->memory_limit_mb = t;
			break;
		}
		case OPT_ALLOW_OUTSIDE_ROOT:
			o->allow_outside_root = true;
			break;
		case OPT_FIX:
			o->fix = true;
			break;
		case OPT_ROUNDTRIP_FACTS:
			o->roundtrip_facts = true;
			break;
		case OPT_CACHE:
			o->cache_dir = optarg;
			break;
		case OPT_NO_PCH:
			o->no_pch = true;
			break;
		case OPT_ALLOW_INCOMPLETE:
			o->allow_incomplete = true;
			break;
		case OPT_TU_TIMEOUT: {
			char *end = NULL;
			double t = strtod(optarg, &end);
			if (!end || *end || !(t >= 0) || t > 86400) {
				fprintf(err, "nogvl-lint: error: --tu-timeout takes seconds (0 for no worker processes), not '%s'\n",
					optarg);
				return 2;
			}
			o->tu_timeout = t;
			break;
		}
		case OPT_FIX_DRY_RUN:
			o->fix_dry_run = true;
			break;
		case OPT_EXPLAIN_CALLBACK:
			o->explain_callback = optarg;
			break;
		case OPT_LIBCLANG:
			o->libclang = optarg;
			break;
		case OPT_CHANGED_LINES:
			/* a revision, never an option for git */
			if (!*optarg || (optarg[0] == '-' && optarg[1])) {
				fprintf(err, "nogvl-lint: error: --changed-lines takes a git revision or '-' (a diff on "
					     "stdin), not '%s'\n",
					optarg);
				return 2;
			}
			o->changed_lines = optarg;
			break;
		case OPT_COLOR:
			if (!optarg || strcmp(optarg, "always") == 0)
				o->color_mode = 1;
			else if (strcmp(optarg, "never") == 0)
				o->color_mode = 0;
			else if (strcmp(optarg, "auto") == 0)
				o->color_mode = -1;
			else {
				fprintf(err, "nogvl-lint: error: --color takes always, never or auto\n");
				return 2;
			}
			break;
		case ':':
			fprintf(err, "nogvl-lint: error: option '%s' needs a value (see --help)\n", argv[optind - 1]);
			return 2;
		case '?':
		default:
			if (optopt && optopt < 256)
				fprintf(err, "nogvl-lint: error: unknown option '-%c' (see --help)\n", optopt);
			else
				fprintf(err, "nogvl-lint: error: unknown option '%s' (see --help)\n", argv[optind - 1]);
			return 2;
		}
	}
	for (int i = optind; i < argc; i++)
		vec_push(&o->paths, argv[i]);
	if (pending_out) {
		struct output_spec sp = {FMT_TEXT, pending_out};
		vec_push(&o->outputs, sp);
	}
	/* at most one output on stdout: machine output never shares a stream */
	unsigned on_stdout = 0;
	for (size_t i = 0; i < o->outputs.n; i++)
		on_stdout += o->outputs.v[i].file == NULL;
	if (on_stdout > 1) {
		fprintf(err, "nogvl-lint: error: several --format outputs on stdout; give each but one a -o FILE\n");
		return 2;
	}
	if (o->config_file && o->no_config) {
		fprintf(err, "nogvl-lint: error: --config and --no-config contradict each other\n");
		return 2;
	}
	return 0;
}
