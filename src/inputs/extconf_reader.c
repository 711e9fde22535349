/* extconf_reader.c: what the installed library decides: pkg-config modules and
 * their versions, version predicates, headers present here (extconf_read.h). */
#include "extconf_read.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- what the installed library decides (pkg-config, headers) ---- */

unsigned indent_of(const char *line)
{
	unsigned n = 0;
	while (line[n] == ' ' || line[n] == '\t')
		n++;
	return n;
}

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

bool module_word(const char *w)
{
	if (!*w || strlen(w) > 100 || w[0] == '-')
		return false;
	for (const char *p = w; *p; p++)
		if (!(isalnum((unsigned char)*p) || strchr("._+-", *p)))
			return false;
	return !str_ends(w, ".h") && !str_ends(w, ".c");
}

/* The identifier (with ?/!) at p; malloc'ed, or NULL. */
char *ident_at(const char *p)
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
/* pkg_config("x"): its include directories answer have_header. */
static void pkg_config_dirs(struct reader *r)
{
	const struct extconf_env *env = r->env;
	const char *t = r->text;
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
}

/* A module chosen from %w[...] candidates the gem asks pkg-config about one by
 * one: the newest installed one. */
static void choose_candidate(struct reader *r)
{
	const struct extconf_env *env = r->env;
	const char *t = r->text;
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
}

/* $var = PKGConfig.modversion(...) / pkg_config("x", "modversion"). */
static void version_var(struct reader *r, const char *line)
{
	const struct extconf_env *env = r->env;
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
}

/* def name(arg) ... Gem::Version.new($var) OP Gem::Version.new(arg); line is
 * at offset off of the text. */
static void version_pred(struct reader *r, const char *line, size_t off)
{
	const char *t = r->text;
	const char *d = line;
	while (*d == ' ' || *d == '\t')
		d++;
	if (kw_at(d, "def")) {
		const char *at = d + 3; /* `def` may end the line */
		while (*at == ' ' || *at == '\t')
			at++;
		char *name = ident_at(at);
		/* the body's first lines (the remaining text, up to 4 lines) */
		const char *q = t + off + strlen(line);
		for (unsigned k = 0; name && k < 4 && *q; k++) {
			q++;
			const char *nl = strchr(q, '\n');
			size_t len = nl ? (size_t)(nl - q) : strlen(q);
			char *bl = xstrndup(q, len);
			char *a1 = gem_version_arg(bl);
			const char *g2 = a1 ? strstr(strstr(bl, "Gem::Version.new(") + 1, "Gem::Version.new(") : NULL;
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

void read_versions(struct reader *r)
{
	const struct extconf_env *env = r->env;
	if (!env || !env->pkg)
		return;
	const char *t = r->text;
	pkg_config_dirs(r);
	choose_candidate(r);
	/* each line: a version variable, a helper comparing versions */
	char *copy = xstrdup(t), *save = NULL;
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		version_var(r, line);
		version_pred(r, line, (size_t)(line - copy));
	}
	free(copy);
}

void reader_free(struct reader *r)
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
bool header_here(const struct reader *r, const char *h)
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
int version_pred_value(const struct reader *r, const char *cond)
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
char *header_probe_arg(const char *text)
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

/* `%w"termios.h termio.h".find {|h| have_header(h)}` (.detect, do |h|, the
 * other header probes): mkmf probes the headers in order and the value is
 * the first one found. *shape says whether text holds that form; the
 * result is the first header of the list present here, or NULL. */
char *header_list_find(const struct reader *r, const char *text, bool *shape)
{
	*shape = false;
	for (const char *p = strstr(text, "%w"); p; p = strstr(p + 2, "%w")) {
		strlist words = {0};
		const char *a = NULL;
		if (percent_words(p, NULL, &words, &a) <= 0) {
			strlist_free(&words);
			continue;
		}
		while (*a == ' ')
			a++;
		bool finder = str_starts(a, ".find") || str_starts(a, ".detect");
		const char *bar1 = finder ? strchr(a, '|') : NULL;
		const char *bar2 = bar1 ? strchr(bar1 + 1, '|') : NULL;
		char *var = bar2 ? trim_dup(bar1 + 1, bar2) : NULL;
		const char *call = NULL;
		static const char *const calls[] = {"have_header", "check_header", "find_header"};
		for (size_t k = 0; var && *var && !call && k < ARRAY_SIZE(calls); k++)
			call = find_call(bar2, calls[k]);
		if (call) {
			/* the probe's argument is the block's variable */
			const char *arg = call;
			while (*arg == ' ' || *arg == '(')
				arg++;
			size_t vn = strlen(var);
			*shape = strncmp(arg, var, vn) == 0 && !isalnum((unsigned char)arg[vn]) && arg[vn] != '_';
		}
		char *found = NULL;
		for (size_t i = 0; *shape && i < words.n && i < 32 && !found; i++)
			if (header_here(r, words.v[i]))
				found = xstrdup(words.v[i]);
		free(var);
		strlist_free(&words);
		if (*shape)
			return found;
	}
	return NULL;
}

/* Is a condition only and-ed tests? What is or-ed or negated holds without
 * each of its probes, so nothing is concluded from those. */
bool only_conjunctions(const char *cond)
{
	return !(strstr(cond, " or ") || strstr(cond, "||") || strchr(cond, '!') || strstr(cond, "not "));
}
