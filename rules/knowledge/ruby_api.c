/* ruby_api.c: classification of Ruby C API calls for code without the GVL.
 *
 * Sources:
 *  - design.md section 5 (allowed list, raising and may-raise APIs,
 *    object-internals accessors, constant macros are not API calls);
 *  - gvl-semantics.md 3.1-3.3: thread.c "Safe C API" (rb_thread_interrupted,
 *    ruby_xmalloc/xrealloc/xfree), ruby/thread.h, "all rb_ prefix APIs need
 *    GVL"; NUM2INT/StringValue/Check_Type/rb_thread_check_ints may raise;
 *    ALLOCV above RUBY_ALLOCV_LIMIT calls rb_alloc_tmp_buffer (a Ruby object);
 *  - the Ruby 3.1 headers (ruby/internal/...): which macro expands to which
 *    inline helper (RSTRING_PTR, rb_array_len, rb_num2int_inline, RB_INT2FIX ...).
 * Every table is sorted (binary search).
 */
#include "knowledge.h"

#include <string.h>

#include <stdlib.h>

#include "gvlapi.h"
#include "report.h"

/* Safe without the GVL (thread.c, ruby/thread.h, master thread.h). */
static const char *const allowed[] = {
	"rb_fiber_scheduler_blocking_operation_cancel",
	"rb_fiber_scheduler_blocking_operation_execute",
	"rb_gc_guarded_ptr",
	"rb_gc_guarded_ptr_val",
	"rb_internal_thread_specific_get",
	"rb_internal_thread_specific_set",
	"rb_native_cond_broadcast",
	"rb_native_cond_signal",
	"rb_native_cond_timedwait",
	"rb_native_cond_wait",
	"rb_native_mutex_lock",
	"rb_native_mutex_trylock",
	"rb_native_mutex_unlock",
	"rb_nativethread_lock_lock",
	"rb_nativethread_lock_unlock",
	"rb_nativethread_self",
	"rb_thread_call_with_gvl",
	"rb_thread_interrupted",
	"ruby_native_thread_p",
	"ruby_thread_has_gvl_p",
};

/* The ruby_xmalloc family (thread.c "Safe C API"; may take the GVL for GC),
 * and Ruby's libc replacements that allocate with it (ruby/util.h:
 * `#define strdup(s) ruby_strdup(s)`, ruby_getcwd). */
static const char *const alloc[] = {
	"ruby_getcwd",   "ruby_sized_xfree", "ruby_sized_xrealloc", "ruby_sized_xrealloc2",
	"ruby_strdup",   "ruby_xcalloc",     "ruby_xfree",          "ruby_xmalloc",
	"ruby_xmalloc2", "ruby_xrealloc",    "ruby_xrealloc2",
};

/* Inline helpers on immediate values only (no object memory, no raise), and
 * Ruby's plain-C replacements of libc functions that its headers substitute by
 * macro (ruby/internal/memory.h `#define memcpy ruby_nonempty_memcpy`,
 * ruby/util.h strtod/qsort/scan helpers, ruby/ruby.h snprintf/vsnprintf).
 * rb_bug prints a report and aborts: no exception, no longjmp. */
static const char *const pure[] = {
	"RB_CHR2FIX",
	"RB_FIXABLE",
	"RB_FIXNUM_P",
	"RB_FLONUM_P",
	"RB_IMMEDIATE_P",
	"RB_INT2FIX",
	"RB_NEGFIXABLE",
	"RB_NIL_P",
	"RB_POSFIXABLE",
	"RB_SPECIAL_CONST_P",
	"RB_STATIC_SYM_P",
	"RB_TEST",
	"rb_bug",
	"rb_fix2long",
	"rb_fix2ulong",
	"rb_int2fix",
	"rbimpl_fix2long_by_idiv",
	"rbimpl_fix2long_by_shift",
	"rbimpl_right_shift_is_arithmetic_p",
	"ruby_nonempty_memcpy", /* ruby/internal/memory.h: `#define memcpy ruby_nonempty_memcpy` (plain memcpy) */
	"ruby_qsort",
	"ruby_scan_digits",
	"ruby_scan_hex",
	"ruby_scan_oct",
	/* ruby/subst.h: `#define snprintf ruby_snprintf`: Ruby's own printf, which
	 * touches objects only for a "%"PRIsVALUE conversion (not detected) */
	"ruby_snprintf",
	"ruby_strtod",
	"ruby_strtoul",
	"ruby_vsnprintf",
};

/* Object internals (value-access-without-gvl). */
static const char *const accessor[] = {
	"RARRAY_AREF",
	"RARRAY_EMBED_LEN",
	"RARRAY_PTR",
	"RBASIC_CLASS",
	"RB_BUILTIN_TYPE",
	"RB_DYNAMIC_SYM_P",
	"RB_ENCODING_GET",
	"RB_ENCODING_GET_INLINED",
	"RB_FLOAT_TYPE_P",
	"RB_FL_ABLE",
	"RB_FL_ALL",
	"RB_FL_ALL_RAW",
	"RB_FL_ANY",
	"RB_FL_ANY_RAW",
	"RB_FL_TEST",
	"RB_FL_TEST_RAW",
	"RB_OBJ_FROZEN",
	"RB_OBJ_FROZEN_RAW",
	"RB_SYMBOL_P",
	"RB_TYPE_P",
	"ROBJECT_IVPTR",
	"ROBJECT_NUMIV",
	"RSTRING_END",
	"RSTRING_LEN",
	"RSTRING_PTR",
	"RSTRUCT_LEN",
	"RSTRUCT_PTR",
	"RTYPEDDATA_DATA",
	"RTYPEDDATA_P",
	"RTYPEDDATA_TYPE",
	"rb_array_const_ptr",
	"rb_array_const_ptr_transient",
	"rb_array_len",
	"rb_class_of",
	"rb_float_value",
	"rb_integer_type_p",
	"rb_type",
	"rbimpl_RB_TYPE_P_fastpath",
	"rbimpl_rstring_getmem",
};

/* May raise a Ruby exception (design.md precise points; gvl-semantics 3.3). */
static const char *const may_raise[] = {
	"Check_Type",
	"RARRAY_LENINT",
	"RB_FIX2INT",
	"RB_NUM2INT",
	"RB_NUM2UINT",
	"RSTRING_LENINT",
	"rb_alloc_tmp_buffer",
	"rb_alloc_tmp_buffer2",
	"rb_alloc_tmp_buffer_with_count",
	"rb_check_arity",
	"rb_check_frozen",
	"rb_check_frozen_inline",
	"rb_check_type",
	"rb_check_typeddata",
	"rb_data_object_get",
	"rb_fix2int",
	"rb_fix2short",
	"rb_fix2ushort",
	"rb_long2int",
	"rb_long2int_inline",
	"rb_num2char_inline",
	"rb_num2dbl",
	"rb_num2fix",
	"rb_num2int",
	"rb_num2int_inline",
	"rb_num2ll",
	"rb_num2ll_inline",
	"rb_num2long",
	"rb_num2long_inline",
	"rb_num2short",
	"rb_num2short_inline",
	"rb_num2uint",
	"rb_num2ull",
	"rb_num2ull_inline",
	"rb_num2ulong",
	"rb_num2ulong_inline",
	"rb_num2ushort",
	"rb_string_value",
	"rb_string_value_cstr",
	"rb_string_value_ptr",
	"rb_thread_check_ints",
	"rb_to_int",
	"rb_unexpected_type",
};

/* Raise unconditionally. */
static const char *const raises[] = {
	"rb_cmperr",       "rb_enc_raise",           "rb_eof_error",       "rb_error_arity",
	"rb_error_frozen", "rb_error_frozen_object", "rb_exc_fatal",       "rb_exc_raise",
	"rb_fatal",        "rb_frozen_error_raise",  "rb_interrupt",       "rb_invalid_str",
	"rb_iter_break",   "rb_iter_break_value",    "rb_jump_tag",        "rb_loaderror",
	"rb_memerror",     "rb_mod_sys_fail",        "rb_mod_syserr_fail", "rb_name_error",
	"rb_notimplement", "rb_num_zerodiv",         "rb_raise",           "rb_readwrite_sys_fail",
	"rb_sys_fail",     "rb_sys_fail_str",        "rb_syserr_fail",     "rb_syserr_fail_str",
	"rb_throw",        "rb_throw_obj",
};

static const char *const object_records[] = {
	"struct RArray",  "struct RBasic",  "struct RClass",  "struct RComplex",   "struct RData",     "struct RFile",
	"struct RFloat",  "struct RHash",   "struct RMatch",  "struct RObject",    "struct RRational", "struct RRegexp",
	"struct RString", "struct RStruct", "struct RSymbol", "struct RTypedData",
};

#define IN(table, name) str_in_sorted((name), (table), ARRAY_SIZE(table))

bool ruby_object_record(const char *record)
{
	return record && IN(object_records, record);
}

bool ruby_thread_api(const char *name)
{
	return gvl_api_find(name) || str_eq(name, WITH_GVL_API);
}

static bool ruby_named(const char *n)
{
	return str_starts(n, "rb_") || str_starts(n, "ruby_") || str_starts(n, "RB_") || str_starts(n, "RUBY_") ||
	       str_starts(n, "rbimpl_") || str_starts(n, "RSTRING") || str_starts(n, "RARRAY") ||
	       str_starts(n, "RTYPEDDATA") || str_starts(n, "Check_Type");
}

static int class_by_name(const char *n)
{
	if (IN(allowed, n))
		return RC_ALLOWED;
	/* ruby/atomic.h: RUBY_ATOMIC_* expand to these inline wrappers of the
	 * compiler's atomic builtins; they touch no Ruby object */
	if (str_starts(n, "rbimpl_atomic_"))
		return RC_ALLOWED;
	if (IN(alloc, n))
		return RC_ALLOC;
	if (IN(pure, n))
		return RC_PURE;
	if (IN(accessor, n))
		return RC_ACCESSOR;
	if (IN(raises, n))
		return RC_RAISES;
	if (IN(may_raise, n))
		return RC_MAY_RAISE;
	return -1;
}

int ruby_class_of_call(const struct call *c)
{
	if (c->indirect || !c->name)
		return RC_NONE;
	switch (c->origin) {
	case ORIGIN_RUBY: {
		int k = class_by_name(c->name);
		return k >= 0 ? k : RC_CALL;
	}
	case ORIGIN_PROJECT:
	case ORIGIN_UNKNOWN:
	case ORIGIN_STUB: {
		/* a gem's own function named rb_* (with a body, it is an edge, not a
		 * call of Ruby's API: callers check model_func_by_usr first); without a
		 * body anywhere, an rb_*-named declaration is Ruby's API re-declared */
		if (!ruby_named(c->name))
			return RC_NONE;
		int k = class_by_name(c->name);
		return k >= 0 ? k : RC_CALL;
	}
	default:
		return RC_NONE;
	}
}

static int member_class(const struct event *e)
{
	if (e->kind != EV_ACCESS)
		return RC_NONE;
	return ruby_object_record(e->u.access->ref.record) ? RC_ACCESSOR : RC_NONE;
}

static int event_class(const struct mfunc *mf, const struct event *e, const char **callee)
{
	if (e->kind == EV_CALL) {
		*callee = e->u.call->name;
		return ruby_class_of_call(e->u.call);
	}
	int k = member_class(e);
	if (k)
		*callee = e->u.access->ref.record;
	return k;
}

/* Strength when one macro expansion holds several uses. */
static int rank(int cls)
{
	switch (cls) {
	case RC_RAISES:
		return 6;
	case RC_MAY_RAISE:
		return 5;
	case RC_CALL:
		return 4;
	case RC_ACCESSOR:
		return 3;
	case RC_ALLOC:
		return 2;
	case RC_ALLOWED:
		return 1;
	case RC_PURE:
		return 1;
	default:
		return 0;
	}
}

struct ruby_use ruby_use_of(const struct mfunc *mf, uint32_t ev)
{
	struct ruby_use u = {0};
	const struct event *e = &mf->f->events[ev];
	const char *callee = NULL;
	int cls = event_class(mf, e, &callee);
	u.cls = cls;
	u.callee = callee;
	u.member = e->kind == EV_ACCESS;
	u.name = callee;
	u.representative = cls != RC_NONE;
	if (!e->macro || e->in_macro_arg || cls == RC_NONE) {
		if (e->kind == EV_CALL && e->macro && !e->in_macro_arg)
			u.name = e->macro;
		return u;
	}
	/* the whole expansion: the strongest use decides, reported at its first event */
	int best = cls;
	int32_t first = -1;
	for (uint32_t i = 0; i < mf->f->nevents; i++) {
		const struct event *o = &mf->f->events[i];
		if (o->macro != e->macro || o->in_macro_arg || o->loc.off != e->loc.off || o->loc.file != e->loc.file)
			continue;
		const char *oc = NULL;
		int k = event_class(mf, o, &oc);
		if (k == RC_NONE)
			continue;
		if (rank(k) > rank(best)) {
			best = k;
			u.callee = oc;
		}
		if (first < 0)
			first = (int32_t)i;
	}
	u.cls = best;
	u.name = e->macro;
	u.representative = first == (int32_t)ev;
	return u;
}

/* ---- grouping repeated macro uses ---- */

struct use_group {
	struct finding *f;
	unsigned more;
	const char *name;
	const char *fn;
	const char *macro;
};

static const char *group_key(struct use_groups *g, const struct mfunc *mf, const struct event *e, const char *name)
{
	bool from_macro = e->macro && !e->in_macro_arg;
	bool elsewhere = e->loc.file != mf->f->loc.file;
	if (!from_macro && !elsewhere)
		return NULL;
	char *k = xasprintf("%s\x01%s\x01%s", mf->f->usr ? mf->f->usr : mf->f->name, name ? name : "",
			    from_macro ? e->macro : (e->loc.file ? e->loc.file : ""));
	const char *r = intern(&g->keys, k);
	free(k);
	return r;
}

struct finding *use_group_find(struct use_groups *g, const struct mfunc *mf, const struct event *e, const char *name)
{
	const char *k = group_key(g, mf, e, name);
	struct use_group *ug = k ? hmap_get(&g->map, k) : NULL;
	if (!ug)
		return NULL;
	ug->more++;
	return ug->f;
}

void use_group_add(struct use_groups *g, const struct mfunc *mf, const struct event *e, const char *name,
		   struct finding *f)
{
	const char *k = group_key(g, mf, e, name);
	if (!k)
		return;
	struct use_group *ug = xcalloc(1, sizeof(*ug));
	ug->f = f;
	ug->name = name;
	ug->fn = mf->f->name;
	ug->macro = e->macro && !e->in_macro_arg ? e->macro : NULL;
	hmap_put(&g->map, k, ug);
}

void use_groups_finish(struct use_groups *g)
{
	hmap_foreach(&g->map, e)
	{
		struct use_group *ug = e->val;
		if (ug->more) {
			if (ug->macro)
				finding_note(ug->f, &ug->f->loc,
					     "%u more use%s of '%s' from expansions of '%s' in '%s'", ug->more,
					     ug->more == 1 ? "" : "s", ug->name, ug->macro, ug->fn);
			else
				finding_note(ug->f, &ug->f->loc, "%u more use%s of '%s' in '%s' from the same file",
					     ug->more, ug->more == 1 ? "" : "s", ug->name, ug->fn);
		}
		free(ug);
	}
	hmap_free(&g->map);
	strpool_free(&g->keys);
}

const char *ruby_header_redefines(const char *written, const char *callee)
{
	static const char *const redefs[][3] = {
		{"close", "ruby_close", "ruby/subst.h"},
		{"getpeername", "ruby_getpeername", "ruby/subst.h"},
		{"getsockname", "ruby_getsockname", "ruby/subst.h"},
		{"memcpy", "ruby_nonempty_memcpy", "ruby/internal/memory.h"},
		{"posix_signal", "ruby_posix_signal", "ruby/internal/intern/signal.h"},
		{"shutdown", "ruby_shutdown", "ruby/subst.h"},
		{"snprintf", "ruby_snprintf", "ruby/subst.h"},
		{"strdup", "ruby_strdup", "ruby/util.h"},
		{"strtod", "ruby_strtod", "ruby/util.h"},
		{"vsnprintf", "ruby_vsnprintf", "ruby/subst.h"},
	};
	if (!written || !callee)
		return NULL;
	for (size_t i = 0; i < sizeof(redefs) / sizeof(redefs[0]); i++)
		if (strcmp(written, redefs[i][0]) == 0 && strcmp(callee, redefs[i][1]) == 0)
			return redefs[i][2];
	return NULL;
}
