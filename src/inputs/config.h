/* config.h: .nogvl-lint.yml, the per-directory configuration (read with libyaml).
 *
 * The effective configuration of a file is the nearest .nogvl-lint.yml found
 * from the file's directory upwards. The search stops at the first directory
 * that holds the file, at the root of the git work tree (a directory with
 * .git), or at /. A file that says `inherit: true` is applied on top of the
 * nearest configuration above its own directory (that search may leave the
 * work tree). Layers merge like this, the nearer file winning:
 *
 *   fail_level, report_unused_suppressions, ruby_include, include: the nearest
 *       layer that sets the key decides;
 *   exclude, include_dirs, defines: the lists of all layers add up (outermost
 *       first, so a nearer -D comes later and wins);
 *   rules: applied layer by layer from the outermost: a layer's `all` first,
 *       then its per-rule entries.
 *
 * Command-line options win over every file: --enable/--disable, --fail-level,
 * -D/-I/--extra-arg (passed after the config's), --ruby-include.
 *
 * Glob patterns (include, exclude) are relative to the directory of the file
 * that names them and are matched segment by segment with fnmatch(3): `*` and
 * `?` stay within one path segment, `**` spans any number of segments, a
 * pattern without `/` matches a file or directory name at any depth, and a
 * pattern that matches a directory covers everything below it.
 */
#ifndef NOGVL_CONFIG_H
#define NOGVL_CONFIG_H

#include <stdbool.h>

#include "util.h"

#define CONFIG_FILE_NAME ".nogvl-lint.yml"

struct config_rule {
	const char *slug; /* a rule slug, or "all" */
	int enabled;      /* -1 unset, 0, 1 */
	int severity;     /* -1 unset, else enum severity */
	unsigned line;
};

struct config {
	char *path;            /* absolute path of the file */
	char *dir;             /* its directory */
	struct config *parent; /* the layer below when inherit is set */
	bool inherit;
	int fail_level;       /* -1 unset */
	int report_unused;    /* -1 unset */
	int allow_incomplete; /* -1 unset */
	bool has_include;
	bool has_ruby_include;
	VEC(struct config_rule) rules;
	strlist include; /* glob patterns */
	strlist exclude;
	strlist include_dirs; /* absolute */
	strlist models;       /* library model files (absolute, below dir) */
	strlist defines;      /* NAME or NAME=VALUE */
	strlist ruby_include; /* absolute */
	struct arena arena;
};

/* Parses one file. Returns 0, or -1 with *err = "path:line:col: what is wrong". */
int config_parse_file(const char *path, struct config **out, char **err);
/* Parses text as if read from path (tests). */
int config_parse_text(const char *path, const char *text, size_t len, struct config **out, char **err);
void config_free(struct config *c);

/* Every configuration met in one run, by directory. */
struct config_set {
	struct hmap by_dir;    /* absolute dir -> nearest struct config (or &config_none) */
	struct hmap by_path;   /* absolute file -> struct config */
	struct config *forced; /* --config FILE */
	bool disabled;         /* --no-config */
	char *error;           /* the first error; the run must stop with exit 2 */
	strlist stops;         /* directories discovery does not walk above (named roots, $HOME) */
};

/* forced_file: --config; disabled: --no-config. Returns 0, or -1 with cs->error
 * when the forced file is bad. */
int config_set_init(struct config_set *cs, const char *forced_file, bool disabled);
void config_set_free(struct config_set *cs);
/* Discovery stops at dir too (a named root, $HOME) unless dir is inside a
 * git work tree (whose root bounds discovery): without a .git, a
 * configuration above the project never applies silently. */
void config_set_add_stop(struct config_set *cs, const char *dir);

/* The effective configuration for a file (or a directory when is_dir), NULL when
 * there is none. On a bad file, cs->error is set and NULL returned. */
const struct config *config_for_path(struct config_set *cs, const char *abs_path, bool is_dir);

/* Queries over a configuration and its inherited layers (c may be NULL). */
/* Rule state: enabled (by default_enabled and the layers) and *severity
 * (changed only when a layer sets it). */
bool config_rule_enabled(const struct config *c, const char *slug, bool default_enabled, int *severity);
/* Whether any layer names the rule explicitly enabled. */
bool config_rule_named_on(const struct config *c, const char *slug);
int config_fail_level(const struct config *c);              /* -1 unset */
int config_report_unused(const struct config *c);           /* -1 unset */
int config_allow_incomplete(const struct config *c);        /* -1 unset; nearest layer wins */
const strlist *config_ruby_include(const struct config *c); /* NULL unset */
/* The file is excluded (exclude globs) or, for analysed files, not included. */
bool config_excludes(const struct config *c, const char *abs_file);
bool config_includes(const struct config *c, const char *abs_file);
/* Appends -I and -D arguments (outermost layer first). */
void config_extra_args(const struct config *c, strlist *args);

/* Glob matching as described above; rel is a path relative to the pattern's base. */
bool config_glob_match(const char *pattern, const char *rel);

#endif
