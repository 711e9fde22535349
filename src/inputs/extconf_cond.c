/* extconf_cond.c: the boolean expressions and names of extconf.rb that a real
 * build on this machine decides, and the Ruby blocks they open
 * (extconf_read.h). */
#include "extconf_read.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- boolean expressions a real build here decides ----
 * A default build on this machine: RUBY_PLATFORM and host_os are Linux's,
 * no --with-/--enable- option is given (with_config/enable_config return
 * their default), and mkmf's $mingw/$mswin/$cygwin are nil. */

char *trim_dup(const char *b, const char *e)
{
	while (b < e && isspace((unsigned char)*b))
		b++;
	while (e > b && isspace((unsigned char)e[-1]))
		e--;
	return xstrndup(b, (size_t)(e - b));
}

/* RUBY_PLATFORM here (x86_64-linux), or host_os/target_os (linux-gnu). */
const char *platform_string(const char *expr)
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

bool platform_subject(const char *e)
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

int name_value(const struct reader *r, const char *e)
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

/* RUBY_PLATFORM =~ /re/, /re/ =~ RUBY_PLATFORM, !~, ===, .match?(/re/),
 * .include?('s'): its value on this machine. */
static int platform_test(const char *e)
{
	int v = V_UNKNOWN;
	const char *plat = platform_string(e);
	const char *re = NULL;
	bool neg = strstr(e, "!~") != NULL;
	for (const char *p = e; *p && !re; p++)
		if (*p == '/' && (p == e || strchr("(~= ", p[-1])))
			re = p;
	const char *inc = strstr(e, ".include?(");
	if (re &&
	    (strstr(e, "=~") || strstr(e, "!~") || strstr(e, "===") || strstr(e, ".match?(") || strstr(e, ".match(")))
		v = regex_matches(re, plat);
	else if (inc && plat) {
		const char *a = inc + strlen(".include?(");
		char *lit = read_literal(&a);
		v = lit ? (strstr(plat, lit) ? V_TRUE : V_FALSE) : V_UNKNOWN;
		free(lit);
	}
	if (v != V_UNKNOWN && neg)
		v = v == V_TRUE ? V_FALSE : V_TRUE;
	return v;
}

/* enable_config / with_config with no option given: the default (second
 * argument), nil without. */
static int config_default(const char *e)
{
	int v = V_UNKNOWN;
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
	return v;
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
		v = platform_test(e);
	} else if (str_starts(e, "enable_config") || str_starts(e, "with_config")) {
		v = config_default(e);
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
		bool list = false;
		char *h = header_list_find(r, e, &list);
		if (list)
			v = h ? V_TRUE : V_NIL;
		else {
			free(h);
			h = header_probe_arg(e);
			if (h && header_here(r, h))
				v = V_TRUE;
		}
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
int cond_value(const struct reader *r, const char *cond)
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
void assignment(struct reader *r, const char *t, bool in_order)
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
void read_names(struct reader *r)
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
bool modifier_fails(const struct reader *r, const char *line)
{
	const char *m = strstr(line, " if ");
	if (m)
		return cond_value(r, m + 4) == 0;
	m = strstr(line, " unless ");
	return m && cond_value(r, m + 8) == 1;
}

/* Does `when ITEMS` match the case subject? -1 when unknown. */
int when_matches(const struct rblock *b, const char *items)
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
/* `if have_header("a.h")` with a.h absent here, followed (at the same
 * indentation) by `elsif have_header("b.h")` with b.h installed: the real
 * build takes the elsif branch. at: the if line's text in r->text. */
bool alternative_installed(const struct reader *r, const char *at)
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
