# A buildless run is not clean when a file whose library header is missing
# calls the project's release wrapper defined in a file that did parse: the
# wrapper's callers (and so their callbacks) are lost with the parse. The
# shape of ruby-oci8, whose files miss <oci.h> and call oci8_call_without_gvl
# from oci8lib.c. Also: the missing header most files miss is named first.
. "$(dirname "$0")/lib/common.sh"
checklist

mkdir -p gem/ext/wrapx
: >gem/wrapx.gemspec
cat >gem/ext/wrapx/extconf.rb <<'EOR'
require "mkmf"
create_makefile("wrapx")
EOR
# the wrapper: parses cleanly
cat >gem/ext/wrapx/wrap.c <<'CEOF'
#include <ruby.h>
#include <ruby/thread.h>

void *wrapx_call_without_gvl(void *(*fn)(void *), void *arg)
{
	return rb_thread_call_without_gvl(fn, arg, RUBY_UBF_IO, NULL);
}
CEOF
# two callers that miss the vendor's header, whose export macro then costs
# the parse the caller's body (recovery stubs cannot repair `VENDOR_API VALUE f(...)`)
for n in one two; do
cat >gem/ext/wrapx/$n.c <<CEOF
#include <ruby.h>
#include <wrapx_vendor_lib.h>

void *wrapx_call_without_gvl(void *(*fn)(void *), void *arg);

static void *blocking_$n(void *p)
{
	vendor_handle *h = p;
	vendor_wait(h);
	return NULL;
}

VENDOR_API VALUE wrapx_$n(VALUE self)
{
	vendor_handle *h = vendor_get(self);
	wrapx_call_without_gvl(blocking_$n, h);
	return Qnil;
}
CEOF
done
# a trampoline the linker does not take for a wrapper (ruby-oci8's shape):
# the function pointer is stored in a struct and the GVL released in an
# rb_protect body; a caller of it with its header missing is incomplete too
cat >gem/ext/wrapx/tramp.c <<'CEOF'
#include <ruby.h>
#include <ruby/thread.h>

struct tramp_arg { void *(*fn)(void *); void *data; };

static VALUE tramp_body(VALUE p)
{
	struct tramp_arg *a = (struct tramp_arg *)p;
	return (VALUE)rb_thread_call_without_gvl(a->fn, a->data, RUBY_UBF_IO, NULL);
}

static void *flush_pending(void *p)
{
	return p;
}

long wrapx_tramp_call(long handle, void *(*fn)(void *), void *data)
{
	struct tramp_arg a;
	int state = 0;
	if (handle) {
		/* first its own pending work, through the same trampoline */
		a.fn = flush_pending;
		a.data = NULL;
		rb_protect(tramp_body, (VALUE)&a, &state);
	}
	a.fn = fn;
	a.data = data;
	VALUE r = rb_protect(tramp_body, (VALUE)&a, &state);
	if (state)
		rb_jump_tag(state);
	return handle + (long)r;
}
CEOF
cat >gem/ext/wrapx/three.c <<'CEOF'
#include <ruby.h>
#include <wrapx_vendor_lib.h>

long wrapx_tramp_call(long handle, void *(*fn)(void *), void *data);

static void *blocking_three(void *p)
{
	vendor_wait(p);
	return NULL;
}

VENDOR_API VALUE wrapx_three(VALUE self)
{
	vendor_handle *h = vendor_get(self);
	wrapx_tramp_call(0, blocking_three, h);
	return Qnil;
}
CEOF
# a third file misses another header and calls no wrapper: not enough alone
cat >gem/ext/wrapx/other.c <<'CEOF'
#include <ruby.h>
#include <wrapx_other_lib.h>
VALUE wrapx_other(VALUE self) { return other_value(self); }
CEOF

run -v --format json -o out.json gem/ext
check "a file calling the wrapper with its header missing: exit 3" is "$rc" 3
check "... the three caller files counted as incomplete" is "$(jq '.summary.files_incomplete' out.json)" 3
check "... the trampoline's caller too" has err.txt "three.c: calls the release wrapper 'wrapx_tramp_call', but no release site was analysed"
check "... -v names the wrapper" has err.txt "one.c: calls the release wrapper 'wrapx_call_without_gvl', but no release site was analysed"
check "... the header three files miss comes first" is "$(jq -r '.summary.missing_headers | join(",")' out.json)" "wrapx_vendor_lib.h,wrapx_other_lib.h"
check "... and first in the summary line" has err.txt "missing headers 'wrapx_vendor_lib.h', 'wrapx_other_lib.h'"

# control: a caller whose header is there is complete
sed -i 's/#include <wrapx_vendor_lib.h>/typedef struct vendor_handle vendor_handle; void vendor_wait(vendor_handle *); vendor_handle *vendor_get(VALUE);\n#define VENDOR_API/' gem/ext/wrapx/one.c gem/ext/wrapx/two.c gem/ext/wrapx/three.c
rm gem/ext/wrapx/other.c
run --format json -o ok.json gem/ext
check "headers present: exit 0" is "$rc" 0
check "... nothing incomplete" is "$(jq '.summary.files_incomplete' ok.json)" 0

finish
