/* fuzz_pipeline.c: the whole analysis on a small generated C file, as the
 * command line runs it: inputs, parse (libclang), extraction, link, GVL
 * context, every rule (debug rules too), configuration, suppressions,
 * fingerprints, every output format, and the --fix diff. libclang itself is
 * not instrumented (crashes inside it are out of scope); everything we do
 * with what it gives back is.
 *
 * The input is a C file that may include <ruby.h> and <ruby/thread.h>; they
 * come from tests/fuzz/ruby/, a small stand-in that costs little to parse.
 * Other headers only as <plain/name.h> (system headers). Inputs that could
 * name any other file (#include "x", #import, #pragma GCC dependency, a
 * backslash that could splice a directive together) are skipped: a header
 * that is /dev/zero is libclang's business (and the per-TU timeout's), not
 * this fuzzer's. Inputs are capped at 4 KiB.
 *
 * Macros can make a few hundred bytes expand to gigabytes (a macro that
 * doubles its argument, nested): the command line bounds that with its parser
 * processes' memory limit (isolate.c). An input with a #define is therefore
 * first analysed as the command line does, in a parser process under the
 * default limits; one stopped by them ("not analysed: resource limit", or the
 * time limit) must still complete its run cleanly, and goes no further. The
 * others are then analysed again in this process, where the sanitizers and
 * the fuzzer's coverage see the extraction. */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "fix.h"
#include "fuzz.h"
#include "isolate.h"
#include "output.h"
#include "report.h"
#include "rule.h"
#include "run.h"

#define MAX_INPUT 4096

/* An #include line naming a header in angle brackets by a plain name
 * (<ruby.h>, <string.h>, <sys/types.h>): looked up in the Ruby stand-in and
 * the system's include directories only. */
static bool plain_angle_include(const char *line, size_t len)
{
	const char *p = line, *e = line + len;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	if (p == e || *p++ != '#')
		return false;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	if ((size_t)(e - p) < 8 || strncmp(p, "include", 7) != 0)
		return false;
	p += 7;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	if (p == e || *p++ != '<')
		return false;
	const char *name = p;
	while (p < e && ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '/' || *p == '.'))
		p++;
	if (p == e || *p != '>' || p - name < 3 || strncmp(p - 2, ".h", 2) != 0 || name[0] == '/')
		return false;
	for (const char *q = name; q < p - 1; q++)
		if (q[0] == '.' && q[1] == '.')
			return false;
	for (p++; p < e; p++)
		if (*p != ' ' && *p != '\t' && *p != '\r')
			return false;
	return true;
}

/* Could the input make the parser open a file other than plain angle
 * includes? (Blanks those lines, then looks for the words that name files.) */
static bool names_other_files(const char *text)
{
	static const char *const banned[] = {"include", "import", "dependency", "embed", "\\\n", "\\\r", "?\?/"};
	char *copy = xstrdup(text);
	for (char *line = copy; *line;) {
		char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		if (plain_angle_include(line, len))
			memset(line, ' ', len);
		line += len + (nl != NULL);
	}
	bool bad = false;
	for (size_t i = 0; i < ARRAY_SIZE(banned) && !bad; i++)
		bad = strstr(copy, banned[i]) != NULL;
	free(copy);
	return bad;
}

/* Does the input define a macro (a `#` then `define`, blanks between)? */
static bool defines_macro(const char *text)
{
	for (const char *p = strchr(text, '#'); p; p = strchr(p + 1, '#')) {
		const char *q = p + 1;
		while (*q == ' ' || *q == '\t')
			q++;
		if (strncmp(q, "define", 6) == 0)
			return true;
	}
	return false;
}

/* The parser processes: this program again, with --internal-parse-worker
 * (replay_main.c calls this too). */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	if (*argc == 2 && strcmp((*argv)[1], "--internal-parse-worker") == 0)
		exit(isolate_worker_main());
	isolate_enable();
	return 0;
}

static char *debug_rules(void)
{
	struct strbuf sb = {0};
	for (unsigned i = 0; i < rule_count; i++)
		if (rule_list[i]->flags & RULE_DEBUG)
			sb_printf(&sb, "%s%s", sb.len ? "," : "", rule_list[i]->slug);
	return sb_detach(&sb);
}

/* The whole analysis of file and every output; in parser processes
 * (isolated) or in this process. Returns whether a parser process's limits
 * stopped the file (isolated only). */
static bool analyse(const char *file, const char *debug, FILE *null, bool isolated)
{
	const char *args[] = {
		"nogvl-lint",
		"--no-config",
		"--jobs",
		"1",
		"--no-progress",
		"--tu-timeout",
		isolated ? "30" : "0",
		"--ruby-include",
		FUZZ_RUBY_DIR,
		"--enable",
		debug,
		"--report-unused-suppressions",
		"--format",
		"text",
		"-o",
		"/dev/null",
		"--format",
		"json",
		"-o",
		"/dev/null",
		"--format",
		"sarif",
		"-o",
		"/dev/null",
		"--format",
		"github",
		"-o",
		"/dev/null",
		file,
	};
	int argc = (int)ARRAY_SIZE(args);
	char **argv = xcalloc((size_t)argc + 1, sizeof(char *));
	for (int i = 0; i < argc; i++)
		argv[i] = xstrdup(args[i]);
	char **owned = xmalloc((size_t)argc * sizeof(char *)); /* getopt permutes argv */
	memcpy(owned, argv, (size_t)argc * sizeof(char *));

	struct options o;
	options_init(&o);
	if (options_parse(&o, argc, argv, null) != 0)
		abort();
	struct run r;
	if (run_analysis(&o, &r) == 0) {
		output_write_all(&o, &r);
		summary_line(null, &r.sum);
		fix_run(&r, true, null);
		/* findings only in the analysed file, each with a message */
		for (size_t i = 0; i < r.findings.v.n; i++) {
			const struct finding *f = r.findings.v.v[i];
			if (!f->msg || !f->loc.file || strcmp(f->loc.file, file) != 0)
				abort();
		}
	}
	/* a parser process that crashed or stopped is a bug of ours (libclang
	 * recovers from its own crashes inside it); stopped by a limit, the file
	 * is reported as not analysed, with the reason */
	bool limited = false;
	for (size_t i = 0; isolated && i < r.ntus; i++) {
		const char *why = r.tus[i]->status == TU_FAILED ? r.tus[i]->fail_reason : NULL;
		if (why && (str_starts(why, "the parser crashed") || str_starts(why, "the parser stopped")))
			abort();
		if (why && (str_starts(why, "resource limit") || str_starts(why, "parsing took longer")))
			limited = true;
	}
	if (limited && r.sum.files_failed != 1)
		abort();
	run_free(&r);
	options_free(&o);
	source_cache_clear();
	for (int i = 0; i < argc; i++)
		free(owned[i]);
	free(owned);
	free(argv);
	return limited;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > MAX_INPUT)
		return 0;
	char *text = fuzz_cstr(data, size);
	if (names_other_files(text)) {
		free(text);
		return 0;
	}
	bool macros = defines_macro(text);
	free(text);
	fuzz_quiet();
	static char *file, *debug;
	static FILE *null;
	if (!file) {
		char *ext = path_join(fuzz_tmpdir(), "ext");
		mkdir(ext, 0700);
		file = path_join(ext, "fuzz.c");
		free(ext);
		debug = debug_rules();
		null = fopen("/dev/null", "w");
	}
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);

	/* bounded in a parser process first; stopped there: done */
	if (macros && analyse(file, debug, null, true))
		return 0;
	analyse(file, debug, null, false);
	return 0;
}
