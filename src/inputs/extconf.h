/* extconf.h: reading a gem's extconf.rb statically (it is never run) for the
 * defines a build would produce: have_func/have_header/have_library/have_type/
 * have_const/have_struct_member/find_header, $defs and -D/-I in $CFLAGS,
 * $CPPFLAGS, append_cflags and append_cppflags.
 *
 * Probes that the installed Ruby headers can answer (have_func("rb_*"),
 * have_header("ruby/...")) are answered from them, so a fallback branch for a
 * function Ruby removed stays the one compiled; other probes are assumed to
 * succeed, as on a machine with the library installed.
 */
#ifndef NOGVL_EXTCONF_H
#define NOGVL_EXTCONF_H

#include "compdb.h"

struct extconf_info {
	char *path;          /* the extconf.rb */
	strlist defines;     /* NAME or NAME=VALUE */
	strlist include_dirs;/* absolute, in mkmf's order: $INCFLAGS (find_header,
			      * $INCFLAGS), dir_config defaults, $CPPFLAGS, $CFLAGS */
	strlist include_why; /* parallel: where each came from, for -v */
	strlist quote_dirs;  /* $VPATH and $srcs directories (absolute): -iquote */
	strlist pkg_modules; /* pkg_config("x") */
	strlist lib_names;   /* have_library/find_library("x"): maybe pkg-config modules */
	uint8_t rust;        /* create_rust_makefile / rb_sys: a Rust extension */
	/* $objs = %w[a.o b.o] (issue 17 item 7): mkmf builds only these objects;
	 * objs_unknown when a $objs line could not be read */
	strlist objs;
	uint8_t objs_set, objs_unknown;
	strlist notes;       /* what was assumed, for -v */
	/* sources added to $srcs only inside `if have_func("NAME")`: cond_srcs[i]
	 * (as written, relative to the extconf.rb's directory) is built only
	 * where cond_probes[i] (the function NAME) exists */
	strlist cond_srcs, cond_probes;
};

/* Parses extconf.rb text. ruby_dirs answer Ruby probes (may be NULL). */
void extconf_parse(const char *text, const char *dir, const strlist *ruby_dirs, struct extconf_info *out);
void extconf_info_free(struct extconf_info *ei);

/* The function whose have_func probe decides whether extconf.rb builds the
 * source file `file` (absolute) at all, or NULL when it is built
 * unconditionally or the condition is not a have_func. */
const char *extconf_build_probe(const struct extconf_info *ei, const char *file);

/* Does extconf.rb's $objs leave out the source file (absolute)? Only when
 * $objs was read completely. */
bool extconf_objs_exclude(const struct extconf_info *ei, const char *file);

/* mkmf's tr_cpp: "foo/bar.h" -> "FOO_BAR_H". */
char *mkmf_cpp_name(const char *s);

struct extconf_cache {
	struct hmap by_dir;   /* directory -> struct extconf_info* or a miss marker */
	strlist keys;
	const strlist *ruby_dirs;
};

/* The extconf.rb nearest to dir (dir itself, then parents within the roots). */
const struct extconf_info *extconf_for(struct extconf_cache *c, const char *dir, char *const *roots, size_t nroots);
void extconf_cache_free(struct extconf_cache *c);

#endif
