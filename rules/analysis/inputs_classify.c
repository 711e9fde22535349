/* inputs_classify.c: how the owner of a pointer in a release site's data was
 * made (frozen, fresh, a method argument ...), with the knowledge tables it
 * reads. Part of the inputs analysis (inputs_flow_int.h). */
#include "inputs_flow_int.h"

#include <stdlib.h>
#include <string.h>

#include "gates.h"
#include "gvlapi.h"
#include "knowledge.h"
#include "libmodel.h"

/* ---- knowledge ---- */

/* Calls that return a pointer into a Ruby object's memory; the owner is the
 * first argument. Source: Ruby 3.1 headers: ruby/internal/core/rstring.h
 * (RSTRING_PTR, RSTRING_END, rbimpl_rstring_getmem behind RSTRING_GETMEM,
 * StringValuePtr -> rb_string_value_ptr, StringValueCStr ->
 * rb_string_value_cstr), rarray.h (RARRAY_PTR, RARRAY_CONST_PTR ->
 * rb_array_const_ptr, rb_array_const_ptr_transient, RARRAY_PTR_USE ->
 * rb_array_ptr_use_start), rstruct.h (RSTRUCT_PTR), rtypeddata.h/rdata.h
 * (rb_check_typeddata behind TypedData_Get_Struct, rb_data_object_get behind
 * Data_Get_Struct); Ruby 3.3 rtypeddata.h (RTYPEDDATA_GET_DATA). Sorted. */
static const struct src_entry sources[] = {
	{"RARRAY_PTR", IOK_ARRAY},
	{"RSTRING_END", IOK_STRING},
	{"RSTRING_PTR", IOK_STRING},
	{"RSTRUCT_PTR", IOK_OBJECT},
	{"RTYPEDDATA_GET_DATA", IOK_TYPED},
	{"rb_array_const_ptr", IOK_ARRAY},
	{"rb_array_const_ptr_transient", IOK_ARRAY},
	{"rb_array_ptr_use_start", IOK_ARRAY},
	{"rb_check_typeddata", IOK_TYPED},
	{"rb_data_object_get", IOK_TYPED},
	{"rb_string_value_cstr", IOK_STRING},
	{"rb_string_value_ptr", IOK_STRING},
	{"rbimpl_rstring_getmem", IOK_STRING},
};

/* Return a frozen object. Source: Ruby 3.1 ruby/internal/intern/string.h
 * (rb_str_new_frozen; rb_str_dup_frozen and rb_str_new4 are macros for it;
 * rb_str_freeze, rb_str_to_interned_str, rb_interned_str*), encoding/string.h
 * (rb_enc_interned_str*), intern/object.h (rb_obj_freeze), intern/array.h
 * (rb_ary_freeze), fl_type.h (OBJ_FREEZE -> rb_obj_freeze_inline); Ruby's
 * internal string.h (rb_fstring, rb_str_tmp_frozen_acquire: io.c uses it);
 * rb_sym2str returns the symbol's frozen name (symbol.c, Ruby 2.2+). */
static const char *const frozen_makers[] = {
	"rb_ary_freeze",          "rb_enc_interned_str", "rb_enc_interned_str_cstr", "rb_fstring",
	"rb_fstring_cstr",        "rb_interned_str",     "rb_interned_str_cstr",     "rb_obj_freeze",
	"rb_obj_freeze_inline",   "rb_str_freeze",       "rb_str_new_frozen",        "rb_str_tmp_frozen_acquire",
	"rb_str_to_interned_str", "rb_sym2str",
};

/* Freeze their first argument in place (as a statement). Same sources. */
static const char *const inplace_freezers[] = {
	"rb_ary_freeze",
	"rb_obj_freeze",
	"rb_obj_freeze_inline",
	"rb_str_freeze",
};

/* Create a new string or array nobody else has seen (design.md, precise
 * points: rb_str_new(NULL, n), rb_str_new(ptr, n), rb_str_buf_new ... are
 * owned memory). Source: Ruby 3.1 ruby/internal/intern/string.h,
 * encoding/string.h, intern/array.h, core/rdata.h and rtypeddata.h (the
 * objects behind Data_Make_Struct/TypedData_Make_Struct); rbimpl_str_new_cstr
 * is rb_str_new_cstr's constant-argument path. */
static const char *const fresh_makers[] = {
	"rb_ary_hidden_new",
	"rb_ary_new",
	"rb_ary_new_capa",
	"rb_ary_new_from_args",
	"rb_ary_new_from_values",
	"rb_ary_tmp_new",
	"rb_data_object_make",
	"rb_data_object_wrap",
	"rb_data_object_zalloc",
	"rb_data_typed_object_make",
	"rb_data_typed_object_wrap",
	"rb_data_typed_object_zalloc",
	"rb_enc_str_new",
	"rb_enc_str_new_cstr",
	"rb_enc_str_new_static",
	"rb_external_str_new",
	"rb_external_str_new_cstr",
	"rb_external_str_new_with_enc",
	"rb_filesystem_str_new",
	"rb_filesystem_str_new_cstr",
	"rb_locale_str_new",
	"rb_locale_str_new_cstr",
	"rb_str_buf_new",
	"rb_str_buf_new_cstr",
	"rb_str_new",
	"rb_str_new_cstr",
	"rb_str_new_static",
	"rb_str_new_with_class",
	"rb_str_plus",
	"rb_str_times",
	"rb_str_tmp_new",
	"rb_usascii_str_new",
	"rb_usascii_str_new_cstr",
	"rb_usascii_str_new_static",
	"rb_utf8_str_new",
	"rb_utf8_str_new_cstr",
	"rb_utf8_str_new_static",
	"rbimpl_str_new_cstr",
};

/* Unfrozen copies: an ordinary object other code can reach (ObjectSpace) and
 * modify; rb_str_new_shared shares the original's buffer. Feature #11625
 * review: rb_str_dup is not enough, use rb_str_new_frozen. Source: Ruby 3.1
 * intern/string.h, intern/array.h, intern/object.h. */
static const char *const dup_makers[] = {
	"rb_ary_dup", "rb_obj_clone", "rb_obj_dup", "rb_str_dup", "rb_str_new_shared",
};

/* Return their (first) argument, converted at most: StringValue is
 * rb_string_value(&v). Source: Ruby 3.1 ruby/internal/core/rstring.h,
 * intern/string.h. */
static const char *const passthrough[] = {
	"rb_check_string_type",
	"rb_str_to_str",
	"rb_string_value",
};

/* Read an object out of a container the caller holds: the container keeps it
 * alive (it is still shared: other code can change it). Source: Ruby 3.1
 * ruby/internal/intern/hash.h, array.h, variable.h, struct.h, core/rarray.h. */
static const char *const container_reads[] = {
	"RARRAY_AREF", "rb_ary_entry", "rb_ary_last",    "rb_attr_get",         "rb_const_get",   "rb_const_get_at",
	"rb_cvar_get", "rb_gv_get",    "rb_hash_aref",   "rb_hash_fetch",       "rb_hash_lookup", "rb_hash_lookup2",
	"rb_iv_get",   "rb_ivar_get",  "rb_struct_aref", "rb_struct_getmember",
};

/* Return numbers (immediates or Integer/Float objects): never a string or an
 * array whose buffer a callback could use. Source: Ruby 3.1
 * ruby/internal/arithmetic/ headers, intern/object.h (rb_Integer, rb_Float). */
static const char *const non_strings[] = {
	"rb_Float",    "rb_Integer",        "rb_float_new",       "rb_float_new_in_heap", "rb_int2big",
	"rb_int2inum", "rb_int2num_inline", "rb_ll2inum",         "rb_long2num_inline",   "rb_to_int",
	"rb_uint2big", "rb_uint2inum",      "rb_uint2num_inline", "rb_ull2inum",          "rb_ulong2num_inline",
};

/* Hand out the method's arguments through pointers. Source: Ruby 3.1
 * ruby/internal/scan_args.h, intern/class.h (rb_get_kwargs). */
static const char *const arg_scanners[] = {
	"rb_get_kwargs",
	"rb_scan_args",
	"rb_scan_args_kw",
};

/* Return their argument or a converted copy of it. Source: Ruby 3.1
 * ruby/internal/encoding/string.h (rb_str_conv_enc, rb_str_conv_enc_opts),
 * intern/string.h (rb_str_export, rb_str_export_locale,
 * rb_str_export_to_enc). */
static const char *const maybe_passthrough[] = {
	"rb_str_conv_enc", "rb_str_conv_enc_opts", "rb_str_export", "rb_str_export_locale", "rb_str_export_to_enc",
};

const struct src_entry *source_of(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(sources); i++)
		if (strcmp(sources[i].name, name) == 0)
			return &sources[i];
	return NULL;
}

bool in_table(const char *name, const char *const *t, size_t n)
{
	return name && str_in_sorted(name, t, n);
}

/* Calls that can take a fresh string without showing it to other code: the
 * string API works on the string itself or copies from it, the object
 * accessors only read it. Anything else (rb_yield, rb_funcall, rb_ivar_set,
 * rb_ary_push(x, str), a gem function) may keep it. */
static bool call_exposes(const struct call *c, uint32_t argi)
{
	const char *n = c->name ? c->name : "";
	if (source_of(n))
		return false;
	static const char *const safe_prefix[] = {
		"RB_",           "RSTRING",     "rb_check_", "rb_enc_",         "rb_gc_guarded_ptr", "rb_obj_encoding",
		"rb_obj_freeze", "rb_obj_hide", "rb_str_",   "rb_string_value", "rbimpl_",
	};
	for (size_t i = 0; i < ARRAY_SIZE(safe_prefix); i++)
		if (str_starts(n, safe_prefix[i]))
			return false;
	if (str_starts(n, "rb_ary_") && argi == 0)
		return false;
	return true;
}

bool io_tables_sorted(void)
{
	const struct {
		const char *const *v;
		size_t n;
	} t[] = {
		{frozen_makers, ARRAY_SIZE(frozen_makers)}, {inplace_freezers, ARRAY_SIZE(inplace_freezers)},
		{fresh_makers, ARRAY_SIZE(fresh_makers)},   {dup_makers, ARRAY_SIZE(dup_makers)},
		{passthrough, ARRAY_SIZE(passthrough)},     {maybe_passthrough, ARRAY_SIZE(maybe_passthrough)},
	};
	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		for (size_t k = 1; k < t[i].n; k++)
			if (strcmp(t[i].v[k - 1], t[i].v[k]) >= 0)
				return false;
	for (size_t k = 1; k < ARRAY_SIZE(sources); k++)
		if (strcmp(sources[k - 1].name, sources[k].name) >= 0)
			return false;
	return true;
}

const char *io_kind_noun(int kind)
{
	switch (kind) {
	case IOK_STRING:
		return "string";
	case IOK_ARRAY:
		return "array";
	case IOK_TYPED:
		return "data object";
	default:
		return "object";
	}
}

/* ---- classification ---- */

static void cls_worse(struct cls *acc, const struct cls *c)
{
	if (c->state > acc->state)
		*acc = *c;
}

/* The gem's function whose value rb_protect(fn, arg, &state) returns (Ruby
 * 3.1 ruby/internal/intern/proc.h: "the return value of func"), else NULL. */
static const struct mfunc *protected_body(const struct model *m, const struct mfunc *mf, const struct call *c)
{
	return str_eq(c->name, "rb_protect") ? model_protected_body(m, mf, c) : NULL;
}

/* String methods that return a new string for a String receiver, called
 * through rb_funcall (extralite: sql = rb_funcall(sql, ID_strip, 0)): a
 * private copy, like rb_str_new. Ruby-level dup/clone are ordinary
 * unfrozen copies, like rb_str_dup. Source: Ruby 3.1 string.c (rb_str_strip
 * and the others build their result with rb_str_new/str_new_shared). */
static const char *const ruby_copy_methods[] = {
	"capitalize", "chomp", "chop",     "downcase",          "encode", "lstrip", "reverse", "rstrip", "scrub",
	"squeeze",    "strip", "swapcase", "unicode_normalize", "upcase",
};
static const char *const ruby_dup_methods[] = {"clone", "dup"};

/* name's entry in table t (a stable string), or NULL */
static const char *table_entry(const char *name, const char *const *t, size_t n)
{
	for (size_t i = 0; name && i < n; i++)
		if (str_eq(t[i], name))
			return t[i];
	return NULL;
}

/* `rb_intern("name")` (or rb_intern_const, rb_intern2), as spelled (the
 * macro expands to a statement expression): the name in buf; NULL otherwise. */
static const char *intern_literal(const struct expr *x, char *buf, size_t n)
{
	static const char *const fns[] = {"rb_intern(\"", "rb_intern_const(\"", "rb_intern2(\""};
	const char *t = x->text;
	if (!t)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(fns); i++) {
		if (!str_starts(t, fns[i]))
			continue;
		const char *p = t + strlen(fns[i]);
		size_t l = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_?!");
		if (!l || l + 1 > n || p[l] != '"')
			return NULL;
		memcpy(buf, p, l);
		buf[l] = '\0';
		return buf;
	}
	return NULL;
}

/* The method an rb_funcall calls: `rb_intern("strip")` written in place, or
 * a global/static ID every assignment of which is that. */
static const char *funcall_method(const struct model *m, const struct mfunc *mf, const struct call *c, char *buf,
				  size_t n)
{
	if ((!str_eq(c->name, "rb_funcall") && !str_eq(c->name, "rb_funcallv") && !str_eq(c->name, "rb_funcall2") &&
	     !str_eq(c->name, "rb_funcallv_public") && !str_eq(c->name, "rb_funcall_passing_block")) ||
	    c->nargs < 2)
		return NULL;
	const struct expr *id = &c->args[1];
	if (id->kind != EX_REF)
		return intern_literal(id, buf, n);
	if (id->kind != EX_REF || !ref_is_var(&id->ref))
		return NULL;
	const struct var *v = mf_var(mf, id->ref.var);
	if (!v || !v->usr || (v->kind != VK_GLOBAL && v->kind != VK_FILE_STATIC))
		return NULL;
	const char *found = NULL;
	char one[64];
	for (uint32_t fi = 0; fi < m->fns.n; fi++) {
		const struct mfunc *g = &m->fns.v[fi];
		for (uint32_t ei = 0; ei < g->f->nevents; ei++) {
			const struct event *e = &g->f->events[ei];
			if (e->kind != EV_ASSIGN)
				continue;
			const struct var *lv = mf_var(g, e->u.assign->lhs.var);
			if (!lv || !str_eq(lv->usr, v->usr))
				continue;
			const char *nm = intern_literal(&e->u.assign->rhs, one, sizeof(one));
			if (!nm || (found && !str_eq(found, nm)) || strlen(nm) + 1 > n)
				return NULL;
			memcpy(buf, nm, strlen(nm) + 1);
			found = buf;
		}
	}
	return found;
}

/* Every value a function of the gem returns, the worst of them (a fresh
 * string returned on every path is fresh). */
static struct cls classify_returns(const struct model *m, const struct mfunc *fn, int depth)
{
	struct cls r = {0};
	bool any = false;
	for (uint32_t ei = 0; ei < fn->f->nevents; ei++) {
		const struct event *e = &fn->f->events[ei];
		if (e->kind != EV_RETURN || !e->u.ret)
			continue;
		any = true;
		struct cls c = classify_expr(m, fn, e->u.ret, -1, ei, depth + 1);
		cls_worse(&r, &c);
	}
	if (!any)
		return (struct cls){.state = IOS_UNKNOWN};
	return r;
}

/* How the value of expression x (evaluated at event `at` of mf) was made. */
struct cls classify_expr(const struct model *m, const struct mfunc *mf, const struct expr *x, int32_t parent,
			 uint32_t at, int depth)
{
	struct cls r = {0};
	if (!x || depth > 4)
		return (struct cls){.state = IOS_UNKNOWN};
	if (x->kind == EX_CALL && x->call >= 0) {
		const struct event *e = &mf->f->events[x->call];
		const struct call *c = e->u.call;
		r.why = c->name;
		r.loc = e->loc;
		const struct mfunc *body = NULL;
		char mname[64];
		const char *meth;
		if (IN(c->name, frozen_makers))
			r.state = IOS_FROZEN;
		else if (IN(c->name, fresh_makers))
			r.state = IOS_FRESH;
		else if ((body = protected_body(m, mf, c)) != NULL)
			/* rb_protect(make_buffer, ...) returns what make_buffer returns
			 * (or Qnil when it raised) */
			return classify_returns(m, body, depth + 1);
		else if (IN(c->name, dup_makers))
			r.state = IOS_DUP;
		else if ((meth = table_entry(funcall_method(m, mf, c, mname, sizeof(mname)), ruby_copy_methods,
					     ARRAY_SIZE(ruby_copy_methods))) != NULL)
			r.state = IOS_FRESH, r.why = meth;
		else if ((meth = table_entry(funcall_method(m, mf, c, mname, sizeof(mname)), ruby_dup_methods,
					     ARRAY_SIZE(ruby_dup_methods))) != NULL)
			r.state = IOS_DUP, r.why = meth;
		else if (IN(c->name, passthrough) && c->nargs) {
			struct ref a;
			if (arg_ref(&c->args[0], &a))
				return classify_var(m, mf, &a, (uint32_t)x->call, (uint32_t)x->call, depth + 1);
			return classify_expr(m, mf, &c->args[0], x->call, (uint32_t)x->call, depth + 1);
		} else if (IN(c->name, maybe_passthrough) && c->nargs) {
			/* the argument itself, or a fresh converted copy */
			struct ref a;
			struct cls arg =
				arg_ref(&c->args[0], &a)
					? classify_var(m, mf, &a, (uint32_t)x->call, (uint32_t)x->call, depth + 1)
					: classify_expr(m, mf, &c->args[0], x->call, (uint32_t)x->call, depth + 1);
			r.state = IOS_FRESH;
			cls_worse(&r, &arg);
			return r;
		} else if (ruby_class_of_call(c) == RC_PURE || IN(c->name, non_strings)) {
			r.state = 0; /* an immediate or a number: no buffer to share */
			r.why = NULL;
		} else {
			r.state = IOS_SHARED;
			r.held = IN(c->name, container_reads);
		}
		return r;
	}
	if (x->kind == EX_REF) {
		const struct var *v = mf_var(mf, x->ref.var);
		if (v && (v->flags & VF_VALUE) && ref_is_var(&x->ref))
			return classify_var(m, mf, &x->ref, at, at, depth + 1);
		if (x->ref.path && *x->ref.path)
			return classify_var(m, mf, &x->ref, at, at, depth + 1);
		return (struct cls){.state = IOS_UNKNOWN};
	}
	if (x->kind == EX_INT || x->kind == EX_NULL || x->kind == EX_STRING)
		return r; /* Qnil, Qfalse ...: no object */
	/* a conditional or a comma: every VALUE it can produce */
	for (uint32_t k = 0; k < x->ncalls; k++) {
		int32_t ci = x->calls[k];
		if (ci < 0 || (uint32_t)ci >= mf->f->nevents || mf->f->events[ci].kind != EV_CALL)
			continue;
		const struct call *c = mf->f->events[ci].u.call;
		if (c->parent != parent || !c->returns_value)
			continue;
		struct expr one = {0};
		one.kind = EX_CALL;
		one.call = ci;
		struct cls cc = classify_expr(m, mf, &one, parent, at, depth + 1);
		cls_worse(&r, &cc);
	}
	refvec reads = {0};
	top_reads(mf, x, parent, &reads);
	for (size_t i = 0; i < reads.n; i++) {
		const struct var *v = mf_var(mf, reads.v[i].var);
		if (v && (v->flags & VF_VALUE) && ref_is_var(&reads.v[i])) {
			struct cls cc = classify_var(m, mf, &reads.v[i], at, at, depth + 1);
			cls_worse(&r, &cc);
		}
	}
	vec_free(&reads);
	return r;
}

/* A parameter never assigned: what the callers pass (static functions called
 * only directly), else an argument from outside. */
struct cls classify_param(const struct model *m, const struct mfunc *mf, const struct var *v, int depth)
{
	struct cls shared = {.state = IOS_SHARED, .why_fn = mf->f->name, .arg = v->name, .loc = v->loc, .param = true};
	if (!(mf->f->flags & FN_STATIC) || depth > 3 || mf->in_end == mf->in_begin || v->param_index < 0 ||
	    address_taken(m, mf))
		return shared;
	struct cls r = {0};
	for (uint32_t k = mf->in_begin; k < mf->in_end; k++) {
		const struct edge *ed = &m->edges.v[m->in_edges.v[k]];
		if (ed->kind != EDGE_DIRECT)
			return shared;
		const struct mfunc *caller = &m->fns.v[ed->from];
		const struct call *c = caller->f->events[ed->ev].u.call;
		if ((uint32_t)v->param_index >= c->nargs)
			return shared;
		struct cls cc = classify_expr(m, caller, &c->args[v->param_index], (int32_t)ed->ev, ed->ev, depth + 1);
		if (cc.state == IOS_FRESH)
			cc.state = IOS_UNKNOWN; /* made in the caller: not followed for exposure */
		cls_worse(&r, &cc);
	}
	return r.state ? r : shared;
}

static bool is_call_named(const struct event *e, const char *const *t, size_t n)
{
	return e->kind == EV_CALL && in_table(e->u.call->name, t, n);
}

/* The string is locked by whoever runs mf: rb_str_locktmp_ensure(str, mf, ...),
 * or rb_ensure(mf, ..., ensure, ...) with rb_str_unlocktmp in the ensure
 * function and rb_str_locktmp in the caller. */
static const char *locked_by_caller(const struct model *m, const struct mfunc *mf)
{
	if (!mf->protected_body)
		return NULL;
	/* Ruby's protect/ensure calls are not call-graph edges: find them by name */
	for (uint32_t fi = 0; fi < m->fns.n; fi++) {
		const struct mfunc *caller = &m->fns.v[fi];
		for (uint32_t ei = 0; ei < caller->f->nevents; ei++) {
			const struct event *e = &caller->f->events[ei];
			if (e->kind != EV_CALL)
				continue;
			const struct call *c = e->u.call;
			bool lte = str_eq(c->name, "rb_str_locktmp_ensure");
			if (!lte && !str_eq(c->name, "rb_ensure"))
				continue;
			const struct expr *body = c->nargs > (lte ? 1u : 0u) ? &c->args[lte ? 1 : 0] : NULL;
			if (!body || body->kind != EX_FUNC || !str_eq(body->func_usr, mf->f->usr))
				continue;
			if (lte)
				return "rb_str_locktmp_ensure";
			if (c->nargs < 3 || c->args[2].kind != EX_FUNC)
				continue;
			const struct mfunc *ef = model_callee(m, c->args[2].func_usr, caller);
			bool unlocks = false;
			for (uint32_t i = 0; ef && i < ef->f->nevents; i++)
				if (ef->f->events[i].kind == EV_CALL &&
				    str_eq(ef->f->events[i].u.call->name, "rb_str_unlocktmp"))
					unlocks = true;
			if (!unlocks)
				continue;
			for (uint32_t i = 0; i < ei; i++)
				if (caller->f->events[i].kind == EV_CALL &&
				    str_eq(caller->f->events[i].u.call->name, "rb_str_locktmp"))
					return "rb_str_locktmp";
			for (uint32_t i = 0; i < mf->f->nevents; i++)
				if (mf->f->events[i].kind == EV_CALL &&
				    str_eq(mf->f->events[i].u.call->name, "rb_str_locktmp"))
					return "rb_str_locktmp";
		}
	}
	return NULL;
}

bool io_typed_data_expr(const struct mfunc *mf, const struct expr *x)
{
	if (x->kind == EX_CALL && x->call >= 0 && (uint32_t)x->call < mf->f->nevents &&
	    mf->f->events[x->call].kind == EV_CALL) {
		const struct src_entry *s = source_of(mf->f->events[x->call].u.call->name);
		if (s && s->kind == IOK_TYPED)
			return true;
	}
	return x->kind == EX_REF && object_member_kind(x->ref.record) == IOK_TYPED;
}

const char *io_typed_data_type(const struct mfunc *mf, const struct call *c)
{
	const struct expr *t = c->nargs >= 2 && str_eq(c->name, "rb_check_typeddata") ? &c->args[1] : NULL;
	const struct var *v = t && t->kind == EX_REF && t->ref.var >= 0 ? mf_var(mf, t->ref.var) : NULL;
	if (v && v->name && (!t->ref.path || !*t->ref.path))
		return v->name;
	return "DATA_PTR";
}

/* Is the variable at the root of o a pointer to typed data of some VALUE
 * (TypedData_Get_Struct, DATA_PTR ...)? */
bool root_is_typed_data(const struct mfunc *mf, int32_t var, uint32_t at)
{
	for (uint32_t i = 0; i < at && i < mf->f->nevents; i++) {
		const struct event *e = &mf->f->events[i];
		if (e->kind != EV_ASSIGN || e->u.assign->lhs.var != var || !ref_is_var(&e->u.assign->lhs))
			continue;
		const struct expr *x = &e->u.assign->rhs;
		if (x->kind == EX_CALL && x->call >= 0) {
			const struct src_entry *s = source_of(mf->f->events[x->call].u.call->name);
			if (s && s->kind == IOK_TYPED)
				return true;
		}
		if (x->kind == EX_REF && object_member_kind(x->ref.record) == IOK_TYPED)
			return true;
	}
	return false;
}

/* Is the variable at the root of o a parameter, or a local set from one
 * (struct args *a = (struct args *)p)? */
bool root_from_param(const struct mfunc *mf, int32_t var, uint32_t at)
{
	const struct var *v = mf_var(mf, var);
	if (!v)
		return false;
	if (v->kind == VK_PARAM)
		return true;
	for (uint32_t i = 0; i < at && i < mf->f->nevents; i++) {
		const struct event *e = &mf->f->events[i];
		if (e->kind != EV_ASSIGN || e->u.assign->lhs.var != var || !ref_is_var(&e->u.assign->lhs))
			continue;
		const struct expr *x = &e->u.assign->rhs;
		if (x->kind == EX_REF && x->ref.var != var) {
			const struct var *w = mf_var(mf, x->ref.var);
			if (w && w->kind == VK_PARAM)
				return true;
		}
	}
	return false;
}

/* o is an element of a local VALUE array (kw[0]) that an argument scanner
 * (rb_get_kwargs(opts, ids, req, opt, kw)) filled before `at`: a method
 * argument. Fills *r. */
static bool kwargs_out(const struct mfunc *mf, const struct ref *o, uint32_t at, struct cls *r)
{
	const struct var *v = mf_var(mf, o->var);
	if (!v || v->kind != VK_LOCAL || !(v->flags & VF_ARRAY) || !v->type || !strstr(v->type, "VALUE") || !o->path ||
	    !str_starts(o->path, "[]"))
		return false;
	for (uint32_t i = 0; i < at && i < mf->f->nevents; i++) {
		const struct event *e = &mf->f->events[i];
		if (e->kind != EV_CALL || !IN(e->u.call->name, arg_scanners))
			continue;
		for (uint32_t k = 0; k < e->u.call->nargs; k++) {
			const struct expr *a = &e->u.call->args[k];
			if (a->kind == EX_REF && a->ref.var == o->var && (!a->ref.path || !*a->ref.path)) {
				*r = (struct cls){.state = IOS_SHARED,
						  .why_fn = mf->f->name,
						  .arg = v->name,
						  .loc = e->loc,
						  .param = true};
				return true;
			}
		}
	}
	return false;
}

/* Local v, never assigned before `at`, set through its address
 * (rb_scan_args(argc, argv, "1", &str)): an argument (classify_var). */
static struct cls set_through_address(const struct func *f, const struct var *v, const struct ref *o, uint32_t at)
{
	struct cls r = {.state = IOS_UNKNOWN};
	for (uint32_t i = 0; i < at && i < f->nevents; i++) {
		const struct event *e = &f->events[i];
		if (e->kind != EV_CALL || source_of(e->u.call->name) || IN(e->u.call->name, passthrough))
			continue;
		for (uint32_t k = 0; k < e->u.call->nargs; k++)
			if (e->u.call->args[k].kind == EX_REF && e->u.call->args[k].ref.addr &&
			    ref_same(&e->u.call->args[k].ref, o)) {
				if (IN(e->u.call->name, arg_scanners))
					/* a method argument, held by the method frame */
					r = (struct cls){.state = IOS_SHARED,
							 .why_fn = f->name,
							 .arg = v->name,
							 .loc = e->loc,
							 .param = true};
				else
					r = (struct cls){.state = IOS_SHARED, .why = e->u.call->name, .loc = e->loc};
			}
	}
	return r;
}

/* o frozen or locked in place (rb_obj_freeze(o), rb_str_locktmp(o)) before
 * the release call rel: *r says so (classify_var). */
static void frozen_in_place(const struct func *f, const struct ref *o, uint32_t rel, struct cls *r)
{
	for (uint32_t i = 0; i < rel && i < f->nevents; i++) {
		const struct event *e = &f->events[i];
		if (e->kind != EV_CALL || !e->u.call->nargs)
			continue;
		struct ref a;
		if (!arg_ref(&e->u.call->args[0], &a) || !ref_same(&a, o))
			continue;
		if (is_call_named(e, inplace_freezers, ARRAY_SIZE(inplace_freezers)) && !e->u.call->result_used) {
			*r = (struct cls){.state = IOS_FROZEN, .why = e->u.call->name, .loc = e->loc};
			return;
		}
		if (str_eq(e->u.call->name, "rb_str_locktmp")) {
			*r = (struct cls){.state = IOS_LOCKED, .why = e->u.call->name, .loc = e->loc};
			return;
		}
	}
}

/* Region `region` is the branch where o is not frozen: the then-branch of
 * `!OBJ_FROZEN(o)` or the else-branch of `OBJ_FROZEN(o)` (`if
 * (!OBJ_FROZEN(s)) s = rb_str_new_frozen(s);`): on the other path o is. */
static bool unfrozen_branch(const struct func *f, int32_t region, const struct ref *o)
{
	if (region < 0 || (uint32_t)region >= f->nregions)
		return false;
	const struct region *rg = &f->regions[region];
	if (!((rg->kind == RG_THEN && rg->negated) || (rg->kind == RG_ELSE && !rg->negated)) || rg->cond.ncalls != 1 ||
	    rg->cond.calls[0] < 0 || (uint32_t)rg->cond.calls[0] >= f->nevents)
		return false;
	const struct event *ce = &f->events[rg->cond.calls[0]];
	struct ref a;
	return ce->kind == EV_CALL && ce->u.call->nargs == 1 &&
	       (str_eq(ce->u.call->name, "RB_OBJ_FROZEN") || str_eq(ce->u.call->name, "RB_OBJ_FROZEN_RAW") ||
		str_eq(ce->u.call->name, "rb_obj_frozen_p")) &&
	       arg_ref(&ce->u.call->args[0], &a) && ref_same(&a, o);
}

/* What o holds before any assignment to it (classify_var): a method
 * argument (argv[i], a rb_get_kwargs value, a parameter), what a call set
 * through its address, a member of typed data or of a parameter's struct. */
static struct cls initial_value(const struct model *m, const struct mfunc *mf, const struct var *v, const struct ref *o,
				uint32_t at, int depth)
{
	const struct func *f = mf->f;
	bool member = o->path && *o->path;
	struct cls r = {0};
	if (member && v->kind == VK_PARAM && (v->flags & (VF_POINTER | VF_ARRAY)) && v->type &&
	    strstr(v->type, "VALUE") && str_starts(o->path, "[]")) {
		/* argv[i] of a method taking (int argc, VALUE *argv, VALUE self) */
		r = (struct cls){.state = IOS_SHARED, .why_fn = f->name, .arg = v->name, .loc = v->loc, .param = true};
	} else if (member && kwargs_out(mf, o, at, &r)) {
		/* an element of the values array rb_get_kwargs filled: a method argument */
	} else if (member) {
		if (root_is_typed_data(mf, o->var, at))
			return (struct cls){.state = IOS_RECEIVER};
		if (root_from_param(mf, o->var, at)) {
			const char *lk = locked_by_caller(m, mf);
			r.state = lk ? IOS_LOCKED : IOS_UNKNOWN;
			r.why = lk;
		} else {
			r.state = IOS_UNKNOWN;
		}
	} else if (v->kind == VK_PARAM) {
		r = classify_param(m, mf, v, depth);
	} else {
		r = set_through_address(f, v, o, at);
	}
	return r;
}

struct cls classify_var(const struct model *m, const struct mfunc *mf, const struct ref *o, uint32_t at, uint32_t rel,
			int depth)
{
	struct cls r = {0};
	const struct var *v = mf_var(mf, o->var);
	if (!v || depth > 6)
		return (struct cls){.state = IOS_UNKNOWN};
	const struct func *f = mf->f;
	bool member = o->path && *o->path;
	int32_t at_region = f->nevents ? f->events[at < f->nevents ? at : f->nevents - 1].region : -1;
	/* assignments to exactly o before `at`, unless overwritten before `at` */
	int32_t first_assign = -1;
	bool any = false, dominated = false, frozen_else = true;
	for (uint32_t i = 0; i < at && i < f->nevents; i++) {
		const struct event *e = &f->events[i];
		if (e->kind != EV_ASSIGN || !ref_same(&e->u.assign->lhs, o))
			continue;
		bool later = false;
		for (uint32_t j = i + 1; j < at && j < f->nevents && !(o->path && strstr(o->path, "[]")); j++) {
			const struct event *e2 = &f->events[j];
			if (e2->kind == EV_ASSIGN && !e2->u.assign->compound && ref_same(&e2->u.assign->lhs, o) &&
			    region_encloses(f, e2->region, at_region)) {
				later = true;
				break;
			}
		}
		if (later)
			continue;
		any = true;
		/* on every path to `at` (its region encloses at's) */
		bool on_all = e->region < 0 || region_encloses(f, e->region, at_region);
		dominated = dominated || on_all;
		frozen_else = frozen_else && (on_all || unfrozen_branch(f, e->region, o));
		if (first_assign < 0)
			first_assign = (int32_t)i;
		struct cls c = classify_expr(m, mf, &e->u.assign->rhs, -1, i, depth);
		cls_worse(&r, &c);
	}
	if (!any) {
		r = initial_value(m, mf, v, o, at, depth);
		if (r.state == IOS_RECEIVER)
			return r;
	} else if (!dominated && !member && !frozen_else) {
		/* assigned only on some paths (`if (NIL_P(buf)) buf = rb_str_new(...)`):
		 * on the others o still holds the argument, or what a call set
		 * through its address (an uninitialised local holds nothing);
		 * unless those others are where o is frozen already */
		struct cls c = initial_value(m, mf, v, o, at, depth);
		if (v->kind == VK_PARAM || (c.state && c.state != IOS_UNKNOWN))
			cls_worse(&r, &c);
	}
	if (depth > 0 && r.state != IOS_FRESH)
		return r;
	/* frozen or locked in place before the release call */
	if (r.state >= IOS_UNKNOWN || r.state == 0)
		frozen_in_place(f, o, rel, &r);
	/* a fresh object shown to other code before the call */
	if (r.state == IOS_FRESH && first_assign >= 0) {
		for (uint32_t i = (uint32_t)first_assign + 1; i < rel && i < f->nevents; i++) {
			const struct event *e = &f->events[i];
			if (e->kind != EV_CALL)
				continue;
			for (uint32_t k = 0; k < e->u.call->nargs; k++) {
				if (!expr_mentions(&e->u.call->args[k], o) || !call_exposes(e->u.call, k))
					continue;
				return (struct cls){.state = IOS_EXPOSED, .why = e->u.call->name, .loc = e->loc};
			}
		}
	}
	return r;
}
