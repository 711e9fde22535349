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
