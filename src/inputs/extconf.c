/* extconf.c: see extconf.h. A line-and-literal scanner, not a Ruby parser:
 * it recognises the mkmf calls by name and takes their string-literal
 * arguments. */
#include "extconf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

char *mkmf_cpp_name(const char *s)
{
	struct strbuf sb = {0};
	for (const char *p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;
		sb_putc(&sb, isalnum(c) ? (char)toupper(c) : '_');
	}
	return sb_detach(&sb);
}

void extconf_info_free(struct extconf_info *ei)
{
	free(ei->path);
	strlist_free(&ei->defines);
	strlist_free(&ei->include_dirs);
	strlist_free(&ei->include_why);
	strlist_free(&ei->quote_dirs);
	strlist_free(&ei->pkg_modules);
	strlist_free(&ei->lib_names);
	strlist_free(&ei->objs);
	strlist_free(&ei->srcs);
	strlist_free(&ei->notes);
	strlist_free(&ei->cond_srcs);
	strlist_free(&ei->cond_probes);
	strlist_free(&ei->headers);
}

static void add_unique(strlist *l, char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0) {
			free(s);
			return;
		}
	vec_push(l, s);
}

/* Interpolations that name the extconf.rb's directory (mkmf's $(srcdir)). */
static const char *const srcdir_exprs[] = {
	"$srcdir",
	"__dir__",
	"File.dirname(__FILE__)",
	"File.expand_path(__dir__)",
	"File.expand_path(File.dirname(__FILE__))",
	"File.expand_path('..', __FILE__)",
	"File.expand_path(\"..\", __FILE__)",
};

/* Reads the string literal starting at *p ('...' or "..."); advances *p.
 * With srcdir_interp, an interpolation of the extconf.rb's directory
 * (`#{__dir__}`, `#{$srcdir}` ...) reads as "$(srcdir)"; any other makes
 * the value unknown (NULL). */
static char *read_literal_x(const char **p, bool srcdir_interp)
{
	char q = **p;
	if (q != '"' && q != '\'')
		return NULL;
	const char *s = *p + 1;
	struct strbuf sb = {0};
	while (*s && *s != q && *s != '\n') {
		if (*s == '\\' && s[1]) {
			sb_putc(&sb, s[1]);
			s += 2;
			continue;
		}
		if (q == '"' && s[0] == '#' && s[1] == '{') {
			const char *close = strchr(s + 2, '}');
			bool known = false;
			for (size_t i = 0; srcdir_interp && close && i < ARRAY_SIZE(srcdir_exprs) && !known; i++)
				known = (size_t)(close - s - 2) == strlen(srcdir_exprs[i]) &&
					strncmp(s + 2, srcdir_exprs[i], strlen(srcdir_exprs[i])) == 0;
			if (known) {
				sb_puts(&sb, "$(srcdir)");
				s = close + 1;
				continue;
			}
			/* interpolation: we cannot know the value */
			sb_free(&sb);
			while (*s && *s != q && *s != '\n')
				s++;
			*p = *s == q ? s + 1 : s;
			return NULL;
		}
		sb_putc(&sb, *s++);
	}
	*p = *s == q ? s + 1 : s;
	if (!sb.buf)
		return xstrdup("");
	return sb_detach(&sb);
}

static char *read_literal(const char **p)
{
	return read_literal_x(p, false);
}

/* The string-literal arguments after `name(` or `name ` on this line. */
static void literal_args(const char *after, strlist *args)
{
	const char *p = after;
	while (*p == ' ' || *p == '\t' || *p == '(')
		p++;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '[') { /* have_func("f", ["a.h", "b.h"]) */
			p++;
			continue;
		}
		/* have_header(hdr = 'ffi.h'): the assigned literal */
		const char *id = p;
		while (isalnum((unsigned char)*id) || *id == '_')
			id++;
		if (id > p && !isdigit((unsigned char)*p) && str_starts(id, " = ") && (id[3] == '"' || id[3] == '\''))
			p = id + 3;
		char *lit = read_literal(&p);
		if (!lit)
			return;
		vec_push(args, lit);
		while (*p == ' ' || *p == '\t' || *p == ']')
			p++;
		if (*p != ',')
			return;
		p++;
	}
}

/* The identifiers of every header under the Ruby dirs, read once per
 * extconf.rb and looked up per probe (a probe scanning the headers' text
 * made an extconf.rb of thousands of have_func() calls take minutes). */
struct ruby_text {
	const strlist *dirs;
	struct hmap words; /* identifier -> (void *)1 */
	struct strpool pool;
	bool loaded;
};

static void load_dir_headers(struct strbuf *sb, const char *dir, unsigned depth);

#include <dirent.h>
static void load_dir_headers(struct strbuf *sb, const char *dir, unsigned depth)
{
	if (depth > 4)
		return;
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		char *p = path_join(dir, de->d_name);
		if (path_is_dir(p)) {
			load_dir_headers(sb, p, depth + 1);
		} else if (str_ends(p, ".h")) {
			size_t n = 0;
			char *t = read_file(p, &n, 8u * 1024 * 1024);
			if (t) {
				sb_add(sb, t, n);
				sb_putc(sb, '\n');
				free(t);
			}
		}
		free(p);
	}
	closedir(d);
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static bool ruby_declares(struct ruby_text *rt, const char *name)
{
	if (!rt->loaded) {
		struct strbuf sb = {0};
		for (size_t i = 0; rt->dirs && i < rt->dirs->n; i++)
			load_dir_headers(&sb, rt->dirs->v[i], 0);
		const char *t = sb_str(&sb);
		for (size_t i = 0; i < sb.len;) {
			if (!ident_char(t[i])) {
				i++;
				continue;
			}
			size_t b = i;
			while (i < sb.len && ident_char(t[i]))
				i++;
			if (!isdigit((unsigned char)t[b])) {
				const char *w = intern_n(&rt->pool, t + b, i - b);
				if (!hmap_has(&rt->words, w))
					hmap_put(&rt->words, w, (void *)1);
			}
		}
		sb_free(&sb);
		rt->loaded = true;
	}
	return hmap_has(&rt->words, name);
}

/* have_func(fn) succeeds: a Ruby function only when the Ruby headers have
 * it (with a note for -v when say_missing) */
static void have_func(struct ruby_text *rt, const char *fn, struct extconf_info *out, bool say_missing)
{
	bool ruby_fn = str_starts(fn, "rb_") || str_starts(fn, "ruby_");
	if (!ruby_fn || ruby_declares(rt, fn)) {
		char *n = mkmf_cpp_name(fn);
		add_unique(&out->defines, xasprintf("HAVE_%s=1", n));
		free(n);
	} else if (say_missing) {
		vec_push(&out->notes, xasprintf("have_func(\"%s\"): not in the Ruby headers; left undefined", fn));
	}
}

static bool ruby_has_header(const strlist *dirs, const char *h)
{
	for (size_t i = 0; dirs && i < dirs->n; i++) {
		char *p = path_join(dirs->v[i], h);
		bool r = path_is_file(p);
		free(p);
		if (r)
			return true;
	}
	return false;
}

/* Where extconf.rb's include directories go in mkmf's compile command:
 * $(INCFLAGS) (find_header, pkg_config, $INCFLAGS), then $(CPPFLAGS)
 * (dir_config prepends, $CPPFLAGS / append_cppflags), then $(CFLAGS). */
enum inc_bucket {
	INC_INCFLAGS,
	INC_DIR_CONFIG,
	INC_CPPFLAGS,
	INC_CFLAGS,
	INC_NBUCKETS
};

struct inc_lists {
	strlist dirs[INC_NBUCKETS], why[INC_NBUCKETS];
};

static void inc_add(struct inc_lists *il, enum inc_bucket b, char *d, const char *why)
{
	for (unsigned k = 0; k < INC_NBUCKETS; k++)
		for (size_t i = 0; i < il->dirs[k].n; i++)
			if (strcmp(il->dirs[k].v[i], d) == 0) {
				free(d);
				return;
			}
	vec_push(&il->dirs[b], d);
	vec_push(&il->why[b], xstrdup(why));
}

/* A directory as mkmf would see it: $(srcdir) (and the interpolations read
 * as it) is the extconf.rb's directory, a relative path is taken from it
 * (the build directory of an in-place build); anything else with a `$` is
 * unknown (NULL). */
static char *expand_dir(const char *w, const char *dir)
{
	static const char *const forms[] = {"$(srcdir)", "${srcdir}", "$srcdir"};
	for (size_t i = 0; i < ARRAY_SIZE(forms); i++)
		if (str_starts(w, forms[i])) {
			const char *rest = w + strlen(forms[i]);
			if (*rest && *rest != '/')
				return NULL;
			while (*rest == '/')
				rest++;
			char *j = *rest ? path_join(dir, rest) : xstrdup(dir);
			char *n = path_normalize(j);
			free(j);
			return n;
		}
	if (!*w || strchr(w, '$') || strchr(w, '`'))
		return NULL;
	char *j = w[0] == '/' ? xstrdup(w) : path_join(dir, w);
	char *n = path_normalize(j);
	free(j);
	return n;
}

/* -D and -I words inside a flags string literal. */
static void flags_from_literal(const char *lit, const char *dir, struct extconf_info *out, struct inc_lists *il,
			       enum inc_bucket b, const char *why)
{
	strlist words = {0};
	if (shell_split(lit, &words) != 0) {
		strlist_free(&words);
		return;
	}
	for (size_t i = 0; i < words.n; i++) {
		const char *w = words.v[i];
		if (str_starts(w, "-D") && w[2]) {
			add_unique(&out->defines, xstrdup(w + 2));
		} else if (str_starts(w, "-I")) {
			const char *d = w[2] ? w + 2 : i + 1 < words.n ? words.v[++i] : "";
			char *e = expand_dir(d, dir);
			if (e)
				inc_add(il, b, e, why);
			else if (*d)
				vec_push(&out->notes,
					 xasprintf("%s: -I%s: not a directory known without running extconf.rb; "
						   "not used",
						   why, d));
		}
	}
	strlist_free(&words);
}

static const char *find_call(const char *line, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = line; (p = strstr(p, name)) != NULL; p += n) {
		bool lb = p == line || !(isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '$');
		char c = p[n];
		if (lb && (c == '(' || c == ' ' || c == '\t'))
			return p + n;
	}
	return NULL;
}

/* A header name safe to create in the virtual directory: letters, digits,
 * '_', '-', '.', not starting with '.', at most 64 bytes. */
static bool plain_header_name(const char *h)
{
	size_t n = strlen(h);
	if (n == 0 || n > 64 || h[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)h[i]) && h[i] != '_' && h[i] != '-' && h[i] != '.')
			return false;
	return true;
}

/* ---- headers of other platforms ---- */

/* Headers only other systems have: BSD's kqueue, Solaris' event ports,
 * Windows, macOS. A probe for one that this machine lacks fails, as it would
 * in a real build here (assuming it succeeds makes libev and friends compile
 * their kqueue or event-port backends, which cannot parse on Linux). */
static const char *const other_platform_headers[] = {
	"AvailabilityMacros.h",
	"CoreFoundation/CoreFoundation.h",
	"CoreServices/CoreServices.h",
	"TargetConditionals.h",
	"crt_externs.h",
	"direct.h",
	"io.h",
	"kvm.h",
	"libproc.h",
	"mach/mach.h",
	"mach/mach_time.h",
	"malloc/malloc.h",
	"port.h",
	"sys/devpoll.h",
	"sys/event.h",
	"sys/filio.h",
	"windows.h",
	"winsock2.h",
	"ws2tcpip.h",
	"libutil.h",
	"winsock.h",
	"iphlpapi.h",
};

/* Libraries only Windows has (have_library("ws2_32") fails elsewhere). */
static const char *const other_platform_libs[] = {
	"ws2_32",   "wsock32",  "iphlpapi", "user32", "kernel32", "advapi32", "shell32", "ole32",
	"oleaut32", "imagehlp", "dbghelp",  "psapi",  "secur32",  "crypt32",  "winmm",   "shlwapi",
};

static bool system_has_header(const char *h)
{
	static const char *const dirs[] = {"/usr/include",
					   "/usr/local/include",
					   "/usr/include/x86_64-linux-gnu",
					   "/usr/include/aarch64-linux-gnu",
					   "/usr/include/i386-linux-gnu",
					   "/usr/include/arm-linux-gnueabihf"};
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char *p = path_join(dirs[i], h);
		bool ok = path_is_file(p);
		free(p);
		if (ok)
			return true;
	}
	return false;
}

/* h, when it is a header of another platform that this machine lacks (the
 * list's copy, which outlives h), else NULL */
static const char *other_platform_header(const char *h)
{
	for (size_t i = 0; i < ARRAY_SIZE(other_platform_headers); i++)
		if (strcmp(h, other_platform_headers[i]) == 0)
			return system_has_header(h) ? NULL : other_platform_headers[i];
	return NULL;
}

/* The probe calls whose header arguments decide them. */
static const char *const header_probes[] = {"have_header",  "check_header",       "find_header", "have_type",
					    "have_func",    "have_struct_member", "have_const",  "have_macro",
					    "have_library", "find_library"};

/* Does a probe on this text name a header of another platform? Then it
 * fails here. */
static const char *other_platform_probe(const char *text)
{
	for (size_t k = 0; k < ARRAY_SIZE(header_probes); k++) {
		const char *a = find_call(text, header_probes[k]);
		if (!a)
			continue;
		strlist args = {0};
		literal_args(a, &args);
		const char *hit = NULL;
		for (size_t i = 0; i < args.n && !hit; i++)
			hit = other_platform_header(args.v[i]);
		bool lib =
			strcmp(header_probes[k], "have_library") == 0 || strcmp(header_probes[k], "find_library") == 0;
		for (size_t i = 0; lib && args.n && i < ARRAY_SIZE(other_platform_libs) && !hit; i++)
			if (strcmp(args.v[0], other_platform_libs[i]) == 0)
				hit = other_platform_libs[i];
		strlist_free(&args);
		if (hit)
			return hit;
	}
	return NULL;
}

/* ---- what the installed library decides (pkg-config, headers) ---- */

static bool kw_at(const char *t, const char *kw);

static unsigned indent_of(const char *line)
{
	unsigned n = 0;
	while (line[n] == ' ' || line[n] == '\t')
		n++;
	return n;
}

/* A helper of extconf.rb comparing the library's version with its argument:
 * `def name(arg)` ... `Gem::Version.new($var) >= Gem::Version.new(arg)`. */
struct ver_pred {
	char *name;
	char *var; /* the version variable it reads ($magick_version) */
	char op[3];
};

struct reader {
	const struct extconf_env *env;
	const char *dir;
	const char *text; /* the whole extconf.rb (for looking ahead) */
	struct inc_lists *il;
	strlist incdirs; /* -I directories of the modules pkg-config knows */
	char *chosen;    /* the module chosen from a candidate list */
	char *chosen_version;
	strlist var_names, var_versions; /* $var = PKGConfig.modversion(...) */
	VEC(struct ver_pred) preds;
	/* names (variables, methods without arguments) whose value is known
	 * here: V_TRUE, V_FALSE, V_NIL; a name assigned differently twice is
	 * V_UNKNOWN */
	strlist names;
	VEC(int) name_vals;
	struct extconf_info *out;
};

/* Values of Ruby expressions as this machine's build would see them. */
enum {
	V_UNKNOWN = -1,
	V_FALSE = 0,
	V_TRUE = 1,
	V_NIL = 2
};

/* Gem::Version order of two dotted versions (missing parts are 0). */
static int version_cmp(const char *a, const char *b)
{
	while (*a || *b) {
		unsigned long x = strtoul(a, (char **)&a, 10), y = strtoul(b, (char **)&b, 10);
		if (x != y)
			return x < y ? -1 : 1;
		while (*a && *a != '.')
			a++;
		while (*b && *b != '.')
			b++;
		if (*a == '.')
			a++;
		if (*b == '.')
			b++;
	}
	return 0;
}

static bool module_word(const char *w)
{
	if (!*w || strlen(w) > 100 || w[0] == '-')
		return false;
	for (const char *p = w; *p; p++)
		if (!(isalnum((unsigned char)*p) || strchr("._+-", *p)))
			return false;
	return !str_ends(w, ".h") && !str_ends(w, ".c");
}

/* The identifier (with ?/!) at p; malloc'ed, or NULL. */
static char *ident_at(const char *p)
{
	const char *b = p;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	if (p == b)
		return NULL;
	if (*p == '?' || *p == '!')
		p++;
	return xstrndup(b, (size_t)(p - b));
}

/* The token inside `Gem::Version.new(` at p: "$var", "@var", "arg". */
static char *gem_version_arg(const char *p)
{
	const char *k = strstr(p, "Gem::Version.new(");
	if (!k)
		return NULL;
	k += strlen("Gem::Version.new(");
	while (*k == ' ')
		k++;
	const char *b = k;
	if (*k == '$' || *k == '@')
		k++;
	while (isalnum((unsigned char)*k) || *k == '_')
		k++;
	return k > b ? xstrndup(b, (size_t)(k - b)) : NULL;
}

/* Reads, before the line-by-line pass, what depends on the library's
 * version: the module chosen from candidate lists, the variables holding
 * its version, and the helpers comparing them. */
static void read_versions(struct reader *r)
{
	const struct extconf_env *env = r->env;
	if (!env || !env->pkg)
		return;
	const char *t = r->text;
	/* pkg_config("x"): its include directories answer have_header */
	for (const char *p = t; (p = strstr(p, "pkg_config")) != NULL; p += 10) {
		if (p > t && (isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '$' || p[-1] == '.'))
			continue; /* abort_pkg_config(...), PKGConfig.pkg_config */
		const char *a = find_call(p, "pkg_config");
		if (a != p + 10)
			continue;
		strlist args = {0};
		literal_args(a, &args);
		if (args.n && module_word(args.v[0]))
			env->pkg(env->ctx, r->dir, args.v[0], NULL, &r->incdirs);
		strlist_free(&args);
	}
	/* a module chosen from %w[...] candidates the gem asks pkg-config
	 * about one by one: the newest installed one */
	bool chooses = strstr(t, "PKGConfig.exist?(") || strstr(t, "PKGConfig.have_package(");
	unsigned asked = 0;
	for (const char *p = t; chooses && (p = strstr(p, "%w")) != NULL; p += 2) {
		char open = p[2];
		char close = open == '[' ? ']' : open == '(' ? ')' : open == '{' ? '}' : 0;
		if (!close)
			continue;
		const char *e = strchr(p + 3, close);
		if (!e)
			break;
		char *body = xstrndup(p + 3, (size_t)(e - p - 3));
		strlist words = {0};
		if (!strchr(body, '#') && shell_split(body, &words) == 0) {
			bool all = words.n > 0;
			for (size_t i = 0; i < words.n && all; i++)
				all = module_word(words.v[i]);
			for (size_t i = 0; all && i < words.n && asked < 32; i++, asked++) {
				char *v = NULL;
				strlist dirs = {0};
				if (env->pkg(env->ctx, r->dir, words.v[i], &v, &dirs) && v &&
				    (!r->chosen_version || version_cmp(v, r->chosen_version) > 0)) {
					free(r->chosen);
					free(r->chosen_version);
					r->chosen = xstrdup(words.v[i]);
					r->chosen_version = v;
					v = NULL;
				}
				free(v);
				strlist_free(&dirs);
			}
		}
		strlist_free(&words);
		free(body);
	}
	if (r->chosen) {
		env->pkg(env->ctx, r->dir, r->chosen, NULL, &r->incdirs);
		vec_push(&r->out->notes, xasprintf("pkg-config module %s (version %s) chosen from the candidate lists "
						   "(the newest installed)",
						   r->chosen, r->chosen_version));
		/* PKGConfig.cflags(chosen): its flags go into the compile */
		if (strstr(t, "PKGConfig.cflags(") || strstr(t, "PKGConfig.cflags_only_I("))
			add_unique(&r->out->pkg_modules, xstrdup(r->chosen));
	}
	/* $var = PKGConfig.modversion(...) / pkg_config("x", "modversion") */
	char *copy = xstrdup(t), *save = NULL;
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *mv = strstr(line, "PKGConfig.modversion(");
		const char *pc = find_call(line, "pkg_config");
		const char *eq = strchr(line, '=');
		const char *v = line;
		while (*v == ' ' || *v == '\t')
			v++;
		if ((mv || pc) && eq && eq[1] != '=' && (*v == '$' || *v == '@' || isalpha((unsigned char)*v))) {
			const char *vb = v;
			if (*v == '$' || *v == '@')
				v++;
			while (isalnum((unsigned char)*v) || *v == '_')
				v++;
			char *name = xstrndup(vb, (size_t)(v - vb));
			char *ver = NULL;
			strlist args = {0};
			if (mv) {
				const char *a = mv + strlen("PKGConfig.modversion");
				literal_args(a, &args);
				if (args.n && module_word(args.v[0]))
					env->pkg(env->ctx, r->dir, args.v[0], &ver, NULL);
				else if (!args.n && r->chosen_version)
					ver = xstrdup(r->chosen_version);
			} else {
				literal_args(pc, &args);
				if (args.n == 2 && strcmp(args.v[1], "modversion") == 0 && module_word(args.v[0]))
					env->pkg(env->ctx, r->dir, args.v[0], &ver, NULL);
			}
			strlist_free(&args);
			if (ver) {
				vec_push(&r->var_names, name);
				vec_push(&r->var_versions, ver);
			} else {
				free(name);
			}
		}
		/* def name(arg) ... Gem::Version.new($var) OP Gem::Version.new(arg) */
		const char *d = line;
		while (*d == ' ' || *d == '\t')
			d++;
		if (kw_at(d, "def")) {
			const char *at = d + 3; /* `def` may end the line */
			while (*at == ' ' || *at == '\t')
				at++;
			char *name = ident_at(at);
			/* the body's first lines (the remaining text, up to 4 lines) */
			const char *q = t + (line - copy) + strlen(line);
			for (unsigned k = 0; name && k < 4 && *q; k++) {
				q++;
				const char *nl = strchr(q, '\n');
				size_t len = nl ? (size_t)(nl - q) : strlen(q);
				char *bl = xstrndup(q, len);
				char *a1 = gem_version_arg(bl);
				const char *g2 =
					a1 ? strstr(strstr(bl, "Gem::Version.new(") + 1, "Gem::Version.new(") : NULL;
				char *a2 = g2 ? gem_version_arg(g2) : NULL;
				if (a1 && a2 && (a1[0] == '$' || a1[0] == '@')) {
					const char *op = strstr(bl, ")");
					while (op && *op && !strchr("<>=", *op))
						op++;
					struct ver_pred vp = {0};
					if (op && *op && strchr("<>", *op)) {
						vp.op[0] = op[0];
						vp.op[1] = op[1] == '=' ? '=' : 0;
						vp.name = name;
						vp.var = a1;
						a1 = NULL;
						name = NULL;
						vec_push(&r->preds, vp);
					}
				}
				free(a1);
				free(a2);
				bool stop = strstr(bl, "end") != NULL;
				free(bl);
				if (stop || !nl)
					break;
				q = nl;
			}
			free(name);
		}
	}
	free(copy);
}

static void reader_free(struct reader *r)
{
	strlist_free(&r->incdirs);
	free(r->chosen);
	free(r->chosen_version);
	strlist_free(&r->var_names);
	strlist_free(&r->var_versions);
	strlist_free(&r->names);
	vec_free(&r->name_vals);
	for (size_t i = 0; i < r->preds.n; i++) {
		free(r->preds.v[i].name);
		free(r->preds.v[i].var);
	}
	vec_free(&r->preds);
}

/* Is header h found where this build looks: the system, the extconf.rb's
 * directory, the include directories read so far and pkg-config's? */
static bool header_here(const struct reader *r, const char *h)
{
	if (!*h || strstr(h, ".."))
		return false;
	if (system_has_header(h))
		return true;
	const strlist *lists[1 + INC_NBUCKETS] = {&r->incdirs};
	for (unsigned k = 0; r->il && k < INC_NBUCKETS; k++)
		lists[1 + k] = &r->il->dirs[k];
	char *p = path_join(r->dir, h);
	bool ok = path_is_file(p);
	free(p);
	for (unsigned k = 0; !ok && k < ARRAY_SIZE(lists); k++)
		for (size_t i = 0; lists[k] && i < lists[k]->n && !ok; i++) {
			char *q = path_join(lists[k]->v[i], h);
			ok = path_is_file(q);
			free(q);
		}
	return ok;
}

/* The value of a version helper call `name('7.0.0')` in cond: 1, 0, or -1
 * when cond calls none (or its version is unknown). */
static int version_pred_value(const struct reader *r, const char *cond)
{
	for (size_t i = 0; i < r->preds.n; i++) {
		const struct ver_pred *vp = &r->preds.v[i];
		const char *a = find_call(cond, vp->name);
		if (!a || *a != '(')
			continue;
		strlist args = {0};
		literal_args(a, &args);
		const char *have = NULL;
		for (size_t k = 0; k < r->var_names.n && !have; k++)
			if (strcmp(r->var_names.v[k], vp->var) == 0)
				have = r->var_versions.v[k];
		int val = -1;
		if (args.n && have) {
			int c = version_cmp(have, args.v[0]);
			if (vp->op[0] == '>')
				val = vp->op[1] ? c >= 0 : c > 0;
			else
				val = vp->op[1] ? c <= 0 : c < 0;
		}
		strlist_free(&args);
		return val;
	}
	return -1;
}

/* The header a have_header/check_header/find_header in text probes, or NULL. */
static char *header_probe_arg(const char *text)
{
	static const char *const calls[] = {"have_header", "check_header", "find_header"};
	for (size_t k = 0; k < ARRAY_SIZE(calls); k++) {
		const char *a = find_call(text, calls[k]);
		if (!a)
			continue;
		strlist args = {0};
		literal_args(a, &args);
		char *h = args.n ? xstrdup(args.v[0]) : NULL;
		strlist_free(&args);
		return h;
	}
	return NULL;
}

/* Is a condition only and-ed tests? What is or-ed or negated holds without
 * each of its probes, so nothing is concluded from those. */
static bool only_conjunctions(const char *cond)
{
	return !(strstr(cond, " or ") || strstr(cond, "||") || strchr(cond, '!') || strstr(cond, "not "));
}

/* ---- boolean expressions a real build here decides ----
 * A default build on this machine: RUBY_PLATFORM and host_os are Linux's,
 * no --with-/--enable- option is given (with_config/enable_config return
 * their default), and mkmf's $mingw/$mswin/$cygwin are nil. */

static char *trim_dup(const char *b, const char *e)
{
	while (b < e && isspace((unsigned char)*b))
		b++;
	while (e > b && isspace((unsigned char)e[-1]))
		e--;
	return xstrndup(b, (size_t)(e - b));
}

/* RUBY_PLATFORM here (x86_64-linux), or host_os/target_os (linux-gnu). */
static const char *platform_string(const char *expr)
{
	bool os = strstr(expr, "host_os") || strstr(expr, "target_os");
#if defined(__linux__) && defined(__x86_64__)
	return os ? "linux-gnu" : "x86_64-linux";
#elif defined(__linux__) && defined(__aarch64__)
	return os ? "linux-gnu" : "aarch64-linux";
#elif defined(__linux__)
	return os ? "linux-gnu" : "linux";
#else
	(void)os;
	return NULL;
#endif
}

static bool platform_subject(const char *e)
{
	return strstr(e, "RUBY_PLATFORM") || strstr(e, "host_os'") || strstr(e, "host_os\"") ||
	       strstr(e, "target_os'") || strstr(e, "target_os\"");
}

/* Does the regex /re/ at p (plain words or-ed: /mswin|mingw/i) match the
 * platform string? -1 when the regex is more than that. */
static int regex_matches(const char *p, const char *plat)
{
	if (*p != '/' || !plat)
		return -1;
	const char *e = strchr(p + 1, '/');
	if (!e)
		return -1;
	char *body = xstrndup(p + 1, (size_t)(e - p - 1));
	int r = 0;
	for (const char *c = body; *c && r >= 0; c++)
		if (!(isalnum((unsigned char)*c) || strchr("|_-()", *c)))
			r = -1;
	if (r == 0) {
		char *save = NULL;
		for (char *w = strtok_r(body, "|()", &save); w && r == 0; w = strtok_r(NULL, "|()", &save)) {
			bool icase = e[1] == 'i';
			for (const char *h = plat; *h && r == 0; h++)
				if (icase ? strncasecmp(h, w, strlen(w)) == 0 : strncmp(h, w, strlen(w)) == 0)
					r = 1;
		}
	}
	free(body);
	return r;
}

/* The environment of a default build: no variable the extconf.rb reads is set. */
#define ENV_IS_DEFAULT 1

static int name_value(const struct reader *r, const char *e)
{
	size_t n = strlen(e);
	while (n && isspace((unsigned char)e[n - 1]))
		n--;
	if (n > 2 && strcmp(e + n - 2, "()") == 0)
		n -= 2;
	for (size_t i = 0; i < r->names.n; i++)
		if (strlen(r->names.v[i]) == n && strncmp(r->names.v[i], e, n) == 0)
			return r->name_vals.v[i];
	return V_UNKNOWN;
}

/* An expression's top-level operator split: the first `op` outside
 * parentheses, brackets, quotes and regex literals, or NULL. */
static const char *top_level(const char *e, const char *op)
{
	int depth = 0;
	char q = 0;
	size_t n = strlen(op);
	for (const char *p = e; *p; p++) {
		if (q) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == q)
				q = 0;
			continue;
		}
		if (*p == '\'' || *p == '"')
			q = *p;
		else if (*p == '/' && (p == e || strchr("(~=,| ", p[-1])) && depth >= 0 && !(p[1] == ' '))
			q = '/';
		else if (*p == '(' || *p == '[' || *p == '{')
			depth++;
		else if (*p == ')' || *p == ']' || *p == '}')
			depth--;
		else if (depth == 0 && strncmp(p, op, n) == 0)
			return p;
	}
	return NULL;
}

static int truthy(int v)
{
	return v == V_UNKNOWN ? V_UNKNOWN : v == V_TRUE ? V_TRUE : V_FALSE;
}

static char *header_probe_arg(const char *text);
static int version_pred_value(const struct reader *r, const char *cond);
static bool header_here(const struct reader *r, const char *h);

static int expr_value_d(const struct reader *r, const char *expr, unsigned depth);

/* Both sides of a top-level binary operator. */
static int binary(const struct reader *r, const char *e, const char *at, size_t oplen, bool is_or, unsigned depth)
{
	char *a = trim_dup(e, at), *b = xstrdup(at + oplen);
	int x = truthy(expr_value_d(r, a, depth + 1)), y = truthy(expr_value_d(r, b, depth + 1));
	free(a);
	free(b);
	if (is_or)
		return x == V_TRUE || y == V_TRUE ? V_TRUE : x == V_FALSE && y == V_FALSE ? V_FALSE : V_UNKNOWN;
	return x == V_FALSE || y == V_FALSE ? V_FALSE : x == V_TRUE && y == V_TRUE ? V_TRUE : V_UNKNOWN;
}

static int expr_value_d(const struct reader *r, const char *expr, unsigned depth)
{
	if (depth > 16)
		return V_UNKNOWN;
	char *e = trim_dup(expr, expr + strlen(expr));
	int v = V_UNKNOWN;
	size_t n = strlen(e);
	/* a trailing `then` */
	if (n > 5 && strcmp(e + n - 5, " then") == 0) {
		e[n - 5] = '\0';
		char *t = trim_dup(e, e + strlen(e));
		free(e);
		e = t;
		n = strlen(e);
	}
	const char *op;
	if (!n) {
		v = V_UNKNOWN;
	} else if ((op = top_level(e, "||")) != NULL) {
		v = binary(r, e, op, 2, true, depth);
	} else if ((op = top_level(e, " or ")) != NULL) {
		v = binary(r, e, op, 4, true, depth);
	} else if ((op = top_level(e, "&&")) != NULL) {
		v = binary(r, e, op, 2, false, depth);
	} else if ((op = top_level(e, " and ")) != NULL) {
		v = binary(r, e, op, 5, false, depth);
	} else if (e[0] == '(' && e[n - 1] == ')' && top_level(e + 1, ")") == e + n - 1) {
		e[n - 1] = '\0';
		v = expr_value_d(r, e + 1, depth + 1);
	} else if (str_starts(e, "!!")) {
		v = truthy(expr_value_d(r, e + 2, depth + 1));
	} else if ((e[0] == '!' && e[1] != '=' && e[1] != '~') || str_starts(e, "not ")) {
		int x = truthy(expr_value_d(r, e + (e[0] == '!' ? 1 : 4), depth + 1));
		v = x == V_UNKNOWN ? V_UNKNOWN : x == V_TRUE ? V_FALSE : V_TRUE;
	} else if (strcmp(e, "true") == 0) {
		v = V_TRUE;
	} else if (strcmp(e, "false") == 0) {
		v = V_FALSE;
	} else if (strcmp(e, "nil") == 0 || strcmp(e, "$mingw") == 0 || strcmp(e, "$mswin") == 0 ||
		   strcmp(e, "$cygwin") == 0) {
		v = platform_string(e) ? V_NIL : V_UNKNOWN;
	} else if ((str_starts(e, "ENV[") && e[n - 1] == ']' && !strchr(e, ' ')) ||
		   ((str_starts(e, "ENV.key?(") || str_starts(e, "ENV.include?(") || str_starts(e, "ENV.has_key?(")) &&
		    e[n - 1] == ')' && !strchr(e, ' '))) {
		/* an environment variable: unset in a default build */
		v = ENV_IS_DEFAULT ? (e[3] == '[' ? V_NIL : V_FALSE) : V_UNKNOWN;
	} else if (strcmp(e, "Gem.win_platform?") == 0) {
		v = platform_string(e) ? V_FALSE : V_UNKNOWN;
	} else if (platform_subject(e)) {
		/* RUBY_PLATFORM =~ /re/, /re/ =~ RUBY_PLATFORM, !~, ===, .match?(/re/), .include?('s') */
		const char *plat = platform_string(e);
		const char *re = NULL;
		bool neg = strstr(e, "!~") != NULL;
		for (const char *p = e; *p && !re; p++)
			if (*p == '/' && (p == e || strchr("(~= ", p[-1])))
				re = p;
		const char *inc = strstr(e, ".include?(");
		if (re && (strstr(e, "=~") || strstr(e, "!~") || strstr(e, "===") || strstr(e, ".match?(") ||
			   strstr(e, ".match(")))
			v = regex_matches(re, plat);
		else if (inc && plat) {
			const char *a = inc + strlen(".include?(");
			char *lit = read_literal(&a);
			v = lit ? (strstr(plat, lit) ? V_TRUE : V_FALSE) : V_UNKNOWN;
			free(lit);
		}
		if (v != V_UNKNOWN && neg)
			v = v == V_TRUE ? V_FALSE : V_TRUE;
	} else if (str_starts(e, "enable_config") || str_starts(e, "with_config")) {
		/* no option given: the default (second argument), nil without */
		const char *a = e + (e[0] == 'e' ? strlen("enable_config") : strlen("with_config"));
		while (*a == ' ' || *a == '(')
			a++;
		char *name = read_literal(&a);
		while (*a == ' ')
			a++;
		if (!name) {
			v = V_UNKNOWN;
		} else if (*a == ')' || !*a) {
			v = V_NIL;
		} else if (*a == ',') {
			a++;
			while (*a == ' ')
				a++;
			if (str_starts(a, "true"))
				v = V_TRUE;
			else if (str_starts(a, "false"))
				v = V_FALSE;
			else if (str_starts(a, "nil") || str_starts(a, "ENV["))
				v = V_NIL; /* an environment variable: unset in a default build */
			else if (*a == '"' || *a == '\'')
				v = V_TRUE;
		}
		free(name);
	} else if (str_starts(e, "pkg_config(") && e[n - 1] == ')' && r->env && r->env->pkg) {
		/* pkg_config("x"): x's flags when pkg-config knows it, else nil */
		strlist args = {0};
		literal_args(e + 10, &args);
		if (args.n == 1 && module_word(args.v[0]))
			v = r->env->pkg(r->env->ctx, r->dir, args.v[0], NULL, NULL) ? V_TRUE : V_NIL;
		strlist_free(&args);
	} else if ((v = version_pred_value(r, e)) != V_UNKNOWN) {
		/* a version helper */
	} else if (other_platform_probe(e)) {
		v = V_FALSE;
	} else if ((v = name_value(r, e)) != V_UNKNOWN) {
		/* a known variable or method */
	} else {
		char *h = header_probe_arg(e);
		if (h && header_here(r, h))
			v = V_TRUE;
		free(h);
	}
	free(e);
	return v;
}

/* The value of a condition on this machine: 0 when it fails here (it and-s
 * a probe for a header of another platform, a false version helper, a
 * platform test for another system, an option not given), 1 when it is
 * known to hold (installed headers, true version helpers ...), -1 when
 * unknown (taken as true). */
static int cond_value(const struct reader *r, const char *cond)
{
	/* a condition going on over the next lines is not read whole */
	int depth = 0;
	for (const char *p = cond; *p; p++)
		depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
	size_t n = strlen(cond);
	while (n && isspace((unsigned char)cond[n - 1]))
		n--;
	if (depth != 0 || (n && (cond[n - 1] == ',' || cond[n - 1] == '\\')))
		return -1;
	/* `A and` / `A ||` going on: decided by A alone when A makes it so
	 * (false and-ed, true or-ed) */
	bool and_tail =
		(n >= 2 && strncmp(cond + n - 2, "&&", 2) == 0) || (n >= 4 && strncmp(cond + n - 4, " and", 4) == 0);
	bool or_tail =
		(n >= 2 && strncmp(cond + n - 2, "||", 2) == 0) || (n >= 3 && strncmp(cond + n - 3, " or", 3) == 0);
	if (and_tail || or_tail) {
		size_t cut = n - (cond[n - 1] == '&' || cond[n - 1] == '|' ? 2 : and_tail ? 4 : 3);
		char *head = xstrndup(cond, cut);
		int v = cond_value(r, head);
		free(head);
		return and_tail ? (v == 0 ? 0 : -1) : (v == 1 ? 1 : -1);
	}
	if (only_conjunctions(cond) && other_platform_probe(cond))
		return 0;
	return truthy(expr_value_d(r, cond, 0));
}

/* Records NAME = EXPR or `def NAME` with a body of one expression. */
static void set_name(struct reader *r, const char *name, int v)
{
	for (size_t i = 0; i < r->names.n; i++)
		if (strcmp(r->names.v[i], name) == 0) {
			if (r->name_vals.v[i] != v)
				r->name_vals.v[i] = V_UNKNOWN;
			return;
		}
	vec_push(&r->names, xstrdup(name));
	vec_push(&r->name_vals, v);
}

/* NAME = EXPR on a line (t: trimmed), met in the line pass: in_order, the
 * line runs here unconditionally (every enclosing branch is known taken), so
 * NAME takes the value; otherwise (a branch that may not run, a method body,
 * a trailing `if`) NAME keeps a value only where both agree (an unset
 * variable is nil). */
static void assignment(struct reader *r, const char *t, bool in_order)
{
	const char *eq = strstr(t, " = ");
	if (!eq || kw_at(t, "if") || kw_at(t, "unless") || kw_at(t, "return") || kw_at(t, "when") ||
	    kw_at(t, "elsif") || kw_at(t, "while") || kw_at(t, "until"))
		return;
	char *lhs = trim_dup(t, eq);
	bool ok = *lhs != '\0';
	for (const char *c = lhs; *c && ok; c++)
		ok = isalnum((unsigned char)*c) || strchr("_$@[]:.", *c);
	if (!ok) {
		free(lhs);
		return;
	}
	char *rhs = xstrdup(eq + 3);
	char *mod = strstr(rhs, " if ");
	if (!mod)
		mod = strstr(rhs, " unless ");
	if (mod) {
		*mod = '\0'; /* (a failing modifier skipped the whole line already) */
		in_order = false;
	}
	int v = expr_value_d(r, rhs, 0);
	free(rhs);
	size_t k = 0;
	while (k < r->names.n && strcmp(r->names.v[k], lhs) != 0)
		k++;
	if (k == r->names.n) {
		vec_push(&r->names, lhs);
		vec_push(&r->name_vals, in_order ? v : V_NIL);
		lhs = NULL;
	}
	if (!in_order) {
		int old = r->name_vals.v[k];
		if (old != v)
			v = old != V_UNKNOWN && v != V_UNKNOWN && truthy(old) == truthy(v) ? truthy(v) : V_UNKNOWN;
	}
	r->name_vals.v[k] = v;
	free(lhs);
}

/* Before the line pass: the names whose value a build here knows
 * (`windows = RUBY_PLATFORM =~ /mingw/`, `config[:win] = !!(...)`,
 * `def sqlcipher?` returning with_config(...) || ...). */
static void read_names(struct reader *r)
{
	char *copy = xstrdup(r->text), *save = NULL;
	strlist lines = {0};
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *h = strchr(l, '#');
		if (h && !strchr(l, '"') && !strchr(l, '\''))
			*h = '\0';
		vec_push(&lines, xstrdup(l));
	}
	free(copy);
	for (size_t i = 0; i < lines.n && i < 20000; i++) {
		const char *l = lines.v[i];
		const char *t = l + indent_of(l);
		if (kw_at(t, "def")) {
			/* `def` may end the line (kw_at accepts its NUL) */
			const char *at = t + 3;
			while (*at == ' ' || *at == '\t')
				at++;
			char *name = ident_at(at);
			const char *after = name ? at + strlen(name) : NULL;
			/* no arguments; the body up to the `end` at the def's indentation */
			if (name && (!*after || isspace((unsigned char)*after))) {
				struct strbuf body = {0};
				size_t k = i + 1;
				for (; k < lines.n && k < i + 12; k++) {
					const char *bl = lines.v[k];
					if (indent_of(bl) <= indent_of(l) && kw_at(bl + indent_of(bl), "end"))
						break;
					sb_puts(&body, bl);
					sb_putc(&body, ' ');
				}
				const char *b = sb_str(&body);
				bool simple = k < lines.n && k < i + 12 && body.len && !strstr(b, " if ") &&
					      !strstr(b, "return") && !strstr(b, " = ") && !strstr(b, "\n");
				int v = simple ? expr_value_d(r, b, 0) : V_UNKNOWN;
				if (v != V_UNKNOWN)
					set_name(r, name, v);
				sb_free(&body);
			}
			free(name);
			continue;
		}
		/* `... if NAME = have_func("f")`: NAME holds what the probe gave,
		 * here what the reader takes it to give (true, as a build with the
		 * library installed) unless the probe fails here */
		const char *mod = strstr(t, " if ");
		if (mod) {
			const char *n0 = mod + 4;
			while (*n0 == ' ' || *n0 == '(')
				n0++;
			char *nm = ident_at(n0);
			const char *rest = nm ? n0 + strlen(nm) : NULL;
			if (rest && str_starts(rest, " = have_") && !str_starts(rest + 3, "have_func(\"rb_") &&
			    !str_starts(rest + 3, "have_func('rb_"))
				set_name(r, nm, other_platform_probe(rest) ? V_FALSE : V_TRUE);
			free(nm);
		}
	}
	strlist_free(&lines);
}

/* A line whose trailing `if` fails here (`$defs << "-DX" if have_header("sys/event.h")`),
 * or whose trailing `unless` holds. */
static bool modifier_fails(const struct reader *r, const char *line)
{
	const char *m = strstr(line, " if ");
	if (m)
		return cond_value(r, m + 4) == 0;
	m = strstr(line, " unless ");
	return m && cond_value(r, m + 8) == 1;
}

/* An open Ruby block: the function its condition requires (cond_srcs), or
 * NULL; fails: its current branch is not taken on this machine; taken: one
 * of its branches is known to be taken, so the later ones are not. */
struct rblock {
	char *probe;
	bool fails, taken;
	/* a `case` whose subject is known here: the platform string it tests,
	 * or (plat NULL) a known value V_TRUE/V_FALSE/V_NIL */
	const char *plat;
	int subject;
};

/* Does `when ITEMS` match the case subject? -1 when unknown. */
static int when_matches(const struct rblock *b, const char *items)
{
	char *c = trim_dup(items, items + strlen(items));
	size_t n = strlen(c);
	if (n > 5 && strcmp(c + n - 5, " then") == 0)
		c[n - 5] = '\0';
	int r = 0;
	char *save = NULL;
	for (char *it = strtok_r(c, ",", &save); it && r == 0; it = strtok_r(NULL, ",", &save)) {
		while (*it == ' ')
			it++;
		if (b->plat && *it == '/')
			r = regex_matches(it, b->plat);
		else if (!b->plat && (kw_at(it, "true") || kw_at(it, "false") || kw_at(it, "nil")))
			r = (kw_at(it, "true") && b->subject == V_TRUE) ||
			    (kw_at(it, "false") && b->subject == V_FALSE) || (kw_at(it, "nil") && b->subject == V_NIL);
		else
			r = -1;
	}
	free(c);
	return r;
}
typedef VEC(struct rblock) block_vec;

/* `if have_header("a.h")` with a.h absent here, followed (at the same
 * indentation) by `elsif have_header("b.h")` with b.h installed: the real
 * build takes the elsif branch. at: the if line's text in r->text. */
static bool alternative_installed(const struct reader *r, const char *at)
{
	unsigned ind = indent_of(at);
	const char *q = strchr(at, '\n');
	for (unsigned k = 0; q && k < 400; k++) {
		q++;
		const char *nl = strchr(q, '\n');
		size_t len = nl ? (size_t)(nl - q) : strlen(q);
		const char *t = q + indent_of(q);
		if ((size_t)(t - q) < len && indent_of(q) == ind) {
			if (kw_at(t, "elsif")) {
				char *l = xstrndup(t, (size_t)(q + len - t));
				char *h = header_probe_arg(l);
				bool ok = h && only_conjunctions(l + 5) && header_here(r, h);
				free(h);
				free(l);
				if (ok)
					return true;
				continue;
			}
			if (kw_at(t, "else") || kw_at(t, "end"))
				return false;
		}
		q = nl;
	}
	return false;
}

/* ---- sources built only under a have_func condition ---- */

/* Does t start with the Ruby keyword kw (followed by a non-identifier)? */
static bool kw_at(const char *t, const char *kw)
{
	size_t n = strlen(kw);
	return strncmp(t, kw, n) == 0 &&
	       !(isalnum((unsigned char)t[n]) || t[n] == '_' || t[n] == '?' || t[n] == '!' || t[n] == ':');
}

/* Does the (trimmed) line end with the keyword `end` (a one-line block)? */
static bool ends_with_end(const char *t)
{
	size_t n = strlen(t);
	while (n && isspace((unsigned char)t[n - 1]))
		n--;
	return n >= 4 && strncmp(t + n - 3, "end", 3) == 0 && !(isalnum((unsigned char)t[n - 4]) || t[n - 4] == '_');
}

/* The function a condition requires: `have_func("f")`, possibly and-ed with
 * other tests; NULL for anything negated or or-ed, where the source may be
 * built without it. */
static char *probe_of_condition(const char *cond)
{
	if (!only_conjunctions(cond))
		return NULL;
	const char *a = find_call(cond, "have_func");
	if (!a)
		return NULL;
	strlist args = {0};
	literal_args(a, &args);
	char *r = NULL;
	if (args.n && *args.v[0]) {
		char *paren = strchr(args.v[0], '(');
		if (paren)
			*paren = '\0';
		r = xstrdup(args.v[0][0] == '&' ? args.v[0] + 1 : args.v[0]);
	}
	strlist_free(&args);
	return r;
}

/* Opens or closes a Ruby block on this (comment-stripped) line (at: the
 * line in r->text): blocks[] holds, per open block, the function its
 * condition requires or NULL, and whether its current branch is taken here. */
static bool track_blocks(const struct reader *r, const char *line, const char *at, block_vec *blocks)
{
	const char *t = line;
	while (*t == ' ' || *t == '\t')
		t++;
	if (kw_at(t, "end") || *t == '}') {
		if (blocks->n) {
			free(blocks->v[blocks->n - 1].probe);
			blocks->n--;
		}
		return false;
	}
	if (kw_at(t, "else") || kw_at(t, "elsif") || kw_at(t, "when") || kw_at(t, "rescue") || kw_at(t, "ensure")) {
		/* another branch: the condition of the block no longer holds */
		if (blocks->n) {
			struct rblock *b = &blocks->v[blocks->n - 1];
			free(b->probe);
			b->probe = NULL;
			if (kw_at(t, "when") && (b->plat || b->subject != V_UNKNOWN)) {
				int v = b->taken ? 0 : when_matches(b, t + 4);
				b->fails = v == 0;
				b->taken = b->taken || v == 1;
			} else if (kw_at(t, "rescue") || kw_at(t, "ensure") || kw_at(t, "when")) {
				b->fails = false;
			} else if (b->taken) {
				b->fails = true; /* an earlier branch is taken here */
			} else if (kw_at(t, "elsif")) {
				int v = cond_value(r, t + 5);
				b->fails = v == 0;
				b->taken = v == 1;
			} else {
				b->fails = false;
			}
		}
		return false;
	}
	if (ends_with_end(t))
		return false;
	if (kw_at(t, "if")) {
		struct rblock b = {0};
		b.subject = V_UNKNOWN;
		int v = cond_value(r, t + 2);
		if (v < 0) {
			/* a header absent here with an installed alternative */
			char *h = header_probe_arg(t + 2);
			if (h && !header_here(r, h) && alternative_installed(r, at))
				v = 0;
			free(h);
		}
		b.fails = v == 0;
		b.taken = v == 1;
		b.probe = b.fails ? NULL : probe_of_condition(t + 2);
		vec_push(blocks, b);
		return false;
	}
	if (kw_at(t, "unless")) {
		int v = cond_value(r, t + 6);
		struct rblock b = {NULL, v == 1, v == 0, NULL, V_UNKNOWN};
		vec_push(blocks, b);
		return true;
	}
	struct rblock none = {0};
	none.subject = V_UNKNOWN;
	if (kw_at(t, "case")) {
		struct rblock b = none;
		const char *subj = t + 4;
		if (platform_subject(subj))
			b.plat = platform_string(subj);
		else
			b.subject = name_value(r, subj + strspn(subj, " "));
		vec_push(blocks, b);
		return false;
	}
	static const char *const openers[] = {"while", "until", "begin", "def", "class", "module"};
	for (size_t i = 0; i < ARRAY_SIZE(openers); i++)
		if (kw_at(t, openers[i])) {
			vec_push(blocks, none);
			return false;
		}
	if (strstr(t, "= if ") || strstr(t, "= unless ") || strstr(t, "= case ") || strstr(t, "= begin")) {
		vec_push(blocks, none);
		return false;
	}
	/* `... do`, `... do |x|`, `... {`, `... { |x|` at the end of the line */
	size_t n = strlen(t);
	while (n && isspace((unsigned char)t[n - 1]))
		n--;
	if (n && t[n - 1] == '|') {
		const char *bar = NULL;
		for (size_t k = n - 1; k > 0; k--)
			if (t[k - 1] == '|') {
				bar = t + k - 1;
				break;
			}
		if (bar) {
			n = (size_t)(bar - t);
			while (n && isspace((unsigned char)t[n - 1]))
				n--;
		}
	}
	if ((n >= 3 && strncmp(t + n - 2, "do", 2) == 0 && (isspace((unsigned char)t[n - 3]) || t[n - 3] == ')')) ||
	    (n >= 1 && t[n - 1] == '{'))
		vec_push(blocks, none);
	return false;
}

/* `$srcs << "a.c"`, `$srcs.push(...)`, `$srcs += [...]` under a have_func
 * condition (enclosing, or a trailing `if have_func(...)`). */
static void note_cond_srcs(const char *line, const block_vec *blocks, struct extconf_info *out)
{
	const char *s = strstr(line, "$srcs");
	if (!s || !(strstr(s, "<<") || strstr(s, ".push") || strstr(s, "+=") || strstr(s, ".concat") ||
		    strstr(s, ".unshift")))
		return;
	char *probe = NULL;
	const char *mod = strstr(s, " if ");
	if (mod)
		probe = probe_of_condition(mod + 4);
	else if (strstr(s, " unless "))
		return;
	for (size_t i = blocks->n; !probe && i > 0; i--)
		if (blocks->v[i - 1].probe)
			probe = xstrdup(blocks->v[i - 1].probe);
	if (!probe)
		return;
	const char *end = mod ? mod : s + strlen(s);
	for (const char *p = s; p < end && *p; p++) {
		if (*p != '"' && *p != '\'')
			continue;
		char *lit = read_literal(&p);
		if (lit && *lit) {
			vec_push(&out->cond_srcs, lit);
			vec_push(&out->cond_probes, xstrdup(probe));
		} else {
			free(lit);
		}
		if (!*p)
			break;
	}
	free(probe);
}

const char *extconf_build_probe(const struct extconf_info *ei, const char *file)
{
	if (!ei || !ei->cond_srcs.n)
		return NULL;
	char *dir = path_dirname(ei->path);
	const char *found = NULL;
	for (size_t i = 0; i < ei->cond_srcs.n && !found; i++) {
		const char *src = ei->cond_srcs.v[i];
		bool match;
		if (strchr(src, '/')) {
			char *p = path_join(dir, src);
			match = strcmp(p, file) == 0;
			free(p);
		} else {
			/* a bare name, found through $VPATH: any directory below */
			const char *base = strrchr(file, '/');
			match = base && strcmp(base + 1, src) == 0 && path_is_below(file, dir);
		}
		if (match)
			found = ei->cond_probes.v[i];
	}
	free(dir);
	return found;
}

static bool is_source_name(const char *t)
{
	return str_ends(t, ".c") || str_ends(t, ".cc") || str_ends(t, ".cpp") || str_ends(t, ".cxx");
}

/* `$objs = %w(a.o b.o)`, `$objs = ["a.o"]`, `$objs += [...]`, `$objs << "a.o"`
 * on one line (and the same of $srcs); anything else makes the list unknown
 * (no source is left out). */
static void note_list(const char *line, const char *var, strlist *list, uint8_t *set, uint8_t *unknown)
{
	const char *s = strstr(line, var);
	const char *p = s + strlen(var);
	while (*p == ' ' || *p == '\t')
		p++;
	bool assign = p[0] == '=' && p[1] != '=';
	bool add = (p[0] == '+' && p[1] == '=') || (p[0] == '<' && p[1] == '<') || str_starts(p, ".push") ||
		   str_starts(p, ".concat");
	if (!assign && !add) {
		if (p[0] == '=' || p[0] == '.' || p[0] == '[')
			*unknown = 1; /* $objs.map!, $objs[0] = ..., == */
		return;
	}
	p += assign ? 1 : 2;
	while (*p == ' ' || *p == '\t' || *p == '(')
		p++;
	strlist words = {0};
	bool ok = true;
	if (p[0] == '%' && (p[1] == 'w' || p[1] == 'W') && p[2] && strchr("([{", p[2])) {
		char close = p[2] == '(' ? ')' : p[2] == '[' ? ']' : '}';
		const char *e = strchr(p + 3, close);
		if (!e || memchr(p + 3, '#', (size_t)(e - p - 3))) {
			ok = false;
		} else {
			char *body = xstrndup(p + 3, (size_t)(e - p - 3));
			ok = shell_split(body, &words) == 0;
			free(body);
		}
	} else {
		bool bracket = *p == '[';
		if (bracket)
			p++;
		for (;;) {
			while (*p == ' ' || *p == '\t' || *p == ',')
				p++;
			if (*p != '"' && *p != '\'')
				break;
			char *lit = read_literal(&p);
			if (!lit) {
				ok = false;
				break;
			}
			vec_push(&words, lit);
		}
		while (*p == ' ' || *p == '\t')
			p++;
		/* a list going on over the next lines is not read */
		if (bracket && *p != ']')
			ok = false;
		while (*p == ' ' || *p == '\t' || *p == ']' || *p == ')')
			p++;
		/* something else on the line (a method call, a variable, `if ...`
		 * after a complete list is fine) */
		if (!words.n || (*p && !str_starts(p, "if ") && !str_starts(p, "unless ")))
			ok = false;
	}
	if (!ok) {
		*unknown = 1;
		strlist_free(&words);
		return;
	}
	if (assign) {
		strlist_free(list);
		*set = 1;
	}
	for (size_t i = 0; i < words.n; i++) {
		vec_push(list, words.v[i]);
		words.v[i] = NULL;
	}
	vec_free(&words);
}

static bool list_excludes(const strlist *list, const char *file)
{
	const char *base = path_basename(file);
	const char *dot = strrchr(base, '.');
	size_t stem = dot ? (size_t)(dot - base) : strlen(base);
	for (size_t i = 0; i < list->n; i++) {
		const char *o = path_basename(list->v[i]);
		if (strncmp(o, base, stem) == 0 && o[stem] == '.')
			return false;
	}
	return true;
}

bool extconf_objs_exclude(const struct extconf_info *ei, const char *file)
{
	if (!ei || !ei->objs_set || ei->objs_unknown)
		return false;
	return list_excludes(&ei->objs, file);
}

bool extconf_srcs_exclude(const struct extconf_info *ei, const char *file)
{
	if (ei && ei->not_built)
		return true;
	if (!ei || !ei->srcs_set || ei->srcs_unknown || (ei->objs_set && !ei->objs_unknown))
		return false;
	return list_excludes(&ei->srcs, file);
}

void extconf_parse(const char *text, const char *dir, const strlist *ruby_dirs, struct extconf_info *out)
{
	struct extconf_env env = {ruby_dirs, NULL, NULL};
	extconf_parse_env(text, dir, &env, out);
}

void extconf_parse_env(const char *text, const char *dir, const struct extconf_env *env, struct extconf_info *out)
{
	const strlist *ruby_dirs = env->ruby_dirs;
	struct ruby_text rt = {0};
	rt.dirs = ruby_dirs;
	struct inc_lists il = {0};
	struct reader r = {0};
	r.env = env;
	r.dir = dir;
	r.text = text;
	r.il = &il;
	r.out = out;
	read_versions(&r);
	read_names(&r);
	char *copy = xstrdup(text);
	char *save = NULL;
	strlist pending_words = {0}; /* %w[...] lists, for `.each { |f| have_func(f) }` */
	unsigned pending_age = 0;
	struct strbuf wacc = {0};                          /* a %w[...] list being read */
	char wclose = 0;                                   /* its closing bracket while it is open */
	block_vec blocks = {0};                            /* open Ruby blocks */
	bool makefile_ok = false, makefile_failed = false; /* create_makefile run / not run here */
	bool flags_open = false;                           /* inside a multi-line append_cflags([...]) */
	enum inc_bucket flags_bucket = INC_CFLAGS;
	const char *flags_why = "append_cflags";
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/* strip comments (outside literals, roughly) */
		char *hash = NULL;
		bool sq = false, dq = false;
		for (char *p = line; *p; p++) {
			if (*p == '\'' && !dq)
				sq = !sq;
			else if (*p == '"' && !sq)
				dq = !dq;
			else if (*p == '#' && !sq && !dq && !(p[1] == '{')) {
				hash = p;
				break;
			}
		}
		if (hash)
			*hash = '\0';
		bool opened_unless = track_blocks(&r, line, text + (line - copy), &blocks);
		/* inside an `if` that fails here, or under a trailing one: nothing
		 * of this line happens in a build on this machine (the probes of an
		 * `unless` line run even when its body does not) */
		bool fails = modifier_fails(&r, line) && !opened_unless;
		for (size_t i = 0; i + (opened_unless ? 1 : 0) < blocks.n && !fails; i++)
			fails = blocks.v[i].fails;
		bool mk = find_call(line, "create_makefile") || find_call(line, "auto_ext") ||
			  find_call(line, "create_rust_makefile") || str_starts(line + indent_of(line), "auto_ext");
		if (mk && fails)
			makefile_failed = true;
		else if (mk)
			makefile_ok = true;
		if (fails) {
			const char *h = other_platform_probe(line);
			if (h)
				vec_push(&out->notes,
					 xasprintf("%s: a header of another platform, absent here: probe fails", h));
			continue;
		}
		note_cond_srcs(line, &blocks, out);
		/* an assignment run in order: in branches known taken (or none) it
		 * sets the value; under anything else it may or may not run */
		{
			bool in_order = true;
			for (size_t i = 0; i < blocks.n && in_order; i++)
				in_order = blocks.v[i].taken;
			const char *t = line + indent_of(line);
			assignment(&r, t, in_order);
		}

		/* %w[...] word lists, possibly over several lines */
		const char *w = NULL, *wend = NULL;
		if (wclose) {
			w = line;
			wend = strchr(line, wclose);
		} else if ((w = strstr(line, "%w")) != NULL || (w = strstr(line, "%i")) != NULL) {
			if (w[2] == '[' || w[2] == '(' || w[2] == '{') {
				wclose = w[2] == '[' ? ']' : w[2] == '(' ? ')' : '}';
				w += 3;
				sb_reset(&wacc);
				wend = strchr(w, wclose);
			} else {
				w = NULL;
			}
		}
		if (w) {
			sb_add(&wacc, w, wend ? (size_t)(wend - w) : strlen(w));
			sb_putc(&wacc, ' ');
			if (wend) {
				strlist_free(&pending_words);
				shell_split(sb_str(&wacc), &pending_words);
				pending_age = 0;
				wclose = 0;
			} else {
				continue; /* the list goes on */
			}
		}

		const char *a;
		strlist args = {0};
		if ((a = find_call(line, "have_func")) != NULL) {
			literal_args(a, &args);
			if (args.n) {
				char *paren = strchr(args.v[0], '(');
				if (paren)
					*paren = '\0';
				/* (have_func("kqueue", "sys/event.h") fails on Linux) */
				if (!other_platform_probe(line))
					have_func(&rt, args.v[0], out, true);
			} else if (pending_words.n && pending_age < 4) {
				for (size_t i = 0; i < pending_words.n; i++)
					have_func(&rt, pending_words.v[i], out, false);
				strlist_free(&pending_words);
			}
		}
		strlist_free(&args);
		const char *hdr_calls[] = {"have_header", "find_header", "check_header"};
		for (size_t k = 0; k < ARRAY_SIZE(hdr_calls); k++) {
			if ((a = find_call(line, hdr_calls[k])) != NULL) {
				literal_args(a, &args);
				if (args.n) {
					const char *h = args.v[0];
					bool ruby_h = str_starts(h, "ruby/") || strcmp(h, "ruby.h") == 0;
					if (other_platform_header(h))
						vec_push(&out->notes, xasprintf("%s(\"%s\"): a header of another "
										"platform, absent here: "
										"left undefined",
										hdr_calls[k], h));
					else if (!ruby_h || ruby_has_header(ruby_dirs, h)) {
						char *n = mkmf_cpp_name(h);
						add_unique(&out->defines, xasprintf("HAVE_%s=1", n));
						free(n);
					}
				}
				strlist_free(&args);
			}
		}
		if ((a = find_call(line, "have_library")) != NULL || (a = find_call(line, "find_library")) != NULL) {
			literal_args(a, &args);
			if (args.n) {
				char *n = mkmf_cpp_name(args.v[0]);
				add_unique(&out->defines, xasprintf("HAVE_LIB%s=1", n));
				free(n);
			}
			strlist_free(&args);
		}
		if ((a = find_call(line, "have_type")) != NULL) {
			literal_args(a, &args);
			if (args.n && !other_platform_probe(line)) {
				char *n = mkmf_cpp_name(args.v[0]);
				add_unique(&out->defines, xasprintf("HAVE_TYPE_%s=1", n));
				free(n);
			}
			strlist_free(&args);
		}
		if ((a = find_call(line, "have_const")) != NULL) {
			literal_args(a, &args);
			if (args.n) {
				char *n = mkmf_cpp_name(args.v[0]);
				add_unique(&out->defines, xasprintf("HAVE_CONST_%s=1", n));
				free(n);
			}
			strlist_free(&args);
		}
		if ((a = find_call(line, "have_struct_member")) != NULL) {
			literal_args(a, &args);
			if (args.n >= 2) {
				const char *t = args.v[0];
				if (str_starts(t, "struct "))
					t += 7;
				char *tn = mkmf_cpp_name(t), *mn = mkmf_cpp_name(args.v[1]);
				add_unique(&out->defines, xasprintf("HAVE_STRUCT_%s_%s=1", tn, mn));
				add_unique(&out->defines, xasprintf("HAVE_ST_%s=1", mn));
				free(tn);
				free(mn);
			}
			strlist_free(&args);
		}
		/* add_define 'NAME' (a helper many extconf.rb files define around $defs) */
		if ((a = find_call(line, "add_define")) != NULL) {
			literal_args(a, &args);
			if (args.n && *args.v[0])
				add_unique(&out->defines, xstrdup(args.v[0]));
			strlist_free(&args);
		}
		/* $defs << "-DFOO", $defs.push("-DFOO"), flags; a list over several
		 * lines (append_cflags([\n "-Ia",\n "-DB",\n])) goes on until `]` */
		bool cont = flags_open;
		if (cont || strstr(line, "$defs") || strstr(line, "$CFLAGS") || strstr(line, "$CPPFLAGS") ||
		    strstr(line, "append_cflags") || strstr(line, "append_cppflags") || strstr(line, "$INCFLAGS")) {
			if (cont) {
				if (strchr(line, ']'))
					flags_open = false;
			} else {
				const char *ob = strstr(line, "append_cflags([");
				if (!ob)
					ob = strstr(line, "append_cppflags([");
				if (ob && !strchr(ob, ']')) {
					flags_open = true;
					flags_bucket = strstr(line, "append_cppflags") ? INC_CPPFLAGS : INC_CFLAGS;
					flags_why =
						strstr(line, "append_cppflags") ? "append_cppflags" : "append_cflags";
				}
			}
			enum inc_bucket b = INC_CFLAGS;
			const char *why = strstr(line, "$defs") ? "$defs" : "$CFLAGS";
			if (strstr(line, "$INCFLAGS")) {
				b = INC_INCFLAGS;
				why = "$INCFLAGS";
			} else if (strstr(line, "$CPPFLAGS") || strstr(line, "append_cppflags")) {
				b = INC_CPPFLAGS;
				why = strstr(line, "append_cppflags") ? "append_cppflags" : "$CPPFLAGS";
			} else if (strstr(line, "append_cflags")) {
				why = "append_cflags";
			}
			if (cont) {
				b = flags_bucket;
				why = flags_why;
			}
			for (const char *p = line; *p; p++) {
				if (*p == '"' || *p == '\'') {
					char *lit = read_literal_x(&p, true);
					if (lit) {
						flags_from_literal(lit, dir, out, &il, b, why);
						free(lit);
					}
					if (!*p)
						break;
				}
			}
		}
		/* find_header("h", "dir"...): the first directory holding h, unless
		 * the compiler finds h by itself */
		if ((a = find_call(line, "find_header")) != NULL) {
			literal_args(a, &args);
			if (args.n >= 2 && !system_has_header(args.v[0])) {
				for (size_t i = 1; i < args.n; i++) {
					char *d = expand_dir(args.v[i], dir);
					char *h = d ? path_join(d, args.v[0]) : NULL;
					bool there = h && path_is_file(h);
					free(h);
					if (there) {
						char *why = xasprintf("find_header(\"%s\")", args.v[0]);
						inc_add(&il, INC_INCFLAGS, d, why);
						free(why);
						break;
					}
					free(d);
				}
			}
			strlist_free(&args);
		}
		/* dir_config("name", idefault[, ldefault]): the default include
		 * directories (idefault, or idefault/include when it is the prefix) */
		if ((a = find_call(line, "dir_config")) != NULL) {
			literal_args(a, &args);
			if (args.n >= 2 && *args.v[1]) {
				strlist parts = {0};
				char *save2 = NULL;
				char *cp = xstrdup(args.v[1]);
				for (char *t = strtok_r(cp, ":", &save2); t; t = strtok_r(NULL, ":", &save2))
					vec_push(&parts, args.n >= 3 ? xstrdup(t) : path_join(t, "include"));
				free(cp);
				char *why = xasprintf("dir_config(\"%s\") default", args.v[0]);
				for (size_t i = 0; i < parts.n; i++) {
					char *d = expand_dir(parts.v[i], dir);
					if (d)
						inc_add(&il, INC_DIR_CONFIG, d, why);
				}
				free(why);
				strlist_free(&parts);
			}
			strlist_free(&args);
		}
		/* pkg_config("x") adds x's -I directories to $INCFLAGS;
		 * have_library/find_library("x") are asked of pkg-config too */
		if ((a = find_call(line, "pkg_config")) != NULL) {
			literal_args(a, &args);
			if (args.n == 1 && *args.v[0]) {
				add_unique(&out->pkg_modules, xstrdup(args.v[0]));
			}
			strlist_free(&args);
		}
		if ((a = find_call(line, "have_library")) != NULL || (a = find_call(line, "find_library")) != NULL) {
			literal_args(a, &args);
			if (args.n && *args.v[0])
				add_unique(&out->lib_names, xstrdup(args.v[0]));
			strlist_free(&args);
		}
		/* $VPATH and the directories of $srcs: mkmf compiles those sources
		 * there, so their quoted includes resolve there */
		if (strstr(line, "$VPATH") || strstr(line, "$srcs")) {
			bool vpath = strstr(line, "$VPATH") != NULL;
			for (const char *p = line; *p; p++) {
				if (*p != '"' && *p != '\'')
					continue;
				char *lit = read_literal_x(&p, true);
				if (lit && *lit) {
					char *save2 = NULL;
					for (char *t = strtok_r(lit, vpath ? ":" : " ", &save2); t;
					     t = strtok_r(NULL, vpath ? ":" : " ", &save2)) {
						char *d = NULL;
						if (vpath) {
							d = expand_dir(t, dir);
						} else if (strchr(t, '/') && is_source_name(t)) {
							char *e = expand_dir(t, dir);
							d = e ? path_dirname(e) : NULL;
							free(e);
						}
						if (d && strcmp(d, dir) != 0)
							add_unique(&out->quote_dirs, d);
						else
							free(d);
					}
				}
				free(lit);
				if (!*p)
					break;
			}
		}
		/* create_header("curb_config.h"): mkmf writes the $defs into that
		 * header, which the sources include by name; a plain name only (the
		 * stand-in lives in a virtual directory) */
		if ((a = find_call(line, "create_header")) != NULL) {
			literal_args(a, &args);
			if (args.n == 1 && plain_header_name(args.v[0]))
				add_unique(&out->headers, xstrdup(args.v[0]));
			strlist_free(&args);
		}
		/* $objs: the objects mkmf links (and so the sources it compiles) */
		if (strstr(line, "$objs"))
			note_list(line, "$objs", &out->objs, &out->objs_set, &out->objs_unknown);
		if (strstr(line, "$srcs"))
			note_list(line, "$srcs", &out->srcs, &out->srcs_set, &out->srcs_unknown);
		/* a Rust extension (rb_sys), which libclang cannot read */
		if (find_call(line, "create_rust_makefile") || strstr(line, "rb_sys/mkmf") || strstr(line, "RbSys::"))
			out->rust = 1;
		pending_age++;
	}
	strlist_free(&pending_words);
	/* every create_makefile is under a condition that fails here: nothing
	 * of this extension is built on this machine */
	out->not_built = makefile_failed && !makefile_ok;
	/* mkmf's order: $(INCFLAGS) $(CPPFLAGS) $(CFLAGS) */
	for (unsigned k = 0; k < INC_NBUCKETS; k++) {
		for (size_t i = 0; i < il.dirs[k].n; i++) {
			vec_push(&out->include_dirs, il.dirs[k].v[i]);
			vec_push(&out->include_why, il.why[k].v[i]);
		}
		vec_free(&il.dirs[k]);
		vec_free(&il.why[k]);
	}
	for (size_t i = 0; i < blocks.n; i++)
		free(blocks.v[i].probe);
	vec_free(&blocks);
	reader_free(&r);
	sb_free(&wacc);
	free(copy);
	hmap_free(&rt.words);
	strpool_free(&rt.pool);
}

/* ---- cache ---- */

static char miss_marker;

char *extconf_walk_up(const char *dir, const char *name, char *const *roots, size_t nroots)
{
	char *cur = xstrdup(dir);
	char *found = NULL;
	for (unsigned depth = 0; depth < 32 && !found; depth++) {
		char *p = path_join(cur, name);
		if (path_is_file(p)) {
			found = xstrdup(cur);
			free(p);
			break;
		}
		free(p);
		/* go up while still inside a root */
		bool inside = false;
		for (size_t i = 0; i < nroots && !inside; i++)
			inside = path_is_below(cur, roots[i]) && strcmp(cur, roots[i]) != 0;
		if (!inside)
			break;
		char *up = path_dirname(cur);
		free(cur);
		cur = up;
	}
	free(cur);
	return found;
}

const struct extconf_info *extconf_for(struct extconf_cache *c, const char *dir, char *const *roots, size_t nroots)
{
	/* by_dir: the asked directory -> its extconf.rb's directory (or the
	 * miss marker); that directory -> the parsed extconf.rb */
	void *hit = hmap_get(&c->by_dir, dir);
	if (hit == &miss_marker)
		return NULL;
	if (hit)
		return hit;
	char *ext_dir = extconf_walk_up(dir, "extconf.rb", roots, nroots);
	struct extconf_info *ei = NULL;
	if (ext_dir) {
		char *key = xasprintf("\x01%s", ext_dir); /* parsed files, apart from asked dirs */
		ei = hmap_get(&c->by_dir, key);
		if (!ei) {
			char *p = path_join(ext_dir, "extconf.rb");
			size_t n = 0;
			char *text = read_file(p, &n, 4u * 1024 * 1024);
			ei = xcalloc(1, sizeof(*ei));
			ei->path = p;
			struct extconf_env env = {c->ruby_dirs, c->pkg, c->pkg_ctx};
			extconf_parse_env(text ? text : "", ext_dir, &env, ei);
			free(text);
			vec_push(&c->keys, key);
			hmap_put(&c->by_dir, key, ei);
		} else {
			free(key);
		}
		free(ext_dir);
	}
	char *k = xstrdup(dir);
	vec_push(&c->keys, k);
	hmap_put(&c->by_dir, k, ei ? (void *)ei : (void *)&miss_marker);
	return ei;
}

void extconf_cache_free(struct extconf_cache *c)
{
	hmap_foreach(&c->by_dir, e)
	{
		if (e->val != &miss_marker && e->key[0] == '\x01') {
			extconf_info_free(e->val);
			free(e->val);
		}
	}
	hmap_free(&c->by_dir);
	strlist_free(&c->keys);
}
