/* compdb.c: compile database reading and flag filtering. */
#include "compdb.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COMPDB_BYTES (512u * 1024 * 1024)

void compdb_free(struct compdb *db)
{
	for (size_t i = 0; i < db->entries.n; i++) {
		free(db->entries.v[i].file);
		free(db->entries.v[i].directory);
		strlist_free(&db->entries.v[i].argv);
	}
	vec_free(&db->entries);
	for (size_t i = 0; i < db->warnings.n; i++)
		free(db->warnings.v[i]);
	vec_free(&db->warnings);
}

int shell_split(const char *cmd, strlist *out)
{
	struct strbuf w = {0};
	bool in_word = false;
	const char *p = cmd;
	while (*p) {
		char c = *p;
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			if (in_word) {
				vec_push(out, sb_detach(&w));
				in_word = false;
			}
			p++;
			continue;
		}
		in_word = true;
		if (c == '\\') {
			if (p[1]) {
				sb_putc(&w, p[1]);
				p += 2;
			} else {
				p++;
			}
			continue;
		}
		if (c == '\'') {
			const char *e = strchr(p + 1, '\'');
			if (!e) {
				sb_free(&w);
				return -1;
			}
			sb_add(&w, p + 1, (size_t)(e - p - 1));
			if (!w.buf)
				sb_puts(&w, "");
			p = e + 1;
			continue;
		}
		if (c == '"') {
			p++;
			while (*p && *p != '"') {
				if (*p == '\\' && (p[1] == '"' || p[1] == '\\' || p[1] == '$' || p[1] == '`')) {
					sb_putc(&w, p[1]);
					p += 2;
					continue;
				}
				sb_putc(&w, *p++);
			}
			if (*p != '"') {
				sb_free(&w);
				return -1;
			}
			if (!w.buf)
				sb_puts(&w, "");
			p++;
			continue;
		}
		sb_putc(&w, c);
		p++;
	}
	if (in_word)
		vec_push(out, sb_detach(&w));
	sb_free(&w);
	return 0;
}

static char *abs_against(const char *p, const char *dir)
{
	char *j = path_join(dir, p);
	char *n = path_normalize(j);
	free(j);
	return n;
}

static void warn(struct compdb *db, size_t index, const char *what)
{
	vec_push(&db->warnings, xasprintf("entry %zu: %s", index, what));
}

int compdb_parse(const char *text, size_t len, const char *base_dir, struct compdb *db, char **err)
{
	json_error_t je;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je);
	if (!root) {
		*err = xasprintf("not valid JSON at line %d, column %d: %s", je.line, je.column, je.text);
		return -1;
	}
	if (!json_is_array(root)) {
		json_decref(root);
		*err = xstrdup("not a compile database: the top level must be a JSON array");
		return -1;
	}
	size_t i;
	json_t *ent;
	json_array_foreach(root, i, ent)
	{
		if (!json_is_object(ent)) {
			warn(db, i, "not an object; skipped");
			continue;
		}
		json_t *jf = json_object_get(ent, "file");
		json_t *jd = json_object_get(ent, "directory");
		json_t *ja = json_object_get(ent, "arguments");
		json_t *jc = json_object_get(ent, "command");
		if (!json_is_string(jf)) {
			warn(db, i, "no \"file\" string; skipped");
			continue;
		}
		if (jd && !json_is_string(jd)) {
			warn(db, i, "\"directory\" is not a string; skipped");
			continue;
		}
		if (!ja && !jc) {
			warn(db, i, "neither \"arguments\" nor \"command\"; skipped");
			continue;
		}
		struct compdb_entry e = {0};
		const char *dir = jd ? json_string_value(jd) : "";
		if (!*dir)
			e.directory = xstrdup(base_dir);
		else if (dir[0] == '/')
			e.directory = path_normalize(dir);
		else
			e.directory = abs_against(dir, base_dir);
		e.file = abs_against(json_string_value(jf), e.directory);
		bool ok = true;
		if (ja) {
			if (!json_is_array(ja)) {
				ok = false;
			} else {
				size_t k;
				json_t *a;
				json_array_foreach(ja, k, a)
				{
					if (!json_is_string(a)) {
						ok = false;
						break;
					}
					vec_push(&e.argv, xstrdup(json_string_value(a)));
				}
			}
			if (!ok)
				warn(db, i, "\"arguments\" is not an array of strings; skipped");
		} else if (!json_is_string(jc) || shell_split(json_string_value(jc), &e.argv) != 0) {
			ok = false;
			warn(db, i, "\"command\" is not a string or has an unterminated quote; skipped");
		}
		if (ok && !e.argv.n) {
			ok = false;
			warn(db, i, "empty command; skipped");
		}
		if (!ok) {
			free(e.file);
			free(e.directory);
			strlist_free(&e.argv);
			continue;
		}
		vec_push(&db->entries, e);
	}
	json_decref(root);
	return 0;
}

int compdb_load(const char *path, struct compdb *db, char **err)
{
	size_t len = 0;
	char *text = read_file(path, &len, MAX_COMPDB_BYTES);
	if (!text) {
		*err = xasprintf("cannot read compile database %s: %s", path, strerror(errno));
		return -1;
	}
	char *abs = path_absolute(path);
	char *dir = path_dirname(abs);
	char *perr = NULL;
	int r = compdb_parse(text, len, dir, db, &perr);
	if (r != 0) {
		*err = xasprintf("%s: %s", path, perr);
		free(perr);
	}
	free(abs);
	free(dir);
	free(text);
	return r;
}

/* ---- flags ---- */

/* Words that make clang load a shared object (some only as -cc1 options,
 * reached through -Xclang, -Xpreprocessor or -Wp,). */
static bool plugin_word(const char *a)
{
	return str_starts(a, "-fplugin") || str_starts(a, "-fpass-plugin") || str_starts(a, "--plugin") ||
	       str_starts(a, "-plugin") || str_starts(a, "-add-plugin") || str_starts(a, "-load") ||
	       str_starts(a, "-Xclang=-load") || str_starts(a, "-Xclang=-plugin") ||
	       str_starts(a, "-Xclang=-add-plugin");
}

const char *flag_refusal(const char *arg, const char *next)
{
	if (plugin_word(arg))
		return FLAG_WHY_PLUGIN;
	/* clang's --config FILE: more flags, from a file this check never sees */
	if (strcmp(arg, "--config") == 0 || str_starts(arg, "--config=") || str_starts(arg, "--config-system-dir") ||
	    str_starts(arg, "--config-user-dir"))
		return FLAG_WHY_CONFIG;
	/* -Wp,a,b,c hands a, b and c to the compiler proper (-Wp,-load,x.so) */
	if (str_starts(arg, "-Wp,")) {
		char *list = xstrdup(arg + 4), *save = NULL;
		bool bad = false;
		for (char *w = strtok_r(list, ",", &save); w && !bad; w = strtok_r(NULL, ",", &save))
			bad = plugin_word(w);
		free(list);
		if (bad)
			return FLAG_WHY_PLUGIN;
	}
	/* -Xclang, -Xpreprocessor, -Xarch_*, -Xopenmp-target=T, ...: the next
	 * argument goes to another stage as it is (the linker and assembler never
	 * run: their -X options are dropped) */
	if (arg[0] == '-' && arg[1] == 'X' && next && strcmp(arg, "-Xlinker") != 0 && strcmp(arg, "-Xassembler") != 0)
		return flag_refusal(next, NULL);
	return NULL;
}

bool flag_loads_plugin(const char *arg, const char *next)
{
	return flag_refusal(arg, next) != NULL;
}

/* Options whose value is a separate argument and that we drop with it. */
static const char *const drop_with_value[] = {
	"--serialize-diagnostics",
	"-L",
	"-MF",
	"-MJ",
	"-MQ",
	"-MT",
	"-T",
	"-Xassembler",
	"-Xlinker",
	"-Xpreprocessor",
	"-arch",
	"-dependency-file",
	"-install_name",
	"-l",
	"-o",
};

/* Other options whose value is a separate argument (dropped with it). */
static const char *const separate_value_any[] = {
	"-MF",
	"-MJ",
	"-MQ",
	"-MT",
	"-o",
	"-dependency-file",
	"-dependency-dot",
	"-module-dependency-dir",
	"-header-include-file",
	"-serialize-diagnostics",
	"--serialize-diagnostics",
	"-working-directory",
	"-arch",
	"-iprefix",
	"-iwithprefix",
	"-iwithprefixbefore",
	"-iframework",
	"-F",
	"-include-pch",
	"-ivfsoverlay",
	"-main-file-name",
	"-z",
	"-Xlinker",
	"-Xassembler",
	"-L",
	"-l",
	"-T",
	"-u",
	"-e",
	"-B",
	"--prefix",
	"-gcc-toolchain",
	"--gcc-toolchain",
	"-resource-dir",
	"-fmodules-cache-path",
	"-module-file-info",
	"-fmodule-file",
	"-fprebuilt-module-path",
	"-cxx-isystem",
	"-isystem-after",
	"--ld-path",
	"-Xopenmp-target",
	"-Xcuda-ptxas",
	"-Xcuda-fatbinary",
	"-Xflang",
	"-Xoffload-linker",
	"--output",
	"-MJ",
};

/* Options that take a path value we make absolute. */
static const char *const path_valued[] = {
	"-I",        "-isystem",  "-iquote", "-idirafter",  "-include",     "-imacros",
	"-isysroot", "--sysroot", "-F",      "-iframework", "-include-pch",
};

/* Joined forms of path-valued options whose value we make absolute. */
static const char *const path_joined[] = {
	"--sysroot=", "-F", "-I", "-idirafter", "-iquote", "-isystem",
};

/* Exact flags about outputs, dependency files and linking. */
static const char *const drop_exact_routine[] = {
	"-c",    "-S",      "-E",      "-M",        "-MM",  "-MD",     "-MMD", "-MP",         "-MG",
	"-pipe", "-shared", "-static", "-rdynamic", "-pie", "-no-pie", "-s",   "-save-temps",
};

/* Exact flags only GCC knows (clang rejects them). */
static const char *const drop_exact_gcc[] = {
	"-fconserve-stack",         "-fno-defer-pop", "-fno-guess-branch-probability",
	"-fno-strict-overflow",     "-fno-tree-vrp",  "-fno-var-tracking-assignments",
	"-Wno-maybe-uninitialized",
};

/* Prefixes of linker, assembler and code-generation options: no meaning for
 * analysis (clang accepts some of them, in some versions). */
static const char *const drop_prefix_routine[] = {
	"-Wl,",
	"-Wa,",
	"-Wp,-MD",
	"-Wp,-MMD",
	"-flto",
	"-fprofile-",
	"-fsanitize",
	"-fcoverage",
	"-ftest-coverage",
	"-fdebug-prefix-map",
	"-ffile-prefix-map",
	"-fmacro-prefix-map",
	"-fstack-clash-protection",
	"-fcf-protection",
	"-fdiagnostics-color",
	"-fno-semantic-interposition",
	"-fstack-protector",
	"-mfunction-return",
	"-fzero-call-used-regs",
};

/* Prefixes of options only GCC knows. */
static const char *const drop_prefix_gcc[] = {
	"--param", "-fharden", "-fipa-", "-fno-ipa-", "-fvar-tracking", "-mindirect-branch", "-specs=",
};

static bool is_source_arg(const char *a)
{
	const char *ext = path_ext(a);
	return a[0] != '-' && (strcmp(ext, ".c") == 0 || strcmp(ext, ".cc") == 0 || strcmp(ext, ".cpp") == 0 ||
			       strcmp(ext, ".cxx") == 0 || strcmp(ext, ".C") == 0 || strcmp(ext, ".m") == 0);
}

static bool starts_with_any(const char *a, const char *const *list, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (str_starts(a, list[k]))
			return true;
	return false;
}

/* ---- the allow-list ---- */

/* Options analysis uses whose value is the next argument when not joined. */
static const char *const allowed_valued[] = {
	"-D",       "-U",        "-I",        "-isystem", "-iquote",  "-idirafter", "-include",
	"-imacros", "-isysroot", "--sysroot", "-target",  "--target", "-x",
};

/* Exact options analysis uses (predefined macros, include search). */
static const char *const allowed_exact[] = {
	"-ansi",  "-pthread",   "-nostdinc", "-nostdinc++", "-nostdlibinc",     "-nobuiltininc",
	"-undef", "-trigraphs", "-w",        "-pedantic",   "-pedantic-errors",
};

/* -f options that change the language or its predefined macros (with
 * -fno- too). Output-writing ones (-fmodules-cache-path=, -ftime-trace=,
 * -fcrash-diagnostics-dir=, -fdump-*, -fsave-optimization-record, ...)
 * are not among them. */
static const char *const allowed_f[] = {
	"PIC",
	"PIE",
	"pic",
	"pie",
	"asm",
	"blocks",
	"builtin",
	"char8_t",
	"common",
	"cxx-exceptions",
	"declspec",
	"delayed-template-parsing",
	"digraphs",
	"dollars-in-identifiers",
	"exceptions",
	"fast-math",
	"finite-math-only",
	"freestanding",
	"gnu-inline-asm",
	"gnu-keywords",
	"gnu89-inline",
	"hosted",
	"inline",
	"inline-functions",
	"keep-inline-functions",
	"ms-compatibility",
	"ms-extensions",
	"objc-arc",
	"omit-frame-pointer",
	"openmp",
	"operator-names",
	"permissive",
	"rtti",
	"short-enums",
	"short-wchar",
	"signed-char",
	"signed-bitfields",
	"strict-aliasing",
	"strict-overflow",
	"threadsafe-statics",
	"trapv",
	"unsigned-char",
	"unsigned-bitfields",
	"wrapv",
	"wchar-type",
	"zero-initialized-in-bss",
	"math-errno",
	"trigraphs",
	"no-builtin",
	"ident",
	"visibility",
	"vla",
	"lax-vector-conversions",
	"access-control",
	"sized-deallocation",
	"aligned-allocation",
	"coroutines",
	"concepts",
	"double-square-bracket-attributes",
	"gnu-runtime",
	"stack-protector",
	"stack-protector-strong",
	"stack-protector-all",
};

/* -f options with a value that is a word, not a path. */
static const char *const allowed_f_valued[] = {
	"visibility=",
	"openmp=",
	"exec-charset=",
	"input-charset=",
	"wchar-type=",
	"builtin-",
	"no-builtin-",
	"openmp-version=",
	"ms-compatibility-version=",
	"msc-version=",
	"constexpr-depth=",
	"template-depth=",
	"bracket-depth=",
	"max-type-align=",
	"pack-struct=",
	"gnuc-version=",
	"trivial-auto-var-init=",
};

static bool in_list(const char *a, const char *const *l, size_t n)
{
	return str_in_list(a, l, n) >= 0;
}

/* -x takes c, c++ and their headers only (-x ir makes libclang read LLVM
 * IR; -x cuda, objective-c, ... are not what we analyse). */
static bool language_ok(const char *l)
{
	return strcmp(l, "c") == 0 || strcmp(l, "c++") == 0 || strcmp(l, "c-header") == 0 ||
	       strcmp(l, "c++-header") == 0;
}

const char *flag_not_allowed(const char *a, const char *next, size_t *take)
{
	*take = 1;
	if (a[0] != '-')
		return "not an option";
	/* one of the valued options, separate or joined */
	for (size_t k = 0; k < ARRAY_SIZE(allowed_valued); k++) {
		const char *o = allowed_valued[k];
		size_t ol = strlen(o);
		if (strcmp(a, o) == 0) {
			if (!next)
				return "no value";
			*take = 2;
			if (strcmp(o, "-x") == 0 && !language_ok(next))
				return "only -x c, c++, c-header and c++-header are analysed";
			return NULL;
		}
		if (strncmp(a, o, ol) == 0) {
			const char *v = a + ol;
			if (*v == '=' && (strcmp(o, "--sysroot") == 0 || strcmp(o, "--target") == 0))
				return NULL;
			if (*v == '=' || *v == '-' || !*v)
				continue; /* -include-pch, -isystem-after: other options */
			if (strcmp(o, "-x") == 0)
				return language_ok(v) ? NULL : "only -x c, c++, c-header and c++-header are analysed";
			/* -isystem vs -isysroot vs -include vs -imacros: joined values
			 * of the long names only when no longer name matches */
			if (strcmp(o, "-I") == 0 || strcmp(o, "-D") == 0 || strcmp(o, "-U") == 0 ||
			    strcmp(o, "-isystem") == 0 || strcmp(o, "-iquote") == 0 || strcmp(o, "-idirafter") == 0 ||
			    strcmp(o, "-include") == 0 || strcmp(o, "-imacros") == 0 || strcmp(o, "-isysroot") == 0)
				return NULL;
		}
	}
	if (in_list(a, allowed_exact, ARRAY_SIZE(allowed_exact)))
		return NULL;
	if (str_starts(a, "-std=") || str_starts(a, "-stdlib="))
		return NULL;
	if (a[1] == 'O' && !strchr(a, '/'))
		return NULL; /* -O2: __OPTIMIZE__ */
	if (a[1] == 'W') {
		/* warnings; not -Wl, -Wa, -Wp, (arguments for other stages) */
		if (strchr(a, ','))
			return "passes arguments to another stage";
		return NULL;
	}
	if (a[1] == 'm') {
		if (strcmp(a, "-mllvm") == 0) {
			*take = next ? 2 : 1;
			return "passes arguments to another stage";
		}
		if (strchr(a, '/'))
			return "a path where a target option was expected";
		return NULL; /* -m64, -march=, -msse4.2: target macros */
	}
	if (a[1] == 'f') {
		const char *f = a + 2;
		if (str_starts(f, "no-"))
			f += 3;
		if (in_list(f, allowed_f, ARRAY_SIZE(allowed_f)))
			return NULL;
		for (size_t k = 0; k < ARRAY_SIZE(allowed_f_valued); k++)
			if (str_starts(a + 2, allowed_f_valued[k]) && !strchr(a, '/'))
				return NULL;
		return "not on the list of options analysis uses";
	}
	/* -Xclang X, -Xpreprocessor X, -Xarch_* X: the payload goes with it */
	if (a[1] == 'X' && !strchr(a, '=')) {
		*take = next ? 2 : 1;
		return "passes arguments to another stage";
	}
	if (in_list(a, separate_value_any, ARRAY_SIZE(separate_value_any))) {
		*take = next ? 2 : 1;
		return "not on the list of options analysis uses";
	}
	return "not on the list of options analysis uses";
}

#define MAX_ENTRY_ARGS 65536u
#define MAX_RESPONSE_DEPTH 4
#define MAX_RESPONSE_BYTES (4u * 1024 * 1024)

/* What response files may add to one entry, all of them together: a
 * compile command has hundreds of arguments, not millions. */
struct rsp_budget {
	size_t bytes; /* read so far, every file each time it is read */
	size_t args;  /* arguments made so far */
};

/* argv with @file response files expanded (as the compiler driver would),
 * so that nothing reaches libclang unseen. */
static int expand_response_files(char *const *argv, size_t argc, const char *directory, strlist *out, unsigned depth,
				 struct rsp_budget *b, char **err)
{
	for (size_t i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (++b->args > MAX_ENTRY_ARGS) {
			*err = xasprintf("more than %u arguments (response files expanded): not a compile command",
					 MAX_ENTRY_ARGS);
			return -1;
		}
		if (a[0] != '@' || !a[1] || i == 0) {
			vec_push(out, xstrdup(a));
			continue;
		}
		if (depth >= MAX_RESPONSE_DEPTH) {
			*err = xasprintf("response file %s: nested too deeply", a);
			return -1;
		}
		char *path = a[1] == '/' ? xstrdup(a + 1) : path_join(directory, a + 1);
		size_t tlen = 0;
		char *text = read_file(path, &tlen, MAX_RESPONSE_BYTES);
		if (!text) {
			*err = xasprintf("cannot read response file %s: %s", path, strerror(errno));
			free(path);
			return -1;
		}
		b->bytes += tlen;
		if (b->bytes > MAX_RESPONSE_BYTES) {
			*err = xasprintf("response files: more than %u MiB read for one entry (at %s)",
					 MAX_RESPONSE_BYTES / (1024 * 1024), path);
			free(path);
			free(text);
			return -1;
		}
		strlist words = {0};
		vec_push(&words, xstrdup("cc")); /* a placeholder argv[0] so '@' is recognised below it */
		int r = shell_split(text, &words);
		free(text);
		if (r != 0) {
			*err = xasprintf("response file %s: unterminated quote", path);
			free(path);
			strlist_free(&words);
			return -1;
		}
		free(path);
		strlist inner = {0};
		b->args--; /* the placeholder */
		r = expand_response_files(words.v, words.n, directory, &inner, depth + 1, b, err);
		strlist_free(&words);
		for (size_t k = 1; k < inner.n; k++)
			vec_push(out, inner.v[k]);
		if (inner.n)
			free(inner.v[0]);
		vec_free(&inner);
		if (r != 0)
			return -1;
	}
	return 0;
}

int filter_flags(char *const *argv0, size_t argc0, const char *file, const char *directory, strlist *keep,
		 strlist *dropped, char **err)
{
	strlist all = {0};
	struct rsp_budget budget = {0, 0};
	if (expand_response_files(argv0, argc0, directory, &all, 0, &budget, err) != 0) {
		strlist_free(&all);
		return -1;
	}
	char *const *argv = all.v;
	size_t argc = all.n;
	for (size_t i = 0; i < argc; i++) {
		const char *why = flag_refusal(argv[i], i + 1 < argc ? argv[i + 1] : NULL);
		if (why) {
			bool pair = argv[i][0] == '-' && argv[i][1] == 'X' && i + 1 < argc && !plugin_word(argv[i]);
			*err = xasprintf("refusing compiler flag '%s%s%s': %s", argv[i], pair ? " " : "",
					 pair ? argv[i + 1] : "", why);
			strlist_free(&all);
			return -1;
		}
	}
	for (size_t i = 1; i < argc; i++) { /* argv[0] is the compiler */
		const char *a = argv[i];
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;
		if (str_in_list(a, drop_with_value, ARRAY_SIZE(drop_with_value)) >= 0) {
			if (next) {
				vec_push(dropped, xasprintf("%s %s" DROP_ROUTINE, a, next));
				i++;
			} else {
				vec_push(dropped, xasprintf("%s" DROP_ROUTINE, a));
			}
			continue;
		}
		/* libclang would change the whole process's current directory */
		if (strcmp(a, "-working-directory") == 0 || str_starts(a, "-working-directory=")) {
			bool sep = strcmp(a, "-working-directory") == 0 && next;
			vec_push(dropped, xasprintf("%s%s%s (changes the analyser's current directory)", a,
						    sep ? " " : "", sep ? next : ""));
			i += sep;
			continue;
		}
		if (str_in_list(a, drop_exact_routine, ARRAY_SIZE(drop_exact_routine)) >= 0 ||
		    starts_with_any(a, drop_prefix_routine, ARRAY_SIZE(drop_prefix_routine)) ||
		    (str_starts(a, "-o") && a[2]) || (str_starts(a, "-MF") && a[3]) || (str_starts(a, "-MT") && a[3]) ||
		    (str_starts(a, "-MQ") && a[3]) || (str_starts(a, "-L") && a[2]) || (str_starts(a, "-l") && a[2])) {
			vec_push(dropped, xasprintf("%s" DROP_ROUTINE, a));
			continue;
		}
		if (str_in_list(a, drop_exact_gcc, ARRAY_SIZE(drop_exact_gcc)) >= 0 ||
		    starts_with_any(a, drop_prefix_gcc, ARRAY_SIZE(drop_prefix_gcc))) {
			vec_push(dropped, xasprintf("%s (GCC-only)", a));
			continue;
		}
		if (is_source_arg(a)) {
			char *abs = a[0] == '/' ? path_normalize(a) : abs_against(a, directory);
			bool same = strcmp(abs, file) == 0;
			free(abs);
			if (!same)
				vec_push(dropped, xasprintf("%s (another source file)", a));
			continue; /* the input file is given separately */
		}
		/* what analysis needs, nothing else (an allow-list: clang has
		 * hundreds of options, some of which write files) */
		size_t take = 1;
		const char *nwhy = flag_not_allowed(a, next, &take);
		if (nwhy) {
			if (take == 2 && next)
				vec_push(dropped, xasprintf("%s %s (%s)", a, next, nwhy));
			else
				vec_push(dropped, xasprintf("%s (%s)", a, nwhy));
			i += take - 1;
			continue;
		}
		/* path-valued options: absolute paths so the parse does not depend on cwd */
		bool handled = false;
		if (str_in_list(a, path_valued, ARRAY_SIZE(path_valued)) >= 0 && next) {
			vec_push(keep, xstrdup(a));
			vec_push(keep, next[0] == '/' ? xstrdup(next) : abs_against(next, directory));
			i++;
			handled = true;
		}
		for (size_t k = 0; !handled && k < ARRAY_SIZE(path_joined); k++) {
			/* joined forms: -Idir, -isystemdir, --sysroot=dir */
			const char *o = path_joined[k];
			size_t ol = strlen(o);
			const char *v = str_starts(a, o) ? a + ol : NULL;
			if (!v || !*v || *v == '-' || *v == '=' || *v == '$' || *v == '/')
				continue;
			char *p = abs_against(v, directory);
			vec_push(keep, xasprintf("%s%s", o, p));
			free(p);
			handled = true;
		}
		if (handled)
			continue;
		vec_push(keep, xstrdup(a));
	}
	strlist_free(&all);
	return 0;
}
