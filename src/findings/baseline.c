/* baseline.c: see baseline.h. */
#include "baseline.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "fingerprint.h"
#include "rule.h"

static char *get_str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return xstrdup(json_is_string(v) ? json_string_value(v) : "");
}

int baseline_read(const char *path, struct baseline *b, char **err)
{
	memset(b, 0, sizeof(*b));
	b->path = xstrdup(path);
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	if (!root) {
		if (je.line < 0 || je.position == 0)
			*err = xasprintf("%s: cannot read the baseline: %s", path, je.text);
		else
			*err = xasprintf("%s:%d:%d: not a baseline file: %s", path, je.line, je.column, je.text);
		return -1;
	}
	json_t *fmt = json_object_get(root, "nogvl_lint_baseline");
	json_t *list = json_object_get(root, "findings");
	if (!json_is_integer(fmt) || !json_is_array(list)) {
		*err = xasprintf("%s: not a nogvl-lint baseline (write one with --write-baseline)", path);
		json_decref(root);
		return -1;
	}
	if (json_integer_value(fmt) != BASELINE_FORMAT) {
		*err = xasprintf("%s: baseline format %lld is not %d: write it again with --write-baseline", path,
				 (long long)json_integer_value(fmt), BASELINE_FORMAT);
		json_decref(root);
		return -1;
	}
	b->tool_version = get_str(root, "tool_version");
	size_t i;
	json_t *e;
	json_array_foreach(list, i, e)
	{
		json_t *fp = json_object_get(e, "fingerprint");
		if (!json_is_object(e) || !json_is_string(fp)) {
			*err = xasprintf("%s: entry %zu has no fingerprint", path, i + 1);
			json_decref(root);
			return -1;
		}
		struct baseline_entry be = {0};
		be.fingerprint = get_str(e, "fingerprint");
		be.rule = get_str(e, "rule");
		be.file = get_str(e, "file");
		be.function = get_str(e, "function");
		be.code = get_str(e, "code");
		be.message = get_str(e, "message");
		vec_push(&b->v, be);
	}
	json_decref(root);
	for (i = 0; i < b->v.n; i++)
		if (!hmap_has(&b->by_fp, b->v.v[i].fingerprint))
			hmap_put(&b->by_fp, b->v.v[i].fingerprint, (void *)(uintptr_t)(i + 1));
	return 0;
}

struct row {
	const struct finding *f;
	char *file;
	char *code;
};

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c = strcmp(x->file, y->file);
	if (c)
		return c;
	c = str_cmp(x->f->function, y->f->function);
	if (c)
		return c;
	c = strcmp(x->f->rule->slug, y->f->rule->slug);
	if (c)
		return c;
	return strcmp(x->f->fingerprint, y->f->fingerprint);
}

int baseline_write(const char *path, const struct findings *fs, char **err)
{
	VEC(struct row) rows = {0};
	struct hmap roots = {0};
	for (size_t i = 0; i < fs->v.n; i++) {
		const struct finding *f = fs->v.v[i];
		if (f->suppressed)
			continue;
		struct row r = {f, fingerprint_relpath(&roots, f->loc.file),
				fingerprint_normalise_code(source_line(f->loc.file, f->loc.line))};
		vec_push(&rows, r);
	}
	fingerprint_cache_free(&roots);
	xqsort(rows.v, rows.n, sizeof(rows.v[0]), row_cmp);
	json_t *root = json_object();
	json_object_set_new(root, "nogvl_lint_baseline", json_integer(BASELINE_FORMAT));
	json_object_set_new(root, "tool_version", json_string(NOGVL_VERSION));
	json_t *list = json_array();
	for (size_t i = 0; i < rows.n; i++) {
		const struct finding *f = rows.v[i].f;
		json_t *e = json_object();
		json_object_set_new(e, "fingerprint", json_string(f->fingerprint));
		json_object_set_new(e, "rule", json_string(f->rule->slug));
		json_object_set_new(e, "file", json_string(rows.v[i].file));
		json_object_set_new(e, "function", json_string(f->function ? f->function : ""));
		json_object_set_new(e, "code", json_string(rows.v[i].code));
		json_object_set_new(e, "message", json_string(f->msg));
		json_array_append_new(list, e);
		free(rows.v[i].file);
		free(rows.v[i].code);
	}
	vec_free(&rows);
	json_object_set_new(root, "findings", list);
	char *tmp = NULL;
	FILE *f = file_replace_open(path, &tmp);
	if (!f) {
		*err = xasprintf("%s: cannot write the baseline: %s", path, strerror(errno));
		json_decref(root);
		return -1;
	}
	/* json_dumpf writes no final newline */
	int rc = json_dumpf(root, f, JSON_INDENT(2) | JSON_ENSURE_ASCII);
	json_decref(root);
	if (rc == 0 && fputc('\n', f) == EOF)
		rc = -1;
	if (file_replace_commit(f, tmp, path, rc == 0) != 0) {
		*err = xasprintf("%s: cannot write the baseline: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

void baseline_apply(struct baseline *b, struct findings *fs, const struct hmap *analysed)
{
	for (size_t i = 0; i < fs->v.n; i++) {
		struct finding *f = fs->v.v[i];
		if (f->suppressed)
			continue;
		uintptr_t k = (uintptr_t)hmap_get(&b->by_fp, f->fingerprint);
		if (!k)
			continue;
		f->baselined = 1;
		b->hidden++;
		b->v.v[k - 1].state = BL_MATCHED;
	}
	for (size_t i = 0; i < b->v.n; i++) {
		struct baseline_entry *e = &b->v.v[i];
		/* a duplicate fingerprint entry matches with its first copy */
		if (e->state == BL_NOT_CHECKED && hmap_has(&b->by_fp, e->fingerprint) &&
		    (uintptr_t)hmap_get(&b->by_fp, e->fingerprint) != i + 1 &&
		    b->v.v[(uintptr_t)hmap_get(&b->by_fp, e->fingerprint) - 1].state == BL_MATCHED)
			e->state = BL_MATCHED;
		if (e->state == BL_NOT_CHECKED && analysed && hmap_has(analysed, e->file)) {
			e->state = BL_FIXED;
			b->fixed++;
		}
	}
}

void baseline_free(struct baseline *b)
{
	for (size_t i = 0; i < b->v.n; i++) {
		struct baseline_entry *e = &b->v.v[i];
		free(e->fingerprint);
		free(e->rule);
		free(e->file);
		free(e->function);
		free(e->code);
		free(e->message);
	}
	vec_free(&b->v);
	hmap_free(&b->by_fp);
	free(b->path);
	free(b->tool_version);
	memset(b, 0, sizeof(*b));
}
