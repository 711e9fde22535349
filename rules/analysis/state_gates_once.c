/* Branches that run at most once in the process: the first thread to bump or
 * swap a zero flag with an atomic read-modify-write sees the old value 0,
 * every later one a non-zero value, so the branch taken on 0
 * (`if (0 == atomic_fetch_add(&started, 1))`, `if
 * (!__sync_lock_test_and_set(&done, 1))`) is, like pthread_once's routine, never
 * concurrent with itself. Only while nothing else in the gem writes the flag
 * back: a reset makes the branch run again. */
#include <stdio.h>
#include <string.h>

#include "state_ctx.h"

/* Read-modify-write calls that return the old value, as the gem spells them
 * (the <stdatomic.h> generic names, GCC's and Clang's builtins), with their
 * `_explicit` or size-suffixed forms. */
static const char *const rmw_names[] = {
	"atomic_fetch_add",       "atomic_fetch_or",          "atomic_exchange",       "atomic_flag_test_and_set",
	"__atomic_fetch_add",     "__atomic_fetch_or",        "__atomic_exchange_n",   "__atomic_test_and_set",
	"__c11_atomic_fetch_add", "__c11_atomic_fetch_or",    "__c11_atomic_exchange", "__sync_fetch_and_add",
	"__sync_fetch_and_or",    "__sync_lock_test_and_set",
};

static bool suffix_ok(const char *r)
{
	if (!*r || str_eq(r, "_explicit"))
		return true;
	if (*r != '_' || !r[1])
		return false;
	for (r++; *r; r++)
		if (*r < '0' || *r > '9')
			return false;
	return true;
}

static bool once_rmw_name(const char *n)
{
	for (size_t i = 0; n && i < ARRAY_SIZE(rmw_names); i++) {
		size_t k = strlen(rmw_names[i]);
		if (strncmp(n, rmw_names[i], k) == 0 && suffix_ok(n + k))
			return true;
	}
	return false;
}

/* The flag of a once-test call: `&flag` of a file-scope or static variable,
 * bumped or set by a positive constant (a test-and-set has no operand). */
static const struct var *once_flag(const struct mfunc *mf, const struct call *c)
{
	if (c->indirect || !once_rmw_name(c->name) || c->nargs < 1)
		return NULL;
	const struct expr *a = &c->args[0];
	if (a->kind != EX_REF || !a->ref.addr || a->ref.deref || !plain_path(&a->ref))
		return NULL;
	const struct var *v = mf_var(mf, a->ref.var);
	if (!v || !v->usr || (v->kind != VK_GLOBAL && v->kind != VK_FILE_STATIC && v->kind != VK_LOCAL_STATIC))
		return NULL;
	bool flag_op = strstr(c->name, "test_and_set") != NULL;
	if (!flag_op && (c->nargs < 2 || !c->args[1].has_ival || c->args[1].ival <= 0))
		return NULL;
	return v;
}

/* Whether the n characters of t compare anything: an '=', or a '<' or '>'
 * not of "->", "<<" or ">>" (`atomic_fetch_or(&f, 1 << 2)` compares nothing). */
static bool compares(const char *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char prev = i ? t[i - 1] : 0, next = i + 1 < n ? t[i + 1] : 0;
		if (t[i] == '=' || (t[i] == '<' && prev != '<' && next != '<') ||
		    (t[i] == '>' && prev != '-' && prev != '>' && next != '>'))
			return true;
	}
	return false;
}

/* Whether t is the operand of a zero test: with a name, exactly that name;
 * without, any non-empty text that compares nothing itself. */
static bool zero_operand(const char *t, size_t n, const char *name)
{
	return name ? strlen(name) == n && strncmp(t, name, n) == 0 : n > 0 && !compares(t, n);
}

/* The sign of a zero test: t is "X", "X==0", "X!=0", "0==X" or "0!=X" (the
 * normalised spelling drops the blanks around operators; the blank forms are
 * accepted too). 1 when true means X != 0, -1 when it means X == 0, 0 for
 * anything else. */
static int zero_sign(const char *t, const char *name)
{
	static const struct {
		const char *pre, *post;
		int sign;
	} forms[] = {{"0==", "==0", -1}, {"0 == ", " == 0", -1}, {"0!=", "!=0", 1}, {"0 != ", " != 0", 1}};
	size_t n = strlen(t);
	for (size_t i = 0; i < ARRAY_SIZE(forms); i++) {
		size_t k = strlen(forms[i].post);
		if (n > k && str_eq(t + n - k, forms[i].post) && zero_operand(t, n - k, name))
			return forms[i].sign;
		k = strlen(forms[i].pre);
		if (n > k && strncmp(t, forms[i].pre, k) == 0 && zero_operand(t + k, n - k, name))
			return forms[i].sign;
	}
	return zero_operand(t, n, name) ? 1 : 0; /* plain `X` */
}

/* Whether the region is the branch taken when its condition's one zero test
 * finds the operand 0: the then-branch of `X == 0`, `0 == X` or `!X`, the
 * else-branch of `X != 0`, `0 != X` or `X`. The operand is the variable
 * called name (fork pids), or, with no name, whatever the condition tests
 * (the one call of a once-test). A condition with &&, || or ?: is not one
 * test. */
bool zero_branch(const struct region *rg, const char *name)
{
	const char *t = rg->cond.text;
	if (!t || strstr(t, "&&") || strstr(t, "||") || strchr(t, '?'))
		return false;
	int sign;
	if (rg->negated) { /* `!X`: the text keeps the '!' */
		if (*t != '!')
			return false;
		t += strspn(t, "! ");
		if (!zero_operand(t, strlen(t), name)) /* `!(X == 0)`: not one plain X */
			return false;
		sign = -1;
	} else {
		sign = zero_sign(t, name);
	}
	return (rg->kind == RG_THEN && sign < 0) || (rg->kind == RG_ELSE && sign > 0);
}

/* Whether anything in the gem writes the flag other than a once-test call:
 * an assignment, a plain write, or a call handed its address (atomic_store,
 * memset ...). atomic_load only reads it. */
static bool flag_written_walk(const struct model *m, const char *usr)
{
	for (uint32_t fi = 0; fi < m->fns.n; fi++) {
		const struct mfunc *mf = &m->fns.v[fi];
		for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
			const struct event *e = &mf->f->events[ei];
			if (e->kind == EV_ACCESS) {
				const struct var *v = mf_var(mf, e->u.access->ref.var);
				if (v && v->usr && str_eq(v->usr, usr) && (e->u.access->mode & ACC_WRITE))
					return true;
			} else if (e->kind == EV_CALL && !once_rmw_name(e->u.call->name) &&
				   !(e->u.call->name && strncmp(e->u.call->name, "atomic_load", 11) == 0) &&
				   !(e->u.call->name && strncmp(e->u.call->name, "__atomic_load", 13) == 0)) {
				for (uint32_t k = 0; k < e->u.call->nargs; k++) {
					const struct expr *a = &e->u.call->args[k];
					const struct var *v =
						a->kind == EX_REF && a->ref.addr ? mf_var(mf, a->ref.var) : NULL;
					if (v && v->usr && str_eq(v->usr, usr))
						return true;
				}
			}
		}
	}
	return false;
}

/* flag_written_walk, memoised per flag of the model: in_once_branch is asked
 * for every in-edge of every function the shared-state worklist revisits. */
static bool flag_written_elsewhere(const struct model *m, const char *usr)
{
	char key[MODEL_MEMO_KEY_MAX + 1];
	int n = snprintf(key, sizeof(key), "once-flag-written\x01%s", usr);
	bool fits = n > 0 && (size_t)n < sizeof(key);
	uintptr_t v = 0;
	if (fits && model_memo_get(m, key, &v))
		return v != 0;
	bool r = flag_written_walk(m, usr);
	if (fits)
		model_memo_put(m, key, r);
	return r;
}

bool in_once_branch(const struct model *m, const struct mfunc *mf, uint32_t ei)
{
	const struct func *f = mf->f;
	int32_t r = f->events[ei].region;
	for (unsigned guard = 0; r >= 0 && (uint32_t)r < f->nregions && guard < 4096; guard++) {
		const struct region *rg = &f->regions[r];
		if ((rg->kind == RG_THEN || rg->kind == RG_ELSE) && rg->cond.ncalls == 1 && rg->cond.calls &&
		    rg->cond.calls[0] >= 0 && (uint32_t)rg->cond.calls[0] < f->nevents && zero_branch(rg, NULL)) {
			const struct event *ce = &f->events[rg->cond.calls[0]];
			const struct var *v = ce->kind == EV_CALL ? once_flag(mf, ce->u.call) : NULL;
			if (v && !flag_written_elsewhere(m, v->usr))
				return true;
		}
		r = rg->parent;
	}
	return false;
}
