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
	strlist_free(&ei->notes);
	strlist_free(&ei->cond_srcs);
	strlist_free(&ei->cond_probes);
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
	"$srcdir", "__dir__", "File.dirname(__FILE__)", "File.expand_path(__dir__)",
	"File.expand_path(File.dirname(__FILE__))", "File.expand_path('..', __FILE__)",
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
enum inc_bucket { INC_INCFLAGS, INC_DIR_CONFIG, INC_CPPFLAGS, INC_CFLAGS, INC_NBUCKETS };

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
				vec_push(&out->notes, xasprintf("%s: -I%s: not a directory known without running extconf.rb; "
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

/* ---- headers of other platforms ---- */

/* Headers only other systems have: BSD's kqueue, Solaris' event ports,
 * Windows, macOS. A probe for one that this machine lacks fails, as it would
 * in a real build here (assuming it succeeds makes libev and friends compile
 * their kqueue or event-port backends, which cannot parse on Linux). */
static const char *const other_platform_headers[] = {
	"AvailabilityMacros.h", "CoreFoundation/CoreFoundation.h", "CoreServices/CoreServices.h", "TargetConditionals.h",
	"crt_externs.h", "direct.h", "io.h", "kvm.h", "libproc.h", "mach/mach.h", "mach/mach_time.h", "malloc/malloc.h",
	"port.h", "sys/devpoll.h", "sys/event.h", "sys/filio.h", "windows.h", "winsock2.h", "ws2tcpip.h",
};

static bool system_has_header(const char *h)
{
	static const char *const dirs[] = {"/usr/include", "/usr/local/include", "/usr/include/x86_64-linux-gnu",
					   "/usr/include/aarch64-linux-gnu", "/usr/include/i386-linux-gnu",
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
static const char *const header_probes[] = {"have_header", "check_header", "find_header", "have_type",
					    "have_func", "have_struct_member", "have_const", "have_macro",
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
		strlist_free(&args);
		if (hit)
			return hit;
	}
	return NULL;
}

/* Is a condition only and-ed tests? What is or-ed or negated holds without
 * each of its probes, so nothing is concluded from those. */
static bool only_conjunctions(const char *cond)
{
	return !(strstr(cond, " or ") || strstr(cond, "||") || strchr(cond, '!') || strstr(cond, "not "));
}

/* A condition that fails here: it and-s (or is) a probe for a header of
 * another platform. */
static bool condition_fails(const char *cond)
{
	return only_conjunctions(cond) && other_platform_probe(cond) != NULL;
}

/* A line whose trailing `if` fails here (`$defs << "-DX" if have_header("sys/event.h")`). */
static bool modifier_fails(const char *line)
{
	const char *m = strstr(line, " if ");
	return m && condition_fails(m + 4);
}

/* blocks[] entry of an `if` that fails here */
static char false_block[] = "\x01(fails here)";

/* ---- sources built only under a have_func condition ---- */

/* Does t start with the Ruby keyword kw (followed by a non-identifier)? */
static bool kw_at(const char *t, const char *kw)
{
	size_t n = strlen(kw);
	return strncmp(t, kw, n) == 0 && !(isalnum((unsigned char)t[n]) || t[n] == '_' || t[n] == '?' ||
					  t[n] == '!' || t[n] == ':');
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

/* Opens or closes a Ruby block on this (comment-stripped) line: blocks[] holds,
 * per open block, the function its condition requires or NULL. */
static void track_blocks(const char *line, strlist *blocks)
{
	const char *t = line;
	while (*t == ' ' || *t == '\t')
		t++;
	if (kw_at(t, "end") || *t == '}') {
		if (blocks->n) {
			if (blocks->v[blocks->n - 1] != false_block)
				free(blocks->v[blocks->n - 1]);
			blocks->n--;
		}
		return;
	}
	if (kw_at(t, "else") || kw_at(t, "elsif") || kw_at(t, "when") || kw_at(t, "rescue") ||
	    kw_at(t, "ensure")) {
		/* another branch: the condition of the block no longer holds */
		if (blocks->n) {
			if (blocks->v[blocks->n - 1] != false_block)
				free(blocks->v[blocks->n - 1]);
			blocks->v[blocks->n - 1] = NULL;
		}
		return;
	}
	if (ends_with_end(t))
		return;
	if (kw_at(t, "if")) {
		vec_push(blocks, condition_fails(t + 2) ? false_block : probe_of_condition(t + 2));
		return;
	}
	static const char *const openers[] = {"unless", "while", "until", "case", "begin", "def", "class", "module"};
	for (size_t i = 0; i < ARRAY_SIZE(openers); i++)
		if (kw_at(t, openers[i])) {
			vec_push(blocks, NULL);
			return;
		}
	if (strstr(t, "= if ") || strstr(t, "= unless ") || strstr(t, "= case ") || strstr(t, "= begin")) {
		vec_push(blocks, NULL);
		return;
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
		vec_push(blocks, NULL);
}

/* `$srcs << "a.c"`, `$srcs.push(...)`, `$srcs += [...]` under a have_func
 * condition (enclosing, or a trailing `if have_func(...)`). */
static void note_cond_srcs(const char *line, const strlist *blocks, struct extconf_info *out)
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
		if (blocks->v[i - 1] && blocks->v[i - 1] != false_block)
			probe = xstrdup(blocks->v[i - 1]);
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
 * on one line; anything else makes $objs unknown (no source is left out). */
static void note_objs(const char *line, struct extconf_info *out)
{
	const char *s = strstr(line, "$objs");
	const char *p = s + 5;
	while (*p == ' ' || *p == '\t')
		p++;
	bool assign = p[0] == '=' && p[1] != '=';
	bool add = (p[0] == '+' && p[1] == '=') || (p[0] == '<' && p[1] == '<') || str_starts(p, ".push") ||
		   str_starts(p, ".concat");
	if (!assign && !add) {
		if (p[0] == '=' || p[0] == '.' || p[0] == '[')
			out->objs_unknown = 1; /* $objs.map!, $objs[0] = ..., == */
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
		if (*p == '[')
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
		while (*p == ' ' || *p == '\t' || *p == ']' || *p == ')')
			p++;
		/* something else on the line (a method call, a variable, `if ...`
		 * after a complete list is fine) */
		if (!words.n || (*p && !str_starts(p, "if ") && !str_starts(p, "unless ")))
			ok = false;
	}
	if (!ok) {
		out->objs_unknown = 1;
		strlist_free(&words);
		return;
	}
	if (assign) {
		strlist_free(&out->objs);
		out->objs_set = 1;
	}
	for (size_t i = 0; i < words.n; i++) {
		vec_push(&out->objs, words.v[i]);
		words.v[i] = NULL;
	}
	vec_free(&words);
}

bool extconf_objs_exclude(const struct extconf_info *ei, const char *file)
{
	if (!ei || !ei->objs_set || ei->objs_unknown)
		return false;
	const char *base = path_basename(file);
	const char *dot = strrchr(base, '.');
	size_t stem = dot ? (size_t)(dot - base) : strlen(base);
	for (size_t i = 0; i < ei->objs.n; i++) {
		const char *o = path_basename(ei->objs.v[i]);
		if (strncmp(o, base, stem) == 0 && o[stem] == '.')
			return false;
	}
	return true;
}

void extconf_parse(const char *text, const char *dir, const strlist *ruby_dirs, struct extconf_info *out)
{
	struct ruby_text rt = {0};
	rt.dirs = ruby_dirs;
	struct inc_lists il = {0};
	char *copy = xstrdup(text);
	char *save = NULL;
	strlist pending_words = {0}; /* %w[...] lists, for `.each { |f| have_func(f) }` */
	unsigned pending_age = 0;
	struct strbuf wacc = {0};     /* a %w[...] list being read */
	char wclose = 0;              /* its closing bracket while it is open */
	strlist blocks = {0};         /* open Ruby blocks: the function each requires, or NULL */
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
		track_blocks(line, &blocks);
		/* inside an `if` that fails here, or under a trailing one: nothing
		 * of this line happens in a build on this machine */
		bool fails = modifier_fails(line);
		for (size_t i = 0; i < blocks.n && !fails; i++)
			fails = blocks.v[i] == false_block;
		if (fails) {
			const char *h = other_platform_probe(line);
			if (h)
				vec_push(&out->notes, xasprintf("%s: a header of another platform, absent here: probe fails",
								h));
			continue;
		}
		note_cond_srcs(line, &blocks, out);

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
						vec_push(&out->notes,
							 xasprintf("%s(\"%s\"): a header of another platform, absent here: "
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
		/* $defs << "-DFOO", $defs.push("-DFOO"), flags */
		if (strstr(line, "$defs") || strstr(line, "$CFLAGS") || strstr(line, "$CPPFLAGS") ||
		    strstr(line, "append_cflags") || strstr(line, "append_cppflags") || strstr(line, "$INCFLAGS")) {
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
		/* $objs: the objects mkmf links (and so the sources it compiles) */
		if (strstr(line, "$objs"))
			note_objs(line, out);
		/* a Rust extension (rb_sys), which libclang cannot read */
		if (find_call(line, "create_rust_makefile") || strstr(line, "rb_sys/mkmf") ||
		    strstr(line, "RbSys::"))
			out->rust = 1;
		pending_age++;
	}
	strlist_free(&pending_words);
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
		if (blocks.v[i] == false_block)
			blocks.v[i] = NULL;
	strlist_free(&blocks);
	sb_free(&wacc);
	free(copy);
	hmap_free(&rt.words);
	strpool_free(&rt.pool);
}

/* ---- cache ---- */

static char miss_marker;

const struct extconf_info *extconf_for(struct extconf_cache *c, const char *dir, char *const *roots, size_t nroots)
{
	char *cur = xstrdup(dir);
	const struct extconf_info *found = NULL;
	for (unsigned depth = 0; depth < 32; depth++) {
		void *hit = hmap_get(&c->by_dir, cur);
		if (hit) {
			found = hit == &miss_marker ? NULL : hit;
			if (found || hit == &miss_marker) {
				if (found)
					break;
			}
		} else {
			char *p = path_join(cur, "extconf.rb");
			size_t n = 0;
			char *text = path_is_file(p) ? read_file(p, &n, 4u * 1024 * 1024) : NULL;
			char *key = xstrdup(cur);
			vec_push(&c->keys, key);
			if (text) {
				struct extconf_info *ei = xcalloc(1, sizeof(*ei));
				ei->path = p;
				extconf_parse(text, cur, c->ruby_dirs, ei);
				free(text);
				hmap_put(&c->by_dir, key, ei);
				found = ei;
				break;
			}
			free(p);
			hmap_put(&c->by_dir, key, &miss_marker);
		}
		/* go up while still inside a root */
		bool inside = false;
		for (size_t i = 0; i < nroots; i++)
			if (path_is_below(cur, roots[i]) && strcmp(cur, roots[i]) != 0)
				inside = true;
		if (!inside)
			break;
		char *up = path_dirname(cur);
		free(cur);
		cur = up;
	}
	free(cur);
	return found;
}

void extconf_cache_free(struct extconf_cache *c)
{
	hmap_foreach(&c->by_dir, e)
	{
		if (e->val != &miss_marker) {
			extconf_info_free(e->val);
			free(e->val);
		}
	}
	hmap_free(&c->by_dir);
	strlist_free(&c->keys);
}
