/* extract_types.c: the types and variables the walk records (extract_walk.h). */
#include "extract_walk.h"

#include <stdlib.h>
#include <string.h>

/* ---- types ---- */

bool type_is_value(CXType t)
{
	/* VALUE, const VALUE, volatile VALUE; also ID-free: only the typedef name counts. */
	while (t.kind == CXType_Elaborated)
		t = clang_Type_getNamedType(t);
	if (t.kind != CXType_Typedef)
		return false;
	CXString s = clang_getTypedefName(t);
	const char *n = clang_getCString(s);
	bool r = n && strcmp(n, "VALUE") == 0;
	clang_disposeString(s);
	if (!r) {
		/* a typedef of VALUE (rare): look one level down */
		CXCursor d = clang_getTypeDeclaration(t);
		CXType u = clang_getTypedefDeclUnderlyingType(d);
		if (u.kind == CXType_Typedef) {
			s = clang_getTypedefName(u);
			n = clang_getCString(s);
			r = n && strcmp(n, "VALUE") == 0;
			clang_disposeString(s);
		}
	}
	return r;
}

const char *type_name_of(struct xctx *x, CXType t)
{
	return intern_cx(x, clang_getTypeSpelling(t));
}

/* "struct foo" for struct foo, struct foo *, foo_t (typedef of struct) ... */
const char *record_of(struct xctx *x, CXType t)
{
	CXType c = clang_getCanonicalType(t);
	while (c.kind == CXType_Pointer || c.kind == CXType_ConstantArray || c.kind == CXType_IncompleteArray) {
		c = c.kind == CXType_Pointer ? clang_getPointeeType(c) : clang_getArrayElementType(c);
		c = clang_getCanonicalType(c);
	}
	if (c.kind != CXType_Record)
		return NULL;
	/* clang_getUnqualifiedType arrived in LLVM 16: strip qualifiers from the spelling */
	CXString cs = clang_getTypeSpelling(c);
	const char *sp = clang_getCString(cs);
	const char *p = sp ? sp : "";
	for (;;) {
		if (str_starts(p, "const "))
			p += 6;
		else if (str_starts(p, "volatile "))
			p += 9;
		else if (str_starts(p, "restrict "))
			p += 9;
		else
			break;
	}
	const char *r = intern(&x->tu->pool, p);
	clang_disposeString(cs);
	return r;
}

static uint32_t type_flags(struct xctx *x, CXType t)
{
	uint32_t fl = 0;
	if (type_is_value(t))
		fl |= VF_VALUE;
	if (clang_isConstQualifiedType(t))
		fl |= VF_CONST;
	if (clang_isVolatileQualifiedType(t))
		fl |= VF_VOLATILE;
	CXType c = clang_getCanonicalType(t);
	if (c.kind == CXType_Atomic)
		fl |= VF_ATOMIC;
	if (clang_isConstQualifiedType(c))
		fl |= VF_CONST;
	if (clang_isVolatileQualifiedType(c))
		fl |= VF_VOLATILE;
	if (c.kind == CXType_Pointer) {
		fl |= VF_POINTER;
		CXType p = clang_getCanonicalType(clang_getPointeeType(c));
		if (p.kind == CXType_FunctionProto || p.kind == CXType_FunctionNoProto)
			fl |= VF_FNPTR;
		if (clang_isConstQualifiedType(p))
			fl |= VF_CONST_POINTEE;
	}
	if (c.kind == CXType_ConstantArray || c.kind == CXType_IncompleteArray || c.kind == CXType_VariableArray) {
		fl |= VF_ARRAY;
		CXType el = clang_getCanonicalType(clang_getArrayElementType(c));
		if (clang_isConstQualifiedType(el))
			fl |= VF_CONST;
	}
	if (c.kind == CXType_Record)
		fl |= VF_RECORD;
	const char *sp = type_name_of(x, t);
	if (strstr(sp, "sig_atomic_t"))
		fl |= VF_SIG_ATOMIC;
	if (strstr(sp, "_Atomic") || strstr(sp, "atomic_"))
		fl |= VF_ATOMIC;
	if (!(fl & VF_POINTER) && (strstr(sp, "pthread_mutex_t") || strstr(sp, "rb_nativethread_lock_t") ||
				   strstr(sp, "pthread_rwlock_t") || strstr(sp, "pthread_spinlock_t")))
		fl |= VF_MUTEX;
	return fl;
}

bool type_is_pointerish(CXType t)
{
	CXType c = clang_getCanonicalType(t);
	return c.kind == CXType_Pointer;
}

bool type_is_array(CXType t)
{
	CXType c = clang_getCanonicalType(t);
	return c.kind == CXType_ConstantArray || c.kind == CXType_IncompleteArray || c.kind == CXType_VariableArray ||
	       c.kind == CXType_DependentSizedArray;
}

bool type_is_integral(CXType t)
{
	CXType c = clang_getCanonicalType(t);
	return (c.kind >= CXType_Bool && c.kind <= CXType_Int128 && c.kind != CXType_Void) || c.kind == CXType_Enum;
}

/* ---- variables ---- */

int32_t var_index(struct xctx *x, CXCursor d)
{
	enum CXCursorKind k = clang_getCursorKind(d);
	if (k != CXCursor_VarDecl && k != CXCursor_ParmDecl)
		return -1;
	CXString us = clang_getCursorUSR(d);
	const char *u = clang_getCString(us);
	const char *usr = NULL;
	if (u && *u) {
		usr = intern(&x->tu->pool, u);
	} else {
		/* unnamed or odd declarations: key by location */
		struct loc l = make_loc(x, clang_getCursorLocation(d), NULL);
		usr = arena_printf(&x->tu->arena, "@%s:%u", l.file ? l.file : "?", l.off);
	}
	clang_disposeString(us);
	uintptr_t found = (uintptr_t)hmap_get(&x->vars, usr);
	if (found)
		return (int32_t)(found - 1);

	struct var v = {0};
	v.name = intern_cx(x, clang_getCursorSpelling(d));
	v.usr = usr;
	CXType t = clang_getCursorType(d);
	v.type = type_name_of(x, t);
	v.record = record_of(x, t);
	v.flags = type_flags(x, t);
	v.fn = -1;
	v.param_index = -1;
	struct fileinfo *fi = NULL;
	v.loc = make_loc(x, clang_getCursorLocation(d), &fi);
	if (fi && fi->origin == ORIGIN_RUBY)
		v.flags |= VF_RUBY_HEADER;
	else if (fi && fi->origin == ORIGIN_SYSTEM)
		v.flags |= VF_SYSTEM_HEADER;
	if (clang_getCursorTLSKind(d) != CXTLS_None)
		v.flags |= VF_TLS;
	CXCursor sem = clang_getCursorSemanticParent(d);
	enum CXCursorKind sk = clang_getCursorKind(sem);
	bool in_fn = sk == CXCursor_FunctionDecl || sk == CXCursor_CXXMethod || sk == CXCursor_Constructor ||
		     sk == CXCursor_Destructor || sk == CXCursor_FunctionTemplate;
	enum CX_StorageClass sc = clang_Cursor_getStorageClass(d);
	if (k == CXCursor_ParmDecl) {
		v.kind = VK_PARAM;
	} else if (in_fn) {
		v.kind = (sc == CX_SC_Static) ? VK_LOCAL_STATIC : VK_LOCAL;
		if (sc == CX_SC_Extern)
			v.kind = VK_GLOBAL;
	} else {
		v.kind = (sc == CX_SC_Static) ? VK_FILE_STATIC : VK_GLOBAL;
		if (clang_getCursorLinkage(d) == CXLinkage_Internal)
			v.kind = VK_FILE_STATIC;
		/* point at the definition when this TU has it (not at an extern
		 * declaration in a header that happens to come first) */
		CXCursor def = clang_getCursorDefinition(d);
		bool has_def = !clang_Cursor_isNull(def) && clang_getCursorKind(def) == CXCursor_VarDecl;
		if (has_def && !clang_equalCursors(def, d))
			v.loc = make_loc(x, clang_getCursorLocation(def), NULL);
		if (sc == CX_SC_Extern && !clang_isCursorDefinition(d) && !has_def)
			v.flags |= VF_EXTERN_DECL;
	}
	if (v.kind == VK_LOCAL || v.kind == VK_PARAM || v.kind == VK_LOCAL_STATIC)
		v.fn = x->fn_index;
	vec_push(&x->tu->vars, v);
	int32_t idx = (int32_t)x->tu->vars.n - 1;
	hmap_put(&x->vars, usr, (void *)(uintptr_t)(idx + 1));
	return idx;
}

/* C++: the implicit object parameter of a member function. `this->m`, a
 * bare member name `m` and `(*this).m` all reach state owned by whoever
 * holds the object, the way `self->m` does through a struct pointer
 * parameter in C. It is recorded as a pointer parameter named "this" with no
 * position in the argument list (param_index -1: nothing maps a call's
 * arguments onto it). rec is the class type (or a pointer to it). Returns -1
 * outside a function body. */
int32_t this_var(struct xctx *x, CXCursor at, CXType rec)
{
	if (!x->fn_usr || x->fn_index < 0)
		return -1;
	const char *usr = arena_printf(&x->tu->arena, "this@%s", x->fn_usr);
	uintptr_t found = (uintptr_t)hmap_get(&x->vars, usr);
	if (found)
		return (int32_t)(found - 1);
	struct var v = {0};
	v.name = "this";
	v.usr = usr;
	v.record = record_of(x, rec);
	v.type = arena_printf(&x->tu->arena, "%s *", v.record ? v.record : "void");
	v.flags = VF_POINTER;
	v.kind = VK_PARAM;
	v.fn = x->fn_index;
	v.param_index = -1;
	v.loc = make_loc(x, clang_getCursorLocation(at), NULL);
	vec_push(&x->tu->vars, v);
	int32_t idx = (int32_t)x->tu->vars.n - 1;
	hmap_put(&x->vars, usr, (void *)(uintptr_t)(idx + 1));
	return idx;
}
