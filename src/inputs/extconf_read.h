/* extconf_read.h: what the files of the extconf.rb reader share (extconf.c,
 * extconf_args.c, extconf_reader.c, extconf_cond.c, extconf_srcs.c): the
 * reader's state, include-directory lists, Ruby blocks and values. Private to
 * src/inputs/. */
#ifndef NOGVL_EXTCONF_READ_H
#define NOGVL_EXTCONF_READ_H

#include "extconf.h"

#include <stdbool.h>

/* The identifiers of every header under the Ruby dirs, read at the first
 * Ruby probe and looked up per probe (a probe scanning the headers' text
 * made an extconf.rb of thousands of have_func() calls take minutes); one per
 * run, shared by every extconf.rb through extconf_env.rt (reading it again
 * for each extconf.rb was 10% of a warm run of Ruby's ext/). */
struct ruby_text {
	const strlist *dirs;
	struct hmap words; /* identifier -> (void *)1 */
	struct strpool pool;
	bool loaded;
};

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

/* The environment of a default build: no variable the extconf.rb reads is set. */
#define ENV_IS_DEFAULT 1

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
	/* a `case` without a subject: each `when` is an elsif */
	bool bare;
};

typedef VEC(struct rblock) block_vec;

/* extconf_args.c */
void add_unique(strlist *l, char *s);
char *read_literal_x(const char **p, bool srcdir_interp);
char *read_literal(const char **p);
void literal_args(const char *after, strlist *args);
int percent_words(const char *p, const char *opens, strlist *words, const char **after);
char *percent_string(const char *p, const char **after);
void ruby_text_free(struct ruby_text *rt);
void have_func(struct ruby_text *rt, const char *fn, struct extconf_info *out, bool say_missing);
bool ruby_has_header(const strlist *dirs, const char *h);
void inc_add(struct inc_lists *il, enum inc_bucket b, char *d, const char *why);
char *expand_dir(const char *w, const char *dir);
void flags_from_literal(const char *lit, const char *dir, struct extconf_info *out, struct inc_lists *il,
			enum inc_bucket b, const char *why);
const char *find_call(const char *line, const char *name);
char *first_arg_value(const char *after, const strlist *names, const strlist *values);
bool plain_header_name(const char *h);
bool system_has_header(const char *h);
const char *other_platform_header(const char *h);
const char *other_platform_probe(const char *text);

/* extconf_reader.c */
unsigned indent_of(const char *line);
bool module_word(const char *w);
char *ident_at(const char *p);
void read_versions(struct reader *r);
void reader_free(struct reader *r);
bool header_here(const struct reader *r, const char *h);
int version_pred_value(const struct reader *r, const char *cond);
char *header_probe_arg(const char *text);
/* extconf_cond.c: b..e without surrounding blanks, as a new string */
char *trim_dup(const char *b, const char *e);
char *header_list_find(const struct reader *r, const char *text, bool *shape);
bool only_conjunctions(const char *cond);

/* extconf_cond.c */
const char *platform_string(const char *expr);
bool platform_subject(const char *e);
int name_value(const struct reader *r, const char *e);
int cond_value(const struct reader *r, const char *cond);
void assignment(struct reader *r, const char *t, bool in_order);
void read_names(struct reader *r);
bool modifier_fails(const struct reader *r, const char *line);
int when_matches(const struct rblock *b, const char *items);
bool alternative_installed(const struct reader *r, const char *at);

/* extconf_srcs.c */
bool kw_at(const char *t, const char *kw);
bool track_blocks(const struct reader *r, const char *line, const char *at, block_vec *blocks);
void note_cond_srcs(const char *line, const block_vec *blocks, struct extconf_info *out);
bool is_source_name(const char *t);
void note_list(const char *line, const char *var, strlist *list, uint8_t *set, uint8_t *unknown);

#endif
