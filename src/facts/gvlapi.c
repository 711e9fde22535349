/* gvlapi.c: see gvlapi.h. */
#include "gvlapi.h"

#include <stdio.h>
#include <string.h>

#include "util.h"

const struct gvl_api gvl_apis[] = {
	/* name                           kind                            cb  d1  ubf d2  fl  implied            value  removed */
	{"rb_io_blocking_region", API_IO_BLOCKING_REGION, 1, 2, -1, -1, -1, 0, true, false},
	{"rb_io_blocking_region_wait", API_IO_BLOCKING_REGION, 1, 2, -1, -1, -1, 0, true, false},
	{"rb_nogvl", API_NOGVL, 0, 1, 2, 3, 4, 0, false, false},
	{"rb_thread_blocking_region", API_BLOCKING_REGION, 0, 1, 2, 3, -1, 0, true, true},
	{"rb_thread_call_without_gvl", API_WITHOUT_GVL, 0, 1, 2, 3, -1, 0, false, false},
	{"rb_thread_call_without_gvl2", API_WITHOUT_GVL2, 0, 1, 2, 3, -1, NOGVL_INTR_FAIL, false, false},
	{"rb_thread_io_blocking_region", API_THREAD_IO_BLOCKING_REGION, -1, -1, -1, -1, -1, 0, true, false},
};
const unsigned gvl_napis = ARRAY_SIZE(gvl_apis);

const struct gvl_api *gvl_api_find(const char *name)
{
	if (!name || name[0] != 'r')
		return NULL;
	for (unsigned i = 0; i < gvl_napis; i++)
		if (strcmp(gvl_apis[i].name, name) == 0)
			return &gvl_apis[i];
	return NULL;
}

bool gvl_api_is_name(const char *name)
{
	return gvl_api_find(name) != NULL;
}

bool gvl_watch_name(const char *name, bool *needs_call)
{
	static const char *const removed[] = {"TRAP_BEG", "TRAP_END", "rb_thread_blocking_region_begin",
					      "rb_thread_blocking_region_end"};
	*needs_call = true;
	if (gvl_api_is_name(name))
		return true;
	for (unsigned i = 0; i < ARRAY_SIZE(removed); i++)
		if (strcmp(name, removed[i]) == 0) {
			*needs_call = name[0] == 'r';
			return true;
		}
	return false;
}

bool gvl_is_guard_predicate(const char *name)
{
	return name && strcmp(name, "ruby_thread_has_gvl_p") == 0;
}

const char *gvl_flags_text(int flags, char *buf, unsigned size)
{
	static const struct {
		int bit;
		const char *name;
	} names[] = {
		{NOGVL_INTR_FAIL, "RB_NOGVL_INTR_FAIL"},
		{NOGVL_UBF_ASYNC_SAFE, "RB_NOGVL_UBF_ASYNC_SAFE"},
		{NOGVL_OFFLOAD_SAFE, "RB_NOGVL_OFFLOAD_SAFE"},
		{NOGVL_PENDING_INTR_FAIL, "RB_NOGVL_PENDING_INTR_FAIL"},
	};
	struct strbuf sb = {0};
	int rest = flags;
	for (unsigned i = 0; i < ARRAY_SIZE(names); i++) {
		if (flags & names[i].bit) {
			if (sb.len)
				sb_puts(&sb, " | ");
			sb_puts(&sb, names[i].name);
			rest &= ~names[i].bit;
		}
	}
	if (rest) {
		if (sb.len)
			sb_puts(&sb, " | ");
		sb_printf(&sb, "0x%x", (unsigned)rest);
	}
	snprintf(buf, size, "%s", sb.len ? sb.buf : "0");
	sb_free(&sb);
	return buf;
}
