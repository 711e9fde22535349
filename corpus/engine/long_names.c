/* Names from the analysed code go into messages: a very long (UTF-8)
 * identifier still leaves a headline of at most ~140 bytes, cut at a word or
 * character boundary, with the rest in a note (the runner checks every
 * headline's length and UTF-8 validity). */
#include <ruby.h>
#include <ruby/thread.h>

#define DEEP1(x) rb_funcall((x), rb_intern("call"), 0)
#define DEEP2(x) DEEP1(x)
#define DEEP3(x) DEEP2(x)
#define DEEP4(x) DEEP3(x)
#define DEEP5(x) DEEP4(x)

static void *très_long_nom_de_fonction_qui_ne_finit_jamais_vraiment_über_alles_größenwahnsinnig_und_noch_viel_länger_als_jede_zeile(void *p)
{
	VALUE *v = p;
	DEEP5(*v); /* expect: ruby-api-without-gvl */ /* one finding for the macro use */
	return NULL;
}

VALUE run_long(VALUE self, VALUE obj)
{
	rb_thread_call_without_gvl(très_long_nom_de_fonction_qui_ne_finit_jamais_vraiment_über_alles_größenwahnsinnig_und_noch_viel_länger_als_jede_zeile, &obj, NULL, NULL);
	return obj;
}
