/* config.c: see config.h. */
#include "config.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "log.h"
#include "report.h"
#include "rule.h"

/* The cache value for a directory with no configuration. */
static struct config config_none;

/* ---- parsing ---- */

struct yctx {
	const char *path;
	yaml_document_t *doc;
	struct config *c;
	char *err;
};

PRINTF_LIKE(3, 4)
static int fail_at(struct yctx *y, const yaml_node_t *n, const char *fmt, ...)
{
	if (y->err)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	char *what = xvasprintf(fmt, ap);
	va_end(ap);
	y->err = xasprintf("%s:%lu:%lu: %s", y->path, n ? (unsigned long)n->start_mark.line + 1 : 1UL,
			   n ? (unsigned long)n->start_mark.column + 1 : 1UL, what);
	free(what);
	return -1;
}

static const char *node_kind(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE:
		return "a scalar";
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_MAPPING_NODE:
		return "a mapping";
	default:
		return "nothing";
	}
}

static const char *scalar(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

/* true/false/yes/no/on/off; -1 when not a boolean. */
static int parse_bool(const char *s)
{
	static const char *const yes[] = {"true", "yes", "on"}, *const no[] = {"false", "no", "off"};
	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (strcasecmp(s, yes[i]) == 0)
			return 1;
		if (strcasecmp(s, no[i]) == 0)
			return 0;
	}
	return -1;
}

static int get_bool(struct yctx *y, const yaml_node_t *n, const char *key, int *out)
{
	int b = n->type == YAML_SCALAR_NODE ? parse_bool(scalar(n)) : -1;
	if (b < 0)
		return fail_at(
			y, n, "'%s' takes true or false, not %s%s%s", key, n->type == YAML_SCALAR_NODE ? "'" : "",
			n->type == YAML_SCALAR_NODE ? scalar(n) : node_kind(n), n->type == YAML_SCALAR_NODE ? "'" : "");
	*out = b;
	return 0;
}

static int get_severity(struct yctx *y, const yaml_node_t *n, const char *key, bool allow_none, int *out)
{
	int s = n->type == YAML_SCALAR_NODE ? severity_parse(scalar(n)) : -1;
	if (s < 0 || (!allow_none && s == SEV_NONE))
		return fail_at(y, n, "'%s' takes note, warning, error%s, not %s%s%s", key, allow_none ? " or none" : "",
			       n->type == YAML_SCALAR_NODE ? "'" : "",
			       n->type == YAML_SCALAR_NODE ? scalar(n) : node_kind(n),
			       n->type == YAML_SCALAR_NODE ? "'" : "");
	*out = s;
	return 0;
}

/* A string or a list of strings. rel_dir: make each an absolute path below it. */
static int get_strings(struct yctx *y, const yaml_node_t *n, const char *key, strlist *out, const char *rel_dir)
{
	const yaml_node_t *items[1];
	size_t nitems = 0;
	yaml_node_item_t *b = NULL, *e = NULL;
	if (n->type == YAML_SCALAR_NODE) {
		items[0] = n;
		nitems = 1;
	} else if (n->type == YAML_SEQUENCE_NODE) {
		b = n->data.sequence.items.start;
		e = n->data.sequence.items.top;
	} else {
		return fail_at(y, n, "'%s' takes a string or a list of strings, not %s", key, node_kind(n));
	}
	for (size_t i = 0; i < nitems || (b && b < e); i++) {
		const yaml_node_t *it = nitems ? items[0] : yaml_document_get_node(y->doc, *b++);
		if (!it || it->type != YAML_SCALAR_NODE)
			return fail_at(y, it ? it : n, "'%s': each entry must be a string, not %s", key,
				       it ? node_kind(it) : "nothing");
		const char *v = scalar(it);
		if (!*v)
			return fail_at(y, it, "'%s': empty entry", key);
		if (rel_dir) {
			char *j = v[0] == '/' ? xstrdup(v) : path_join(rel_dir, v);
			vec_push(out, path_normalize(j));
			free(j);
		} else {
			vec_push(out, xstrdup(v));
		}
		if (nitems)
			break;
	}
	return 0;
}

static int parse_rule(struct yctx *y, const yaml_node_t *k, const yaml_node_t *v)
{
	const char *slug = scalar(k);
	if (strcmp(slug, "all") != 0 && !rule_find(slug)) {
		const char *hint = rule_suggest(slug);
		if (hint)
			return fail_at(y, k, "unknown rule '%s'; did you mean '%s'? (see nogvl-lint --list-rules)",
				       slug, hint);
		return fail_at(y, k, "unknown rule '%s' (see nogvl-lint --list-rules)", slug);
	}
	for (size_t i = 0; i < y->c->rules.n; i++)
		if (strcmp(y->c->rules.v[i].slug, slug) == 0)
			return fail_at(y, k, "rule '%s' is configured twice", slug);
	struct config_rule r = {arena_strdup(&y->c->arena, slug), -1, -1, (unsigned)k->start_mark.line + 1};
	if (v->type == YAML_SCALAR_NODE) {
		/* shorthand: true/false, or a severity (which also enables) */
		int b = parse_bool(scalar(v));
		int s = severity_parse(scalar(v));
		if (b >= 0)
			r.enabled = b;
		else if (s >= 0 && s != SEV_NONE && strcmp(slug, "all") != 0) {
			r.enabled = 1;
			r.severity = s;
		} else
			return fail_at(y, v, "rule '%s' takes true, false, note, warning, error or a mapping, not '%s'",
				       slug, scalar(v));
	} else if (v->type == YAML_MAPPING_NODE) {
		for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
			const yaml_node_t *pk = yaml_document_get_node(y->doc, p->key);
			const yaml_node_t *pv = yaml_document_get_node(y->doc, p->value);
			if (!pk || !pv || pk->type != YAML_SCALAR_NODE)
				return fail_at(y, pk ? pk : v, "rule '%s': keys must be strings", slug);
			if (strcmp(scalar(pk), "enabled") == 0) {
				if (get_bool(y, pv, "enabled", &r.enabled))
					return -1;
			} else if (strcmp(scalar(pk), "severity") == 0 && strcmp(slug, "all") != 0) {
				if (get_severity(y, pv, "severity", false, &r.severity))
					return -1;
			} else {
				return fail_at(y, pk, "rule '%s': unknown key '%s' (enabled%s)", slug, scalar(pk),
					       strcmp(slug, "all") != 0 ? ", severity" : "");
			}
		}
	} else {
		return fail_at(y, v, "rule '%s' takes true, false, a severity or a mapping, not %s", slug,
			       node_kind(v));
	}
	vec_push(&y->c->rules, r);
	return 0;
}

static const char *const known_keys[] = {
	"allow_incomplete", "defines", "exclude",
	"fail_level",       "include", "include_dirs",
	"inherit",          "models",  "report_unused_suppressions",
	"ruby_include",     "rules",
};

static int parse_root(struct yctx *y, const yaml_node_t *root)
{
	struct config *c = y->c;
	if (!root)
		return 0; /* an empty file */
	if (root->type == YAML_SCALAR_NODE && !*scalar(root))
		return 0;
	if (root->type != YAML_MAPPING_NODE)
		return fail_at(y, root, "the file must be a mapping of settings, not %s", node_kind(root));
	struct hmap seen = {0};
	int rc = 0;
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top && !rc; p++) {
		const yaml_node_t *k = yaml_document_get_node(y->doc, p->key);
		const yaml_node_t *v = yaml_document_get_node(y->doc, p->value);
		if (!k || !v || k->type != YAML_SCALAR_NODE) {
			rc = fail_at(y, k ? k : root, "keys must be strings");
			break;
		}
		const char *key = scalar(k);
		if (str_in_list(key, known_keys, ARRAY_SIZE(known_keys)) < 0) {
			rc = fail_at(
				y, k,
				"unknown key '%s' (known: allow_incomplete, defines, exclude, fail_level, include, "
				"include_dirs, inherit, models, report_unused_suppressions, ruby_include, rules)",
				key);
			break;
		}
		if (hmap_has(&seen, key)) {
			rc = fail_at(y, k, "'%s' is set twice", key);
			break;
		}
		hmap_put(&seen, key, (void *)1);
		if (strcmp(key, "inherit") == 0) {
			int b;
			rc = get_bool(y, v, key, &b);
			c->inherit = b == 1;
		} else if (strcmp(key, "fail_level") == 0) {
			rc = get_severity(y, v, key, true, &c->fail_level);
		} else if (strcmp(key, "report_unused_suppressions") == 0) {
			rc = get_bool(y, v, key, &c->report_unused);
		} else if (strcmp(key, "allow_incomplete") == 0) {
			rc = get_bool(y, v, key, &c->allow_incomplete);
		} else if (strcmp(key, "ruby_include") == 0) {
			c->has_ruby_include = true;
			rc = get_strings(y, v, key, &c->ruby_include, c->dir);
		} else if (strcmp(key, "include") == 0) {
			c->has_include = true;
			rc = get_strings(y, v, key, &c->include, NULL);
		} else if (strcmp(key, "exclude") == 0) {
			rc = get_strings(y, v, key, &c->exclude, NULL);
		} else if (strcmp(key, "include_dirs") == 0) {
			rc = get_strings(y, v, key, &c->include_dirs, c->dir);
		} else if (strcmp(key, "models") == 0) {
			/* library model files (rules/libmodel.h), below this file's
			 * directory: a configuration in an analysed tree names no file
			 * outside it */
			rc = get_strings(y, v, key, &c->models, c->dir);
			for (size_t i = 0; !rc && i < c->models.n; i++)
				if (!path_is_below(c->models.v[i], c->dir))
					rc = fail_at(y, v, "'models': '%s' is not below the directory of this file",
						     c->models.v[i]);
		} else if (strcmp(key, "defines") == 0) {
			rc = get_strings(y, v, key, &c->defines, NULL);
			for (size_t i = 0; !rc && i < c->defines.n; i++) {
				const char *d = c->defines.v[i];
				size_t n = strcspn(d, "=");
				bool ok = n > 0 && (d[0] == '_' || ((d[0] | 0x20) >= 'a' && (d[0] | 0x20) <= 'z'));
				for (size_t j = 0; ok && j < n; j++)
					ok = d[j] == '_' || ((d[j] | 0x20) >= 'a' && (d[j] | 0x20) <= 'z') ||
					     (d[j] >= '0' && d[j] <= '9');
				if (!ok)
					rc = fail_at(y, v, "'defines': '%s' is not NAME or NAME=VALUE", d);
			}
		} else if (strcmp(key, "rules") == 0) {
			if (v->type != YAML_MAPPING_NODE && !(v->type == YAML_SCALAR_NODE && !*scalar(v))) {
				rc = fail_at(y, v, "'rules' takes a mapping of rule slugs, not %s", node_kind(v));
				break;
			}
			if (v->type == YAML_MAPPING_NODE)
				for (yaml_node_pair_t *q = v->data.mapping.pairs.start;
				     q < v->data.mapping.pairs.top && !rc; q++) {
					const yaml_node_t *rk = yaml_document_get_node(y->doc, q->key);
					const yaml_node_t *rv = yaml_document_get_node(y->doc, q->value);
					if (!rk || !rv || rk->type != YAML_SCALAR_NODE)
						rc = fail_at(y, rk ? rk : v, "'rules': keys must be rule slugs");
					else
						rc = parse_rule(y, rk, rv);
				}
		}
	}
	hmap_free(&seen);
	return rc;
}

/* Bounds checked before libyaml sees a file (its loader is quadratic in the
 * nesting depth): a configuration is a few lines of mappings and lists. */
#define MAX_CONFIG_BYTES (64u * 1024)
#define MAX_CONFIG_DEPTH 64

/* The deepest nesting of flow collections ([ {) or block indentation levels. */
static size_t config_depth(const char *text, size_t len)
{
	size_t flow = 0, max = 0, indent_levels = 0;
	size_t stack[MAX_CONFIG_DEPTH + 2];
	size_t nstack = 0;
	bool line_start = true;
	size_t col = 0;
	char quote = 0;
	for (size_t i = 0; i < len; i++) {
		char c = text[i];
		if (c == '\n') {
			line_start = true;
			col = 0;
			quote = 0;
			continue;
		}
		if (line_start && (c == ' ' || c == '-')) {
			col++; /* "- - - x": each dash opens a level too */
			if (c == '-')
				indent_levels++;
			continue;
		}
		if (line_start && c != '#' && c != '\r') {
			line_start = false;
			while (nstack && stack[nstack - 1] >= col)
				nstack--;
			if (nstack <= MAX_CONFIG_DEPTH)
				stack[nstack++] = col;
			size_t d = nstack + indent_levels;
			max = d > max ? d : max;
			indent_levels = 0;
		}
		if (quote) {
			if (c == quote)
				quote = 0;
			continue;
		}
		if (c == '"' || c == '\'') {
			quote = c;
		} else if (c == '[' || c == '{') {
			flow++;
			max = nstack + flow > max ? nstack + flow : max;
		} else if ((c == ']' || c == '}') && flow) {
			flow--;
		} else if (c == '#') {
			while (i + 1 < len && text[i + 1] != '\n')
				i++;
		}
		if (max > MAX_CONFIG_DEPTH)
			return max;
	}
	return max;
}

int config_parse_text(const char *path, const char *text, size_t len, struct config **out, char **err)
{
	if (len > MAX_CONFIG_BYTES) {
		*err = xasprintf("%s: larger than %u KiB: not a configuration file", path, MAX_CONFIG_BYTES / 1024);
		return -1;
	}
	if (config_depth(text, len) > MAX_CONFIG_DEPTH) {
		*err = xasprintf("%s: nested more than %d levels deep: not a configuration file", path,
				 MAX_CONFIG_DEPTH);
		return -1;
	}
	struct config *c = xcalloc(1, sizeof(*c));
	c->path = path_absolute(path);
	c->dir = path_dirname(c->path);
	c->fail_level = -1;
	c->report_unused = -1;
	c->allow_incomplete = -1;
	yaml_parser_t parser;
	yaml_document_t doc;
	struct yctx y = {c->path, &doc, c, NULL};
	if (!yaml_parser_initialize(&parser)) {
		*err = xasprintf("%s: cannot initialise the YAML parser", path);
		config_free(c);
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		const yaml_mark_t *m = parser.problem ? &parser.problem_mark : &parser.context_mark;
		*err = xasprintf("%s:%lu:%lu: YAML syntax error: %s%s%s", c->path, (unsigned long)m->line + 1,
				 (unsigned long)m->column + 1, parser.problem ? parser.problem : "unknown problem",
				 parser.context ? " " : "", parser.context ? parser.context : "");
		yaml_parser_delete(&parser);
		config_free(c);
		return -1;
	}
	int rc = parse_root(&y, yaml_document_get_root_node(&doc));
	/* a second document in the same file is a mistake worth reporting */
	if (!rc) {
		yaml_document_t doc2;
		if (yaml_parser_load(&parser, &doc2)) {
			if (yaml_document_get_root_node(&doc2))
				rc = fail_at(&y, yaml_document_get_root_node(&doc2),
					     "a second YAML document: one .nogvl-lint.yml holds one mapping");
			yaml_document_delete(&doc2);
		}
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	if (rc) {
		*err = y.err;
		config_free(c);
		return -1;
	}
	*out = c;
	return 0;
}

int config_parse_file(const char *path, struct config **out, char **err)
{
	size_t len = 0;
	char *text = read_bounded_text(path, MAX_CONFIG_BYTES, "configuration file", &len, err);
	if (!text)
		return -1;
	int rc = config_parse_text(path, text, len, out, err);
	free(text);
	return rc;
}

void config_free(struct config *c)
{
	if (!c || c == &config_none)
		return;
	free(c->path);
	free(c->dir);
	vec_free(&c->rules);
	strlist_free(&c->include);
	strlist_free(&c->exclude);
	strlist_free(&c->include_dirs);
	strlist_free(&c->models);
	strlist_free(&c->defines);
	strlist_free(&c->ruby_include);
	arena_free(&c->arena);
	free(c);
}

/* ---- discovery ---- */

static struct config *load_cached(struct config_set *cs, const char *file);
static bool strlist_has(const strlist *l, const char *s);

/* Nearest configuration for dir, walking up. stop_at_git: stop at a work tree root. */
static struct config *nearest(struct config_set *cs, const char *dir, bool stop_at_git)
{
	strlist visited = {0};
	struct config *found = NULL;
	char *d = xstrdup(dir);
	for (;;) {
		struct config *cached = hmap_get(&cs->by_dir, d);
		if (cached) {
			found = cached;
			break;
		}
		vec_push(&visited, xstrdup(d));
		char *p = path_join(d, CONFIG_FILE_NAME);
		if (path_is_file(p)) {
			found = load_cached(cs, p);
			free(p);
			if (!found) { /* error */
				free(d);
				strlist_free(&visited);
				return NULL;
			}
			break;
		}
		free(p);
		char *g = path_join(d, ".git");
		bool at_root = strcmp(d, "/") == 0 ||
			       (stop_at_git && (path_is_dir(g) || path_is_file(g) || strlist_has(&cs->stops, d)));
		free(g);
		if (at_root) {
			found = &config_none;
			break;
		}
		char *up = path_dirname(d);
		free(d);
		d = up;
	}
	free(d);
	/* (every walk stops at the same places: inherit's too) */
	if (stop_at_git)
		for (size_t i = 0; i < visited.n; i++)
			if (!hmap_has(&cs->by_dir, visited.v[i]))
				hmap_put(&cs->by_dir, xstrdup(visited.v[i]), found);
	strlist_free(&visited);
	return found;
}

/* dir is where discovery stops: "/", a work tree's root, a named root or $HOME */
static bool at_stop(const struct config_set *cs, const char *dir)
{
	char *g = path_join(dir, ".git");
	bool stop = strcmp(dir, "/") == 0 || path_is_dir(g) || path_is_file(g) || strlist_has(&cs->stops, dir);
	free(g);
	return stop;
}

static struct config *load_cached(struct config_set *cs, const char *file)
{
	struct config *c = hmap_get(&cs->by_path, file);
	if (c)
		return c;
	char *err = NULL;
	if (config_parse_file(file, &c, &err) != 0) {
		if (!cs->error)
			cs->error = err;
		else
			free(err);
		return NULL;
	}
	hmap_put(&cs->by_path, xstrdup(c->path), c);
	log_verbose(1, "configuration file: %s", c->path);
	if (c->inherit && at_stop(cs, c->dir)) {
		/* the root of the work tree (or a named root, or $HOME): what is
		 * above is not the project's */
		log_verbose(1, "%s: inherit: true at the project's root; nothing above it is used", c->path);
	} else if (c->inherit) {
		char *up = path_dirname(c->dir);
		struct config *p = nearest(cs, up, true);
		free(up);
		if (!p)
			return NULL;
		c->parent = p == &config_none ? NULL : p;
	}
	return c;
}

int config_set_init(struct config_set *cs, const char *forced_file, bool disabled)
{
	memset(cs, 0, sizeof(*cs));
	cs->disabled = disabled;
	if (forced_file) {
		char *abs = path_absolute(forced_file);
		cs->forced = load_cached(cs, abs);
		free(abs);
		if (!cs->forced)
			return -1;
	}
	return 0;
}

static bool strlist_has(const strlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return true;
	return false;
}

/* dir or a directory above it has .git: the work tree's root bounds discovery */
static bool in_git_tree(const char *dir)
{
	char *d = xstrdup(dir);
	bool found = false;
	for (;;) {
		char *g = path_join(d, ".git");
		found = path_is_dir(g) || path_is_file(g);
		free(g);
		if (found || strcmp(d, "/") == 0)
			break;
		char *up = path_dirname(d);
		free(d);
		d = up;
	}
	free(d);
	return found;
}

void config_set_add_stop(struct config_set *cs, const char *dir)
{
	char *abs = path_absolute(dir);
	char *n = path_normalize(abs);
	free(abs);
	if (strlist_has(&cs->stops, n) || in_git_tree(n))
		free(n);
	else
		vec_push(&cs->stops, n);
}

void config_set_free(struct config_set *cs)
{
	strlist_free(&cs->stops);
	hmap_foreach(&cs->by_path, e)
	{
		config_free(e->val);
		free((char *)e->key);
	}
	hmap_free(&cs->by_path);
	hmap_foreach(&cs->by_dir, e) free((char *)e->key);
	hmap_free(&cs->by_dir);
	free(cs->error);
	memset(cs, 0, sizeof(*cs));
}

const struct config *config_for_path(struct config_set *cs, const char *abs_path, bool is_dir)
{
	if (cs->disabled || !abs_path)
		return NULL;
	if (cs->forced)
		return cs->forced;
	char *dir = is_dir ? xstrdup(abs_path) : path_dirname(abs_path);
	struct config *c = nearest(cs, dir, true);
	free(dir);
	return c == &config_none ? NULL : c;
}

/* ---- queries ---- */

/* Layers from the outermost to c. Returns the count (at most 64). */
static size_t layers(const struct config *c, const struct config **out)
{
	size_t n = 0;
	for (const struct config *l = c; l && n < 64; l = l->parent)
		out[n++] = l;
	for (size_t i = 0; i < n / 2; i++) {
		const struct config *t = out[i];
		out[i] = out[n - 1 - i];
		out[n - 1 - i] = t;
	}
	return n;
}

bool config_rule_enabled(const struct config *c, const char *slug, bool default_enabled, int *severity)
{
	const struct config *ls[64];
	size_t n = layers(c, ls);
	bool on = default_enabled;
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < ls[i]->rules.n; k++)
			if (strcmp(ls[i]->rules.v[k].slug, "all") == 0 && ls[i]->rules.v[k].enabled >= 0)
				on = ls[i]->rules.v[k].enabled;
		for (size_t k = 0; k < ls[i]->rules.n; k++) {
			const struct config_rule *r = &ls[i]->rules.v[k];
			if (strcmp(r->slug, slug) != 0)
				continue;
			if (r->enabled >= 0)
				on = r->enabled;
			if (r->severity >= 0 && severity)
				*severity = r->severity;
		}
	}
	return on;
}

bool config_rule_named_on(const struct config *c, const char *slug)
{
	for (const struct config *l = c; l; l = l->parent)
		for (size_t k = 0; k < l->rules.n; k++)
			if (strcmp(l->rules.v[k].slug, slug) == 0 && l->rules.v[k].enabled == 1)
				return true;
	return false;
}

int config_fail_level(const struct config *c)
{
	for (const struct config *l = c; l; l = l->parent)
		if (l->fail_level >= 0)
			return l->fail_level;
	return -1;
}

int config_report_unused(const struct config *c)
{
	for (const struct config *l = c; l; l = l->parent)
		if (l->report_unused >= 0)
			return l->report_unused;
	return -1;
}

int config_allow_incomplete(const struct config *c)
{
	for (const struct config *l = c; l; l = l->parent)
		if (l->allow_incomplete >= 0)
			return l->allow_incomplete;
	return -1;
}

const strlist *config_ruby_include(const struct config *c)
{
	for (const struct config *l = c; l; l = l->parent)
		if (l->has_ruby_include)
			return &l->ruby_include;
	return NULL;
}

static bool any_glob(const strlist *pats, const char *base, const char *abs_file)
{
	if (!abs_file || !path_is_below(abs_file, base))
		return false;
	char *rel = path_relative(abs_file, base);
	bool m = false;
	for (size_t i = 0; i < pats->n && !m; i++)
		m = config_glob_match(pats->v[i], rel);
	free(rel);
	return m;
}

bool config_excludes(const struct config *c, const char *abs_file)
{
	for (const struct config *l = c; l; l = l->parent)
		if (any_glob(&l->exclude, l->dir, abs_file))
			return true;
	return false;
}

bool config_includes(const struct config *c, const char *abs_file)
{
	for (const struct config *l = c; l; l = l->parent)
		if (l->has_include)
			return any_glob(&l->include, l->dir, abs_file);
	return true;
}

void config_extra_args(const struct config *c, strlist *args)
{
	const struct config *ls[64];
	size_t n = layers(c, ls);
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < ls[i]->include_dirs.n; k++)
			vec_push(args, xasprintf("-I%s", ls[i]->include_dirs.v[k]));
		for (size_t k = 0; k < ls[i]->defines.n; k++)
			vec_push(args, xasprintf("-D%s", ls[i]->defines.v[k]));
	}
}

/* ---- globs ---- */

/* Does the pattern match path[0..k) for some k >= 1 (the path itself, or a
 * directory above it)? Dynamic programming over (pattern prefix, path
 * prefix): time np * nq, whatever the number of `**` (backtracking over them
 * was exponential: a config from a pull request could hang the run). */
static bool match_some_prefix(char **pat, size_t np, char **path, size_t nq)
{
	const size_t w = nq + 1;
	bool *f = xcalloc((np + 1) * w, sizeof(bool)); /* f[i*w+j]: pat[0..i) matches path[0..j) */
	f[0] = true;
	for (size_t i = 1; i <= np; i++) {
		bool any = strcmp(pat[i - 1], "**") == 0;
		for (size_t j = 0; j <= nq; j++) {
			if (any)
				f[i * w + j] = f[(i - 1) * w + j] || (j > 0 && f[i * w + j - 1]);
			else
				f[i * w + j] =
					j > 0 && f[(i - 1) * w + j - 1] && fnmatch(pat[i - 1], path[j - 1], 0) == 0;
		}
	}
	bool m = false;
	for (size_t k = 1; k <= nq && !m; k++)
		m = f[np * w + k];
	free(f);
	return m;
}

static size_t split(char *s, char **out, size_t max)
{
	size_t n = 0;
	char *save = NULL;
	for (char *t = strtok_r(s, "/", &save); t && n < max; t = strtok_r(NULL, "/", &save))
		if (strcmp(t, ".") != 0)
			out[n++] = t;
	return n;
}

bool config_glob_match(const char *pattern, const char *rel)
{
	char *pc = xstrdup(pattern), *rc = xstrdup(rel);
	char *ps[128], *qs[128];
	bool anchored = strchr(pattern, '/') != NULL && !(strchr(pattern, '/') == pattern + strlen(pattern) - 1);
	size_t np = split(pc, ps, ARRAY_SIZE(ps)), nq = split(rc, qs, ARRAY_SIZE(qs));
	bool m = false;
	if (np == 0) {
		m = false;
	} else if (!anchored) {
		/* a bare name: any segment (a file, or a directory above it) */
		for (size_t i = 0; i < nq && !m; i++)
			m = fnmatch(ps[0], qs[i], 0) == 0;
	} else {
		m = match_some_prefix(ps, np, qs, nq);
	}
	free(pc);
	free(rc);
	return m;
}
