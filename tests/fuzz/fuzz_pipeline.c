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
 * this fuzzer's. Inputs are capped at 4 KiB. */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "fix.h"
#include "fuzz.h"
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

static char *debug_rules(void)
{
	struct strbuf sb = {0};
	for (unsigned i = 0; i < rule_count; i++)
		if (rule_list[i]->flags & RULE_DEBUG)
			sb_printf(&sb, "%s%s", sb.len ? "," : "", rule_list[i]->slug);
	return sb_detach(&sb);
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

	const char *args[] = {
		"nogvl-lint",
		"--no-config",
		"--jobs",
		"1",
		"--no-progress",
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
	run_free(&r);
	options_free(&o);
	source_cache_clear();
	for (int i = 0; i < argc; i++)
		free(owned[i]);
	free(owned);
	free(argv);
	return 0;
}
