# Buildless: an extconf.rb that calls create_header("NAME") makes mkmf write
# the $defs into NAME, which the sources include (curb's curb_config.h). The
# stand-in for it must exist, or every file stops at a missing header. The
# name is untrusted data: only a plain file name gets a stand-in.
. "$(dirname "$0")/lib/common.sh"
checklist

mkdir -p gem/ext/hdrx
: >gem/hdrx.gemspec
cat >gem/ext/hdrx/extconf.rb <<'EOR'
require "mkmf"
have_func("rb_thread_call_without_gvl", "ruby/thread.h")
create_header('hdrx_config.h')
create_makefile("hdrx")
EOR
cat >gem/ext/hdrx/hdrx.c <<'CEOF'
#include "hdrx_config.h"
#include <ruby.h>
#include <ruby/thread.h>
#include <unistd.h>

static void *nap(void *p)
{
	(void)p;
	sleep(1);
	return NULL;
}

VALUE hdrx_nap(VALUE self)
{
#ifdef HAVE_RB_THREAD_CALL_WITHOUT_GVL
	rb_thread_call_without_gvl(nap, NULL, RUBY_UBF_IO, NULL);
#endif
	return self;
}
CEOF
run --format json -o out.json gem/ext
check "create_header's file: no parse error" is "$(jq '.summary.files_with_errors' out.json)" 0
check "... nothing missing" is "$(jq '.summary.files_missing_headers' out.json)" 0
check "... the release site analysed (its HAVE_ define seen)" is "$(jq '.summary.sites' out.json)" 1

# a name that is not a plain file name gets no stand-in
sed -i "s|create_header('hdrx_config.h')|create_header('../../hdrx_config.h')|" gem/ext/hdrx/extconf.rb
sed -i 's|#include "hdrx_config.h"|#include "../../hdrx_config.h"|' gem/ext/hdrx/hdrx.c
run --format json -o bad.json gem/ext
check "a path in create_header: no stand-in, the header is missing" is "$(jq -r '.summary.missing_headers | join(",")' bad.json)" "../../hdrx_config.h"
check "... and nothing written outside the tree" test ! -e "$T/hdrx_config.h"

finish
