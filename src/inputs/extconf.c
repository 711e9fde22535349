/* extconf.c: see extconf.h. A line-and-literal scanner, not a Ruby parser:
 * it recognises the mkmf calls by name and takes their string-literal
 * arguments. */
#include "extconf.h"
#include "extconf_read.h"

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

void extconf_parse(const char *text, const char *dir, const strlist *ruby_dirs, struct extconf_info *out)
{
	struct extconf_env env = {ruby_dirs, NULL, NULL, NULL};
	extconf_parse_env(text, dir, &env, out);
}

/* What extconf_parse_env knows while it reads extconf.rb line by line. */
struct parse_state {
	const char *text; /* the whole extconf.rb */
	const char *dir;
	char *copy; /* text, cut into lines */
	struct extconf_info *out;
	struct ruby_text own_rt; /* without a shared one */
	struct ruby_text *rt;
	struct inc_lists il;
	struct reader r;
	strlist pending_words; /* %w[...] lists, for `.each { |f| have_func(f) }` */
	unsigned pending_age;
	char wclose;                       /* a %w[...] list's closing bracket while its lines go on */
	block_vec blocks;                  /* open Ruby blocks */
	bool makefile_ok, makefile_failed; /* create_makefile run / not run here */
	bool flags_open;                   /* inside a multi-line append_cflags([...]) */
	bool flags_next;                   /* the line ended in `<<`: the next one goes on */
	enum inc_bucket flags_bucket;
	const char *flags_why;
	strlist src_var_names, src_var_values; /* `name = "x.c"` on lines run here */
	strlist str_var_names, str_var_values; /* `name = "any literal"` on lines run here */
};

/* Strips a comment (outside literals, roughly). */
static void strip_comment(char *line)
{
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
}

/* Follows the blocks a line opens and closes, and notes create_makefile.
 * True when nothing of the line happens in a build on this machine. */
static bool line_fails(struct parse_state *st, const char *line)
{
	bool opened_unless = track_blocks(&st->r, line, st->text + (line - st->copy), &st->blocks);
	/* inside an `if` that fails here, or under a trailing one: nothing
	 * of this line happens in a build on this machine (the probes of an
	 * `unless` line run even when its body does not) */
	bool fails = modifier_fails(&st->r, line) && !opened_unless;
	for (size_t i = 0; i + (opened_unless ? 1 : 0) < st->blocks.n && !fails; i++)
		fails = st->blocks.v[i].fails;
	bool mk = find_call(line, "create_makefile") || find_call(line, "auto_ext") ||
		  find_call(line, "create_rust_makefile") || str_starts(line + indent_of(line), "auto_ext");
	if (mk && fails)
		st->makefile_failed = true;
	else if (mk)
		st->makefile_ok = true;
	if (fails) {
		const char *h = other_platform_probe(line);
		if (h)
			vec_push(&st->out->notes,
				 xasprintf("%s: a header of another platform, absent here: probe fails", h));
	}
	return fails;
}

/* Sources under a condition, and an assignment run in order: in branches
 * known taken (or none) it sets the value; under anything else it may or
 * may not run. */
static void line_conditions(struct parse_state *st, const char *line)
{
	note_cond_srcs(line, &st->blocks, st->out);
	bool in_order = true;
	for (size_t i = 0; i < st->blocks.n && in_order; i++)
		in_order = st->blocks.v[i].taken;
	const char *t = line + indent_of(line);
	assignment(&st->r, t, in_order);
}

/* The list that text holds from offset `from` up to its closing character,
 * appended to sb as one line: newlines as spaces, `#` comments outside quotes
 * dropped (the line loop's strip_comment). words (a %w[...] list, which the
 * loop also reads a line at a time): quotes do not go on over a line end nor
 * hide the closing character. *end: that character's offset. False when the
 * list does not close within 8 KiB. What word_list and joined_list share. */
static bool read_list_ahead(const char *text, size_t from, char close, bool words, struct strbuf *sb, size_t *end)
{
	bool sq = false, dq = false;
	for (const char *p = text + from; *p; p++) {
		if (sb->len > 8192)
			return false;
		if (*p == '\n' && words)
			sq = dq = false;
		if (*p == '\'' && !dq) {
			sq = !sq;
		} else if (*p == '"' && !sq) {
			dq = !dq;
		} else if (*p == '#' && !sq && !dq && p[1] != '{') {
			while (p[1] && p[1] != '\n')
				p++;
			continue;
		} else if (*p == close && (words || (!sq && !dq))) {
			*end = (size_t)(p - text);
			return true;
		}
		sb_putc(sb, *p == '\n' || *p == '\r' ? ' ' : *p);
	}
	return false;
}

/* %w[...] word lists, possibly over several lines: read whole at the line
 * that opens one. True when the line is inside a list that goes on (the
 * lines up to its closing bracket are the list's, nothing else). */
static bool word_list(struct parse_state *st, const char *line)
{
	if (st->wclose) {
		if (!strchr(line, st->wclose))
			return true;
		st->wclose = 0;
		return false;
	}
	const char *w = strstr(line, "%w");
	if (!w)
		w = strstr(line, "%i");
	if (!w || !(w[2] == '[' || w[2] == '(' || w[2] == '{'))
		return false;
	char close = w[2] == '[' ? ']' : w[2] == '(' ? ')' : '}';
	struct strbuf sb = {0};
	size_t end = 0;
	if (read_list_ahead(st->text, (size_t)(w + 3 - st->copy), close, true, &sb, &end)) {
		strlist_free(&st->pending_words);
		shell_split(sb_str(&sb), &st->pending_words);
		st->pending_age = 0;
	}
	sb_free(&sb);
	if (strchr(w + 3, close))
		return false;
	st->wclose = close; /* the list goes on */
	return true;
}

/* have_func and the header probes: the HAVE_ defines they make. */
static void probe_functions_headers(struct parse_state *st, const char *line)
{
	struct extconf_info *out = st->out;
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
				have_func(st->rt, args.v[0], out, true);
		} else if (st->pending_words.n && st->pending_age < 4) {
			for (size_t i = 0; i < st->pending_words.n; i++)
				have_func(st->rt, st->pending_words.v[i], out, false);
			strlist_free(&st->pending_words);
		}
	}
	strlist_free(&args);
	bool list = false;
	char *listed = header_list_find(&st->r, line, &list);
	if (listed) {
		/* %w[a.h b.h].find { |h| have_header(h) }: the first one found */
		char *n = mkmf_cpp_name(listed);
		add_unique(&out->defines, xasprintf("HAVE_%s=1", n));
		free(n);
		free(listed);
	}
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
				else if (!ruby_h || ruby_has_header(st->r.env->ruby_dirs, h)) {
					char *n = mkmf_cpp_name(h);
					add_unique(&out->defines, xasprintf("HAVE_%s=1", n));
					free(n);
				}
			}
			strlist_free(&args);
		}
	}
}

/* The other probes' HAVE_ defines (libraries, types, constants, struct
 * members) and add_define. */
static void probe_defines(struct parse_state *st, const char *line)
{
	struct extconf_info *out = st->out;
	const char *a;
	strlist args = {0};
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
}

/* $defs << "-DFOO", $defs.push("-DFOO"), flags; a list over several lines
 * (append_cflags([\n "-Ia",\n "-DB",\n])) goes on until `]`. */
static void flag_literals(struct parse_state *st, const char *line)
{
	bool cont = st->flags_open || st->flags_next, next = st->flags_next;
	st->flags_next = false;
	if (!cont && !strstr(line, "$defs") && !strstr(line, "$CFLAGS") && !strstr(line, "$CPPFLAGS") &&
	    !strstr(line, "append_cflags") && !strstr(line, "append_cppflags") && !strstr(line, "$INCFLAGS"))
		return;
	if (next) {
		/* $defs << "-DA" <<\n "-DB": the bucket of the line before */
	} else if (cont) {
		if (strchr(line, ']'))
			st->flags_open = false;
	} else {
		const char *ob = strstr(line, "append_cflags([");
		if (!ob)
			ob = strstr(line, "append_cppflags([");
		if (ob && !strchr(ob, ']')) {
			st->flags_open = true;
			st->flags_bucket = strstr(line, "append_cppflags") ? INC_CPPFLAGS : INC_CFLAGS;
			st->flags_why = strstr(line, "append_cppflags") ? "append_cppflags" : "append_cflags";
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
		b = st->flags_bucket;
		why = st->flags_why;
	}
	size_t len = strlen(line);
	while (len && isspace((unsigned char)line[len - 1]))
		len--;
	if (len >= 2 && line[len - 1] == '<' && line[len - 2] == '<') {
		st->flags_next = true;
		st->flags_bucket = b;
		st->flags_why = why;
	}
	for (const char *p = line; *p; p++) {
		const char *after = NULL;
		char *pct = *p == '%' ? percent_string(p, &after) : NULL;
		if (pct) {
			flags_from_literal(pct, st->dir, st->out, &st->il, b, why);
			free(pct);
			p = after - 1;
			continue;
		}
		if (*p == '"' || *p == '\'') {
			char *lit = read_literal_x(&p, true);
			if (lit) {
				flags_from_literal(lit, st->dir, st->out, &st->il, b, why);
				free(lit);
			}
			if (!*p)
				break;
		}
	}
}

/* The include directories of find_header and dir_config. */
static void include_probes(struct parse_state *st, const char *line)
{
	const char *a;
	strlist args = {0};
	/* find_header("h", "dir"...): the first directory holding h, unless
	 * the compiler finds h by itself */
	if ((a = find_call(line, "find_header")) != NULL) {
		literal_args(a, &args);
		if (args.n >= 2 && !system_has_header(args.v[0])) {
			for (size_t i = 1; i < args.n; i++) {
				char *d = expand_dir(args.v[i], st->dir);
				char *h = d ? path_join(d, args.v[0]) : NULL;
				bool there = h && path_is_file(h);
				free(h);
				if (there) {
					char *why = xasprintf("find_header(\"%s\")", args.v[0]);
					inc_add(&st->il, INC_INCFLAGS, d, why);
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
				char *d = expand_dir(parts.v[i], st->dir);
				if (d)
					inc_add(&st->il, INC_DIR_CONFIG, d, why);
			}
			free(why);
			strlist_free(&parts);
		}
		strlist_free(&args);
	}
}

/* pkg_config("x") adds x's -I directories to $INCFLAGS, and so do
 * ruby-pkg-config's PKGConfig.have_package("x") and Ruby-GNOME's
 * required_pkg_config_package(x) (x a literal, [literal, major, minor, micro]
 * or a variable holding one); have_library and find_library("x") are asked
 * of pkg-config too. */
static void library_names(struct parse_state *st, const char *line)
{
	const char *a;
	strlist args = {0};
	if ((a = find_call(line, "pkg_config")) != NULL) {
		literal_args(a, &args);
		if (args.n == 1 && *args.v[0]) {
			add_unique(&st->out->pkg_modules, xstrdup(args.v[0]));
		}
		strlist_free(&args);
	}
	if ((a = find_call(line, "have_package")) != NULL || (a = find_call(line, "required_pkg_config_package"))) {
		char *m = first_arg_value(a, &st->str_var_names, &st->str_var_values);
		if (m && module_word(m))
			add_unique(&st->out->pkg_modules, m);
		else
			free(m);
	}
	if ((a = find_call(line, "have_library")) != NULL || (a = find_call(line, "find_library")) != NULL) {
		literal_args(a, &args);
		if (args.n && *args.v[0])
			add_unique(&st->out->lib_names, xstrdup(args.v[0]));
		strlist_free(&args);
	}
}

/* $VPATH and the directories of $srcs: mkmf compiles those sources there,
 * so their quoted includes resolve there. */
static void source_dirs(struct parse_state *st, const char *line)
{
	if (!strstr(line, "$VPATH") && !strstr(line, "$srcs"))
		return;
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
					d = expand_dir(t, st->dir);
				} else if (strchr(t, '/') && is_source_name(t)) {
					char *e = expand_dir(t, st->dir);
					d = e ? path_dirname(e) : NULL;
					free(e);
				}
				if (d && strcmp(d, st->dir) != 0)
					add_unique(&st->out->quote_dirs, d);
				else
					free(d);
			}
		}
		free(lit);
		if (!*p)
			break;
	}
}

/* `name = "x.c"` (a source file's name in a variable) on a line that runs
 * here: noted for `$objs << name.sub(/\.c$/, '.o')`. */
static void source_var(struct parse_state *st, const char *line)
{
	const char *t = line + indent_of(line);
	char *name = ident_at(t);
	if (!name || !(islower((unsigned char)name[0]) || name[0] == '_')) {
		free(name);
		return;
	}
	const char *p = t + strlen(name);
	while (*p == ' ' || *p == '\t')
		p++;
	char *lit = NULL;
	if (p[0] == '=' && p[1] != '=' && p[1] != '~') {
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '"' || *p == '\'')
			lit = read_literal(&p);
	}
	while (lit && (*p == ' ' || *p == '\t'))
		p++;
	if (lit && !*p && st->str_var_names.n < 256) {
		vec_push(&st->str_var_names, xstrdup(name));
		vec_push(&st->str_var_values, xstrdup(lit));
	}
	if (lit && !*p && (is_source_name(lit) || str_ends(lit, ".o")) && st->src_var_names.n < 256) {
		vec_push(&st->src_var_names, name);
		vec_push(&st->src_var_values, lit);
		return;
	}
	free(lit);
	free(name);
}

/* `$objs << name` or `$objs << name.sub(/\.c$/, '.o')` (or gsub), with name
 * a variable noted by source_var: every value it may hold here is added to
 * the list (each branch of a `case` that runs here). The arguments of sub
 * and gsub are not read, only skipped up to the first `)`: `".#{$OBJEXT}"`
 * as the replacement is read like '.o', a `)` inside the pattern is not.
 * False when the line is not of that shape. */
static bool var_objects(struct parse_state *st, const char *line, const char *var, strlist *list)
{
	const char *p = strstr(line, var) + strlen(var);
	while (*p == ' ' || *p == '\t')
		p++;
	if (p[0] != '<' || p[1] != '<')
		return false;
	p += 2;
	while (*p == ' ' || *p == '\t')
		p++;
	char *name = ident_at(p);
	if (!name)
		return false;
	p += strlen(name);
	if (str_starts(p, ".sub(") || str_starts(p, ".gsub(")) {
		const char *close = strchr(p, ')');
		p = close ? close + 1 : p + strlen(p);
	}
	while (*p == ' ' || *p == '\t')
		p++;
	size_t added = 0;
	for (size_t i = 0; !*p && i < st->src_var_names.n; i++) {
		if (strcmp(st->src_var_names.v[i], name) != 0)
			continue;
		vec_push(list, xstrdup(st->src_var_values.v[i]));
		added++;
	}
	free(name);
	return added > 0;
}

/* Methods that only read a list: `$objs.each { ... }` leaves it known. */
static bool list_read_only(const char *p)
{
	static const char *const reads[] = {
		".each",   ".each_with_index", ".map ", ".map{",  ".map(", ".collect ", ".join", ".include?", ".size",
		".length", ".empty?",          ".any?", ".first", ".last", ".dup",      ".to_a", ".count",    ".find "};
	for (size_t i = 0; i < ARRAY_SIZE(reads); i++)
		if (str_starts(p, reads[i]))
			return true;
	return false;
}

/* A `$objs = [` list that goes on over the next lines, joined into one line
 * up to its `]` (comments dropped; at most 8 KiB), else NULL. */
static char *joined_list(const struct parse_state *st, const char *line, const char *var)
{
	const char *open = strchr(strstr(line, var), '[');
	if (!open || strchr(open, ']'))
		return NULL;
	struct strbuf sb = {0};
	sb_add(&sb, line, (size_t)(open - line));
	size_t end = 0;
	if (!read_list_ahead(st->text, (size_t)(open - st->copy), ']', false, &sb, &end)) {
		sb_free(&sb);
		return NULL;
	}
	const char *p = st->text + end, *eol = strchr(p, '\n');
	sb_add(&sb, p, eol ? (size_t)(eol - p) : strlen(p));
	return sb_detach(&sb);
}

/* $objs or $srcs on this line: its list noted. */
static void build_list(struct parse_state *st, const char *line, const char *var, strlist *list, uint8_t *set,
		       uint8_t *unknown)
{
	const char *after = strstr(line, var) + strlen(var);
	if (after[0] == '.' && list_read_only(after))
		return;
	if (var_objects(st, line, var, list))
		return;
	char *joined = joined_list(st, line, var);
	note_list(joined ? joined : line, var, list, set, unknown);
	free(joined);
}

/* create_header, $objs and $srcs, and a Rust extension. */
static void build_outputs(struct parse_state *st, const char *line)
{
	struct extconf_info *out = st->out;
	const char *a;
	strlist args = {0};
	/* create_header("curb_config.h"): mkmf writes the $defs into that
	 * header, which the sources include by name; a plain name only (the
	 * stand-in lives in a virtual directory) */
	if ((a = find_call(line, "create_header")) != NULL) {
		literal_args(a, &args);
		if (args.n == 1 && plain_header_name(args.v[0]))
			add_unique(&out->headers, xstrdup(args.v[0]));
		strlist_free(&args);
	}
	/* Ruby-GNOME's glib_mkenums("prefix", headers, ...) writes prefix.h (the
	 * enum types' GType getters) at build time: a stand-in like
	 * create_header's, so the rest of each file including it is read */
	if ((a = find_call(line, "glib_mkenums")) != NULL) {
		char *prefix = first_arg_value(a, &st->str_var_names, &st->str_var_values);
		char *h = prefix ? xasprintf("%s.h", prefix) : NULL;
		if (h && plain_header_name(h))
			add_unique(&out->headers, h);
		else
			free(h);
		free(prefix);
	}
	/* $objs: the objects mkmf links (and so the sources it compiles) */
	if (strstr(line, "$objs"))
		build_list(st, line, "$objs", &out->objs, &out->objs_set, &out->objs_unknown);
	if (strstr(line, "$srcs"))
		build_list(st, line, "$srcs", &out->srcs, &out->srcs_set, &out->srcs_unknown);
	source_var(st, line);
	/* a Rust extension (rb_sys), which libclang cannot read */
	if (find_call(line, "create_rust_makefile") || strstr(line, "rb_sys/mkmf") || strstr(line, "RbSys::"))
		out->rust = 1;
}

/* What the whole file decides, and the state freed. */
static void parse_finish(struct parse_state *st)
{
	struct extconf_info *out = st->out;
	strlist_free(&st->pending_words);
	/* every create_makefile is under a condition that fails here: nothing
	 * of this extension is built on this machine */
	out->not_built = st->makefile_failed && !st->makefile_ok;
	/* mkmf's order: $(INCFLAGS) $(CPPFLAGS) $(CFLAGS) */
	for (unsigned k = 0; k < INC_NBUCKETS; k++) {
		for (size_t i = 0; i < st->il.dirs[k].n; i++) {
			vec_push(&out->include_dirs, st->il.dirs[k].v[i]);
			vec_push(&out->include_why, st->il.why[k].v[i]);
		}
		vec_free(&st->il.dirs[k]);
		vec_free(&st->il.why[k]);
	}
	for (size_t i = 0; i < st->blocks.n; i++)
		free(st->blocks.v[i].probe);
	vec_free(&st->blocks);
	reader_free(&st->r);
	strlist_free(&st->src_var_names);
	strlist_free(&st->src_var_values);
	strlist_free(&st->str_var_names);
	strlist_free(&st->str_var_values);
	free(st->copy);
	ruby_text_free(&st->own_rt);
}

void extconf_parse_env(const char *text, const char *dir, const struct extconf_env *env, struct extconf_info *out)
{
	struct parse_state st = {0};
	st.text = text;
	st.dir = dir;
	st.out = out;
	st.own_rt.dirs = env->ruby_dirs;
	st.rt = env->rt ? env->rt : &st.own_rt;
	st.r.env = env;
	st.r.dir = dir;
	st.r.text = text;
	st.r.il = &st.il;
	st.r.out = out;
	st.flags_bucket = INC_CFLAGS;
	st.flags_why = "append_cflags";
	read_versions(&st.r);
	read_names(&st.r);
	st.copy = xstrdup(text);
	char *save = NULL;
	for (char *line = strtok_r(st.copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		strip_comment(line);
		if (line_fails(&st, line))
			continue;
		line_conditions(&st, line);
		if (word_list(&st, line))
			continue; /* the list goes on */
		probe_functions_headers(&st, line);
		probe_defines(&st, line);
		flag_literals(&st, line);
		include_probes(&st, line);
		library_names(&st, line);
		source_dirs(&st, line);
		build_outputs(&st, line);
		st.pending_age++;
	}
	parse_finish(&st);
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
			if (!c->rt) {
				c->rt = xcalloc(1, sizeof(*c->rt));
				c->rt->dirs = c->ruby_dirs;
			}
			struct extconf_env env = {c->ruby_dirs, c->pkg, c->pkg_ctx, c->rt};
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
	if (c->rt) {
		ruby_text_free(c->rt);
		free(c->rt);
		c->rt = NULL;
	}
}
