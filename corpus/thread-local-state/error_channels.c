/* Per-thread error channels read by the caller after a flagged call, for a
 * library the callback used; errno is carried back by Ruby and is fine. */
#include <ruby.h>
#include <ruby/thread.h>
#include <dlfcn.h>
#include <errno.h>
#include <netdb.h>
#include <unistd.h>

#ifndef RB_NOGVL_OFFLOAD_SAFE
#define RB_NOGVL_OFFLOAD_SAFE 0
#endif

/* libgit2, as a buildless parse without its headers sees it */
typedef struct git_repository git_repository;
typedef struct { char *message; int klass; } git_error;
int git_repository_open(git_repository **out, const char *path);
const git_error *git_error_last(void);

struct open_args {
	const char *path;
	git_repository *repo;
	int rc;
	void *handle;
	ssize_t n;
	int fd;
	char buf[64];
	struct hostent *he;
};

static void *open_repo(void *p)
{
	struct open_args *a = p;
	a->rc = git_repository_open(&a->repo, a->path);
	return NULL;
}

static void *load_lib(void *p)
{
	struct open_args *a = p;
	a->handle = dlopen(a->path, RTLD_NOW);
	return NULL;
}

static void *read_fd(void *p)
{
	struct open_args *a = p;
	a->n = read(a->fd, a->buf, sizeof(a->buf));
	return NULL;
}

static void *resolve(void *p)
{
	struct open_args *a = p;
	a->he = gethostbyname(a->path); /* expect: mt-unsafe-call */
	return NULL;
}

static VALUE
resolve_flagged(VALUE self, VALUE host)
{
	struct open_args a = {0};
	host = rb_str_new_frozen(host);
	a.path = RSTRING_PTR(host);
	rb_nogvl(resolve, &a, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe */
	if (!a.he)
		rb_raise(rb_eRuntimeError, "lookup failed: %d", h_errno); /* expect: thread-local-state */ /* expect-msg: reads the per-thread h_errno with 'h_errno' after the call */
	RB_GC_GUARD(host);
	return Qnil;
}

static VALUE
open_flagged(VALUE self, VALUE path)
{
	struct open_args a = {0};
	path = rb_str_new_frozen(path);
	a.path = RSTRING_PTR(path);
	rb_nogvl(open_repo, &a, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe */
	if (a.rc < 0) {
		const git_error *e = git_error_last(); /* expect: thread-local-state */ /* expect-msg: reads libgit2's per-thread last error with 'git_error_last' after the call */
		rb_raise(rb_eRuntimeError, "%s", e ? e->message : "?");
	}
	rb_nogvl(load_lib, &a, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe */
	if (!a.handle)
		rb_raise(rb_eLoadError, "%s", dlerror()); /* expect: thread-local-state */ /* expect-msg: with 'dlerror' */
	RB_GC_GUARD(path);
	return Qnil;
}

static VALUE
open_plain(VALUE self, VALUE path)
{
	struct open_args a = {0};
	path = rb_str_new_frozen(path);
	a.path = RSTRING_PTR(path);
	rb_thread_call_without_gvl(open_repo, &a, NULL, NULL);
	if (a.rc < 0) {
		const git_error *e = git_error_last();
		rb_raise(rb_eRuntimeError, "%s", e ? e->message : "?");
	}
	rb_nogvl(load_lib, &a, NULL, NULL, 0);
	if (!a.handle)
		rb_raise(rb_eLoadError, "%s", dlerror());
	RB_GC_GUARD(path);
	return Qnil;
}

/* errno after a flagged call: Ruby restores it (gvl-semantics.md 2.4) */
static VALUE
read_flagged(VALUE self, VALUE fd)
{
	struct open_args a = {0};
	a.fd = NUM2INT(fd);
	rb_nogvl(read_fd, &a, RUBY_UBF_IO, NULL, RB_NOGVL_OFFLOAD_SAFE);
	if (a.n < 0 && errno != EAGAIN)
		rb_sys_fail("read");
	return rb_str_new(a.buf, a.n);
}

/* OpenSSL-style read after a callback that calls no library using that
 * channel: not about the callback's result */
unsigned long ERR_get_error(void);
static VALUE
read_then_err(VALUE self, VALUE fd)
{
	struct open_args a = {0};
	a.fd = NUM2INT(fd);
	rb_nogvl(read_fd, &a, RUBY_UBF_IO, NULL, RB_NOGVL_OFFLOAD_SAFE);
	return ULONG2NUM(ERR_get_error());
}

void Init_error_channels(void)
{
	rb_define_method(rb_cObject, "open_flagged", open_flagged, 1);
	rb_define_method(rb_cObject, "open_plain", open_plain, 1);
	rb_define_method(rb_cObject, "read_flagged", read_flagged, 1);
	rb_define_method(rb_cObject, "read_then_err", read_then_err, 1);
}
