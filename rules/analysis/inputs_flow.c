/* inputs_flow.c: follows a release site's data back to the Ruby objects it points
 * into (inputs_flow.h), and the inputs/outputs offload gates built on that.
 *
 * The analysis is intra-procedural over the event list of the function that
 * fills the data, up to the release call, plus one hop into a helper that is
 * given the struct's address. It is flow-insensitive except for one rule: an
 * assignment is ignored when the same place is assigned again later on every
 * path to the release call (the later assignment's region encloses the call).
 */
#include "inputs_flow.h"

#include <stdlib.h>
#include <string.h>

#include "gates.h"
#include "gvlapi.h"
#include "knowledge.h"
#include "libmodel.h"

static const char *first_member(const struct mfunc *mf, const char *path);

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
struct src_entry {
	const char *name;
	int kind;
};
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

/* Store their last argument into a container (the first): the container then
 * keeps it alive. Source: Ruby 3.1 ruby/internal/intern/array.h, hash.h,
 * variable.h, struct.h. */
static const char *const container_stores[] = {
	"rb_ary_push", "rb_ary_store", "rb_ary_unshift", "rb_hash_aset", "rb_iv_set", "rb_ivar_set", "rb_struct_aset",
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

static const struct src_entry *source_of(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(sources); i++)
		if (strcmp(sources[i].name, name) == 0)
			return &sources[i];
	return NULL;
}

static bool in_table(const char *name, const char *const *t, size_t n)
{
	return name && str_in_sorted(name, t, n);
}
#define IN(name, t) in_table((name), (t), ARRAY_SIZE(t))

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

/* ---- small helpers ---- */

typedef VEC(struct ref) refvec;

static bool ref_is_var(const struct ref *r)
{
	return r->var >= 0 && (!r->path || !*r->path);
}

static bool region_encloses(const struct func *f, int32_t outer, int32_t inner)
{
	for (int32_t r = inner; r >= 0; r = f->regions[r].parent)
		if (r == outer)
			return true;
	return false;
}

/* The ref an argument names: the variable itself, or the one variable it
 * reads (StringValuePtr's `&(v)`, a cast). */
static bool arg_ref(const struct expr *a, struct ref *out)
{
	if (a->kind == EX_REF && a->ref.var >= 0) {
		*out = a->ref;
		out->addr = 0;
		return true;
	}
	if (a->kind != EX_CALL && a->nreads == 1 && a->reads[0].var >= 0) {
		*out = a->reads[0];
		out->addr = 0;
		return true;
	}
	return false;
}

static bool expr_mentions(const struct expr *a, const struct ref *r)
{
	if (a->kind == EX_REF && ref_same(&a->ref, r))
		return true;
	for (uint32_t i = 0; i < a->nreads; i++)
		if (ref_same(&a->reads[i], r))
			return true;
	return false;
}

/* The reads of x that are not inside the arguments of its direct calls. */
static void top_reads(const struct mfunc *mf, const struct expr *x, int32_t parent, refvec *out)
{
	uint8_t *used = x->nreads ? xcalloc(x->nreads, 1) : NULL;
	for (uint32_t k = 0; k < x->ncalls; k++) {
		int32_t ci = x->calls[k];
		if (ci < 0 || (uint32_t)ci >= mf->f->nevents)
			continue;
		const struct call *c = mf->f->events[ci].u.call;
		if (c->parent != parent)
			continue;
		for (uint32_t a = 0; a < c->nargs; a++)
			for (uint32_t r = 0; r < c->args[a].nreads; r++)
				for (uint32_t j = 0; j < x->nreads; j++)
					if (!used[j] && ref_same(&x->reads[j], &c->args[a].reads[r]) &&
					    str_eq(x->reads[j].path, c->args[a].reads[r].path)) {
						used[j] = 1;
						break;
					}
	}
	for (uint32_t j = 0; j < x->nreads; j++)
		if (!used[j])
			vec_push(out, x->reads[j]);
	free(used);
}

static const char *ref_name(const struct mfunc *mf, const struct ref *r)
{
	return ref_text(mf->tu, r);
}

/* ---- the flow ---- */

struct flow {
	const struct model *m;
	const struct mfunc *mf;
	uint32_t fn;
	uint32_t limit;     /* events [0, limit) */
	int32_t rel_region; /* region of the release call (kills) */
	refvec carriers;
	refvec values; /* VALUEs stored in the data */
	uint8_t *done;
	uint8_t *hopped;
	uint32_t cur; /* the assignment being followed */
	struct io_analysis *out;
	int depth;                 /* 0: the data function; 1: a helper */
	uint32_t hop_ev;           /* depth 1: the call into the helper, in the data function */
	int hop_param;             /* depth 1: the helper parameter that receives the struct */
	bool stack_root;           /* the data is (in) a local record on the stack */
	int hops;                  /* helper levels entered (a helper of a helper ...) */
	const struct flow *parent; /* depth 1: the flow that called into this helper */
};

/* Helpers followed below the data function: fill(&a, s) calling set_in(a, s)
 * is two. A carried pointer handed to a helper below the last level is not
 * followed: the data then counts as not followed (never as "no inputs"). */
#define MAX_HELPER_HOPS 3

static bool root_from_param(const struct mfunc *mf, int32_t var, uint32_t at);
static bool root_is_typed_data(const struct mfunc *mf, int32_t var, uint32_t at);

static bool carried(const struct flow *fl, const struct ref *r)
{
	for (size_t i = 0; i < fl->carriers.n; i++)
		if (ref_related(&fl->carriers.v[i], r))
			return true;
	return false;
}

/* Does an assignment to lhs change what carrier c holds? Yes when lhs is c or
 * inside it, or when lhs is a by-value struct holding c (a = b copies a.f).
 * Not when c is reached through a pointer below lhs: `p = q` says nothing
 * about the value p->f holds. */
static bool assigns_carrier(const struct flow *fl, const struct ref *lhs)
{
	for (size_t i = 0; i < fl->carriers.n; i++) {
		const struct ref *c = &fl->carriers.v[i];
		if (c->var < 0 || c->var != lhs->var)
			continue;
		if (ref_path_prefix(c->path, lhs->path))
			return true;
		if (ref_path_prefix(lhs->path, c->path) && !c->deref)
			return true;
	}
	return false;
}

static void add_carrier(struct flow *fl, const struct ref *r)
{
	for (size_t i = 0; i < fl->carriers.n; i++)
		if (ref_same(&fl->carriers.v[i], r))
			return;
	struct ref c = *r;
	c.addr = 0;
	vec_push(&fl->carriers, c);
	const struct var *v = mf_var(fl->mf, r->var);
	if (!v)
		return;
	if (v->kind == VK_LOCAL && (v->flags & VF_RECORD))
		fl->stack_root = true;
	if (fl->depth == 0 && !fl->out->from_caller && r->deref && r->path && *r->path && v->kind != VK_PARAM &&
	    root_from_param(fl->mf, r->var, fl->limit)) {
		fl->out->from_caller = 1;
		fl->out->from_caller_loc = v->loc;
		fl->out->from_caller_name = v->name;
	}
	if (v->kind == VK_PARAM && !(v->flags & VF_VALUE) && fl->depth == 0 && !fl->out->from_caller) {
		fl->out->from_caller = 1;
		fl->out->from_caller_ptr = 1;
		fl->out->from_caller_loc = v->loc;
		fl->out->from_caller_name = v->name;
		if (v->param_index < 0 && r->path && *r->path) { /* C++ this->m */
			fl->out->from_caller_member = r->path;
			/* `this` has no declaration: at the member as written, not at
			 * the method's first use of any member (this_var's place) */
			for (int32_t j = (int32_t)(fl->cur < fl->limit ? fl->cur : fl->limit - 1); j >= 0; j--) {
				const struct event *e = &fl->mf->f->events[j];
				if (e->kind == EV_ACCESS && ref_same(&e->u.access.ref, r)) {
					fl->out->from_caller_loc = e->loc;
					break;
				}
			}
		}
	}
}

static bool killed(const struct flow *fl, uint32_t at, const struct ref *lhs)
{
	const struct func *f = fl->mf->f;
	if (lhs->path && strstr(lhs->path, "[]"))
		return false; /* a[i] = x; a[n] = NULL: other elements */
	for (uint32_t j = at + 1; j < fl->limit; j++) {
		const struct event *e = &f->events[j];
		if (e->kind != EV_ASSIGN || e->u.assign->compound || !ref_same(&e->u.assign->lhs, lhs))
			continue;
		if (fl->rel_region >= 0 && region_encloses(f, e->region, fl->rel_region))
			return true;
	}
	return false;
}

static void add_input(struct flow *fl, uint32_t ev, int kind, const struct ref *owner, int32_t tmp_call,
		      const struct ref *dest)
{
	for (size_t i = 0; i < fl->out->in.n; i++)
		if (fl->out->in.v[i].fn == fl->fn && fl->out->in.v[i].ev == ev &&
		    (!owner || ref_same(&fl->out->in.v[i].owner_ref, owner)))
			return;
	const struct event *e = &fl->mf->f->events[ev];
	struct io_input in = {0};
	in.fn = fl->fn;
	in.ev = ev;
	in.kind = kind;
	in.what = e->macro && !e->in_macro_arg ? e->macro : e->kind == EV_CALL ? e->u.call->name : "?";
	in.owner_ref.var = -1;
	in.owner_ref.path = "";
	in.owner_call = tmp_call;
	if (owner) {
		in.owner_ref = *owner;
		in.owner_ref.addr = 0;
		in.owner = ref_name(fl->mf, owner);
	} else if (tmp_call >= 0) {
		in.temporary = 1;
		in.owner = fl->mf->f->events[tmp_call].u.call->name;
	}
	in.dest = dest && dest->var >= 0 ? ref_name(fl->mf, dest) : NULL;
	in.dest_loc = fl->mf->f->events[fl->cur < fl->limit ? fl->cur : ev].loc;
	in.helper = fl->depth == 1 ? fl->mf->f->name : NULL;
	in.rel_fn = -1;
	in.stop_fn = -1;
	/* a helper of a helper: the owner as the data function passes it down
	 * (prep(&s, src) -> set_in(s, src) -> RSTRING_PTR(src)) */
	if (fl->depth == 1 && fl->hops >= 2 && owner && ref_is_var(owner)) {
		const struct flow *f = fl;
		struct ref o = *owner;
		uint32_t at = 0;
		bool ok = true;
		while (ok && f->depth == 1 && f->parent) {
			const struct var *ov = mf_var(f->mf, o.var);
			const struct call *c = f->parent->mf->f->events[f->hop_ev].u.call;
			struct ref a;
			ok = ov && ov->kind == VK_PARAM && ref_is_var(&o) && ov->param_index >= 0 &&
			     (uint32_t)ov->param_index < c->nargs && arg_ref(&c->args[ov->param_index], &a);
			if (ok) {
				o = a;
				at = f->hop_ev;
				f = f->parent;
			}
		}
		if (ok && f->depth == 0) {
			in.mapped = 1;
			in.top_owner = o;
			in.top_at = at;
		} else {
			const struct var *ov = mf_var(fl->mf, owner->var);
			in.unmapped_param = ov && ov->kind == VK_PARAM;
			/* stopped at a local of a helper between (rb_value =
			 * rb_hash_aref(opts, ...)): judged there */
			const struct var *sv = f != fl ? mf_var(f->mf, o.var) : NULL;
			if (sv && sv->kind == VK_LOCAL && ref_is_var(&o)) {
				in.stop_fn = (int32_t)f->mf->id;
				in.stop_ref = o;
				in.stop_at = at;
			}
		}
	}
	vec_push(&fl->out->in, in);
}

static void flow_ret_hop(struct flow *fl, uint32_t ci, const struct ref *dest);

static void flow_call(struct flow *fl, int32_t ci, const struct ref *dest)
{
	if (ci < 0 || (uint32_t)ci >= fl->mf->f->nevents)
		return;
	const struct event *e = &fl->mf->f->events[ci];
	if (e->kind != EV_CALL)
		return;
	const struct call *c = e->u.call;
	const struct src_entry *src = source_of(c->name);
	if (!src) {
		/* p = prepare(str, ...): what the gem's helper returns is carried */
		flow_ret_hop(fl, (uint32_t)ci, dest);
		return;
	}
	if (!src || !c->nargs)
		return;
	/* RARRAY_AREF(ary, i) is RARRAY_CONST_PTR(ary)[i]: the element, a VALUE
	 * copied out, not a pointer into the array */
	if (src->kind == IOK_ARRAY && e->macro && !e->in_macro_arg &&
	    (str_eq(e->macro, "RARRAY_AREF") || str_eq(e->macro, "rb_ary_entry")))
		return;
	struct ref owner;
	int32_t tmp = -1;
	bool have = arg_ref(&c->args[0], &owner);
	if (!have && c->args[0].kind == EX_CALL)
		tmp = c->args[0].call;
	add_input(fl, (uint32_t)ci, src->kind, have ? &owner : NULL, tmp, dest);
}

/* A member access on a Ruby object struct (DATA_PTR(self) is RDATA(self)->data). */
static int object_member_kind(const char *record)
{
	if (!record)
		return 0;
	if (strcmp(record, "struct RData") == 0 || strcmp(record, "struct RTypedData") == 0)
		return IOK_TYPED;
	if (str_starts(record, "struct RString"))
		return IOK_STRING;
	if (str_starts(record, "struct RArray"))
		return IOK_ARRAY;
	return ruby_object_record(record) ? IOK_OBJECT : 0;
}

/* Synchronisation objects are shared on purpose (the lock and shared-state
 * gates judge them), not output buffers. */
static bool sync_type(const char *type)
{
	return type && (strstr(type, "pthread_") || strstr(type, "_cond") || strstr(type, "sem_t") ||
			strstr(type, "atomic") || strstr(type, "rb_nativethread"));
}

static void flow_ref(struct flow *fl, const struct ref *r, const struct ref *dest)
{
	const struct var *v = mf_var(fl->mf, r->var);
	if (!v)
		return;
	bool member = r->path && *r->path;
	if ((v->flags & VF_VALUE) && member) {
		int kind = object_member_kind(r->record);
		if (!kind)
			return;
		/* the access event of this member, at or before the current assignment */
		for (int32_t j = (int32_t)fl->cur; j >= 0; j--) {
			const struct event *e = &fl->mf->f->events[j];
			if (e->kind == EV_ACCESS && ref_same(&e->u.access.ref, r)) {
				struct ref owner = {.var = r->var, .path = ""};
				add_input(fl, (uint32_t)j, kind, &owner, -1, dest);
				break;
			}
		}
		return;
	}
	if (v->flags & VF_VALUE) {
		if (!member) {
			struct ref val = *r;
			val.addr = 0;
			vec_push(&fl->values, val);
		}
		return;
	}
	if ((v->kind == VK_GLOBAL || v->kind == VK_FILE_STATIC || v->kind == VK_LOCAL_STATIC) &&
	    !(v->flags & (VF_CONST | VF_MUTEX | VF_ATOMIC | VF_SIG_ATOMIC)) && !sync_type(v->type) &&
	    (r->addr || (v->flags & (VF_ARRAY | VF_RECORD)))) {
		for (size_t i = 0; i < fl->out->statics.n; i++)
			if (fl->out->statics.v[i].var == r->var && fl->out->statics.v[i].name == v->name)
				return;
		struct io_static st = {r->var, v->name, fl->mf->f->events[fl->cur < fl->limit ? fl->cur : 0].loc, NULL,
				       NULL};
		vec_push(&fl->out->statics, st);
		return;
	}
	/* a pointer kept in a global or static (a C++ static pointer member too):
	 * what it points to is reachable, replaceable and freeable by every fiber */
	if ((v->kind == VK_GLOBAL || v->kind == VK_FILE_STATIC || v->kind == VK_LOCAL_STATIC) && !member && !r->addr &&
	    (v->flags & VF_POINTER) &&
	    !(v->flags & (VF_CONST_POINTEE | VF_FNPTR | VF_TLS | VF_ATOMIC | VF_SYSTEM_HEADER | VF_RUBY_HEADER)) &&
	    !fl->out->global_ptr_name)
		fl->out->global_ptr_name = v->name, fl->out->global_ptr_loc = v->loc;
	if (member && r->deref && root_is_typed_data(fl->mf, r->var, fl->limit)) {
		bool seen = false;
		for (size_t i = 0; i < fl->out->objstate.n; i++)
			seen |= fl->out->objstate.v[i].var == r->var;
		if (!seen) {
			struct io_static st = {r->var, ref_name(fl->mf, r),
					       fl->mf->f->events[fl->cur < fl->limit ? fl->cur : 0].loc, v->record,
					       first_member(fl->mf, r->path)};
			vec_push(&fl->out->objstate, st);
		}
	}
	if (r->addr || member || (v->flags & (VF_POINTER | VF_ARRAY | VF_RECORD)))
		add_carrier(fl, r);
}

static void flow_expr(struct flow *fl, const struct expr *x, int32_t parent, const struct ref *dest)
{
	if (!x)
		return;
	if (x->kind == EX_CALL && x->call >= 0) {
		flow_call(fl, x->call, dest);
		return;
	}
	for (uint32_t k = 0; k < x->ncalls; k++) {
		int32_t ci = x->calls[k];
		if (ci >= 0 && (uint32_t)ci < fl->mf->f->nevents && fl->mf->f->events[ci].kind == EV_CALL &&
		    fl->mf->f->events[ci].u.call->parent == parent)
			flow_call(fl, ci, dest);
	}
	if (x->kind == EX_REF) {
		/* a VALUE parameter cast to a struct pointer (rb_ensure's argument) is
		 * data the caller filled */
		const struct var *v = mf_var(fl->mf, x->ref.var);
		if (v && v->kind == VK_PARAM && (v->flags & VF_VALUE) && x->cast && fl->depth == 0)
			fl->out->from_caller_cast = 1;
		if (v && v->kind == VK_PARAM && (v->flags & VF_VALUE) && x->cast && fl->depth == 0 &&
		    !fl->out->from_caller) {
			fl->out->from_caller = 1;
			fl->out->from_caller_loc = v->loc;
			fl->out->from_caller_name = v->name;
		}
		flow_ref(fl, &x->ref, dest);
		return;
	}
	refvec reads = {0};
	top_reads(fl->mf, x, parent, &reads);
	for (size_t i = 0; i < reads.n; i++)
		flow_ref(fl, &reads.v[i], dest);
	vec_free(&reads);
}

static void flow_run(struct flow *fl);

/* The flow one hop below fl, into the helper callee it calls at event ci,
 * carrying parameter param (-1: what the helper returns). */
static void flow_child(struct flow *h, struct flow *fl, const struct mfunc *callee, uint32_t ci, int param)
{
	memset(h, 0, sizeof(*h));
	h->m = fl->m;
	h->mf = callee;
	h->fn = callee->id;
	h->limit = callee->f->nevents;
	h->rel_region = -1;
	h->out = fl->out;
	h->depth = 1;
	h->hops = fl->hops + 1;
	h->parent = fl;
	h->hop_ev = ci;
	h->hop_param = param;
	h->stack_root = fl->stack_root;
}

/* One hop into a helper given the struct's address: fill_args(&a, str). */
static void flow_hop(struct flow *fl, uint32_t ci)
{
	const struct call *c = fl->mf->f->events[ci].u.call;
	const struct mfunc *callee = model_callee(fl->m, c->usr, fl->mf);
	if (!callee || callee->id == fl->fn)
		return;
	for (uint32_t k = 0; k < c->nargs && k < callee->f->nparams; k++) {
		const struct expr *a = &c->args[k];
		if (a->kind != EX_REF || !carried(fl, &a->ref))
			continue;
		const struct var *av = mf_var(fl->mf, a->ref.var);
		if (!a->ref.addr && !(av && (av->flags & VF_POINTER)))
			continue;
		struct flow h;
		flow_child(&h, fl, callee, ci, (int)k);
		struct ref root = {.var = callee->f->params[k], .path = ""};
		vec_push(&h.carriers, root);
		size_t first = fl->out->in.n;
		flow_run(&h);
		/* a helper-local VALUE stored into the struct stays with it */
		for (size_t i = first; i < fl->out->in.n; i++) {
			struct io_input *in = &fl->out->in.v[i];
			if (in->fn != callee->id || in->owner_ref.var < 0)
				continue;
			for (size_t j = 0; j < h.values.n; j++)
				if (ref_same(&h.values.v[j], &in->owner_ref))
					in->stored = 1;
		}
		vec_free(&h.carriers);
		vec_free(&h.values);
		free(h.done);
		free(h.hopped);
	}
}

/* A pointer the helper returns into a carrier (samples = prepare(list, &n)):
 * the helper is followed with the variables it returns as its carriers, so
 * pointers into Ruby objects it stores in the returned memory (its elements
 * included: s[i].data = RSTRING_PTR(e)) become inputs. A helper below the last
 * level is not followed: the data then counts as not followed. */
static void flow_ret_hop(struct flow *fl, uint32_t ci, const struct ref *dest)
{
	if (fl->mf->f->events[ci].kind != EV_CALL)
		return;
	const struct call *c = fl->mf->f->events[ci].u.call;
	if (!fl->hopped)
		fl->hopped = xcalloc(fl->mf->f->nevents + 1, 1);
	if (!c->usr || !model_func_by_usr(fl->m, c->usr) || (fl->hopped[ci] & 2))
		return;
	const struct mfunc *callee = model_callee(fl->m, c->usr, fl->mf);
	if (!callee || callee->id == fl->fn || !callee->f->ret_type || !strchr(callee->f->ret_type, '*'))
		return;
	fl->hopped[ci] |= 2; /* 1: followed through its arguments (flow_hop), 2: through its result */
	if (fl->hops >= MAX_HELPER_HOPS) {
		if (!fl->out->ret_unfollowed) {
			fl->out->ret_unfollowed = 1;
			fl->out->ret_loc = fl->mf->f->events[ci].loc;
			fl->out->ret_name = dest && dest->var >= 0 ? ref_name(fl->mf, dest) : c->name;
		}
		return;
	}
	struct flow h;
	flow_child(&h, fl, callee, ci, -1);
	h.done = xcalloc(callee->f->nevents + 1, 1);
	h.hopped = xcalloc(callee->f->nevents + 1, 1);
	size_t first = fl->out->in.n;
	for (uint32_t j = 0; j < callee->f->nevents; j++) {
		const struct event *e = &callee->f->events[j];
		if (e->kind != EV_RETURN || !e->u.ret)
			continue;
		h.cur = j;
		flow_expr(&h, e->u.ret, -1, NULL);
	}
	if (h.carriers.n)
		flow_run(&h);
	/* what the helper returns out of a pointer parameter (return s->buf;
	 * return p + 1) is the caller's argument: carried in the caller */
	for (size_t i = 0; i < h.carriers.n; i++) {
		const struct var *v = mf_var(callee, h.carriers.v[i].var);
		if (v && v->kind == VK_PARAM && !(v->flags & VF_VALUE) && v->param_index >= 0 &&
		    (uint32_t)v->param_index < c->nargs)
			flow_expr(fl, &c->args[v->param_index], (int32_t)ci, dest);
	}
	/* a pointer into a parameter of the helper (return StringValueCStr(str);
	 * *out = ...; StringValueCStr(*out)) is a pointer into the caller's
	 * argument: judged in the caller, at the call */
	for (size_t i = first; i < fl->out->in.n;) {
		struct io_input *in = &fl->out->in.v[i];
		const struct var *ov = in->fn == callee->id && in->owner_ref.var >= 0 && !in->mapped
					       ? mf_var(callee, in->owner_ref.var)
					       : NULL;
		struct ref a;
		if (!ov || ov->kind != VK_PARAM || ov->param_index < 0 || (uint32_t)ov->param_index >= c->nargs ||
		    (in->owner_ref.path && *in->owner_ref.path)) {
			i++;
			continue;
		}
		const struct expr *ax = &c->args[ov->param_index];
		int kind = in->kind;
		/* a VALUE * parameter owns nothing itself: the owner is *out */
		bool by_ref, deref = in->owner_ref.deref || !(ov->flags & VF_VALUE);
		if (deref) /* *out, given &v */
			by_ref = ax->kind == EX_REF && ax->ref.var >= 0 && ax->ref.addr;
		else
			by_ref = !(ax->kind == EX_REF && ax->ref.addr) && arg_ref(ax, &a);
		if (by_ref && deref) {
			a = ax->ref;
			a.addr = 0;
		}
		int32_t tmp = !deref && ax->kind == EX_CALL ? ax->call : -1;
		if (!by_ref && tmp < 0) {
			i++;
			continue;
		}
		/* drop the helper's input, add it at the call */
		fl->out->in.v[i] = fl->out->in.v[fl->out->in.n - 1];
		fl->out->in.n--;
		add_input(fl, ci, kind, by_ref ? &a : NULL, by_ref ? -1 : tmp, dest);
	}
	vec_free(&h.carriers);
	vec_free(&h.values);
	free(h.done);
	free(h.hopped);
}

/* p = &carried[i] or p = &carried->f: p points into carried memory, so what
 * is stored through p is carried too (sample = &samples[i]; sample->data = ...). */
static bool alias_of_carrier(const struct flow *fl, const struct event *e)
{
	const struct ref *lhs = &e->u.assign->lhs;
	const struct expr *x = &e->u.assign->rhs;
	if (!ref_is_var(lhs) || lhs->addr || x->kind != EX_REF || !x->ref.addr || !carried(fl, &x->ref))
		return false;
	const struct var *v = mf_var(fl->mf, lhs->var);
	return v && v->kind == VK_LOCAL && (v->flags & VF_POINTER);
}

static void flow_run(struct flow *fl)
{
	const struct func *f = fl->mf->f;
	if (!fl->done)
		fl->done = xcalloc(f->nevents + 1, 1);
	if (!fl->hopped)
		fl->hopped = xcalloc(f->nevents + 1, 1);
	bool changed = true;
	unsigned rounds = 0;
	while (changed && rounds++ < 32) {
		changed = false;
		for (uint32_t i = 0; i < fl->limit; i++) {
			const struct event *e = &f->events[i];
			if (e->kind == EV_ASSIGN && !fl->done[i] && alias_of_carrier(fl, e)) {
				fl->done[i] = 1;
				changed = true;
				add_carrier(fl, &e->u.assign->lhs);
			} else if (e->kind == EV_ASSIGN && !fl->done[i]) {
				const struct ref *lhs = &e->u.assign->lhs;
				if (lhs->var < 0 || !assigns_carrier(fl, lhs) || killed(fl, i, lhs))
					continue;
				fl->done[i] = 1;
				changed = true;
				fl->cur = i;
				flow_expr(fl, &e->u.assign->rhs, -1, lhs);
			} else if (e->kind == EV_CALL && !(fl->hopped[i] & 1) && (fl->depth == 0 || fl->depth == 1) &&
				   e->u.call->usr && model_func_by_usr(fl->m, e->u.call->usr)) {
				bool any = false;
				for (uint32_t k = 0; k < e->u.call->nargs; k++)
					if (e->u.call->args[k].kind == EX_REF && carried(fl, &e->u.call->args[k].ref))
						any = true;
				if (!any)
					continue;
				fl->hopped[i] |= 1;
				changed = true;
				if (fl->hops >= MAX_HELPER_HOPS) {
					if (!fl->out->from_caller) {
						fl->out->from_caller = 1;
						fl->out->from_caller_loc = e->loc;
						fl->out->from_caller_name = e->u.call->name;
					}
					continue;
				}
				flow_hop(fl, i);
			}
		}
	}
}

/* ---- classification ---- */

struct cls {
	int state;          /* 0: neutral (a constant, Qnil) */
	bool held;          /* read out of a container that keeps it alive */
	const char *why;    /* deciding call */
	const char *why_fn; /* function whose argument it is */
	const char *arg;    /* that argument's name */
	struct loc loc;
	bool param; /* an unassigned parameter */
};

static void cls_worse(struct cls *acc, const struct cls *c)
{
	if (c->state > acc->state)
		*acc = *c;
}

static struct cls classify_var(const struct model *m, const struct mfunc *mf, const struct ref *o, uint32_t at,
			       uint32_t rel, int depth);

static struct cls classify_expr(const struct model *m, const struct mfunc *mf, const struct expr *x, int32_t parent,
				uint32_t at, int depth);

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
static struct cls classify_expr(const struct model *m, const struct mfunc *mf, const struct expr *x, int32_t parent,
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
/* Is the function's address taken anywhere (rb_define_method(c, "m", fn, 1),
 * an ops table, a function pointer)? Then it has callers the call graph does
 * not show: Ruby's calls into a method are not edges. */
/* The first member of a path ("stream.avail_in" -> "stream"), in mf's TU
 * arena; NULL for none. */
static const char *first_member(const struct mfunc *mf, const char *path)
{
	if (!path || !*path)
		return NULL;
	size_t k = strcspn(path, ".[");
	return k ? arena_printf(&mf->tu->arena, "%.*s", (int)k, path) : NULL;
}

static bool address_taken(const struct model *m, const struct mfunc *mf)
{
	(void)m;
	return mf->address_taken;
}

static bool x_reads(const struct expr *x, int32_t var)
{
	if (x->kind == EX_REF && x->ref.var == var)
		return true;
	for (uint32_t k = 0; k < x->nreads; k++)
		if (x->reads[k].var == var)
			return true;
	return false;
}

/* x is exactly a call through parameter variable pv (r = fn(a, b)): its
 * read of pv is the call's callee, whose arguments the call event shows. */
static bool calls_param(const struct mfunc *g, const struct expr *x, int32_t pv)
{
	if (x->kind != EX_CALL || x->call < 0 || (uint32_t)x->call >= g->f->nevents)
		return false;
	const struct event *e = &g->f->events[x->call];
	if (e->kind != EV_CALL || !e->u.call->indirect)
		return false;
	const struct expr *ce = &e->u.call->callee;
	if (ce->kind != EX_REF || ce->ref.var != pv || (ce->ref.path && *ce->ref.path))
		return false;
	for (uint32_t k = 0; k < e->u.call->nargs; k++)
		if (x_reads(&e->u.call->args[k], pv))
			return false;
	return true;
}

/* Is parameter index p of g only ever called (`func(conn, name)`): never
 * stored, passed on, returned or its address taken? */
static bool param_only_called(const struct mfunc *g, uint32_t p)
{
	if (p >= g->f->nparams)
		return false;
	int32_t pv = g->f->params[p];
	for (uint32_t i = 0; i < g->f->nevents; i++) {
		const struct event *e = &g->f->events[i];
		if (e->kind == EV_CALL) {
			for (uint32_t k = 0; k < e->u.call->nargs; k++)
				if (x_reads(&e->u.call->args[k], pv))
					return false;
		} else if (e->kind == EV_ASSIGN) {
			if (e->u.assign->lhs.var == pv ||
			    (x_reads(&e->u.assign->rhs, pv) && !calls_param(g, &e->u.assign->rhs, pv)))
				return false;
		} else if (e->kind == EV_RETURN) {
			if (e->u.ret && x_reads(e->u.ret, pv) && !calls_param(g, e->u.ret, pv))
				return false;
		} else if (e->kind == EV_ACCESS) {
			if (e->u.access.ref.var == pv && (e->u.access.mode & (ACC_ADDR | ACC_WRITE)))
				return false;
		}
	}
	return true;
}

#define PARAM_CALLERS_MAX 64

/* A function whose address is taken only to be handed to the gem's own
 * functions, each of which does nothing with that parameter but call it
 * (ruby-pg: pgconn_sync_describe_close_prepared_portal(self, name,
 * gvl_PQdescribePortal) runs func(this->pgconn, stmt)): its callers are those
 * parameter calls, made on a path through a caller that passes it (the
 * linker's param_via entries). Anything else (stored, bound to a field, given
 * to a library function or an indirect call, more than PARAM_CALLERS_MAX
 * uses): false, the callers are not all known. */
static bool taken_only_for_param_calls(const struct model *m, const struct mfunc *mf)
{
	if (!mf->f->usr || !*mf->f->usr)
		return false;
	for (size_t t = 0; t < m->ntus; t++)
		for (size_t i = 0; i < m->tus[t]->bindings.n; i++)
			if (str_eq(m->tus[t]->bindings.v[i].fn_usr, mf->f->usr))
				return false;
	unsigned uses = 0;
	for (uint32_t fi = 0; fi < m->fns.n; fi++) {
		const struct func *f = m->fns.v[fi].f;
		for (uint32_t ei = 0; ei < f->nevents; ei++) {
			const struct event *e = &f->events[ei];
			if (e->kind == EV_ASSIGN) {
				if (e->u.assign->rhs.kind == EX_FUNC && str_eq(e->u.assign->rhs.func_usr, mf->f->usr))
					return false;
				continue;
			}
			if (e->kind != EV_CALL)
				continue;
			const struct call *c = e->u.call;
			for (uint32_t k = 0; k < c->nargs; k++) {
				if (c->args[k].kind != EX_FUNC || !str_eq(c->args[k].func_usr, mf->f->usr))
					continue;
				if (++uses > PARAM_CALLERS_MAX || c->indirect || !c->usr)
					return false;
				const struct mfunc *g = model_callee(m, c->usr, &m->fns.v[fi]);
				if (!g || g == mf || !(g->f->flags & FN_STATIC) || !param_only_called(g, k)) {
					return false;
				}
				bool via = false;
				for (size_t v = 0; v < m->param_via.n && !via; v++)
					via = m->param_via.v[v].from == g->id &&
					      m->param_via.v[v].to == (int32_t)mf->id && m->param_via.v[v].caller == fi;
				if (!via) {
					return false;
				}
			}
		}
	}
	return uses > 0;
}

static struct cls classify_param(const struct model *m, const struct mfunc *mf, const struct var *v, int depth)
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

/* Is the variable at the root of o a pointer to typed data of some VALUE
 * (TypedData_Get_Struct, DATA_PTR ...)? */
static bool root_is_typed_data(const struct mfunc *mf, int32_t var, uint32_t at)
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
static bool root_from_param(const struct mfunc *mf, int32_t var, uint32_t at)
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

static struct cls classify_var(const struct model *m, const struct mfunc *mf, const struct ref *o, uint32_t at,
			       uint32_t rel, int depth)
{
	struct cls r = {0};
	const struct var *v = mf_var(mf, o->var);
	if (!v || depth > 6)
		return (struct cls){.state = IOS_UNKNOWN};
	const struct func *f = mf->f;
	bool member = o->path && *o->path;
	/* assignments to exactly o before `at`, unless overwritten before `at` */
	int32_t first_assign = -1;
	bool any = false;
	for (uint32_t i = 0; i < at && i < f->nevents; i++) {
		const struct event *e = &f->events[i];
		if (e->kind != EV_ASSIGN || !ref_same(&e->u.assign->lhs, o))
			continue;
		bool later = false;
		for (uint32_t j = i + 1; j < at && j < f->nevents && !(o->path && strstr(o->path, "[]")); j++) {
			const struct event *e2 = &f->events[j];
			if (e2->kind == EV_ASSIGN && !e2->u.assign->compound && ref_same(&e2->u.assign->lhs, o) &&
			    region_encloses(f, e2->region, f->events[at < f->nevents ? at : f->nevents - 1].region)) {
				later = true;
				break;
			}
		}
		if (later)
			continue;
		any = true;
		if (first_assign < 0)
			first_assign = (int32_t)i;
		struct cls c = classify_expr(m, mf, &e->u.assign->rhs, -1, i, depth);
		cls_worse(&r, &c);
	}
	if (!any) {
		if (member && v->kind == VK_PARAM && (v->flags & (VF_POINTER | VF_ARRAY)) && v->type &&
		    strstr(v->type, "VALUE") && str_starts(o->path, "[]")) {
			/* argv[i] of a method taking (int argc, VALUE *argv, VALUE self) */
			r = (struct cls){.state = IOS_SHARED,
					 .why_fn = f->name,
					 .arg = v->name,
					 .loc = v->loc,
					 .param = true};
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
			/* set through its address (rb_scan_args(argc, argv, "1", &str)): an argument */
			r.state = IOS_UNKNOWN;
			for (uint32_t i = 0; i < at && i < f->nevents; i++) {
				const struct event *e = &f->events[i];
				if (e->kind != EV_CALL || source_of(e->u.call->name) ||
				    IN(e->u.call->name, passthrough))
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
							r = (struct cls){.state = IOS_SHARED,
									 .why = e->u.call->name,
									 .loc = e->loc};
					}
			}
		}
	}
	if (depth > 0 && r.state != IOS_FRESH)
		return r;
	/* frozen or locked in place before the release call */
	if (r.state >= IOS_UNKNOWN || r.state == 0) {
		for (uint32_t i = 0; i < rel && i < f->nevents; i++) {
			const struct event *e = &f->events[i];
			if (e->kind != EV_CALL || !e->u.call->nargs)
				continue;
			struct ref a;
			if (!arg_ref(&e->u.call->args[0], &a) || !ref_same(&a, o))
				continue;
			if (is_call_named(e, inplace_freezers, ARRAY_SIZE(inplace_freezers)) &&
			    !e->u.call->result_used) {
				r = (struct cls){.state = IOS_FROZEN, .why = e->u.call->name, .loc = e->loc};
				break;
			}
			if (str_eq(e->u.call->name, "rb_str_locktmp")) {
				r = (struct cls){.state = IOS_LOCKED, .why = e->u.call->name, .loc = e->loc};
				break;
			}
		}
	}
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

/* ---- keeping the owner alive ---- */

static bool is_guard_event(const struct event *e)
{
	return e->macro && (strcmp(e->macro, "RB_GC_GUARD") == 0 || strcmp(e->macro, "RUBY_GC_GUARD") == 0);
}

static int alive_after(const struct mfunc *mf, const struct ref *o, uint32_t rel, struct loc *guard_before,
		       uint32_t from)
{
	const struct func *f = mf->f;
	int best = IOA_NO;
	for (uint32_t i = rel + 1; i < f->nevents; i++) {
		const struct event *e = &f->events[i];
		if (e->kind != EV_ACCESS || !(e->u.access.mode & (ACC_READ | ACC_ADDR)) ||
		    !ref_same(&e->u.access.ref, o))
			continue;
		if (is_guard_event(e))
			return IOA_GUARD;
		best = IOA_USE;
	}
	if (best != IOA_NO)
		return best;
	/* read again on a retry path: the release call is in a loop whose body
	 * (or condition) reads the owner before the call */
	for (int32_t lr = rel < f->nevents ? f->events[rel].region : -1, n = 0;
	     lr >= 0 && (uint32_t)lr < f->nregions && n < 64; lr = f->regions[lr].parent, n++) {
		if (f->regions[lr].kind != RG_LOOP)
			continue;
		for (uint32_t i = 0; i < rel; i++) {
			const struct event *e = &f->events[i];
			if (e->kind != EV_ACCESS || !(e->u.access.mode & ACC_READ) || !ref_same(&e->u.access.ref, o))
				continue;
			for (int32_t r = e->region, k = 0; r >= 0 && (uint32_t)r < f->nregions && k < 64;
			     r = f->regions[r].parent, k++)
				if (r == lr)
					return IOA_USE;
		}
	}
	/* read again after a retry label the call can jump back to
	 * (`retry: ... call ...; if (again) goto retry;`) */
	uint32_t roff = rel < f->nevents ? f->events[rel].loc.off : 0;
	for (uint32_t r = 0; rel < f->nevents && r < f->nregions; r++) {
		const struct region *rg = &f->regions[r];
		if (rg->kind != RG_RETRY || rg->begin > roff || roff >= rg->end)
			continue;
		for (uint32_t i = 0; i < rel; i++) {
			const struct event *e = &f->events[i];
			if (e->kind == EV_ACCESS && (e->u.access.mode & ACC_READ) && ref_same(&e->u.access.ref, o) &&
			    e->loc.off >= rg->begin && e->loc.off < roff)
				return IOA_USE;
		}
	}
	/* stored into an array or hash before the call (fiddle's converted_args) */
	for (uint32_t i = 0; i < rel && i < f->nevents; i++) {
		const struct event *e = &f->events[i];
		if (e->kind != EV_CALL || !IN(e->u.call->name, container_stores))
			continue;
		for (uint32_t k = 1; k < e->u.call->nargs; k++)
			if (expr_mentions(&e->u.call->args[k], o))
				return IOA_HELD;
	}
	for (uint32_t i = from; i < rel && i < f->nevents; i++) {
		const struct event *e = &f->events[i];
		if (e->kind == EV_ACCESS && ref_same(&e->u.access.ref, o) && is_guard_event(e)) {
			*guard_before = e->loc;
			break;
		}
	}
	return IOA_NO;
}

/* A method argument is held by the method's frame for the whole call (as
 * self is, design.md), when Ruby is the only caller: the function has no
 * direct C callers. Unless StringValue* converted it without a type check
 * first: to_str's result then replaces the argument, and only the C local
 * holds it (mysql2 PR #1504). */
/* A VALUE parameter that mf neither assigns nor lends before event `before`:
 * it still holds what the caller passed. */
static bool param_untouched(const struct mfunc *mf, int32_t var, uint32_t before)
{
	for (uint32_t i = 0; i < before && i < mf->f->nevents; i++) {
		const struct event *e = &mf->f->events[i];
		if (e->kind == EV_ACCESS && e->u.access.ref.var == var && (e->u.access.mode & (ACC_WRITE | ACC_ADDR)))
			return false;
		if (e->kind == EV_ASSIGN && e->u.assign->lhs.var == var)
			return false;
		if (e->kind == EV_CALL)
			for (uint32_t j = 0; j < e->u.call->nargs; j++) {
				const struct expr *a = &e->u.call->args[j];
				if (a->kind == EX_REF && a->ref.var == var && a->ref.addr)
					return false;
				for (uint32_t r = 0; r < a->nreads; r++)
					if (a->reads[r].var == var && a->reads[r].addr)
						return false;
			}
	}
	return true;
}

#define CALLER_DEPTH 5

/* path: the functions on the way up from the releasing one (a caller already
 * on it closes a cycle that every entry into it is checked at, so only the
 * argument it passes matters) */
static int caller_temp(const struct model *m, const struct mfunc *mf, int32_t param_index, uint32_t *path,
		       unsigned depth)
{
	if (param_index < 0)
		return 0;
	path[depth] = mf->id;
	for (uint32_t k = mf->in_begin; k < mf->in_end; k++) {
		uint32_t ei = m->in_edges.v[k];
		const struct edge *ed = &m->edges.v[ei];
		if (ed->kind != EDGE_DIRECT)
			continue;
		const struct mfunc *cf = &m->fns.v[ed->from];
		bool on_path = false;
		for (unsigned d = 0; d <= depth; d++)
			on_path = on_path || path[d] == cf->id;
		if (!on_path && depth + 1 >= CALLER_DEPTH)
			return (int)ei + 1; /* too deep: not proved */
		const struct event *ce = &cf->f->events[ed->ev];
		if (ce->kind != EV_CALL || (uint32_t)param_index >= ce->u.call->nargs)
			return (int)ei + 1;
		const struct expr *a = &ce->u.call->args[param_index];
		const struct var *av =
			a->kind == EX_REF && !a->ref.addr && !a->ref.deref && (!a->ref.path || !*a->ref.path)
				? mf_var(cf, a->ref.var)
				: NULL;
		if (!av || av->kind != VK_PARAM || !(av->flags & (VF_VALUE | VF_POINTER)) ||
		    !param_untouched(cf, a->ref.var, ed->ev))
			return (int)ei + 1;
		if (!on_path && caller_temp(m, cf, av->param_index, path, depth + 1))
			return (int)ei + 1;
	}
	return 0;
}

int io_param_caller_temp(const struct model *m, const struct mfunc *mf, int32_t param_index)
{
	uint32_t path[CALLER_DEPTH];
	return caller_temp(m, mf, param_index, path, 0) - 1;
}

const struct event *io_helper_converts(const struct model *m, const struct mfunc *mf, uint32_t ev,
				       const struct mfunc **helper)
{
	const struct event *e = ev < mf->f->nevents ? &mf->f->events[ev] : NULL;
	if (!e || e->kind != EV_CALL || e->u.call->indirect)
		return NULL;
	const struct mfunc *h = model_callee(m, e->u.call->usr, mf);
	if (!h || h == mf)
		return NULL;
	for (uint32_t i = 0; i < h->f->nevents; i++) {
		const struct event *he = &h->f->events[i];
		if (he->kind != EV_CALL || !he->u.call->nargs ||
		    (!str_eq(he->u.call->name, "rb_string_value_ptr") &&
		     !str_eq(he->u.call->name, "rb_string_value_cstr") && !str_eq(he->u.call->name, "rb_string_value")))
			continue;
		struct ref a;
		const struct var *pv = arg_ref(&he->u.call->args[0], &a) ? mf_var(h, a.var) : NULL;
		if (pv && pv->kind == VK_PARAM && (pv->flags & VF_VALUE) && (!a.path || !*a.path)) {
			if (helper)
				*helper = h;
			return he;
		}
	}
	return NULL;
}

/* The parameter a local copied from an argument stands for (query = argv[0]:
 * argv), by the name classify recorded; -1. */
static int32_t param_named(const struct mfunc *mf, const char *name)
{
	for (uint32_t i = 0; name && i < mf->f->nparams; i++) {
		const struct var *pv = mf_var(mf, mf->f->params[i]);
		if (pv && str_eq(pv->name, name))
			return pv->param_index;
	}
	return -1;
}

static bool frame_holds(const struct model *m, const struct mfunc *mf, const struct ref *o, const struct cls *c,
			uint32_t src, uint32_t rel)
{
	const struct var *v = mf_var(mf, o->var);
	if (!v || !c->param)
		return false;
	/* C callers may pass temporaries; one that passes its own untouched
	 * argument (a method calling another method's function, argv handed
	 * on) passes what a frame up the chain holds */
	int32_t pidx = v->kind == VK_PARAM ? v->param_index : param_named(mf, c->arg);
	if (pidx < 0) {
		for (uint32_t k = mf->in_begin; k < mf->in_end; k++)
			if (m->edges.v[m->in_edges.v[k]].kind == EDGE_DIRECT)
				return false;
	} else if (io_param_caller_temp(m, mf, pidx) >= 0)
		return false;
	bool converts = false, checked = false;
	const struct event *se = &mf->f->events[src];
	if (se->kind == EV_CALL &&
	    (str_eq(se->u.call->name, "rb_string_value_ptr") || str_eq(se->u.call->name, "rb_string_value_cstr") ||
	     str_eq(se->u.call->name, "rsock_sockaddr_string_value_ptr")))
		converts = true;
	/* a helper of the gem that converts its own parameter (ruby-pg
	 * pg_cstr_enc: StringValueCStr(str)): the #to_str result is that
	 * helper's local */
	if (io_helper_converts(m, mf, src, NULL))
		converts = true;
	for (uint32_t i = 0; i < rel && i < mf->f->nevents; i++) {
		const struct event *e = &mf->f->events[i];
		if (e->kind != EV_CALL || !e->u.call->nargs)
			continue;
		struct ref a;
		if (!arg_ref(&e->u.call->args[0], &a) || !ref_same(&a, o))
			continue;
		/* FilePathValue is rb_get_path (#to_path), SockAddrStringValue is
		 * rsock_sockaddr_string_value (an Addrinfo's sockaddr): conversions too */
		if (str_eq(e->u.call->name, "rb_string_value") || str_eq(e->u.call->name, "rb_str_to_str") ||
		    str_eq(e->u.call->name, "rb_get_path") || str_eq(e->u.call->name, "rsock_sockaddr_string_value") ||
		    str_eq(e->u.call->name, "rsock_sockaddr_string_value_with_addrinfo"))
			converts = true;
		/* a String from here on: later conversions keep it (but StringValue
		 * itself is a conversion) */
		if (i < src && (str_eq(e->u.call->name, "Check_Type") || str_eq(e->u.call->name, "rb_check_type") ||
				str_eq(e->u.call->name, "rb_check_typeddata")))
			checked = true;
	}
	return !converts || checked;
}

/* ---- the analysis ---- */

bool io_release_event(const struct model *m, const struct msite *s, uint32_t *fn, uint32_t *ev)
{
	*fn = s->data_fn;
	if (s->fn == s->data_fn) {
		*ev = s->ev;
		return true;
	}
	const struct msite *in = s;
	unsigned guard = 0;
	while (in->inner >= 0 && guard++ < 64) {
		in = &m->sites.v[in->inner];
		if (in->fn == s->data_fn) {
			*ev = in->ev;
			return true;
		}
	}
	return false;
}

bool io_first_for_data(const struct model *m, const struct msite *s)
{
	uint32_t fn, ev;
	if (!io_release_event(m, s, &fn, &ev))
		return false;
	/* sites through a wrapper that builds its own struct differ by caller */
	bool per_caller = m->fns.v[fn].wrapper >= 0 && s->inner >= 0 && s->fn != fn;
	for (size_t i = 0; i < m->sites.n; i++) {
		const struct msite *o = &m->sites.v[i];
		if (o == s)
			return true;
		uint32_t ofn, oev;
		if (io_release_event(m, o, &ofn, &oev) && ofn == fn && oev == ev && (!per_caller || o->fn == s->fn))
			return false;
	}
	return true;
}

static bool expr_empty(const struct expr *x)
{
	return !x || x->kind == EX_NULL || x->kind == EX_INT || x->kind == EX_STRING || x->kind == EX_FUNC;
}

/* Follows the expressions xs of the call at (cf, ev) that hands mf its data:
 * the pointers found there are judged in cf, against that call. Returns
 * whether the data found there is itself rooted at a parameter of cf (filled
 * by code further up, not followed). */
struct hop_at {
	uint32_t from, ev;
};
static bool hop_call(const struct model *m, const struct mfunc *mf, struct io_analysis *out, const struct mfunc *cf,
		     const struct hop_at *edp, const struct expr *const *xs, unsigned nx)
{
	const struct hop_at *ed = edp;
	struct flow h = {0};
	h.m = m;
	h.mf = cf;
	h.fn = cf->id;
	h.limit = ed->ev;
	h.rel_region = cf->f->events[ed->ev].region;
	h.out = out;
	h.depth = 2;
	h.cur = ed->ev;
	size_t first = out->in.n;
	for (unsigned p = 0; p < nx; p++)
		flow_expr(&h, xs[p], (int32_t)ed->ev, NULL);
	flow_run(&h);
	for (size_t i = first; i < out->in.n; i++) {
		struct io_input *in = &out->in.v[i];
		in->via = mf->f->name;
		in->rel_fn = (int32_t)cf->id;
		in->rel_ev = ed->ev;
		struct cls c = {0};
		const struct mfunc *sf = &m->fns.v[in->fn];
		if (sf != cf) {
			/* found in a helper of cf (a returned pointer) and not mapped
			 * to cf: a local of that helper, judged there */
			if (in->owner_ref.var >= 0)
				c = classify_var(m, sf, &in->owner_ref, in->ev, sf->f->nevents, 0);
			const struct var *hv = in->owner_ref.var >= 0 ? mf_var(sf, in->owner_ref.var) : NULL;
			in->helper_local = hv ? hv->name : NULL;
			in->state = c.state ? c.state : IOS_UNKNOWN;
			in->why = c.why;
			in->why_fn = c.why_fn;
			in->why_arg = c.arg;
			in->why_loc = c.loc;
			if (in->kind == IOK_TYPED)
				in->state = IOS_RECEIVER;
			in->alive = c.held && !in->temporary ? IOA_HELD : IOA_NO;
			continue;
		}
		if (in->owner_ref.var >= 0) {
			c = classify_var(m, cf, &in->owner_ref, in->ev, ed->ev, 0);
		} else if (in->owner_call >= 0) {
			struct expr one = {0};
			one.kind = EX_CALL;
			one.call = in->owner_call;
			c = classify_expr(m, cf, &one, -1, in->ev, 0);
		}
		in->state = c.state ? c.state : IOS_UNKNOWN;
		in->why = c.why;
		in->why_fn = c.why_fn;
		in->why_arg = c.arg;
		in->why_loc = c.loc;
		in->owner_param = c.param;
		const struct var *ov = in->owner_ref.var >= 0 ? mf_var(cf, in->owner_ref.var) : NULL;
		if (in->kind == IOK_TYPED) {
			in->state = IOS_RECEIVER;
			in->alive = ov && ov->kind == VK_PARAM ? IOA_HELD
				    : ov ? alive_after(cf, &in->owner_ref, ed->ev, &in->guard_before, in->ev)
					 : IOA_HELD;
		} else if (in->temporary) {
			in->alive = IOA_NO;
		} else if (!ov || (in->owner_ref.path && *in->owner_ref.path)) {
			in->alive = IOA_HELD;
		} else {
			in->alive = alive_after(cf, &in->owner_ref, ed->ev, &in->guard_before, in->ev);
			if (in->alive == IOA_NO && frame_holds(m, cf, &in->owner_ref, &c, in->ev, ed->ev))
				in->alive = IOA_HELD;
		}
		if (in->alive == IOA_NO && c.held && !in->temporary)
			in->alive = IOA_HELD;
	}
	bool rooted = false;
	for (size_t i = 0; i < h.carriers.n && !rooted; i++) {
		const struct var *v = mf_var(cf, h.carriers.v[i].var);
		rooted = v && (v->kind == VK_PARAM || root_from_param(cf, h.carriers.v[i].var, ed->ev));
	}
	vec_free(&h.carriers);
	vec_free(&h.values);
	free(h.done);
	free(h.hopped);
	return rooted;
}

/* One hop up: pointer parameters of the data function stored in the data
 * (static void *run(const char *p) { a.p = p; rb_nogvl(...); }, ruby-pg's
 * gvl_PQexec stubs) are followed into each direct caller's argument. The
 * pointers found there are judged in the caller, against the call. Release
 * wrappers are not followed (their callers are sites of their own). */
static void caller_hop(const struct model *m, const struct msite *s, const struct mfunc *mf, struct flow *fl,
		       struct io_analysis *out)
{
	if (!out->from_caller_ptr || s->is_template)
		return;
	/* a release wrapper that builds its own struct from its parameters: each
	 * of its call sites is a site of its own; follow only that call */
	bool only_this = mf->wrapper >= 0;
	if (only_this && (s->inner < 0 || s->fn == mf->id))
		return;
	int params[16];
	unsigned np = 0;
	for (size_t i = 0; i < fl->carriers.n && np < ARRAY_SIZE(params); i++) {
		const struct var *v = mf_var(mf, fl->carriers.v[i].var);
		if (v && v->kind == VK_PARAM && !(v->flags & VF_VALUE) && v->param_index >= 0)
			params[np++] = v->param_index;
	}
	if (!np)
		return;
	/* called only through function-pointer parameters of the gem's own
	 * functions: those calls are its callers */
	bool by_param = !only_this && address_taken(m, mf) && taken_only_for_param_calls(m, mf);
	bool all = only_this || (mf->in_begin < mf->in_end && (!address_taken(m, mf) || by_param));
	for (uint32_t k = mf->in_begin; k < mf->in_end; k++) {
		const struct edge *ed = &m->edges.v[m->in_edges.v[k]];
		if (ed->kind != EDGE_DIRECT && !(by_param && ed->kind == EDGE_PARAM)) {
			all = false;
			continue;
		}
		if (only_this && (ed->from != s->fn || ed->ev != s->ev))
			continue;
		const struct mfunc *cf = &m->fns.v[ed->from];
		if (cf == mf)
			continue;
		const struct call *call = cf->f->events[ed->ev].u.call;
		const struct expr *xs[16];
		unsigned nx = 0;
		for (unsigned p = 0; p < np; p++)
			if ((uint32_t)params[p] < call->nargs)
				xs[nx++] = &call->args[params[p]];
		struct hop_at at = {ed->from, ed->ev};
		hop_call(m, mf, out, cf, &at, xs, nx);
	}
	if (all && out->from_caller_ptr && out->from_caller && !out->from_caller_cast) {
		/* every caller was followed */
		out->from_caller = 0;
	}
}

/* The data function is the body of rb_ensure/rb_protect/rb_rescue (its
 * VALUE parameter cast to the data struct): follow the data argument of every
 * such call into the function that makes it. When every reference to the body
 * is one of these calls and none of them passes data that is itself a
 * parameter of its caller, the data is no longer "from the caller". */
static void ensure_hop(const struct model *m, const struct msite *s, const struct mfunc *mf, struct io_analysis *out)
{
	/* the function run and its data argument: rb_ensure(body, data, ...),
	 * rb_mutex_synchronize(mutex, body, data) */
	static const struct {
		const char *name;
		unsigned fn, data;
	} bodies[] = {
		{"rb_ensure", 0, 1}, {"rb_mutex_synchronize", 1, 2}, {"rb_protect", 0, 1},
		{"rb_rescue", 0, 1}, {"rb_rescue2", 0, 1},
	};
	if (!out->from_caller_cast || s->is_template || !mf->f->usr)
		return;
	unsigned found = 0, refs = 0, hops = 0;
	bool rooted = false;
	for (uint32_t k = 0; k < m->fns.n; k++) {
		const struct mfunc *cf = &m->fns.v[k];
		for (uint32_t ei = 0; ei < cf->f->nevents; ei++) {
			const struct event *e = &cf->f->events[ei];
			if (e->kind != EV_CALL || e->u.call->indirect)
				continue;
			const struct call *c = e->u.call;
			for (uint32_t a = 0; a < c->nargs; a++)
				if (c->args[a].kind == EX_FUNC && str_eq(c->args[a].func_usr, mf->f->usr))
					refs++;
			int b = -1;
			for (size_t k2 = 0; k2 < ARRAY_SIZE(bodies) && b < 0; k2++)
				if (str_eq(c->name, bodies[k2].name))
					b = (int)k2;
			if (b < 0 || c->nargs <= bodies[b].data || c->args[bodies[b].fn].kind != EX_FUNC ||
			    !str_eq(c->args[bodies[b].fn].func_usr, mf->f->usr))
				continue;
			found++;
			if (cf == mf || ++hops > 8)
				continue;
			const struct expr *xs[1] = {&c->args[bodies[b].data]};
			struct hop_at at = {k, ei};
			rooted = hop_call(m, mf, out, cf, &at, xs, 1) || rooted;
		}
	}
	bool direct = false;
	for (uint32_t k = mf->in_begin; k < mf->in_end; k++)
		direct = direct || m->edges.v[m->in_edges.v[k]].kind == EDGE_DIRECT;
	if (found && found == refs && hops == found && !rooted && !direct) {
		out->from_caller = 0;
		out->from_caller_cast = 0;
	}
}

/* The local va_list data expression x hands the callback, or NULL. */
static const struct var *va_list_data(const struct mfunc *mf, const struct expr *x)
{
	if (!x)
		return NULL;
	const struct ref *r = x->kind == EX_REF ? &x->ref : x->nreads == 1 ? &x->reads[0] : NULL;
	if (!r || r->var < 0 || (r->path && *r->path))
		return NULL;
	const struct var *v = mf_var(mf, r->var);
	if (!v || v->kind != VK_LOCAL || !v->type)
		return NULL;
	return strstr(v->type, "va_list") ? v : NULL;
}

/* A variadic release wrapper that hands the callback its own va_list
 * (`va_start(va, fn); rb_thread_call_without_gvl(fn, &va, ...)`: ruby-extzstd's
 * aux_thread_call_without_gvl): the callback's data is the variadic arguments
 * of each call of the wrapper, which the callback takes with va_arg. At a call
 * site of the wrapper they are followed in the caller, as any pointer stored in
 * the data; in the wrapper itself they are the callers' (not followed). */
static void va_hop(const struct model *m, const struct msite *s, const struct mfunc *mf, struct io_analysis *out)
{
	const struct var *va = va_list_data(mf, s->data1);
	if (!va)
		va = va_list_data(mf, s->data2);
	if (!va)
		return;
	if (s->fn == mf->id || s->is_template) {
		if (!out->from_caller) {
			out->from_caller = 1;
			out->from_caller_loc = va->loc;
			out->from_caller_name = va->name;
		}
		return;
	}
	const struct mfunc *cf = &m->fns.v[s->fn];
	const struct event *ce = &cf->f->events[s->ev];
	if (ce->kind != EV_CALL)
		return;
	const struct call *c = ce->u.call;
	const struct expr *xs[16];
	unsigned nx = 0;
	for (uint32_t k = mf->f->nparams; k < c->nargs && nx < ARRAY_SIZE(xs); k++)
		xs[nx++] = &c->args[k];
	if (c->nargs > mf->f->nparams + ARRAY_SIZE(xs) && !out->from_caller) {
		/* more than followed: say so rather than pass on a part */
		out->from_caller = 1;
		out->from_caller_loc = ce->loc;
		out->from_caller_name = va->name;
	}
	struct hop_at at = {s->fn, s->ev};
	if (nx && hop_call(m, mf, out, cf, &at, xs, nx) && !out->from_caller) {
		out->from_caller = 1;
		out->from_caller_loc = ce->loc;
		out->from_caller_name = va->name;
	}
}

void io_analyse(const struct model *m, const struct msite *s, struct io_analysis *out)
{
	memset(out, 0, sizeof(*out));
	out->s = s;
	uint32_t fn, rel;
	if (!io_release_event(m, s, &fn, &rel)) {
		out->from_caller = 1;
		out->from_caller_loc = s->loc;
		return;
	}
	out->fn = fn;
	out->rel = rel;
	if (expr_empty(s->data1) && expr_empty(s->data2)) {
		out->no_data = 1;
		return;
	}
	const struct mfunc *mf = &m->fns.v[fn];

	struct flow fl = {0};
	fl.m = m;
	fl.mf = mf;
	fl.fn = fn;
	fl.limit = rel;
	fl.rel_region = mf->f->events[rel].region;
	fl.out = out;
	fl.cur = rel;
	flow_expr(&fl, s->data1, (int32_t)rel, NULL);
	flow_expr(&fl, s->data2, (int32_t)rel, NULL);
	flow_run(&fl);

	/* classify and check liveness */
	for (size_t i = 0; i < out->in.n; i++) {
		struct io_input *in = &out->in.v[i];
		in->alive = IOA_NO;
		const struct mfunc *sf = &m->fns.v[in->fn];
		struct cls c = {0};
		bool in_helper = in->fn != fn;
		struct ref owner = in->owner_ref;
		const struct mfunc *of = sf; /* function the owner ref belongs to */
		uint32_t at = in->ev;
		if (in_helper && in->mapped) {
			owner = in->top_owner;
			of = mf;
			at = in->top_at;
			in->owner = ref_name(mf, &owner);
		} else if (in_helper && owner.var >= 0) {
			const struct var *ov = mf_var(sf, owner.var);
			if (ov && ov->kind == VK_PARAM && ref_is_var(&owner) && ov->param_index >= 0) {
				/* map the helper's parameter to the caller's argument */
				uint32_t hop = 0;
				bool found = false;
				for (uint32_t e = 0; e < rel; e++)
					if (fl.hopped && fl.hopped[e] && mf->f->events[e].kind == EV_CALL &&
					    str_eq(mf->f->events[e].u.call->usr, sf->f->usr)) {
						hop = e;
						found = true;
					}
				/* a helper of a helper: its parameter is judged from its
				 * own callers (classify_param) */
				const struct call *hc = found ? mf->f->events[hop].u.call : NULL;
				if (hc && (uint32_t)ov->param_index < hc->nargs) {
					const struct expr *ax = &hc->args[ov->param_index];
					struct ref a;
					if (ax->kind == EX_CALL) {
						owner.var = -1;
						in->owner_call = ax->call;
						in->temporary = 1;
						in->owner = mf->f->events[ax->call].u.call->name;
						c = classify_expr(m, mf, ax, (int32_t)hop, hop, 0);
					} else if (arg_ref(ax, &a)) {
						owner = a;
						of = mf;
						at = hop;
						in->owner = ref_name(mf, &a);
					}
				}
			} else if (ov && ref_is_var(&owner)) {
				in->helper_local = ov->name;
			}
		}
		if (owner.var >= 0 && !c.state)
			c = classify_var(m, of, &owner, at, of == mf ? rel : of->f->nevents, 0);
		else if (owner.var < 0 && in->owner_call >= 0 && !c.state) {
			struct expr one = {0};
			one.kind = EX_CALL;
			one.call = in->owner_call;
			c = classify_expr(m, sf, &one, -1, in->ev, 0);
		} else if (owner.var < 0 && !c.state)
			c.state = IOS_UNKNOWN;
		in->state = c.state ? c.state : IOS_UNKNOWN;
		in->why = c.why;
		in->why_fn = c.why_fn;
		in->why_arg = c.arg;
		in->why_loc = c.loc;
		in->owner_param = c.param;
		/* typed data is the object's own C struct: never "unfrozen" (other
		 * fibers using the same object is the offload gate's "cannot verify") */
		bool typed_of_param = false;
		if (in->kind == IOK_TYPED) {
			typed_of_param = c.param || in->state == IOS_SHARED || in->state == IOS_UNKNOWN;
			in->state = IOS_RECEIVER;
		}

		/* alive? */
		const struct var *ovar = owner.var >= 0 ? mf_var(of, owner.var) : NULL;
		if (in->kind == IOK_TYPED && typed_of_param && ovar && ovar->kind == VK_PARAM)
			in->alive = IOA_HELD; /* the receiver or another argument: the caller holds it */
		else if (in->temporary)
			in->alive = IOA_NO;
		else if (in->stored)
			in->alive = fl.stack_root ? IOA_STRUCT : IOA_NO;
		else if (in->unmapped_param) {
			/* not traced to the data function: alive only when the local it
			 * stops at was read out of a container the caller holds */
			in->alive = IOA_NO;
			if (in->stop_fn >= 0) {
				const struct mfunc *stf = &m->fns.v[in->stop_fn];
				struct cls sc = classify_var(m, stf, &in->stop_ref, in->stop_at, in->stop_at, 0);
				if (sc.held)
					in->alive = IOA_HELD;
			}
		} else if (in->helper_local)
			in->alive = IOA_NO;
		else if (!ovar)
			in->alive = IOA_HELD;
		else if (owner.path && *owner.path) {
			in->alive = IOA_HELD;
		} else if (of != mf) {
			in->alive = IOA_HELD;
		} else {
			bool in_struct = false;
			for (size_t j = 0; j < fl.values.n; j++)
				if (ref_same(&fl.values.v[j], &owner))
					in_struct = true;
			/* the owner is a field of the data struct itself */
			if (in_struct && fl.stack_root)
				in->alive = IOA_STRUCT;
			else
				in->alive = alive_after(mf, &owner, rel, &in->guard_before, at);
			if (in->alive == IOA_NO && frame_holds(m, mf, &owner, &c, in->fn == fn ? in->ev : at, rel))
				in->alive = IOA_HELD;
		}
		/* read out of a hash, array or ivar: the container keeps it */
		if (in->alive == IOA_NO && c.held && !in->temporary)
			in->alive = IOA_HELD;
		if (in->alive == IOA_NO && ovar && owner.path && *owner.path)
			in->alive = IOA_HELD;
	}
	caller_hop(m, s, mf, &fl, out);
	ensure_hop(m, s, mf, out);
	va_hop(m, s, mf, out);
	/* members of the data struct as owners (RSTRING_PTR(a.keep)) */
	for (size_t i = 0; i < out->in.n; i++) {
		struct io_input *in = &out->in.v[i];
		if (in->fn != fn || in->owner_ref.var < 0 || !in->owner_ref.path || !*in->owner_ref.path)
			continue;
		if (carried(&fl, &in->owner_ref) && fl.stack_root)
			in->alive = IOA_STRUCT;
	}
	vec_free(&fl.carriers);
	vec_free(&fl.values);
	free(fl.done);
	free(fl.hopped);
}

void io_free(struct io_analysis *a)
{
	vec_free(&a->in);
	vec_free(&a->statics);
	vec_free(&a->objstate);
}

/* ---- the offload gates ---- */

static bool field_ref(const struct ref *r, const char *rec, const char *field)
{
	return r->var >= 0 && r->deref && str_eq(r->field, field) && str_eq(r->path, field) && str_eq(r->record, rec);
}

/* Does field `field` of object struct `rec` hold a pointer, as far as the
 * gem shows: copied into a pointer variable (PGconn *c = this->pgconn), or
 * passed to a pointer parameter of the gem's own function? Member types are
 * not in the facts; a field only ever read as a number is not a pointer. */
static bool field_pointer_like(const struct model *m, const char *rec, const char *field)
{
	if (!rec || !field)
		return false;
	for (uint32_t fi = 0; fi < m->fns.n; fi++) {
		const struct mfunc *mf = &m->fns.v[fi];
		for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
			const struct event *e = &mf->f->events[ei];
			if (e->kind == EV_ASSIGN) {
				const struct assign *as = e->u.assign;
				if (as->rhs.kind != EX_REF || !field_ref(&as->rhs.ref, rec, field) ||
				    !ref_is_var(&as->lhs))
					continue;
				const struct var *lv = mf_var(mf, as->lhs.var);
				if (lv && (lv->flags & VF_POINTER))
					return true;
			} else if (e->kind == EV_CALL && e->u.call->usr) {
				const struct call *c = e->u.call;
				const struct mfunc *g = NULL;
				for (uint32_t k = 0; k < c->nargs; k++) {
					if (c->args[k].kind != EX_REF || !field_ref(&c->args[k].ref, rec, field))
						continue;
					if (!g)
						g = model_callee(m, c->usr, mf);
					if (!g || k >= g->f->nparams)
						break;
					const struct var *pv = mf_var(g, g->f->params[k]);
					if (pv && (pv->flags & VF_POINTER))
						return true;
				}
			}
		}
	}
	return false;
}

void gate_check_inputs(const struct model *m, const struct msite *s, const struct reach_set *rs, struct gate_result *g)
{
	(void)rs;
	struct io_analysis a;
	io_analyse(m, s, &a);
	/* every "cannot verify" names what is missing (missing_fact) */
	if (a.from_caller && a.from_caller_member) {
		/* C++: a member of the object the method runs on; whoever holds
		 * that object (other fibers too) can use or free it meanwhile */
		char nm[256];
		snprintf(nm, sizeof nm, "%s->%s", a.from_caller_name ? a.from_caller_name : "this",
			 a.from_caller_member);
		gate_fact(gate_add(g, GATE_INPUTS, GATE_UNKNOWN, a.from_caller_loc.line ? &a.from_caller_loc : &s->loc,
				   -1,
				   "the callback's data holds '%s', a member of the object the method runs on, "
				   "which its callers own and other fibers may reach: cannot verify its inputs",
				   nm),
			  FACT_DATA, nm);
	} else if (a.from_caller)
		gate_fact(gate_add(g, GATE_INPUTS, GATE_UNKNOWN, a.from_caller_loc.line ? &a.from_caller_loc : &s->loc,
				   -1,
				   "the callback's data comes from the caller ('%s'), which is not followed: cannot "
				   "verify "
				   "its inputs",
				   a.from_caller_name ? a.from_caller_name : "?"),
			  FACT_DATA, a.from_caller_name ? a.from_caller_name : io_callback_name(m, s));
	if (a.global_ptr_name)
		gate_fact(gate_add(g, GATE_INPUTS, GATE_UNKNOWN, &a.global_ptr_loc, -1,
				   "the callback's data holds what the global or static pointer '%s' points to: every "
				   "fiber can reach, replace or free it meanwhile: cannot verify its inputs",
				   a.global_ptr_name),
			  FACT_DATA, a.global_ptr_name);
	if (a.ret_unfollowed)
		gate_fact(
			gate_add(g, GATE_INPUTS, GATE_UNKNOWN, &a.ret_loc, -1,
				 "'%s' is a pointer a helper returns from below the last level followed: cannot verify "
				 "what it points to",
				 a.ret_name ? a.ret_name : "?"),
			FACT_DATA, a.ret_name ? a.ret_name : io_callback_name(m, s));
	for (size_t i = 0; i < a.objstate.n; i++) {
		struct gate_evidence *ev =
			gate_add(g, GATE_INPUTS, GATE_UNKNOWN, &a.objstate.v[i].loc, -1,
				 "'%s' is state kept in a Ruby object's C struct; other fibers can use "
				 "that object during the call unless an in-progress guard stops them: "
				 "cannot verify",
				 a.objstate.v[i].name);
		ev->object_owned = true;
		/* the object-state part judges the field's guard when it holds a
		 * pointer (a handle, a buffer); a number copied out of the object
		 * is not shared with the callback */
		if (field_pointer_like(m, a.objstate.v[i].rec, a.objstate.v[i].field)) {
			ev->obj_rec = a.objstate.v[i].rec;
			ev->obj_field = a.objstate.v[i].field;
		}
		gate_fact(ev, FACT_DATA, a.objstate.v[i].name);
	}
	for (size_t i = 0; i < a.in.n; i++) {
		const struct io_input *in = &a.in.v[i];
		const struct event *e = &m->fns.v[in->fn].f->events[in->ev];
		if (io_unfrozen(in))
			gate_add(g, GATE_INPUTS, GATE_FAIL, &e->loc, -1,
				 "'%s' hands the callback a pointer into %s '%s', which other code can modify during "
				 "the call",
				 in->what, io_kind_noun(in->kind), in->owner ? in->owner : "?");
		else if (in->state == IOS_RECEIVER) {
			struct gate_evidence *ev = gate_add(
				g, GATE_INPUTS, GATE_UNKNOWN, &e->loc, -1,
				"'%s' hands the callback memory owned by '%s'; other fibers can use that object "
				"during the call unless an in-progress guard stops them: cannot verify",
				in->what, in->owner ? in->owner : "?");
			ev->object_owned = true;
			gate_fact(ev, FACT_DATA, in->owner ? in->owner : in->what);
		} else if (in->state == IOS_UNKNOWN)
			gate_fact(gate_add(g, GATE_INPUTS, GATE_UNKNOWN, &e->loc, -1,
					   "'%s' hands the callback a pointer into '%s', whose origin is not followed: "
					   "cannot "
					   "verify it is frozen, copied or locked",
					   in->what, in->owner ? in->owner : "?"),
				  FACT_DATA, in->owner ? in->owner : in->what);
		if (io_not_alive(in))
			gate_add(g, GATE_INPUTS, GATE_FAIL, &e->loc, -1,
				 "nothing keeps '%s' alive past the call while the callback uses its memory",
				 in->owner ? in->owner : "?");
	}
	io_free(&a);
}

void gate_check_outputs(const struct model *m, const struct msite *s, const struct reach_set *rs, struct gate_result *g)
{
	(void)rs;
	struct io_analysis a;
	io_analyse(m, s, &a);
	for (size_t i = 0; i < a.statics.n; i++)
		gate_add(g, GATE_OUTPUTS, GATE_FAIL, &a.statics.v[i].loc, -1,
			 "'%s' is a static buffer handed to the callback: every call, and every fiber, shares it",
			 a.statics.v[i].name);
	io_free(&a);
}

/* ---- shared reporting helpers ---- */

const char *io_callback_name(const struct model *m, const struct msite *s)
{
	if (s->cb.ntargets)
		return m->fns.v[s->cb.targets[0]].f->name;
	if (s->cb.nexternal)
		return s->cb.external[0];
	return s->cb.text ? s->cb.text : "?";
}

/* ---- where a library handle comes from (io_handle_origin) ---- */

#define HANDLE_DEPTH 6
#define HANDLE_STEPS 20000 /* events and callers looked at, all paths together */

struct hflow {
	const struct model *m;
	struct io_handle *out;
	unsigned steps;
};

static void handle_worse(struct hflow *h, int origin, const struct mfunc *mf, const char *name, const struct loc *loc)
{
	struct io_handle *o = h->out;
	/* OBJECT > UNKNOWN > OWNED; the first of equals names it */
	int rank_new = origin == IOH_OBJECT ? 2 : origin == IOH_UNKNOWN ? 1 : 0;
	int rank_old = !o->name ? -1 : o->origin == IOH_OBJECT ? 2 : o->origin == IOH_UNKNOWN ? 1 : 0;
	if (rank_new <= rank_old)
		return;
	o->origin = origin;
	o->name = name && *name ? name : "?";
	o->fn = mf ? mf->f->name : NULL;
	if (loc)
		o->loc = *loc;
}

static bool handle_budget(struct hflow *h, unsigned n)
{
	h->steps += n;
	return h->steps <= HANDLE_STEPS;
}

/* Is variable var of mf (a pointer) set from a Ruby object's C struct before
 * `at`: TypedData_Get_Struct, DATA_PTR, or a function of the gem that returns
 * one (pg_get_connection_safe(self))? */
static bool var_typed_data(struct hflow *h, const struct mfunc *mf, int32_t var, uint32_t at, int depth)
{
	if (root_is_typed_data(mf, var, at))
		return true;
	if (depth > 2)
		return false;
	for (uint32_t i = 0; i < at && i < mf->f->nevents; i++) {
		const struct event *e = &mf->f->events[i];
		if (e->kind != EV_ASSIGN || e->u.assign->lhs.var != var || !ref_is_var(&e->u.assign->lhs))
			continue;
		const struct expr *x = &e->u.assign->rhs;
		if (x->kind != EX_CALL || x->call < 0 || (uint32_t)x->call >= mf->f->nevents)
			continue;
		const struct call *c = mf->f->events[x->call].u.call;
		const struct mfunc *g = c->usr ? model_callee(h->m, c->usr, mf) : NULL;
		if (!g || g == mf || !handle_budget(h, g->f->nevents))
			continue;
		bool all = false;
		for (uint32_t k = 0; k < g->f->nevents; k++) {
			const struct event *r = &g->f->events[k];
			if (r->kind != EV_RETURN || !r->u.ret)
				continue;
			const struct expr *rx = r->u.ret;
			if (io_typed_data_expr(g, rx) || (rx->kind == EX_REF && ref_is_var(&rx->ref) &&
							  var_typed_data(h, g, rx->ref.var, k, depth + 1)))
				all = true;
			else
				return false;
		}
		if (all)
			return true;
	}
	return false;
}

/* Is pointer parameter v of mf an object's C struct in every caller: each
 * direct caller passes a variable taken out of a typed/data object there (or
 * its own such parameter, two levels up)? hiredis_read(self) takes
 * `connection` out of self and hands it to hiredis_read_internal, whose
 * connection->context is then the object's state. */
static bool param_typed_data(struct hflow *h, const struct mfunc *mf, const struct var *v, int depth)
{
	if (depth > 2 || v->kind != VK_PARAM || v->param_index < 0 || !(v->flags & VF_POINTER) ||
	    !(mf->f->flags & FN_STATIC) || mf->address_taken)
		return false;
	unsigned callers = 0;
	for (uint32_t k = mf->in_begin; k < mf->in_end; k++) {
		const struct edge *ed = &h->m->edges.v[h->m->in_edges.v[k]];
		if (ed->kind != EDGE_DIRECT)
			return false;
		if (!handle_budget(h, 1))
			return false;
		const struct mfunc *cf = &h->m->fns.v[ed->from];
		const struct call *c = cf->f->events[ed->ev].u.call;
		if ((uint32_t)v->param_index >= c->nargs || cf == mf)
			return false;
		const struct expr *a = &c->args[v->param_index];
		if (a->kind != EX_REF || !ref_is_var(&a->ref) || a->ref.addr)
			return false;
		const struct var *av = mf_var(cf, a->ref.var);
		if (!av || !(var_typed_data(h, cf, a->ref.var, ed->ev, 0) || param_typed_data(h, cf, av, depth + 1)))
			return false;
		callers++;
	}
	return callers > 0;
}

static bool is_ruby_call_name(const char *n)
{
	return n &&
	       (str_starts(n, "rb_") || str_starts(n, "RB_") || str_starts(n, "ruby_") || str_starts(n, "rbimpl_"));
}

bool io_makes_handle(const struct mfunc *mf, int32_t ev)
{
	if (ev < 0 || (uint32_t)ev >= mf->f->nevents || mf->f->events[ev].kind != EV_CALL)
		return false;
	const struct call *c = mf->f->events[ev].u.call;
	if (c->indirect)
		return false;
	if (str_eq(c->name, "malloc") || str_eq(c->name, "calloc"))
		return true;
	const struct lib_model *lm = model_find(c->name);
	return lm && lm->thread_safe == LM_TS_ALWAYS;
}

/* Does the handle in local or parameter `var` of mf (or the local struct
 * holding it, whole = true) leave the frame: stored anywhere but a plain local
 * or a member of a local struct, handed to Ruby (other than the release call
 * itself, which is the point), to a call that also takes a function
 * (pthread_create ...), or to a gem function that lets it escape in turn? */
static bool handle_escapes(struct hflow *h, const struct mfunc *mf, int32_t var, bool whole, int depth)
{
	const struct func *f = mf->f;
	if (depth > 8 || !handle_budget(h, f->nevents))
		return true;
	struct ref self = {.var = var, .path = ""};
	for (uint32_t i = 0; i < f->nevents; i++) {
		const struct event *e = &f->events[i];
		if (e->kind == EV_ASSIGN) {
			const struct assign *as = e->u.assign;
			if (as->lhs.var == var)
				continue; /* a store into the handle or struct itself */
			/* the value itself (not a call's result computed from it) */
			bool mentions = false;
			if (as->rhs.kind != EX_CALL) {
				refvec rd = {0};
				top_reads(mf, &as->rhs, -1, &rd);
				for (size_t k = 0; k < rd.n && !mentions; k++)
					mentions = rd.v[k].var == var && (whole || !rd.v[k].path || !*rd.v[k].path);
				vec_free(&rd);
			}
			if (!mentions)
				continue;
			const struct var *lv = mf_var(mf, as->lhs.var);
			if (!lv || lv->kind != VK_LOCAL || as->lhs.deref)
				return true;
			/* into another local, or a member of a local struct: follow it */
			if (handle_escapes(h, mf, as->lhs.var, as->lhs.path && *as->lhs.path, depth + 1))
				return true;
			continue;
		}
		if (e->kind != EV_CALL)
			continue;
		const struct call *c = e->u.call;
		int32_t at = -1;
		bool passed = false, byaddr = false, bare = false;
		for (uint32_t k = 0; k < c->nargs; k++) {
			const struct expr *a = &c->args[k];
			bool m = expr_mentions(a, &self);
			for (uint32_t r = 0; !m && whole && r < a->nreads; r++)
				m = a->reads[r].var == var;
			if (!m)
				continue;
			passed = true;
			at = (int32_t)k;
			if (a->kind == EX_REF && a->ref.addr)
				byaddr = true;
			/* the struct itself (or its address), not a member's value */
			if (!(a->kind == EX_REF && a->ref.var == var && a->ref.path && *a->ref.path && !a->ref.addr))
				bare = true;
		}
		if (!passed)
			continue;
		if (gvl_api_find(c->name))
			continue; /* the release: the callback gets it, under this frame */
		if (byaddr && !whole)
			return true; /* &handle: whoever gets it can replace or keep it */
		if (c->indirect || is_ruby_call_name(c->name))
			return true;
		for (uint32_t k = 0; k < c->nargs; k++)
			if (c->args[k].kind == EX_FUNC)
				return true;
		const struct mfunc *g = c->usr ? model_callee(h->m, c->usr, mf) : NULL;
		if (!g) {
			if (whole && bare)
				return true; /* a library function given the struct: not followed */
			continue;            /* a library call given the handle: it uses it under this frame */
		}
		if (g == mf || at < 0 || (uint32_t)at >= g->f->nparams)
			return true;
		if (handle_escapes(h, g, g->f->params[at], whole && bare, depth + 1))
			return true;
	}
	return false;
}

static void handle_value(struct hflow *h, const struct mfunc *mf, const struct expr *x, uint32_t at, int depth);

/* Every value variable var of mf holds at `at`. */
static void handle_var(struct hflow *h, const struct mfunc *mf, const struct ref *r, uint32_t at, int depth)
{
	const struct var *v = mf_var(mf, r->var);
	const char *name = ref_name(mf, r);
	struct loc loc = mf->f->loc;
	if (!v) {
		handle_worse(h, IOH_UNKNOWN, mf, name, &loc);
		return;
	}
	loc = v->loc;
	bool member = r->path && *r->path;
	if (member) {
		/* a field of a Ruby object's C struct (this->pgconn, ptr->ctx) */
		if (r->deref && (var_typed_data(h, mf, r->var, at, 0) || param_typed_data(h, mf, v, 0))) {
			bool first = h->out->origin != IOH_OBJECT || !h->out->name;
			handle_worse(h, IOH_OBJECT, mf, name, &loc);
			if (first && h->out->origin == IOH_OBJECT) {
				h->out->rec = v->record;
				h->out->field = first_member(mf, r->path);
			}
			return;
		}
		/* a member of a local struct: the stores to that member */
		if (!r->deref && v->kind == VK_LOCAL) {
			bool any = false;
			for (uint32_t i = 0; i < at && i < mf->f->nevents; i++) {
				const struct event *e = &mf->f->events[i];
				if (e->kind != EV_ASSIGN || e->u.assign->lhs.var != r->var ||
				    !str_eq(e->u.assign->lhs.path, r->path) || e->u.assign->whole_init)
					continue;
				any = true;
				handle_value(h, mf, &e->u.assign->rhs, i, depth + 1);
			}
			if (any)
				return;
		}
		handle_worse(h, IOH_UNKNOWN, mf, name, &loc);
		return;
	}
	if (v->kind == VK_PARAM) {
		if ((v->flags & VF_VALUE) || v->param_index < 0) {
			handle_worse(h, IOH_UNKNOWN, mf, name, &loc);
			return;
		}
		/* every caller's argument: direct calls, and calls through a
		 * pointer the linker resolved to this function */
		unsigned callers = 0;
		for (uint32_t k = mf->in_begin; k < mf->in_end; k++) {
			const struct edge *ed = &h->m->edges.v[h->m->in_edges.v[k]];
			if (ed->kind != EDGE_DIRECT && ed->kind != EDGE_POINTER)
				continue;
			if (!handle_budget(h, 1))
				break;
			const struct mfunc *cf = &h->m->fns.v[ed->from];
			const struct call *c = cf->f->events[ed->ev].u.call;
			if ((uint32_t)v->param_index >= c->nargs) {
				handle_worse(h, IOH_UNKNOWN, mf, name, &loc);
				continue;
			}
			callers++;
			handle_value(h, cf, &c->args[v->param_index], ed->ev, depth + 1);
		}
		for (size_t k = 0; k < h->m->param_via.n; k++) {
			const struct param_via *pv = &h->m->param_via.v[k];
			if (pv->to != (int32_t)mf->id || !handle_budget(h, 1))
				continue;
			const struct mfunc *cf = &h->m->fns.v[pv->from];
			const struct call *c = cf->f->events[pv->ev].u.call;
			if ((uint32_t)v->param_index >= c->nargs)
				continue;
			callers++;
			handle_value(h, cf, &c->args[v->param_index], pv->ev, depth + 1);
		}
		/* an entry point, or callers the call graph does not show */
		if (!callers || (mf->address_taken && !taken_only_for_param_calls(h->m, mf)) ||
		    !(mf->f->flags & FN_STATIC))
			handle_worse(h, IOH_UNKNOWN, mf, name, &loc);
		return;
	}
	if (v->kind != VK_LOCAL) {
		handle_worse(h, IOH_UNKNOWN, mf, name, &loc); /* a global or static handle: shared */
		return;
	}
	/* a local: its stores, or the call that fills it through its address */
	bool any = false, made = false;
	for (uint32_t i = 0; i < at && i < mf->f->nevents; i++) {
		const struct event *e = &mf->f->events[i];
		if (e->kind == EV_ASSIGN && e->u.assign->lhs.var == r->var && ref_is_var(&e->u.assign->lhs)) {
			const struct expr *rx = &e->u.assign->rhs;
			if (rx->kind == EX_NULL || (e->u.assign->is_init && e->u.assign->whole_init))
				continue;
			any = true;
			if (rx->kind == EX_CALL && rx->call >= 0 && io_makes_handle(mf, rx->call)) {
				made = true;
				continue;
			}
			handle_value(h, mf, rx, i, depth + 1);
		} else if (e->kind == EV_CALL) {
			for (uint32_t k = 0; k < e->u.call->nargs; k++) {
				const struct expr *a = &e->u.call->args[k];
				if (a->kind == EX_REF && a->ref.var == r->var && a->ref.addr && ref_is_var(&a->ref) &&
				    io_makes_handle(mf, (int32_t)i)) {
					any = true;
					made = true;
				}
			}
		}
	}
	if (!any) {
		handle_worse(h, IOH_UNKNOWN, mf, name, &loc);
		return;
	}
	if (made) {
		if (handle_escapes(h, mf, r->var, false, 0)) {
			int before = h->out->name ? h->out->origin : -1;
			handle_worse(h, IOH_UNKNOWN, mf, name, &loc);
			if (before != h->out->origin)
				h->out->escapes = true;
		} else
			handle_worse(h, IOH_OWNED, mf, name, &loc);
	}
}

static void handle_value(struct hflow *h, const struct mfunc *mf, const struct expr *x, uint32_t at, int depth)
{
	if (!x || x->kind == EX_NULL)
		return;
	const char *text = x->text && *x->text ? x->text : NULL;
	if (depth > HANDLE_DEPTH || !handle_budget(h, 1)) {
		handle_worse(h, IOH_UNKNOWN, mf, text ? text : "?", &mf->f->loc);
		return;
	}
	if (x->kind == EX_REF && x->ref.var >= 0 && !x->ref.addr) {
		handle_var(h, mf, &x->ref, at, depth);
		return;
	}
	if (x->kind == EX_CALL && x->call >= 0 && (uint32_t)x->call < mf->f->nevents &&
	    mf->f->events[x->call].kind == EV_CALL) {
		const struct call *c = mf->f->events[x->call].u.call;
		const struct mfunc *g = c->usr ? model_callee(h->m, c->usr, mf) : NULL;
		if (g && g != mf) {
			/* what the gem's function returns (pg_get_pgconn(self)) */
			bool any = false;
			for (uint32_t k = 0; k < g->f->nevents; k++) {
				const struct event *r = &g->f->events[k];
				if (r->kind != EV_RETURN || !r->u.ret)
					continue;
				any = true;
				handle_value(h, g, r->u.ret, k, depth + 1);
			}
			if (any)
				return;
		}
		handle_worse(h, IOH_UNKNOWN, mf, text ? text : c->name, &mf->f->events[x->call].loc);
		return;
	}
	handle_worse(h, IOH_UNKNOWN, mf, text ? text : "?", &mf->f->loc);
}

void io_handle_origin(const struct model *m, const struct msite *s, const struct mfunc *cb, const struct event *call,
		      int arg, struct io_handle *out)
{
	memset(out, 0, sizeof(*out));
	struct hflow h = {.m = m, .out = out, .steps = 0};
	const struct call *c = call->u.call;
	const struct expr *a = arg >= 0 && (uint32_t)arg < c->nargs ? &c->args[arg] : NULL;
	const char *text = a && a->text && *a->text                    ? a->text
			   : a && a->kind == EX_REF && a->ref.var >= 0 ? ref_name(cb, &a->ref)
								       : NULL;
	char buf[64];
	if (!text) {
		snprintf(buf, sizeof(buf), "argument %d of %s", arg + 1, c->name ? c->name : "the call");
		text = arena_printf(&cb->tu->arena, "%s", buf);
	}
	out->origin = IOH_UNKNOWN;
	out->name = text;
	out->fn = cb->f->name;
	out->loc = call->loc;
	if (!a || a->kind != EX_REF || a->ref.var < 0 || a->ref.addr)
		return;
	/* the callback's own frame: a member of the struct its data points to
	 * (args->ctx), or a local set once from such a member */
	bool is_cb = false;
	for (uint32_t i = 0; i < s->cb.ntargets; i++)
		is_cb |= s->cb.targets[i] == cb->id;
	uint32_t rel_fn, rel;
	if (!is_cb || !io_release_event(m, s, &rel_fn, &rel) || !s->data1)
		return;
	const struct mfunc *df = &m->fns.v[rel_fn];
	struct ref dr;
	if (s->data1->kind == EX_REF) {
		dr = s->data1->ref;
	} else if (s->data1->kind == EX_OTHER && s->data1->nreads == 1 && s->data1->ncalls == 0) {
		/* `&params` written inside a macro expansion is summarised as a read
		 * of params: a struct-typed local handed as the data pointer can
		 * only be its address */
		dr = s->data1->reads[0];
		const struct var *rv = mf_var(df, dr.var);
		if (!rv || rv->kind != VK_LOCAL || !(rv->flags & VF_RECORD) || (rv->flags & VF_POINTER))
			return;
		dr.addr = 1;
	} else {
		return;
	}
	if (dr.var < 0 || (dr.path && *dr.path))
		return;
	struct ref hr = a->ref;
	uint32_t ev = (uint32_t)(call - cb->f->events);
	if (ref_is_var(&hr)) {
		/* PGconn *conn = p->params.conn; */
		const struct var *lv = mf_var(cb, hr.var);
		int n = 0;
		struct ref from = {0};
		for (uint32_t i = 0; lv && lv->kind == VK_LOCAL && i < ev; i++) {
			const struct event *e = &cb->f->events[i];
			if (e->kind == EV_ASSIGN && e->u.assign->lhs.var == hr.var && ref_is_var(&e->u.assign->lhs)) {
				n++;
				if (e->u.assign->rhs.kind == EX_REF)
					from = e->u.assign->rhs.ref;
				else
					n = 99;
			}
		}
		if (n != 1 || !from.path || !*from.path)
			return;
		hr = from;
	}
	if (!hr.deref || !hr.path || !*hr.path || strstr(hr.path, "[]"))
		return;
	const struct var *root = mf_var(cb, hr.var);
	if (!root || !(root->kind == VK_PARAM ? root->param_index == 0 : root_from_param(cb, hr.var, ev)))
		return;
	/* the same member of the data struct, in the function that fills it */
	const struct var *dv = mf_var(df, dr.var);
	if (!dv)
		return;
	if (!dr.addr && !(dv->flags & VF_POINTER))
		return;
	bool by_addr = dr.addr;
	dr.addr = 0;
	dr.path = hr.path;
	dr.deref = !by_addr;
	out->name = NULL; /* from here the flow names where it ended */
	if (dr.deref) {
		/* a pointer to the struct: stores through it in this function */
		bool any = false;
		for (uint32_t i = 0; i < rel && i < df->f->nevents; i++) {
			const struct event *e = &df->f->events[i];
			if (e->kind == EV_ASSIGN && e->u.assign->lhs.var == dr.var &&
			    str_eq(e->u.assign->lhs.path, dr.path)) {
				any = true;
				handle_value(&h, df, &e->u.assign->rhs, i, 1);
			}
		}
		if (!any)
			handle_worse(&h, IOH_UNKNOWN, df, ref_name(df, &dr), &dv->loc);
	} else {
		handle_var(&h, df, &dr, rel, 1);
	}
	if (!out->name) {
		out->origin = IOH_UNKNOWN;
		out->name = text;
	}
}
