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
	char *path;           /* the extconf.rb */
	strlist defines;      /* NAME or NAME=VALUE */
	strlist include_dirs; /* absolute, in mkmf's order: $INCFLAGS (find_header,
			      * $INCFLAGS), dir_config defaults, $CPPFLAGS, $CFLAGS */
	strlist include_why;  /* parallel: where each came from, for -v */
	strlist quote_dirs;   /* $VPATH and $srcs directories (absolute): -iquote */
	strlist pkg_modules;  /* pkg_config("x") */
	strlist lib_names;    /* have_library/find_library("x"): maybe pkg-config modules */
	uint8_t rust;         /* create_rust_makefile / rb_sys: a Rust extension */
	strlist headers;      /* create_header("NAME") names other than extconf.h (plain names) */
	/* $objs = %w[a.o b.o] (issue 17 item 7): mkmf builds only these objects;
	 * objs_unknown when a $objs line could not be read */
	strlist objs;
	uint8_t objs_set, objs_unknown;
	/* $srcs = [...] the same way: without $objs, mkmf compiles only these
	 * (a `$srcs << "kqueue.c"` under a condition that fails here is not) */
	strlist srcs;
	uint8_t srcs_set, srcs_unknown;
	/* every create_makefile (auto_ext) is under a condition that fails
	 * here (`if $mswin || $mingw`): the extension is not built here */
	uint8_t not_built;
	strlist notes; /* what was assumed, for -v */
	/* sources added to $srcs only inside `if have_func("NAME")`: cond_srcs[i]
	 * (as written, relative to the extconf.rb's directory) is built only
	 * where cond_probes[i] (the function NAME) exists */
	strlist cond_srcs, cond_probes;
};

/* What the reader may ask of this machine, as a real `ruby extconf.rb` here
 * would find it (nothing of the tree is run):
 * - ruby_dirs answer Ruby probes (may be NULL);
 * - pkg (may be NULL: no module is known) says whether the pkg-config module
 *   exists here, with its version (*version malloc'ed, or NULL) and its -I
 *   directories appended to incdirs. The caller runs pkg-config as sysprobe
 *   does (a system pkg-config from outside the analysed trees and the gem
 *   holding extconf_dir, no shell, bounded).
 * With pkg, the reader evaluates what depends on the installed library:
 * a module chosen from a candidate list (`PKGS = %w[...]` with
 * `PKGConfig.exist?(pkg)`), its version compared in a helper
 * (`def v_at_least?(v) Gem::Version.new($ver) >= Gem::Version.new(v)` with
 * `$ver = PKGConfig.modversion(...)`), and `if have_header("a.h") ...
 * elsif have_header("b.h")` chains where only b.h is installed. */
struct ruby_text;
struct extconf_env {
	const strlist *ruby_dirs;
	bool (*pkg)(void *ctx, const char *extconf_dir, const char *module, char **version, strlist *incdirs);
	void *ctx;
	/* the Ruby headers' identifiers, shared by the parses of one run (NULL:
	 * the parse reads the headers itself, when a probe asks) */
	struct ruby_text *rt;
};

/* Parses extconf.rb text. ruby_dirs answer Ruby probes (may be NULL). */
void extconf_parse(const char *text, const char *dir, const strlist *ruby_dirs, struct extconf_info *out);
void extconf_parse_env(const char *text, const char *dir, const struct extconf_env *env, struct extconf_info *out);
void extconf_info_free(struct extconf_info *ei);

/* The function whose have_func probe decides whether extconf.rb builds the
 * source file `file` (absolute) at all, or NULL when it is built
 * unconditionally or the condition is not a have_func. */
const char *extconf_build_probe(const struct extconf_info *ei, const char *file);

/* Does extconf.rb's $objs leave out the source file (absolute)? Only when
 * $objs was read completely. */
bool extconf_objs_exclude(const struct extconf_info *ei, const char *file);

/* Does extconf.rb leave out the source file on this machine: not in its
 * $srcs (without $objs, read completely), or the extension is not built
 * here at all (not_built)? */
bool extconf_srcs_exclude(const struct extconf_info *ei, const char *file);

/* mkmf's tr_cpp: "foo/bar.h" -> "FOO_BAR_H". */
char *mkmf_cpp_name(const char *s);

struct extconf_cache {
	struct hmap by_dir; /* directory -> struct extconf_info* or a miss marker */
	strlist keys;
	const strlist *ruby_dirs;
	/* pkg-config answers for extconf_env (NULL: none) */
	bool (*pkg)(void *ctx, const char *extconf_dir, const char *module, char **version, strlist *incdirs);
	void *pkg_ctx;
	struct ruby_text *rt; /* read once, at the first Ruby probe of the run */
};

/* The nearest directory at or above dir, within the roots, holding a file
 * `name` (extconf.rb, Cargo.toml); malloc'ed, or NULL. The one upward walk
 * of the buildless reader. */
char *extconf_walk_up(const char *dir, const char *name, char *const *roots, size_t nroots);

/* The extconf.rb nearest to dir (dir itself, then parents within the roots). */
const struct extconf_info *extconf_for(struct extconf_cache *c, const char *dir, char *const *roots, size_t nroots);
void extconf_cache_free(struct extconf_cache *c);

#endif
