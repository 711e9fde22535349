/* libmodel_yaml.c: reading model files: a bounded YAML tree and the
 * properties of an entry (see libmodel.h, libmodel_yaml.h). */
#include "libmodel_yaml.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/ipc.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef F_OFD_SETLKW
#define F_OFD_SETLKW F_SETLKW
#endif

#include "model_files.h"
#include "util.h"

/* ---- a small bounded YAML tree (no aliases, limited depth and size) ---- */

PRINTF_LIKE(4, 5)
int yfail(struct yload *y, unsigned line, unsigned col, const char *fmt, ...)
{
	if (y->err)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	char *what = xvasprintf(fmt, ap);
	va_end(ap);
	y->err = xasprintf("%s:%u:%u: %s", y->path, line, col, what);
	free(what);
	return -1;
}

static void kid_add(struct ynode *p, struct ynode *k)
{
	if (p->nkids == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 8;
		p->kids = xrealloc(p->kids, p->cap * sizeof(*p->kids));
	}
	p->kids[p->nkids++] = k;
}

void ytree_free(struct ynode *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nkids; i++)
		ytree_free(n->kids[i]);
	free(n->kids);
	free(n);
}

/* A scalar, sequence or mapping event: a new node, added to its parent (or
 * the root); sequences and mappings are pushed on the stack. */
static void ynode_event(struct yload *y, const yaml_event_t *ev, unsigned line, unsigned col, struct ynode **stack,
			int *depth, struct ynode **root)
{
	if (++y->nodes > MODEL_MAX_NODES) {
		yfail(y, line, col, "more than %u YAML nodes", MODEL_MAX_NODES);
		return;
	}
	if ((ev->type == YAML_SCALAR_EVENT && ev->data.scalar.anchor) ||
	    (ev->type == YAML_SEQUENCE_START_EVENT && ev->data.sequence_start.anchor) ||
	    (ev->type == YAML_MAPPING_START_EVENT && ev->data.mapping_start.anchor)) {
		yfail(y, line, col, "YAML anchors are not allowed in model files");
		return;
	}
	struct ynode *n = xcalloc(1, sizeof(*n));
	n->line = line;
	n->col = col;
	if (ev->type == YAML_SCALAR_EVENT) {
		n->kind = YN_SCALAR;
		n->text = arena_strndup(y->a, (const char *)ev->data.scalar.value, ev->data.scalar.length);
		n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		if (strlen(n->text) != ev->data.scalar.length) {
			free(n);
			yfail(y, line, col, "a NUL byte in a scalar");
			return;
		}
	} else {
		n->kind = ev->type == YAML_MAPPING_START_EVENT ? YN_MAP : YN_SEQ;
	}
	if (*depth)
		kid_add(stack[*depth - 1], n);
	else if (!*root)
		*root = n;
	else {
		ytree_free(n);
		yfail(y, line, col, "more than one value at the top level");
		return;
	}
	if (n->kind != YN_SCALAR) {
		if (*depth >= MODEL_MAX_DEPTH) {
			yfail(y, line, col, "nested more than %d levels deep", MODEL_MAX_DEPTH);
			return;
		}
		stack[(*depth)++] = n;
	}
}

/* Parses one document into a tree. Returns the root, or NULL with y->err. */
struct ynode *yparse(struct yload *y, const char *text, size_t len)
{
	if (len > MODEL_MAX_BYTES) {
		yfail(y, 1, 1, "model file is larger than %u bytes", MODEL_MAX_BYTES);
		return NULL;
	}
	yaml_parser_t p;
	if (!yaml_parser_initialize(&p)) {
		yfail(y, 1, 1, "cannot initialise the YAML parser");
		return NULL;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	struct ynode *stack[MODEL_MAX_DEPTH + 1];
	int depth = 0;
	struct ynode *root = NULL;
	int docs = 0;
	bool done = false;
	while (!done) {
		yaml_event_t ev;
		if (!yaml_parser_parse(&p, &ev)) {
			const yaml_mark_t *m = p.problem ? &p.problem_mark : &p.context_mark;
			yfail(y, (unsigned)m->line + 1, (unsigned)m->column + 1, "YAML syntax error: %s%s%s",
			      p.problem ? p.problem : "unknown problem", p.context ? " " : "",
			      p.context ? p.context : "");
			break;
		}
		unsigned line = (unsigned)ev.start_mark.line + 1, col = (unsigned)ev.start_mark.column + 1;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++docs > 1)
				yfail(y, line, col, "a second YAML document: one model file holds one mapping");
			break;
		case YAML_ALIAS_EVENT:
			yfail(y, line, col, "YAML aliases are not allowed in model files");
			break;
		case YAML_SCALAR_EVENT:
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			ynode_event(y, &ev, line, col, stack, &depth, &root);
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			if (depth)
				depth--;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
		if (y->err)
			break;
	}
	yaml_parser_delete(&p);
	if (y->err) {
		ytree_free(root);
		return NULL;
	}
	return root;
}

const char *kind_text(const struct ynode *n)
{
	return n->kind == YN_SCALAR ? "a scalar" : n->kind == YN_SEQ ? "a list" : "a mapping";
}

int want_scalar(struct yload *y, const struct ynode *v, const char *key)
{
	if (v->kind != YN_SCALAR)
		return yfail(y, v->line, v->col, "'%s' must be a scalar, not %s", key, kind_text(v));
	return 0;
}

static int get_bool(struct yload *y, const struct ynode *v, const char *key, int8_t *out)
{
	if (want_scalar(y, v, key))
		return -1;
	if (v->plain && (str_eq(v->text, "true") || str_eq(v->text, "yes"))) {
		*out = 1;
		return 0;
	}
	if (v->plain && (str_eq(v->text, "false") || str_eq(v->text, "no"))) {
		*out = 0;
		return 0;
	}
	return yfail(y, v->line, v->col, "'%s' must be true or false, not '%s'", key, v->text);
}

static int get_int(struct yload *y, const struct ynode *v, const char *key, int8_t *out)
{
	if (want_scalar(y, v, key))
		return -1;
	char *end = NULL;
	errno = 0;
	long x = strtol(v->text, &end, 10);
	if (!v->plain || !*v->text || *end || errno || x < 0 || x > 63)
		return yfail(y, v->line, v->col, "'%s' must be an argument index from 0 to 63, not '%s'", key, v->text);
	*out = (int8_t)x;
	return 0;
}

static int get_enum(struct yload *y, const struct ynode *v, const char *key, const char *const *names, size_t n,
		    uint8_t *out)
{
	if (want_scalar(y, v, key))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (names[i] && str_eq(v->text, names[i])) {
			*out = (uint8_t)i;
			return 0;
		}
	struct strbuf sb = {0};
	for (size_t i = 0; i < n; i++)
		if (names[i])
			sb_printf(&sb, "%s%s", sb.len ? ", " : "", names[i]);
	yfail(y, v->line, v->col, "'%s' must be one of %s, not '%s'", key, sb_str(&sb), v->text);
	sb_free(&sb);
	return -1;
}

static const char *const ts_names[] = {NULL, "always", "per_handle", "never"};
static const char *const blocks_names[] = {NULL, "no", "bounded", "interruptible", "retries_eintr", "uninterruptible"};
static const char *const ps_names[] = {"fd_table", "cwd", "umask", "environment", "locale", "signals", "stdio"};
static const char *const err_use_names[] = {NULL, "produces", "reads", "clears"};

const char *lm_thread_safe_name(int ts)
{
	return ts > 0 && ts < (int)ARRAY_SIZE(ts_names) ? ts_names[ts] : "unknown";
}

const char *lm_blocks_name(int b)
{
	return b > 0 && b < (int)ARRAY_SIZE(blocks_names) ? blocks_names[b] : "unknown";
}

const char *lm_process_state_name(unsigned bit)
{
	for (size_t i = 0; i < ARRAY_SIZE(ps_names); i++)
		if (bit == 1u << i)
			return ps_names[i];
	return "?";
}

static int get_name_list(struct yload *y, const struct ynode *v, const char *key, const char *const **out)
{
	size_t n = v->kind == YN_SEQ ? v->nkids : 1;
	if (v->kind == YN_MAP)
		return yfail(y, v->line, v->col, "'%s' must be a name or a list of names, not a mapping", key);
	const char **l = arena_alloc(y->a, (n + 1) * sizeof(*l));
	for (size_t i = 0; i < n; i++) {
		const struct ynode *it = v->kind == YN_SEQ ? v->kids[i] : v;
		if (want_scalar(y, it, key))
			return -1;
		if (!*it->text)
			return yfail(y, it->line, it->col, "'%s' has an empty name", key);
		l[i] = it->text;
	}
	*out = l;
	return 0;
}

static const char *const kind_names[] = {"cpu",        "allocates", "takes_lock",    "wakes_waiter",    "stdio",
					 "wakes_pipe", "thread_id", "thread_signal", "polls_interrupts"};
static const char *const bound_names[] = {"always",       "never",      "fd",        "neg_timeout",
					  "null_timeout", "flag_clear", "arg_equals"};
static const char *const wake_names[] = {"signal_io", "signal_process", "condvar", "semaphore", "none"};
static const char *const ts_kind_names[] = {NULL, "tls", "identity", "locale", "sigmask"};
static const char *const lock_op_names[] = {NULL, "acquire", "release", "wait"};

/* The system-header constants a blocking: flag may name: the values this
 * tool is built with, the same headers libclang evaluates the analysed
 * code's constants with. */
static bool flag_value(const char *name, long *out)
{
	static const struct {
		const char *name;
		long value;
	} flags[] = {
		{"F_LOCK", F_LOCK},         {"F_OFD_SETLKW", F_OFD_SETLKW}, {"F_SETLKW", F_SETLKW},
		{"IPC_NOWAIT", IPC_NOWAIT}, {"LOCK_NB", LOCK_NB},           {"LOCK_UN", LOCK_UN},
		{"WNOHANG", WNOHANG},
	};
	for (size_t i = 0; i < ARRAY_SIZE(flags); i++)
		if (str_eq(flags[i].name, name)) {
			*out = flags[i].value;
			return true;
		}
	return false;
}

/* The index in keys of the sub-key k of the property `what`; -1 (with the
 * error set) for an unknown key or one given twice (*seen: the keys met). */
static int subkey(struct yload *y, const struct ynode *k, const char *const *keys, size_t n, unsigned *seen,
		  const char *what)
{
	int ki = k->kind == YN_SCALAR ? str_in_list(k->text, keys, n) : -1;
	if (ki < 0)
		return yfail(y, k->line, k->col, "unknown key '%s' in %s", k->kind == YN_SCALAR ? k->text : "?", what);
	if (*seen & (1u << ki))
		return yfail(y, k->line, k->col, "'%s' given twice in %s", k->text, what);
	*seen |= 1u << ki;
	return ki;
}

static int get_blocking(struct yload *y, const struct ynode *v, struct lib_model *lm)
{
	static const char *const keys[] = {"bound", "arg", "wake", "fd_wait", "flag", "flag2", "on_fd"};
	unsigned seen = 0;
	struct blocking_call *bc = arena_alloc(y->a, sizeof(*bc));
	bc->name = lm->name;
	bc->arg = -1;
	bool have_bound = false;
	if (v->kind != YN_MAP)
		return yfail(y, v->line, v->col, "'blocking' must be a mapping");
	for (size_t i = 0; i + 1 < v->nkids; i += 2) {
		const struct ynode *sk = v->kids[i], *sv = v->kids[i + 1];
		int ki = subkey(y, sk, keys, ARRAY_SIZE(keys), &seen, "blocking");
		if (ki < 0)
			return -1;
		int rc = 0;
		int8_t b8 = 0;
		switch (ki) {
		case 0:
			rc = get_enum(y, sv, "bound", bound_names, ARRAY_SIZE(bound_names), &bc->bound);
			have_bound = true;
			break;
		case 1:
			rc = get_int(y, sv, "arg", &bc->arg);
			break;
		case 2:
			rc = get_enum(y, sv, "wake", wake_names, ARRAY_SIZE(wake_names), &bc->wake);
			break;
		case 3:
			rc = get_bool(y, sv, "fd_wait", &b8);
			bc->fd_wait = b8 == 1;
			break;
		case 4:
		case 5:
			rc = want_scalar(y, sv, sk->text);
			if (!rc && !flag_value(sv->text, ki == 4 ? &bc->flag : &bc->flag2))
				return yfail(y, sv->line, sv->col,
					     "unknown flag '%s' (F_LOCK, F_OFD_SETLKW, F_SETLKW, IPC_NOWAIT, LOCK_NB, "
					     "LOCK_UN, "
					     "WNOHANG)",
					     sv->text);
			break;
		case 6:
			rc = get_bool(y, sv, "on_fd", &b8);
			bc->on_fd = b8 == 1;
			break;
		default:
			return -1;
		}
		if (rc)
			return -1;
	}
	if (!have_bound)
		return yfail(y, v->line, v->col, "'blocking' needs 'bound'");
	if (bc->bound >= BOUND_NEG_TIMEOUT && bc->arg < 0)
		return yfail(y, v->line, v->col, "'blocking' with bound: %s needs 'arg'", bound_names[bc->bound]);
	lm->blocking = bc;
	return 0;
}

static int get_thread_state(struct yload *y, const struct ynode *v, struct lib_model *lm)
{
	static const char *const keys[] = {"kind", "key_arg", "sets"};
	unsigned seen = 0;
	struct thread_state_fn *ts = arena_alloc(y->a, sizeof(*ts));
	ts->name = lm->name;
	ts->key_arg = -1;
	if (v->kind != YN_MAP)
		return yfail(y, v->line, v->col, "'thread_state' must be a mapping");
	for (size_t i = 0; i + 1 < v->nkids; i += 2) {
		const struct ynode *sk = v->kids[i], *sv = v->kids[i + 1];
		int ki = subkey(y, sk, keys, ARRAY_SIZE(keys), &seen, "thread_state");
		if (ki < 0)
			return -1;
		int rc = 0;
		uint8_t k8 = 0;
		int8_t i8 = -1;
		switch (ki) {
		case 0:
			rc = get_enum(y, sv, "kind", ts_kind_names, ARRAY_SIZE(ts_kind_names), &k8);
			ts->kind = k8;
			break;
		case 1:
			rc = get_int(y, sv, "key_arg", &i8);
			ts->key_arg = i8;
			break;
		case 2:
			rc = get_bool(y, sv, "sets", &i8);
			ts->sets = i8 == 1;
			break;
		default:
			return -1;
		}
		if (rc)
			return -1;
	}
	if (!ts->kind)
		return yfail(y, v->line, v->col, "'thread_state' needs 'kind'");
	if ((ts->kind == TS_TLS_API) != (ts->key_arg >= 0))
		return yfail(y, v->line, v->col, "'thread_state' has a 'key_arg' exactly when kind is tls");
	lm->thread_state = ts;
	return 0;
}

static int get_lock(struct yload *y, const struct ynode *v, struct lib_model *lm)
{
	static const char *const keys[] = {"op", "arg"};
	unsigned seen = 0;
	struct lock_fn *lf = arena_alloc(y->a, sizeof(*lf));
	lf->name = lm->name;
	if (v->kind != YN_MAP)
		return yfail(y, v->line, v->col, "'lock' must be a mapping");
	for (size_t i = 0; i + 1 < v->nkids; i += 2) {
		const struct ynode *sk = v->kids[i], *sv = v->kids[i + 1];
		int ki = subkey(y, sk, keys, ARRAY_SIZE(keys), &seen, "lock");
		if (ki < 0)
			return -1;
		int rc = 0;
		uint8_t k8 = 0;
		int8_t i8 = 0;
		switch (ki) {
		case 0:
			rc = get_enum(y, sv, "op", lock_op_names, ARRAY_SIZE(lock_op_names), &k8);
			lf->op = k8;
			break;
		case 1:
			rc = get_int(y, sv, "arg", &i8);
			lf->arg = i8;
			break;
		default:
			return -1;
		}
		if (rc)
			return -1;
	}
	if (!lf->op)
		return yfail(y, v->line, v->col, "'lock' needs 'op'");
	lm->lock = lf;
	return 0;
}

static const char *const change_when_names[] = {"always", "std_fd", "std_stream", "arg_not_null"};

static int get_process_change(struct yload *y, const struct ynode *v, struct lib_model *lm)
{
	static const char *const keys[] = {"when", "arg", "what"};
	unsigned seen = 0;
	struct process_change *pc = arena_alloc(y->a, sizeof(*pc));
	pc->arg = -1;
	if (v->kind != YN_MAP)
		return yfail(y, v->line, v->col, "'process_change' must be a mapping");
	for (size_t i = 0; i + 1 < v->nkids; i += 2) {
		const struct ynode *sk = v->kids[i], *sv = v->kids[i + 1];
		int rc = 0;
		int ki = subkey(y, sk, keys, ARRAY_SIZE(keys), &seen, "process_change");
		if (ki < 0)
			return -1;
		switch (ki) {
		case 0:
			rc = get_enum(y, sv, "when", change_when_names, ARRAY_SIZE(change_when_names), &pc->when);
			break;
		case 1:
			rc = get_int(y, sv, "arg", &pc->arg);
			break;
		case 2:
			rc = want_scalar(y, sv, "what");
			if (!rc && !*sv->text)
				return yfail(y, sv->line, sv->col, "'what' is empty");
			pc->what = sv->text;
			break;
		default:
			return -1;
		}
		if (rc)
			return -1;
	}
	if (!pc->what)
		return yfail(y, v->line, v->col, "'process_change' needs 'what'");
	if ((pc->when != LM_CHANGE_ALWAYS) != (pc->arg >= 0))
		return yfail(y, v->line, v->col, "'process_change' has an 'arg' exactly when 'when' is not always");
	lm->process_change = pc;
	return 0;
}

/* error_channel: {name, use, read_with} */
static int get_error_channel(struct yload *y, const struct ynode *v, struct lib_model *lm)
{
	int rc = 0;
	if (v->kind != YN_MAP)
		return yfail(y, v->line, v->col, "'error_channel' must be a mapping {name, use, read_with}");
	for (size_t j = 0; j + 1 < v->nkids && !rc; j += 2) {
		const struct ynode *ek = v->kids[j], *evv = v->kids[j + 1];
		if (ek->kind != YN_SCALAR)
			return yfail(y, ek->line, ek->col, "a key must be a scalar");
		if (str_eq(ek->text, "name")) {
			rc = want_scalar(y, evv, "name");
			lm->err_channel = evv->text;
		} else if (str_eq(ek->text, "use")) {
			rc = get_enum(y, evv, "use", err_use_names, ARRAY_SIZE(err_use_names), &lm->err_use);
		} else if (str_eq(ek->text, "read_with")) {
			rc = want_scalar(y, evv, "read_with");
			lm->err_read_with = evv->text;
		} else {
			return yfail(y, ek->line, ek->col, "unknown key '%s' in error_channel", ek->text);
		}
	}
	if (!rc && (!lm->err_channel || !lm->err_use))
		return yfail(y, v->line, v->col, "'error_channel' needs 'name' and 'use'");
	return rc;
}

/* A list of names (process_state, kinds) as bits of *out: the bit of a name
 * is its index in names; what and choices make the message for another. */
static int get_name_bits(struct yload *y, const struct ynode *v, const char *key, const char *const *names, size_t n,
			 const char *what, const char *choices, uint16_t *out)
{
	const char *const *l = NULL;
	int rc = get_name_list(y, v, key, &l);
	for (size_t j = 0; !rc && l[j]; j++) {
		int bi = str_in_list(l[j], names, n);
		if (bi < 0) {
			const struct ynode *it = v->kind == YN_SEQ ? v->kids[j] : v;
			return yfail(y, it->line, it->col, "unknown %s '%s' (%s)", what, l[j], choices);
		}
		*out |= (uint16_t)(1u << bi);
	}
	return rc;
}

/* The value v of the key k (index ki in parse_props' keys) into lm. */
static int prop_value(struct yload *y, int ki, const struct ynode *k, const struct ynode *v, struct lib_model *lm)
{
	int rc = 0;
	switch (ki) {
	case 0:
		rc = get_enum(y, v, k->text, ts_names, ARRAY_SIZE(ts_names), &lm->thread_safe);
		break;
	case 1:
		rc = get_bool(y, v, k->text, &lm->pure);
		break;
	case 2:
		rc = get_enum(y, v, k->text, blocks_names, ARRAY_SIZE(blocks_names), &lm->blocks);
		break;
	case 3:
		rc = get_bool(y, v, k->text, &lm->ruby_alloc);
		break;
	case 4:
		rc = get_error_channel(y, v, lm);
		break;
	case 5:
		rc = get_name_bits(y, v, k->text, ps_names, ARRAY_SIZE(ps_names), "process state",
				   "fd_table, cwd, umask, environment, locale, signals, stdio", &lm->process_state);
		break;
	case 6:
		if (v->kind != YN_MAP || v->nkids != 2 || v->kids[0]->kind != YN_SCALAR ||
		    !str_eq(v->kids[0]->text, "registered_by"))
			return yfail(y, v->line, v->col, "'calls_back' must be a mapping {registered_by: [names]}");
		rc = get_name_list(y, v->kids[1], "registered_by", &lm->registered_by);
		break;
	case 7:
		rc = get_bool(y, v, k->text, &lm->async_signal_safe);
		break;
	case 8:
		rc = get_bool(y, v, k->text, &lm->cheap);
		break;
	case 9:
		rc = get_int(y, v, k->text, &lm->size_arg);
		break;
	case 10:
		rc = want_scalar(y, v, k->text);
		lm->why = v->text;
		break;
	case 11:
		rc = want_scalar(y, v, k->text);
		lm->instead = v->text;
		break;
	case 12:
		rc = get_int(y, v, k->text, &lm->null_arg);
		break;
	case 14:
		rc = get_int(y, v, k->text, &lm->handle_arg);
		break;
	case 15:
		rc = get_int(y, v, k->text, &lm->registers_handler);
		break;
	case 16:
		rc = get_blocking(y, v, lm);
		break;
	case 17:
		rc = get_name_bits(y, v, k->text, kind_names, ARRAY_SIZE(kind_names), "kind",
				   "cpu, allocates, takes_lock, wakes_waiter, stdio, wakes_pipe, thread_id, "
				   "thread_signal, polls_interrupts",
				   &lm->kinds);
		break;
	case 18:
		rc = want_scalar(y, v, k->text);
		if (!rc && !valid_name(v->text))
			return yfail(y, v->line, v->col, "'same_as' must name a C function, not '%s'", v->text);
		lm->same_as = v->text;
		break;
	case 19:
		rc = get_thread_state(y, v, lm);
		break;
	case 20:
		rc = get_lock(y, v, lm);
		break;
	case 22:
		rc = get_process_change(y, v, lm);
		break;
	case 23:
		rc = get_bool(y, v, k->text, &lm->dequeues);
		break;
	case 21: {
		int8_t a = -1;
		rc = get_int(y, v, k->text, &a);
		if (!rc) {
			struct writer_fn *w = arena_alloc(y->a, sizeof(*w));
			*w = (struct writer_fn){lm->name, a, NULL};
			lm->writer = w;
		}
		break;
	}
	case 13:
		rc = want_scalar(y, v, k->text);
		if (!rc && !*v->text)
			return yfail(y, v->line, v->col, "'source' is empty");
		lm->source = v->text;
		break;
	}
	return rc;
}

/* What an entry must say, given what else it says; the sub-records get its
 * source. */
static int props_complete(struct yload *y, const struct ynode *m, struct lib_model *lm, bool need_source,
			  bool handle_arg)
{
	if (need_source && !lm->source)
		return yfail(y, m->line, m->col,
			     "the model of '%s' has no 'source' (cite the man page or documentation)", lm->name);
	if (lm->thread_safe == LM_TS_NEVER && !lm->why)
		return yfail(y, m->line, m->col, "'%s' is thread_safe: never but says not 'why'", lm->name);
	if (handle_arg && lm->thread_safe != LM_TS_PER_HANDLE)
		return yfail(y, m->line, m->col, "'handle_arg' is only meaningful with thread_safe: per_handle");
	if (lm->null_arg >= 0 && lm->thread_safe != LM_TS_NEVER)
		return yfail(y, m->line, m->col, "'null_arg' is only meaningful with thread_safe: never");
	/* the sub-records carry the entry's name and source */
	if (lm->thread_state)
		((struct thread_state_fn *)lm->thread_state)->source = lm->source;
	if (lm->lock)
		((struct lock_fn *)lm->lock)->source = lm->source;
	if (lm->writer)
		((struct writer_fn *)lm->writer)->source = lm->source;
	return 0;
}

int parse_props(struct yload *y, const struct ynode *m, struct lib_model *lm, bool need_source)
{
	if (m->kind != YN_MAP)
		return yfail(y, m->line, m->col, "the model of '%s' must be a mapping, not %s", lm->name, kind_text(m));
	bool seen[32] = {0};
	static const char *const keys[] = {"thread_safe",
					   "pure",
					   "blocks",
					   "ruby_alloc",
					   "error_channel",
					   "process_state",
					   "calls_back",
					   "async_signal_safe",
					   "cheap",
					   "size_arg",
					   "why",
					   "instead",
					   "null_arg",
					   "source",
					   "handle_arg",
					   "registers_handler",
					   "blocking",
					   "kinds",
					   "same_as",
					   "thread_state",
					   "lock",
					   "writes_arg",
					   "process_change",
					   "dequeues"};
	for (size_t i = 0; i + 1 < m->nkids; i += 2) {
		const struct ynode *k = m->kids[i], *v = m->kids[i + 1];
		if (k->kind != YN_SCALAR)
			return yfail(y, k->line, k->col, "a key must be a scalar");
		int ki = str_in_list(k->text, keys, ARRAY_SIZE(keys));
		if (ki < 0)
			return yfail(y, k->line, k->col, "unknown key '%s' in the model of '%s'", k->text, lm->name);
		if (seen[ki])
			return yfail(y, k->line, k->col, "'%s' given twice in the model of '%s'", k->text, lm->name);
		seen[ki] = true;
		if (prop_value(y, ki, k, v, lm))
			return -1;
	}
	return props_complete(y, m, lm, need_source, seen[14]);
}

bool valid_name(const char *s)
{
	if (!*s)
		return false;
	for (const char *p = s; *p; p++) {
		bool ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
			  *p == '_' || (*p == '*' && !p[1] && p != s);
		if (!ok)
			return false;
	}
	return true;
}
