# Sourced by the HTML tests after lib/common.sh: write_injection_ext writes a
# gem whose file name and source lines try to become markup and script, with
# an ANSI escape and a byte that is not UTF-8 (@ESC@ and @FF@ become those
# bytes). Two findings, both errors: line 9 (value-access-without-gvl) and
# line 16 (ruby-api-without-gvl); release sites on lines 23 and 24.
write_injection_ext() {
	dir='in"je<b>ct'
	name=$(printf 'x<img src=x onerror=window.__nogvl_pwned=1>\033[31m.c')
	mkdir "$dir"
	cat >"$dir/$name" <<'CEOF'
#include <ruby.h>
#include <ruby/thread.h>

struct job { VALUE str; long n; };

static void *cb_a(void *p)
{
	struct job *j = p;
	j->n = RSTRING_LEN(j->str); /* </pre><script>window.__nogvl_pwned=1</script> */
	return NULL;
}

static void *cb_b(void *p)
{
	(void)p;
	rb_raise(rb_eArgError, "</script><script>window.__nogvl_pwned=1</script>\"'&amp; @ESC@[2J @FF@");
	return NULL;
}

static VALUE m(VALUE self, VALUE s)
{
	struct job j = {s, 0};
	rb_thread_call_without_gvl(cb_a, &j, RUBY_UBF_IO, NULL); /* <!-- <style>*{display:none}</style> */
	rb_thread_call_without_gvl(cb_b, &j, RUBY_UBF_IO, NULL);
	return Qnil;
}

void Init_ext(void) { rb_define_method(rb_cObject, "m", m, 1); }
CEOF
	LC_ALL=C sed -i "s/@ESC@/$(printf '\033')/; s/@FF@/$(printf '\377')/" "$dir/$name"
}
