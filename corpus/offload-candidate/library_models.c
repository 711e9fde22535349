/* nogvl-lint-test: --enable debug-offload-verdict */
/* What the library models (rules/models/<library>.yml) decide, one property
 * per callback. The calls lack the flag: a callback whose every gate passes is
 * an offload candidate. Prototypes stand in for the libraries' headers. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stdlib.h>
#include <string.h>

/* zstd.yml: one-shot, thread_safe: always */
size_t ZSTD_compress(void *dst, size_t cap, const void *src, size_t n, int level);
/* zlib.yml: per_handle (a z_stream per thread) */
typedef struct {
	const unsigned char *next_in;
	unsigned avail_in;
	unsigned char *next_out;
	unsigned avail_out;
	void *state;
} z_stream;
int deflateInit_(z_stream *s, int level, const char *version, int size);
int deflate(z_stream *s, int flush);
int deflateEnd(z_stream *s);
/* libpq.yml: per_handle, blocks: retries_eintr */
typedef struct pg_conn PGconn;
typedef struct pg_result PGresult;
PGconn *PQconnectdb(const char *conninfo);
PGresult *PQexec(PGconn *conn, const char *query);
void PQfinish(PGconn *conn);
/* liburing.yml: per_handle, blocks: interruptible */
struct io_uring {
	unsigned char opaque[216];
};
struct io_uring_cqe;
int io_uring_queue_init(unsigned entries, struct io_uring *ring, unsigned flags);
int io_uring_wait_cqe(struct io_uring *ring, struct io_uring_cqe **cqe);
void io_uring_queue_exit(struct io_uring *ring);
/* sqlite.yml: blocks: bounded; calls_back for sqlite3_backup_step */
typedef struct sqlite3 sqlite3;
typedef struct sqlite3_backup sqlite3_backup;
int sqlite3_sleep(int ms);
int sqlite3_backup_step(sqlite3_backup *b, int pages);
int sqlite3_busy_handler(sqlite3 *db, int (*handler)(void *, int), void *arg);
/* posix.yml: process_state cwd, not modelled as thread-safe */
int chdir(const char *path);
/* a library function with no model */
int unmodelled_library_call(const char *p, long n);

struct job {
	const char *in; /* owned copies (xmalloc'd in the caller) */
	long n;
	char *out;
	long cap;
	long result;
	z_stream *shared; /* a stream the caller keeps */
	sqlite3_backup *backup;
};

static void *zstd_nogvl(void *p) /* always: a candidate */
{
	struct job *j = p;
	j->result = (long)ZSTD_compress(j->out, (size_t)j->cap, j->in, (size_t)j->n, 3);
	return NULL;
}

static void *zlib_own_stream_nogvl(void *p) /* per_handle, its own stream: a candidate */
{
	struct job *j = p;
	z_stream s;
	memset(&s, 0, sizeof(s));
	s.next_in = (const unsigned char *)j->in;
	s.avail_in = (unsigned)j->n;
	s.next_out = (unsigned char *)j->out;
	s.avail_out = (unsigned)j->cap;
	deflateInit_(&s, 6, "1.2.13", (int)sizeof(s));
	j->result = deflate(&s, 4);
	deflateEnd(&s);
	return NULL;
}

static void *zlib_shared_stream_nogvl(void *p) /* per_handle, a stream from the caller: cannot verify */
{
	struct job *j = p;
	j->shared->next_in = (const unsigned char *)j->in;
	j->shared->avail_in = (unsigned)j->n;
	j->result = deflate(j->shared, 0);
	return NULL;
}

static void *pg_nogvl(void *p) /* blocks: retries_eintr, so RUBY_UBF_IO cannot cancel it: cannot verify */
{
	struct job *j = p;
	PGconn *conn = PQconnectdb(j->in); /* expect: uninterruptible-blocking */
	PGresult *r = PQexec(conn, "SELECT 1"); /* expect: uninterruptible-blocking */
	j->result = r != NULL;
	PQfinish(conn);
	return NULL;
}

static PGconn *cached_conn;

static PGconn *lookup_conn(void) /* the gem's own function: may hand out a shared handle */
{
	return cached_conn;
}

static void *pg_cached_nogvl(void *p) /* a handle from a lookup, not made here: cannot verify */
{
	struct job *j = p;
	PGconn *conn = lookup_conn();
	j->result = PQexec(conn, "SELECT 1") != NULL; /* expect: uninterruptible-blocking */
	return NULL;
}

static void *uring_nogvl(void *p) /* blocks: interruptible, with a NULL UBF: cannot verify */
{
	struct job *j = p;
	struct io_uring ring;
	struct io_uring_cqe *cqe = NULL;
	io_uring_queue_init(8, &ring, 0);
	j->result = io_uring_wait_cqe(&ring, &cqe);
	io_uring_queue_exit(&ring);
	return NULL;
}

static void *sleep_nogvl(void *p) /* blocks: bounded: a candidate */
{
	struct job *j = p;
	j->result = sqlite3_sleep((int)j->n);
	return NULL;
}

static int busy(void *arg, int count)
{
	(void)arg;
	return count < 3;
}

static void *backup_nogvl(void *p) /* calls_back: the busy handler registered below: cannot verify */
{
	struct job *j = p;
	j->result = sqlite3_backup_step(j->backup, -1);
	return NULL;
}

static void *chdir_nogvl(void *p) /* process_state cwd, not thread-safe: cannot verify */
{
	struct job *j = p;
	j->result = chdir(j->in); /* expect: process-wide-state */
	return NULL;
}

static void *unmodelled_nogvl(void *p) /* no model: cannot verify, naming the function */
{
	struct job *j = p;
	j->result = unmodelled_library_call(j->in, j->n);
	return NULL;
}

static VALUE run_all(VALUE self, VALUE len)
{
	struct job j;
	char in[64], out[128];
	(void)self;
	memset(&j, 0, sizeof(j));
	memset(in, 'x', sizeof(in));
	j.n = NUM2LONG(len) & 63;
	j.cap = (long)sizeof(out);
	j.in = in;
	j.out = out;
	rb_thread_call_without_gvl(zstd_nogvl, &j, NULL, NULL); /* expect: offload-candidate, debug-offload-verdict */ /* expect-msg: offload verdict: candidate; models: ZSTD_compress (zstd) */
	rb_thread_call_without_gvl(zlib_own_stream_nogvl, &j, NULL, NULL); /* expect: offload-candidate, debug-offload-verdict */ /* expect-msg: deflateInit_ (zlib), deflate (zlib), deflateEnd (zlib) */
	rb_thread_call_without_gvl(pg_nogvl, &j, RUBY_UBF_IO, NULL); /* expect: debug-offload-verdict */ /* expect-msg: unblocking function cannot verify: 'pg_nogvl' calls 'PQconnectdb', which may block (and retries on EINTR */
	rb_thread_call_without_gvl(uring_nogvl, &j, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: (interruptible by a signal, model rules/models/liburing.yml: */
	rb_thread_call_without_gvl(sleep_nogvl, &j, NULL, NULL); /* expect: offload-candidate, debug-offload-verdict */ /* expect-msg: models: sqlite3_sleep (sqlite) */
	rb_thread_call_without_gvl(chdir_nogvl, &j, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: calls 'chdir', whose model (rules/models/posix.yml: */
	rb_thread_call_without_gvl(unmodelled_nogvl, &j, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: is not a known thread-safe library call [missing: unmodelled_library_call] */
	return LONG2NUM(j.result);
}

/* handles the caller made: the callback does not own them */
static VALUE run_shared(VALUE self, VALUE len)
{
	struct job j;
	char in[64], out[128];
	(void)self;
	memset(&j, 0, sizeof(j));
	memset(in, 'x', sizeof(in));
	j.n = NUM2LONG(len) & 63;
	j.cap = (long)sizeof(out);
	j.in = in;
	j.out = out;
	j.shared = calloc(1, sizeof(z_stream));
	j.backup = NULL;
	rb_thread_call_without_gvl(zlib_shared_stream_nogvl, &j, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: inputs cannot verify: 'zlib_shared_stream_nogvl' calls 'deflate', which is thread-safe only per handle (model rules/models/zlib.yml: */
	rb_thread_call_without_gvl(backup_nogvl, &j, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: which may run the handler registered with 'sqlite3_busy_handler' */
	rb_thread_call_without_gvl(pg_cached_nogvl, &j, RUBY_UBF_PROCESS, NULL); /* expect: debug-offload-verdict */ /* expect-msg: calls 'PQexec', which is thread-safe only per handle (model rules/models/libpq.yml:21); its handle 'conn' comes from outside the callback */
	return LONG2NUM(j.result);
}

static VALUE set_busy(VALUE self)
{
	(void)self;
	sqlite3_busy_handler(NULL, busy, NULL);
	return Qnil;
}

void Init_library_models(void)
{
	rb_define_method(rb_cObject, "run_all", run_all, 1);
	rb_define_method(rb_cObject, "run_shared", run_shared, 1);
	rb_define_method(rb_cObject, "set_busy", set_busy, 0);
}
