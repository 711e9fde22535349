# Findings only in the project's own files: a helper in the gem's header is
# reported there; code in a header outside the project (a system or library
# header) never is.
. "$(dirname "$0")/lib/common.sh"

mkdir -p "$T/gem/ext/inc" "$T/outside"
cat >"$T/outside/lib_inline.h" <<'EOC'
#include <ruby.h>
static inline void lib_helper(VALUE s) { rb_str_resize(s, 0); }
EOC
cat >"$T/gem/ext/inc/helpers.h" <<'EOC'
#include <ruby.h>
static inline long own_helper(VALUE s) { return RSTRING_LEN(s); }
EOC
cat >"$T/gem/ext/main.c" <<'EOC'
#include <ruby.h>
#include <ruby/thread.h>
#include "inc/helpers.h"
#include "lib_inline.h"

struct a { VALUE s; long n; };

static void *cb(void *p)
{
	struct a *x = p;
	x->n = own_helper(x->s);
	lib_helper(x->s);
	return NULL;
}

VALUE run(VALUE self, VALUE s)
{
	struct a x = {s, 0};
	rb_thread_call_without_gvl(cb, &x, NULL, NULL);
	return LONG2NUM(x.n);
}
EOC
cd "$T/gem" || exit 1
run -I "$T/outside" ext
expect_rc 1 "finding in the project's header"
expect_out '^ext/inc/helpers.h:2:49: error: .*\[value-access-without-gvl\]$' "finding in the gem's header"
expect_out "^ext/main.c:11:9: note: 'own_helper' called here from 'cb'$" "call chain note"
expect_no_out 'lib_inline.h' "nothing in a header outside the project"
expect_no_out 'ruby-3' "nothing in Ruby's headers"
exit 0
