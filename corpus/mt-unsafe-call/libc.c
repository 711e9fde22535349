/* Non-reentrant libc functions called without the GVL, and their reentrant
 * replacements (silent). */
#include <ruby.h>
#include <ruby/thread.h>
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <netdb.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

struct req {
	char path[256];
	char line[256];
	time_t when;
	char out[64];
	int err;
	long count;
};

static void *scan(void *p)
{
	struct req *r = p;
	struct tm tmbuf;
	char *save = NULL;
	char *tok = strtok(r->line, ",");               /* expect: mt-unsafe-call */ /* expect-msg: 'strtok' is not thread-safe (it keeps its position in static state), but 'scan' runs without the GVL, in parallel with other threads; use strtok_r */
	struct tm *t = localtime(&r->when);              /* expect: mt-unsafe-call */ /* expect-msg: use localtime_r */
	struct tm *u = gmtime(&r->when);                 /* expect: mt-unsafe-call */
	const char *a = asctime(t);                      /* expect: mt-unsafe-call */
	const char *c = ctime(&r->when);                 /* expect: mt-unsafe-call */
	int n = rand();                                  /* expect: mt-unsafe-call */
	const char *msg = strerror(r->err);              /* expect: mt-unsafe-call */ /* expect-msg: use strerror_r */
	struct passwd *pw = getpwnam("root");            /* expect: mt-unsafe-call */
	struct group *gr = getgrnam("wheel");            /* expect: mt-unsafe-call */
	struct hostent *he = gethostbyname("localhost"); /* expect: mt-unsafe-call */ /* expect-msg: use getaddrinfo */
	const char *home = getenv("HOME");               /* expect: mt-unsafe-call */
	setenv("X", "1", 1);                             /* expect: mt-unsafe-call */
	DIR *d = opendir(r->path);
	if (d) {
		while (readdir(d))                       /* expect: mt-unsafe-call */
			r->count++;
		closedir(d);
	}
	/* reentrant variants: fine */
	tok = strtok_r(r->line, ",", &save);
	localtime_r(&r->when, &tmbuf);
	gmtime_r(&r->when, &tmbuf);
	strerror_r(r->err, r->out, sizeof(r->out));
	(void)tok; (void)u; (void)a; (void)c; (void)n; (void)msg; (void)pw; (void)gr; (void)he; (void)home;
	return NULL;
}

/* wide-character conversions are unsafe only with a NULL state */
static void *convert(void *p)
{
	struct req *r = p;
	mbstate_t st;
	wchar_t wc;
	memset(&st, 0, sizeof(st));
	mbrtowc(&wc, r->line, 4, &st);                   /* own state: fine */
	mbrtowc(&wc, r->line, 4, NULL);                  /* expect: mt-unsafe-call */ /* expect-msg: keeps the conversion state in a static object when ps is NULL */
	return NULL;
}

static VALUE
rb_scan(VALUE self)
{
	struct req r;
	memset(&r, 0, sizeof(r));
	rb_thread_call_without_gvl(scan, &r, NULL, NULL);
	rb_thread_call_without_gvl(convert, &r, NULL, NULL);
	return LONG2NUM(r.count);
}

void Init_libc(void)
{
	rb_define_method(rb_cObject, "scan", rb_scan, 0);
}
