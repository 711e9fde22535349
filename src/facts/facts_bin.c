/* facts_bin.c: the binary form of the facts (see facts_io.h): facts_pack
 * and the reader facts_load hands it to. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "facts_io_impl.h"

/* ---- the binary form (worker to main process, the cache) ----
 *
 * The same fields in the same order as the JSON form, as LEB128 varints
 * (signed ones zigzag-encoded), strings by index into a table written first
 * (0 = NULL), the file hash and parse time as 8 raw little-endian bytes.
 * No JSON tree is built or walked: a warm --cache run spent most of its
 * reading time in jansson. The reader checks what the JSON reader checks. */

struct bw {
	struct strbuf body;
	struct hmap index; /* string -> index + 1 */
	VEC(const char *) strings;
};

static void put_u(struct strbuf *b, uint64_t v)
{
	char tmp[10];
	size_t n = 0;
	do {
		uint8_t byte = v & 0x7f;
		v >>= 7;
		tmp[n++] = (char)(byte | (v ? 0x80 : 0));
	} while (v);
	sb_add(b, tmp, n);
}

static void put_s(struct strbuf *b, int64_t v)
{
	put_u(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static void put_raw64(struct strbuf *b, uint64_t v)
{
	char tmp[8];
	for (int i = 0; i < 8; i++)
		tmp[i] = (char)(v >> (8 * i));
	sb_add(b, tmp, 8);
}

static void put_str(struct bw *w, const char *s)
{
	if (!s) {
		put_u(&w->body, 0);
		return;
	}
	uintptr_t i = (uintptr_t)hmap_get(&w->index, s);
	if (!i) {
		vec_push(&w->strings, s);
		i = w->strings.n;
		hmap_put(&w->index, s, (void *)i);
	}
	put_u(&w->body, i);
}

static void bloc(struct bw *w, const struct loc *l)
{
	put_str(w, l->file);
	put_u(&w->body, l->line);
	put_u(&w->body, l->col);
	put_u(&w->body, l->off);
}

static void bref(struct bw *w, const struct ref *r)
{
	put_s(&w->body, r->var);
	put_str(w, r->path);
	put_str(w, r->record);
	put_str(w, r->field);
	put_u(&w->body, r->addr);
	put_u(&w->body, r->deref);
	put_u(&w->body, r->ptr_deref);
}

static void bexpr(struct bw *w, const struct expr *e)
{
	struct strbuf *b = &w->body;
	put_u(b, e->kind);
	put_str(w, e->text);
	bloc(w, &e->loc);
	bref(w, &e->ref);
	put_s(b, e->call);
	put_u(b, e->nreads);
	for (uint32_t i = 0; i < e->nreads; i++)
		bref(w, &e->reads[i]);
	put_u(b, e->ncalls);
	for (uint32_t i = 0; i < e->ncalls; i++)
		put_s(b, e->calls[i]);
	put_u(b, e->exact);
	put_u(b, e->begin);
	put_u(b, e->end);
	put_u(b, e->has_ival);
	put_s(b, e->ival);
	put_u(b, e->cast);
	put_u(b, e->is_value);
	put_str(w, e->macro);
	put_str(w, e->func_usr);
	put_str(w, e->func_name);
}

static void bevent(struct bw *w, const struct event *e)
{
	struct strbuf *b = &w->body;
	put_u(b, e->kind);
	bloc(w, &e->loc);
	put_s(b, e->region);
	switch (e->kind) {
	case EV_CALL: {
		const struct call *c = e->u.call;
		put_str(w, c->name);
		put_str(w, c->usr);
		put_str(w, c->decl_file);
		put_u(b, c->origin);
		put_u(b, c->indirect);
		put_u(b, c->variadic);
		put_u(b, c->returns_value);
		bexpr(w, &c->callee);
		put_u(b, c->nargs);
		for (uint32_t i = 0; i < c->nargs; i++)
			bexpr(w, &c->args[i]);
		put_s(b, c->parent);
		put_s(b, c->parent_arg);
		bref(w, &c->result);
		put_u(b, c->rparen);
		put_u(b, c->result_used);
		break;
	}
	case EV_ASSIGN:
		bref(w, &e->u.assign->lhs);
		bexpr(w, &e->u.assign->rhs);
		put_u(b, e->u.assign->compound);
		put_u(b, e->u.assign->is_init);
		put_u(b, e->u.assign->whole_init);
		break;
	case EV_ACCESS:
		bref(w, &e->u.access->ref);
		put_u(b, e->u.access->mode);
		put_u(b, e->u.access->atomic_op);
		break;
	case EV_RETURN:
		bexpr(w, e->u.ret);
		break;
	default:
		break; /* rejected when read, as in the JSON form */
	}
	put_u(b, e->in_macro_arg);
	put_u(b, e->gvl_guard);
	put_str(w, e->macro);
}

static void bfunc(struct bw *w, const struct func *f)
{
	struct strbuf *b = &w->body;
	put_str(w, f->name);
	put_str(w, f->usr);
	put_u(b, f->flags);
	bloc(w, &f->loc);
	bloc(w, &f->end);
	put_str(w, f->ret_type);
	put_u(b, f->nparams);
	for (uint32_t i = 0; i < f->nparams; i++)
		put_s(b, f->params[i]);
	put_u(b, f->nevents);
	for (uint32_t i = 0; i < f->nevents; i++)
		bevent(w, &f->events[i]);
	put_u(b, f->nregions);
	for (uint32_t i = 0; i < f->nregions; i++) {
		const struct region *r = &f->regions[i];
		put_u(b, r->kind);
		put_u(b, r->negated);
		put_s(b, r->parent);
		bexpr(w, &r->cond);
		put_u(b, r->begin);
		put_u(b, r->end);
		put_u(b, r->ends_with_return);
		put_u(b, r->cond_end);
	}
}

/* The status, the variables and the functions. */
static void pack_head(struct bw *w, const struct tu_facts *tu)
{
	struct strbuf *b = &w->body;
	put_str(w, tu->path);
	put_str(w, tu->display);
	put_u(b, tu->status);
	put_u(b, tu->degraded);
	put_u(b, tu->buildless);
	put_u(b, tu->cxx);
	put_str(w, tu->fail_reason);
	put_u(b, tu->nerrors);
	put_u(b, tu->nwarnings);
	put_u(b, tu->stub_rounds);
	put_u(b, tu->nstubs);
	uint64_t ps;
	memcpy(&ps, &tu->parse_seconds, sizeof(ps));
	put_raw64(b, ps);
	put_u(b, tu->pch_use);
	put_u(b, tu->pch_built);
	put_u(b, tu->vars.n);
	for (size_t i = 0; i < tu->vars.n; i++) {
		const struct var *v = &tu->vars.v[i];
		put_str(w, v->name);
		put_str(w, v->usr);
		put_str(w, v->type);
		put_str(w, v->record);
		put_u(b, v->flags);
		put_u(b, v->kind);
		put_s(b, v->fn);
		put_s(b, v->param_index);
		bloc(w, &v->loc);
		put_str(w, v->init_fn_usr);
	}
	put_u(b, tu->funcs.n);
	for (size_t i = 0; i < tu->funcs.n; i++)
		bfunc(w, &tu->funcs.v[i]);
}

/* Bindings and what the preprocessor left: macros, includes, conditionals. */
static void pack_source(struct bw *w, const struct tu_facts *tu)
{
	struct strbuf *b = &w->body;
	put_u(b, tu->bindings.n);
	for (size_t i = 0; i < tu->bindings.n; i++) {
		const struct binding *x = &tu->bindings.v[i];
		put_str(w, x->record);
		put_str(w, x->field);
		put_str(w, x->fn_usr);
		put_str(w, x->fn_name);
		bloc(w, &x->loc);
		put_str(w, x->param_of_usr);
		put_s(b, x->param_index);
	}
	put_u(b, tu->macro_exps.n);
	for (size_t i = 0; i < tu->macro_exps.n; i++) {
		const struct macro_exp *m = &tu->macro_exps.v[i];
		put_str(w, m->name);
		bloc(w, &m->loc);
		put_u(b, m->begin);
		put_u(b, m->end);
	}
	put_u(b, tu->macro_defs.n);
	for (size_t i = 0; i < tu->macro_defs.n; i++) {
		const struct macro_def *m = &tu->macro_defs.v[i];
		put_str(w, m->name);
		bloc(w, &m->loc);
		put_u(b, m->function_like);
		put_str(w, m->body);
	}
	put_u(b, tu->includes.n);
	for (size_t i = 0; i < tu->includes.n; i++) {
		const struct include_dir *in = &tu->includes.v[i];
		put_str(w, in->spelled);
		bloc(w, &in->loc);
		put_u(b, in->end_off);
	}
	put_u(b, tu->pp_conds.n);
	for (size_t i = 0; i < tu->pp_conds.n; i++) {
		const struct pp_cond *c = &tu->pp_conds.v[i];
		put_str(w, c->directive);
		put_str(w, c->cond);
		put_u(b, c->line_begin);
		put_u(b, c->line_end);
		put_s(b, c->parent);
		put_u(b, c->close_off);
		put_u(b, c->closed_by_endif);
	}
	put_u(b, tu->pp_defines.n);
	for (size_t i = 0; i < tu->pp_defines.n; i++) {
		const struct pp_define *d = &tu->pp_defines.v[i];
		put_str(w, d->name);
		put_str(w, d->file);
		put_u(b, d->line);
		put_s(b, d->cond);
	}
}

/* Token sites, diagnostics, the files of the TU, the dropped flags. */
static void pack_sites(struct bw *w, const struct tu_facts *tu)
{
	struct strbuf *b = &w->body;
	put_u(b, tu->token_sites.n);
	for (size_t i = 0; i < tu->token_sites.n; i++) {
		const struct token_site *t = &tu->token_sites.v[i];
		put_str(w, t->api);
		put_str(w, t->callback);
		put_str(w, t->function);
		bloc(w, &t->loc);
		put_u(b, t->inactive);
		put_str(w, t->guard);
		put_u(b, t->in_ast);
	}
	put_u(b, tu->diags.n);
	for (size_t i = 0; i < tu->diags.n; i++) {
		const struct diag *d = &tu->diags.v[i];
		put_u(b, d->severity);
		bloc(w, &d->loc);
		put_str(w, d->msg);
	}
	put_u(b, tu->files.n);
	for (size_t i = 0; i < tu->files.n; i++) {
		const struct tu_file *f = &tu->files.v[i];
		put_str(w, f->path);
		put_raw64(b, f->hash);
		put_u(b, f->is_main);
	}
	put_u(b, tu->dropped_flags.n);
	for (size_t i = 0; i < tu->dropped_flags.n; i++)
		put_str(w, tu->dropped_flags.v[i]);
}

char *facts_pack(const struct tu_facts *tu, size_t *len)
{
	struct bw w = {0};
	struct strbuf *b = &w.body;
	pack_head(&w, tu);
	pack_source(&w, tu);
	pack_sites(&w, tu);
	/* the magic, the version, the string table, then the body */
	struct strbuf out = {0};
	sb_grow(&out, b->len + 64);
	sb_add(&out, BIN_MAGIC, 4);
	put_u(&out, FACTS_FORMAT_VERSION);
	put_u(&out, w.strings.n);
	for (size_t i = 0; i < w.strings.n; i++) {
		size_t n = strlen(w.strings.v[i]);
		put_u(&out, n);
		sb_add(&out, w.strings.v[i], n);
	}
	sb_add(&out, b->buf ? b->buf : "", b->len);
	sb_free(b);
	hmap_free(&w.index);
	vec_free(&w.strings);
	if (len)
		*len = out.len;
	return sb_detach(&out);
}

struct br {
	struct rctx r;
	const unsigned char *p, *end;
};

static uint64_t get_u(struct br *b)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (b->p >= b->end) {
			facts_bad(&b->r, "truncated");
			return 0;
		}
		unsigned char c = *b->p++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	facts_bad(&b->r, "varint too long");
	return 0;
}

static int64_t get_s(struct br *b)
{
	uint64_t u = get_u(b);
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

static uint8_t get_u8(struct br *b)
{
	uint64_t v = get_u(b);
	if (v > 255) {
		facts_bad(&b->r, "byte out of range");
		return 0;
	}
	return (uint8_t)v;
}

static uint32_t get_u32(struct br *b)
{
	uint64_t v = get_u(b);
	if (v > UINT32_MAX) {
		facts_bad(&b->r, "unsigned value out of range");
		return 0;
	}
	return (uint32_t)v;
}

static int32_t get_s32(struct br *b)
{
	int64_t v = get_s(b);
	if (v < INT32_MIN || v > INT32_MAX) {
		facts_bad(&b->r, "value out of range");
		return 0;
	}
	return (int32_t)v;
}

static uint64_t get_raw64(struct br *b)
{
	if (b->end - b->p < 8) {
		facts_bad(&b->r, "truncated");
		b->p = b->end;
		return 0;
	}
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)b->p[i] << (8 * i);
	b->p += 8;
	return v;
}

static const char *get_str(struct br *b)
{
	uint64_t i = get_u(b);
	if (!i)
		return NULL;
	if (i > b->r.nstrings) {
		facts_bad(&b->r, "bad string reference");
		return NULL;
	}
	return b->r.strings[i - 1];
}

/* A count of elements still to read: each takes a byte at least, so a
 * count beyond what is left is corrupt (and never allocated). */
static size_t get_count(struct br *b)
{
	uint64_t n = get_u(b);
	if (n > (uint64_t)(b->end - b->p)) {
		facts_bad(&b->r, "count beyond the data");
		return 0;
	}
	return (size_t)n;
}

static void gloc(struct br *b, struct loc *l)
{
	l->file = get_str(b);
	l->line = get_u32(b);
	l->col = get_u32(b);
	l->off = get_u32(b);
}

static void gref(struct br *b, struct ref *f)
{
	f->var = get_s32(b);
	f->path = get_str(b);
	f->record = get_str(b);
	f->field = get_str(b);
	f->addr = get_u8(b);
	f->deref = get_u8(b);
	f->ptr_deref = get_u8(b);
	if (f->var < -1 || (f->var >= 0 && (size_t)f->var >= b->r.tu->vars.n))
		facts_bad(&b->r, "variable index out of range");
}

static void gexpr(struct br *b, struct expr *e)
{
	struct arena *a = &b->r.tu->arena;
	e->kind = get_u8(b);
	e->text = get_str(b);
	gloc(b, &e->loc);
	gref(b, &e->ref);
	e->call = get_s32(b);
	e->nreads = (uint32_t)get_count(b);
	e->reads = e->nreads ? arena_alloc(a, e->nreads * sizeof(struct ref)) : NULL;
	for (uint32_t i = 0; i < e->nreads && !b->r.bad; i++)
		gref(b, &e->reads[i]);
	e->ncalls = b->r.bad ? 0 : (uint32_t)get_count(b);
	e->calls = e->ncalls ? arena_alloc(a, e->ncalls * sizeof(int32_t)) : NULL;
	for (uint32_t i = 0; i < e->ncalls; i++)
		e->calls[i] = get_s32(b);
	e->exact = get_u8(b);
	e->begin = get_u32(b);
	e->end = get_u32(b);
	e->has_ival = get_u8(b);
	e->ival = get_s(b);
	e->cast = get_u8(b);
	e->is_value = get_u8(b);
	e->macro = get_str(b);
	e->func_usr = get_str(b);
	e->func_name = get_str(b);
}

static void gevent(struct br *b, struct event *e)
{
	struct arena *a = &b->r.tu->arena;
	e->kind = get_u8(b);
	gloc(b, &e->loc);
	e->region = get_s32(b);
	switch (e->kind) {
	case EV_CALL: {
		struct call *c = e->u.call = arena_alloc(a, sizeof(struct call));
		c->name = get_str(b);
		c->usr = get_str(b);
		c->decl_file = get_str(b);
		c->origin = get_u8(b);
		c->indirect = get_u8(b);
		c->variadic = get_u8(b);
		c->returns_value = get_u8(b);
		gexpr(b, &c->callee);
		c->nargs = b->r.bad ? 0 : (uint32_t)get_count(b);
		c->args = c->nargs ? arena_alloc(a, c->nargs * sizeof(struct expr)) : NULL;
		for (uint32_t i = 0; i < c->nargs && !b->r.bad; i++)
			gexpr(b, &c->args[i]);
		c->parent = get_s32(b);
		c->parent_arg = get_s32(b);
		gref(b, &c->result);
		c->rparen = get_u32(b);
		c->result_used = get_u8(b);
		break;
	}
	case EV_ASSIGN:
		e->u.assign = arena_alloc(a, sizeof(struct assign));
		gref(b, &e->u.assign->lhs);
		gexpr(b, &e->u.assign->rhs);
		e->u.assign->compound = get_u8(b);
		e->u.assign->is_init = get_u8(b);
		e->u.assign->whole_init = get_u8(b);
		break;
	case EV_ACCESS:
		e->u.access = arena_alloc(a, sizeof(struct access));
		gref(b, &e->u.access->ref);
		e->u.access->mode = get_u8(b);
		e->u.access->atomic_op = get_u8(b);
		break;
	case EV_RETURN:
		e->u.ret = arena_alloc(a, sizeof(struct expr));
		gexpr(b, e->u.ret);
		break;
	default:
		facts_bad(&b->r, "unknown event kind");
		return;
	}
	e->in_macro_arg = get_u8(b);
	e->gvl_guard = get_u8(b);
	e->macro = get_str(b);
}

static void gfunc(struct br *b, struct func *f)
{
	struct arena *a = &b->r.tu->arena;
	f->name = get_str(b);
	f->usr = get_str(b);
	f->flags = get_u32(b);
	gloc(b, &f->loc);
	gloc(b, &f->end);
	f->ret_type = get_str(b);
	f->nparams = b->r.bad ? 0 : (uint32_t)get_count(b);
	f->params = f->nparams ? arena_alloc(a, f->nparams * sizeof(int32_t)) : NULL;
	for (uint32_t i = 0; i < f->nparams; i++)
		f->params[i] = get_s32(b);
	f->nevents = b->r.bad ? 0 : (uint32_t)get_count(b);
	f->events = f->nevents ? arena_alloc(a, f->nevents * sizeof(struct event)) : NULL;
	for (uint32_t i = 0; i < f->nevents && !b->r.bad; i++)
		gevent(b, &f->events[i]);
	f->nregions = b->r.bad ? 0 : (uint32_t)get_count(b);
	f->regions = f->nregions ? arena_alloc(a, f->nregions * sizeof(struct region)) : NULL;
	for (uint32_t i = 0; i < f->nregions && !b->r.bad; i++) {
		struct region *rg = &f->regions[i];
		rg->kind = get_u8(b);
		rg->negated = get_u8(b);
		rg->parent = get_s32(b);
		gexpr(b, &rg->cond);
		rg->begin = get_u32(b);
		rg->end = get_u32(b);
		rg->ends_with_return = get_u8(b);
		rg->cond_end = get_u32(b);
	}
	if (!b->r.bad)
		check_func_indices(&b->r, f);
}

/* The string table: every string once (the writer's table has no two
 * equal), in the TU's pool without an index (util.h: strpool_seal): the
 * facts of every file stay in memory to the end of the run, their strings
 * seldom looked up again. */
static void unpack_strings(struct br *b)
{
	struct rctx *r = &b->r;
	for (size_t i = 0; i < r->nstrings && !r->bad; i++) {
		size_t n = get_count(b);
		if (r->bad)
			break;
		if (memchr(b->p, 0, n)) {
			facts_bad(r, "string table");
			break;
		}
		r->strings[i] = strpool_add_unique(&r->tu->pool, (const char *)b->p, n);
		b->p += n;
	}
}

/* The status, the variables and the functions. */
static void unpack_head(struct br *b)
{
	struct rctx *r = &b->r;
	struct tu_facts *tu = r->tu;
	if (!r->bad) {
		tu->path = get_str(b);
		tu->display = get_str(b);
		tu->status = get_u8(b);
		tu->degraded = get_u8(b);
		tu->buildless = get_u8(b);
		tu->cxx = get_u8(b);
		tu->fail_reason = get_str(b);
		tu->nerrors = get_u32(b);
		tu->nwarnings = get_u32(b);
		tu->stub_rounds = get_u32(b);
		tu->nstubs = get_u32(b);
		uint64_t ps = get_raw64(b);
		memcpy(&tu->parse_seconds, &ps, sizeof(ps));
		tu->pch_use = get_u8(b);
		tu->pch_built = get_u8(b);
		if (tu->pch_use > PCH_USE_INELIGIBLE || tu->pch_built >= 8)
			facts_bad(r, "status");
		if (!tu->path)
			facts_bad(r, "path");
	}
	size_t n = r->bad ? 0 : get_count(b);
	vec_exact(&tu->vars, n);
	for (size_t i = 0; i < n && !r->bad; i++) {
		struct var x = {0};
		x.name = get_str(b);
		x.usr = get_str(b);
		x.type = get_str(b);
		x.record = get_str(b);
		x.flags = get_u32(b);
		x.kind = get_u8(b);
		x.fn = get_s32(b);
		x.param_index = get_s32(b);
		gloc(b, &x.loc);
		x.init_fn_usr = get_str(b);
		vec_push(&tu->vars, x);
	}
	n = r->bad ? 0 : get_count(b);
	vec_exact(&tu->funcs, n);
	for (size_t i = 0; i < n && !r->bad; i++) {
		struct func f = {0};
		gfunc(b, &f);
		vec_push(&tu->funcs, f);
	}
	for (size_t i = 0; i < tu->vars.n; i++)
		if (tu->vars.v[i].fn < -1 || tu->vars.v[i].fn >= (int32_t)tu->funcs.n)
			facts_bad(r, "variable owner out of range");
}

/* Bindings and what the preprocessor left: macros, includes, conditionals. */
static void unpack_source(struct br *b)
{
	struct rctx *r = &b->r;
	struct tu_facts *tu = r->tu;
	size_t n = r->bad ? 0 : get_count(b);
	vec_exact(&tu->bindings, n);
	for (size_t i = 0; i < n && !r->bad; i++) {
		struct binding x = {0};
		x.record = get_str(b);
		x.field = get_str(b);
		x.fn_usr = get_str(b);
		x.fn_name = get_str(b);
		gloc(b, &x.loc);
		x.param_of_usr = get_str(b);
		x.param_index = get_s32(b);
		vec_push(&tu->bindings, x);
	}
	n = r->bad ? 0 : get_count(b);
	vec_exact(&tu->macro_exps, n);
	for (size_t i = 0; i < n && !r->bad; i++) {
		struct macro_exp m = {0};
		m.name = get_str(b);
		gloc(b, &m.loc);
		m.begin = get_u32(b);
		m.end = get_u32(b);
		vec_push(&tu->macro_exps, m);
	}
	n = r->bad ? 0 : get_count(b);
	vec_exact(&tu->macro_defs, n);
	for (size_t i = 0; i < n && !r->bad; i++) {
		struct macro_def m = {0};
		m.name = get_str(b);
		gloc(b, &m.loc);
		m.function_like = get_u8(b);
		m.body = get_str(b);
		vec_push(&tu->macro_defs, m);
	}
	n = r->bad ? 0 : get_count(b);
	vec_exact(&tu->includes, n);
	for (size_t i = 0; i < n && !r->bad; i++) {
		struct include_dir in = {0};
		in.spelled = get_str(b);
		gloc(b, &in.loc);
		in.end_off = get_u32(b);
		vec_push(&tu->includes, in);
	}
	n = r->bad ? 0 : get_count(b);
	vec_exact(&tu->pp_conds, n);
	for (size_t i = 0; i < n && !r->bad; i++) {
		struct pp_cond c = {0};
		c.directive = get_str(b);
		c.cond = get_str(b);
		c.line_begin = get_u32(b);
		c.line_end = get_u32(b);
		c.parent = get_s32(b);
		c.close_off = get_u32(b);
		c.closed_by_endif = get_u8(b);
		vec_push(&tu->pp_conds, c);
	}
	n = r->bad ? 0 : get_count(b);
	vec_exact(&tu->pp_defines, n);
	for (size_t i = 0; i < n && !r->bad; i++) {
		struct pp_define d = {0};
		d.name = get_str(b);
		d.file = get_str(b);
		d.line = get_u32(b);
		d.cond = get_s32(b);
		vec_push(&tu->pp_defines, d);
	}
}

/* Token sites, diagnostics, the files of the TU, the dropped flags. */
static void unpack_sites(struct br *b)
{
	struct rctx *r = &b->r;
	struct tu_facts *tu = r->tu;
	size_t n = r->bad ? 0 : get_count(b);
	vec_exact(&tu->token_sites, n);
	for (size_t i = 0; i < n && !r->bad; i++) {
		struct token_site t = {0};
		t.api = get_str(b);
		t.callback = get_str(b);
		t.function = get_str(b);
		gloc(b, &t.loc);
		t.inactive = get_u8(b);
		t.guard = get_str(b);
		t.in_ast = get_u8(b);
		vec_push(&tu->token_sites, t);
	}
	n = r->bad ? 0 : get_count(b);
	vec_exact(&tu->diags, n);
	for (size_t i = 0; i < n && !r->bad; i++) {
		struct diag d = {0};
		d.severity = get_u8(b);
		gloc(b, &d.loc);
		d.msg = get_str(b);
		vec_push(&tu->diags, d);
	}
	n = r->bad ? 0 : get_count(b);
	vec_exact(&tu->files, n);
	for (size_t i = 0; i < n && !r->bad; i++) {
		struct tu_file f = {0};
		f.path = get_str(b);
		f.hash = get_raw64(b);
		f.is_main = get_u8(b);
		vec_push(&tu->files, f);
	}
	n = r->bad ? 0 : get_count(b);
	vec_exact(&tu->dropped_flags, n);
	for (size_t i = 0; i < n && !r->bad; i++)
		vec_push(&tu->dropped_flags, get_str(b));
}

struct tu_facts *facts_unpack(const char *buf, size_t len, char **err)
{
	struct tu_facts *tu = xcalloc(1, sizeof(*tu));
	struct br b = {{tu, NULL, 0, false, NULL}, (const unsigned char *)buf + 4, (const unsigned char *)buf + len};
	struct rctx *r = &b.r;
	if (get_u(&b) != FACTS_FORMAT_VERSION) {
		*err = xstrdup("not facts of this format version");
		tu_facts_free(tu);
		return NULL;
	}
	r->nstrings = get_count(&b);
	r->strings = xcalloc(r->nstrings + 1, sizeof(char *));
	unpack_strings(&b);
	unpack_head(&b);
	unpack_source(&b);
	unpack_sites(&b);
	if (!r->bad && b.p != b.end)
		facts_bad(r, "trailing bytes");
	free(r->strings);
	if (r->bad) {
		*err = xasprintf("malformed facts (%s)", r->what ? r->what : "?");
		tu_facts_free(tu);
		return NULL;
	}
	return tu;
}
