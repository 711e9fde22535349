# The Ruby 3.4 view: code under #ifdef RB_NOGVL_OFFLOAD_SAFE is analysed as on
# Ruby 3.4+ even when the installed headers are older; --no-offload-view
# analyses against the installed headers only.
. "$(dirname "$0")/lib/common.sh"

cat >"$T/view.c" <<'EOC'
#include <ruby.h>
#include <ruby/thread.h>
#ifndef RB_NOGVL_OFFLOAD_SAFE
#define RB_NOGVL_OFFLOAD_SAFE 0
#define GEM_FALLBACK 1
#endif
static void *work(void *p) { return p; }
VALUE view_run(VALUE self)
{
#ifdef GEM_FALLBACK
	rb_thread_call_without_gvl(work, NULL, NULL, NULL);
#else
	rb_nogvl(work, NULL, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE);
#endif
	return self;
}
EOC
cd "$T" || exit 1
new_ruby=$(ruby -e 'print((RUBY_VERSION.split(".").map(&:to_i) <=> [3, 4]) >= 0 ? 1 : 0)')

run --enable debug-release-site view.c
expect_rc 0 "view on"
expect_out '^view.c:13:2: note: release site: rb_nogvl, .*flags RB_NOGVL_OFFLOAD_SAFE' "3.4 branch analysed"
expect_no_out '^view.c:11:' "fallback branch not analysed"

run --enable debug-release-site --no-offload-view view.c
if [ "$new_ruby" = 1 ]; then
	expect_out '^view.c:13:2: note: release site: rb_nogvl' "Ruby 3.4+ headers: the same"
else
	expect_out '^view.c:11:2: note: release site: rb_thread_call_without_gvl' "old headers: the fallback"
	expect_no_out '^view.c:13:' "old headers: no 3.4 branch"
fi

# -v says how the headers were taken
run -v view.c
if [ "$new_ruby" = 0 ]; then
	expect_err 'no RB_NOGVL_OFFLOAD_SAFE: analysing as Ruby 3.4+ with 0x4' "-v explains the view"
fi
exit 0
