/* extconf_args.c: the arguments of mkmf calls in extconf.rb: string literals,
 * the functions and headers the Ruby headers declare, include directories and
 * flags, headers and libraries of other platforms (extconf_read.h). */
#include "extconf_read.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void add_unique(strlist *l, char *s)
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
char *read_literal_x(const char **p, bool srcdir_interp)
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

char *read_literal(const char **p)
{
	return read_literal_x(p, false);
}

/* The string-literal arguments after `name(` or `name ` on this line. */
void literal_args(const char *after, strlist *args)
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

/* The first argument after `name(` or `name `: a string literal, the first
 * element of an array (`["x", 2, 56, 0]`), or a variable holding a literal
 * (names/values: the assignments read so far; the last one counts). NULL
 * for anything else. */
char *first_arg_value(const char *after, const strlist *names, const strlist *values)
{
	const char *p = after;
	while (*p == ' ' || *p == '\t' || *p == '(' || *p == '[')
		p++;
	if (*p == '"' || *p == '\'')
		return read_literal(&p);
	char *id = ident_at(p);
	if (!id)
		return NULL;
	const char *q = p + strlen(id);
	while (*q == ' ' || *q == '\t')
		q++;
	char *v = NULL;
	if (*q == ',' || *q == ')' || *q == ']' || !*q) {
		for (size_t i = names->n; i-- > 0 && !v;)
			if (strcmp(names->v[i], id) == 0)
				v = xstrdup(values->v[i]);
	}
	free(id);
	return v;
}

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

void ruby_text_free(struct ruby_text *rt)
{
	hmap_free(&rt->words);
	strpool_free(&rt->pool);
}

/* have_func(fn) succeeds: a Ruby function only when the Ruby headers have
 * it (with a note for -v when say_missing) */
void have_func(struct ruby_text *rt, const char *fn, struct extconf_info *out, bool say_missing)
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

bool ruby_has_header(const strlist *dirs, const char *h)
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

void inc_add(struct inc_lists *il, enum inc_bucket b, char *d, const char *why)
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
char *expand_dir(const char *w, const char *dir)
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
void flags_from_literal(const char *lit, const char *dir, struct extconf_info *out, struct inc_lists *il,
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

const char *find_call(const char *line, const char *name)
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
bool plain_header_name(const char *h)
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

bool system_has_header(const char *h)
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
const char *other_platform_header(const char *h)
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
const char *other_platform_probe(const char *text)
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

/* A %q/%Q string at p (%q(...), %Q[...], %(...)): its body, nested brackets
 * of the same kind included, and *after the text after it; NULL when p is not
 * one, or the body cannot be read here (no closing delimiter on the line, an
 * interpolation in %Q or %()). extlz4: $defs << %q('-DAPI=__attribute__ ((...))'). */
char *percent_string(const char *p, const char **after)
{
	if (p[0] != '%')
		return NULL;
	bool interp = p[1] != 'q';
	const char *o = p[1] == 'q' || p[1] == 'Q' ? p + 2 : p + 1;
	if (!*o || !strchr(o == p + 1 ? "([{<" : "([{<|!/", *o))
		return NULL;
	char open = *o, close = open == '(' ? ')' : open == '[' ? ']' : open == '{' ? '}' : open == '<' ? '>' : open;
	int depth = 1;
	const char *e = o + 1;
	for (; *e && *e != '\n'; e++) {
		if (*e == '\\' && e[1]) {
			e++;
			continue;
		}
		if (interp && e[0] == '#' && e[1] == '{')
			return NULL;
		if (*e == close && --depth == 0)
			break;
		if (*e == open && open != close)
			depth++;
	}
	if (*e != close)
		return NULL;
	*after = e + 1;
	return xstrndup(o + 1, (size_t)(e - o - 1));
}

/* A %w/%W word list at p whose opening delimiter is in opens ("([{"; NULL:
 * any punctuation, a quote-like one closing with itself): 1 with its words
 * (the body shell-split) in *words and the text after it in *after; 0 when p
 * is not one; -1 when it is one that cannot be read here (no closing
 * delimiter on the line, or a '#': an interpolation or a comment). */
int percent_words(const char *p, const char *opens, strlist *words, const char **after)
{
	char open = p[0] == '%' && (p[1] == 'w' || p[1] == 'W') ? p[2] : 0;
	if (!open || (opens ? !strchr(opens, open) : isalnum((unsigned char)open) || isspace((unsigned char)open)))
		return 0;
	char close = open == '(' ? ')' : open == '[' ? ']' : open == '{' ? '}' : open == '<' ? '>' : open;
	const char *e = strchr(p + 3, close);
	if (!e || memchr(p + 3, '#', (size_t)(e - p - 3)))
		return -1;
	char *body = xstrndup(p + 3, (size_t)(e - p - 3));
	int rc = shell_split(body, words) == 0 ? 1 : -1;
	free(body);
	*after = e + 1;
	return rc;
}
