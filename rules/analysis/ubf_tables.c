/* ubf_tables.c: what library calls do, for the unblocking-function rules.
 *
 * Every table is sorted (strcmp order, checked by tests/unit/test_ubf_tables.c)
 * and names its source. Flag values (WNOHANG, MSG_DONTWAIT ...) come from the
 * system headers this tool is built with, the same headers libclang evaluates
 * the analysed code's constants with.
 */
#include "ubf.h"
#include "libmodel.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ipc.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define IN(table, name) ((name) && str_in_sorted((name), (table), ARRAY_SIZE(table)))

#ifndef F_OFD_SETLKW
#define F_OFD_SETLKW F_SETLKW
#endif

/* Calls that can sleep in the kernel waiting for an event.
 * Sources: signal(7), "Interruption of system calls and library functions by
 * signal handlers" (Linux man-pages 6.03): read/readv/write/writev/ioctl on slow
 * devices, open of a FIFO, wait/wait3/wait4/waitid/waitpid, accept/connect/
 * recv/recvfrom/recvmmsg/recvmsg/send/sendto/sendmsg, flock and fcntl F_SETLKW,
 * mq_*, pthread_cond_wait, sem_wait/sem_timedwait, pause/sigsuspend/
 * sigtimedwait/sigwaitinfo, epoll_wait/epoll_pwait/poll/ppoll/select/pselect,
 * msgrcv/msgsnd/semop/semtimedop, clock_nanosleep/nanosleep/usleep,
 * io_getevents, sleep(3). Added: fsync/fdatasync/sync/syncfs (disk flushes,
 * fsync(2)), pread/pwrite/sendfile/splice/copy_file_range (I/O on a
 * descriptor), getaddrinfo/getnameinfo/gethostbyname* (resolver network I/O,
 * getaddrinfo(3)), getrandom(2) (blocks until the pool is initialised),
 * pthread_join(3), pthread_barrier_wait(3p), kevent(2) (BSD), eventfd_read
 * (eventfd(2): a read(2) on the eventfd), lockf(3) F_LOCK, system(3) and
 * pclose(3) (wait for a child), stdio stream I/O (ISO C 7.21: buffered
 * read(2)/write(2)).
 * Which calls wait without bound (design.md "Precise points": a single
 * pthread_cond_timedwait or a poll with a finite timeout is not one): poll(2)
 * and epoll_wait(2) "Specifying a timeout of -1 causes ... to block
 * indefinitely"; select(2)/pselect(2) "If timeout is specified as NULL, select()
 * blocks indefinitely"; ppoll(2) NULL tmo_p; kevent(2) NULL timeout;
 * io_getevents(2) NULL timeout; waitpid(2) WNOHANG "return immediately if no
 * child has exited"; recv(2) MSG_DONTWAIT; msgrcv(2) IPC_NOWAIT; flock(2)
 * LOCK_NB; fcntl(2) F_SETLKW "wait for that lock to be released"; lockf(3)
 * F_LOCK. Writes (write, send, msgsnd, mq_send) block only while a buffer is
 * full and are treated as bounded. */
static const struct blocking_call blocking[] = {
	{"accept", BOUND_FD, 0, WAKE_SIGNAL_IO, 1, 0, 0},
	{"accept4", BOUND_FD, 0, WAKE_SIGNAL_IO, 1, 0, 0},
	{"clock_nanosleep", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"connect", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"copy_file_range", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"creat", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"epoll_pwait", BOUND_NEG_TIMEOUT, 3, WAKE_SIGNAL_IO, 1, 0, 0},
	{"epoll_pwait2", BOUND_NULL_TIMEOUT, 3, WAKE_SIGNAL_IO, 1, 0, 0},
	{"epoll_wait", BOUND_NEG_TIMEOUT, 3, WAKE_SIGNAL_IO, 1, 0, 0},
	{"eventfd_read", BOUND_FD, 0, WAKE_SIGNAL_IO, 1, 0, 0},
	{"fcntl", BOUND_ARG_EQUALS, 1, WAKE_SIGNAL_IO, 0, F_SETLKW, F_OFD_SETLKW},
	{"fdatasync", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"fflush", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"fgetc", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"fgets", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"flock", BOUND_FLAG_CLEAR, 1, WAKE_SIGNAL_IO, 0, LOCK_NB, LOCK_UN},
	{"fopen", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"fprintf", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"fputc", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"fputs", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"fread", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"fscanf", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"fsync", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"fwrite", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"getaddrinfo", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"getc", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"getchar", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"getdelim", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"gethostbyaddr", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"gethostbyname", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"gethostbyname2", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"gethostbyname_r", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"getline", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"getnameinfo", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"getrandom", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"io_getevents", BOUND_NULL_TIMEOUT, 4, WAKE_SIGNAL_IO, 0, 0, 0},
	{"ioctl", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"kevent", BOUND_NULL_TIMEOUT, 5, WAKE_SIGNAL_IO, 1, 0, 0},
	{"lockf", BOUND_ARG_EQUALS, 1, WAKE_SIGNAL_IO, 0, F_LOCK, F_LOCK},
	{"mq_receive", BOUND_NEVER, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"mq_send", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"mq_timedreceive", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"mq_timedsend", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"msgrcv", BOUND_FLAG_CLEAR, 4, WAKE_SIGNAL_IO, 0, IPC_NOWAIT, 0},
	{"msgsnd", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"nanosleep", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"open", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"open64", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"openat", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"pause", BOUND_NEVER, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"pclose", BOUND_ALWAYS, -1, WAKE_SIGNAL_PROCESS, 0, 0, 0},
	{"poll", BOUND_NEG_TIMEOUT, 2, WAKE_SIGNAL_IO, 1, 0, 0},
	{"ppoll", BOUND_NULL_TIMEOUT, 2, WAKE_SIGNAL_IO, 1, 0, 0},
	{"pread", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"pread64", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"preadv", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"preadv2", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"printf", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"pselect", BOUND_NULL_TIMEOUT, 4, WAKE_SIGNAL_IO, 1, 0, 0},
	{"pthread_barrier_wait", BOUND_NEVER, -1, WAKE_NONE, 0, 0, 0},
	{"pthread_cond_clockwait", BOUND_ALWAYS, -1, WAKE_CONDVAR, 0, 0, 0},
	{"pthread_cond_timedwait", BOUND_ALWAYS, -1, WAKE_CONDVAR, 0, 0, 0},
	{"pthread_cond_wait", BOUND_NEVER, -1, WAKE_CONDVAR, 0, 0, 0},
	{"pthread_join", BOUND_NEVER, -1, WAKE_NONE, 0, 0, 0},
	{"puts", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"pwrite", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"pwrite64", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"pwritev", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"read", BOUND_FD, 0, WAKE_SIGNAL_IO, 1, 0, 0},
	{"readv", BOUND_FD, 0, WAKE_SIGNAL_IO, 1, 0, 0},
	{"recv", BOUND_FD, 0, WAKE_SIGNAL_IO, 1, 0, 0},
	{"recvfrom", BOUND_FD, 0, WAKE_SIGNAL_IO, 1, 0, 0},
	{"recvmmsg", BOUND_FD, 0, WAKE_SIGNAL_IO, 1, 0, 0},
	{"recvmsg", BOUND_FD, 0, WAKE_SIGNAL_IO, 1, 0, 0},
	{"select", BOUND_NULL_TIMEOUT, 4, WAKE_SIGNAL_IO, 1, 0, 0},
	{"sem_clockwait", BOUND_ALWAYS, -1, WAKE_SEMAPHORE, 0, 0, 0},
	{"sem_timedwait", BOUND_ALWAYS, -1, WAKE_SEMAPHORE, 0, 0, 0},
	{"sem_wait", BOUND_NEVER, -1, WAKE_SEMAPHORE, 0, 0, 0},
	{"semop", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"semtimedop", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"send", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"sendfile", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"sendmmsg", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"sendmsg", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"sendto", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"sigsuspend", BOUND_NEVER, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"sigtimedwait", BOUND_ALWAYS, -1, WAKE_NONE, 0, 0, 0},
	{"sigwait", BOUND_NEVER, -1, WAKE_NONE, 0, 0, 0},
	{"sigwaitinfo", BOUND_NEVER, -1, WAKE_NONE, 0, 0, 0},
	{"sleep", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"splice", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"sync", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"syncfs", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"system", BOUND_ALWAYS, -1, WAKE_SIGNAL_PROCESS, 0, 0, 0},
	{"tcdrain", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"usleep", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"wait", BOUND_NEVER, -1, WAKE_SIGNAL_PROCESS, 0, 0, 0},
	{"wait3", BOUND_FLAG_CLEAR, 1, WAKE_SIGNAL_PROCESS, 0, WNOHANG, 0},
	{"wait4", BOUND_FLAG_CLEAR, 2, WAKE_SIGNAL_PROCESS, 0, WNOHANG, 0},
	{"waitid", BOUND_FLAG_CLEAR, 3, WAKE_SIGNAL_PROCESS, 0, WNOHANG, 0},
	{"waitpid", BOUND_FLAG_CLEAR, 2, WAKE_SIGNAL_PROCESS, 0, WNOHANG, 0},
	{"write", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
	{"writev", BOUND_ALWAYS, -1, WAKE_SIGNAL_IO, 0, 0, 0},
};

/* Library calls that compute on memory and never wait for an event, so a
 * signal cannot cut them short.
 * Sources: ISO C17 7.24 <string.h>, 7.4 <ctype.h>, 7.12 <math.h>, 7.22
 * <stdlib.h> (numeric conversions, memory management, qsort/bsearch, abs/div),
 * 7.21.6 sprintf/snprintf; POSIX.1-2017 strdup/strndup/strnlen/stpcpy/
 * strtok_r/strcasecmp/memccpy/ffs/htonl, clock_gettime, pthread_getspecific,
 * pthread_self; pthread_mutex_lock(3p) and pthread_spin_lock(3p): "shall not
 * return an error code of [EINTR]" (a signal does not end the wait); glibc's
 * expansions of errno/isalpha/assert (__errno_location, __ctype_*_loc,
 * __assert_fail) and its _FORTIFY_SOURCE variants (__memcpy_chk ...);
 * zlib 1.2 manual (zlib.h): deflate/inflate/compress/uncompress/crc32/adler32
 * are in-memory and do no I/O. */
static const char *const cpu_calls[] = {
	"__assert_fail",
	"__ctype_b_loc",
	"__ctype_tolower_loc",
	"__ctype_toupper_loc",
	"__errno_location",
	"__memcpy_chk",
	"__memmove_chk",
	"__memset_chk",
	"__snprintf_chk",
	"__sprintf_chk",
	"__stpcpy_chk",
	"__strcat_chk",
	"__strcpy_chk",
	"__strncpy_chk",
	"__vsnprintf_chk",
	"abort",
	"abs",
	"adler32",
	"adler32_z",
	"aligned_alloc",
	"atof",
	"atoi",
	"atol",
	"atoll",
	"bcmp",
	"bcopy",
	"bsearch",
	"bzero",
	"calloc",
	"ceil",
	"clock_gettime",
	"compress",
	"compress2",
	"compressBound",
	"cos",
	"crc32",
	"crc32_z",
	"deflate",
	"deflateBound",
	"deflateEnd",
	"deflateInit2_",
	"deflateInit_",
	"deflateParams",
	"deflateReset",
	"div",
	"exp",
	"explicit_bzero",
	"fabs",
	"ffs",
	"floor",
	"fmod",
	"free",
	"frexp",
	"gettimeofday",
	"htonl",
	"htons",
	"inflate",
	"inflateEnd",
	"inflateInit2_",
	"inflateInit_",
	"inflateReset",
	"isalnum",
	"isalpha",
	"isdigit",
	"islower",
	"isspace",
	"isupper",
	"isxdigit",
	"labs",
	"ldexp",
	"llabs",
	"log",
	"log10",
	"log2",
	"malloc",
	"memccpy",
	"memchr",
	"memcmp",
	"memcpy",
	"memmem",
	"memmove",
	"memrchr",
	"memset",
	"modf",
	"ntohl",
	"ntohs",
	"posix_memalign",
	"pow",
	"pthread_getspecific",
	"pthread_mutex_lock",
	"pthread_mutex_trylock",
	"pthread_mutex_unlock",
	"pthread_self",
	"pthread_setspecific",
	"pthread_spin_lock",
	"pthread_spin_trylock",
	"pthread_spin_unlock",
	"qsort",
	"qsort_r",
	"realloc",
	"reallocarray",
	"round",
	"sin",
	"snprintf",
	"sprintf",
	"sqrt",
	"stpcpy",
	"stpncpy",
	"strcasecmp",
	"strcat",
	"strchr",
	"strcmp",
	"strcpy",
	"strcspn",
	"strdup",
	"strlen",
	"strncasecmp",
	"strncat",
	"strncmp",
	"strncpy",
	"strndup",
	"strnlen",
	"strpbrk",
	"strrchr",
	"strspn",
	"strstr",
	"strtod",
	"strtof",
	"strtok_r",
	"strtol",
	"strtold",
	"strtoll",
	"strtoul",
	"strtoull",
	"tan",
	"time",
	"tolower",
	"toupper",
	"trunc",
	"uncompress",
	"uncompress2",
	"vsnprintf",
	"vsprintf",
};

/* Compiler builtins and atomics: prefixes, no library call (C17 7.17, GCC/Clang
 * "Built-in Functions"). Lock-free atomics are allowed in signal handlers
 * (C17 7.14.1.1p5). */
static const char *const builtin_prefixes[] = {
	"__atomic_", "__builtin_", "__c11_atomic_", "__sync_", "atomic_", "atomic_signal_fence", "atomic_thread_fence",
};

/* Async-signal-safe functions are the library models with
 * async_signal_safe: true (rules/models/posix.yml: POSIX.1-2017 XSH 2.4.3
 * "Signal Actions" as listed by signal-safety(7), plus documented extras such
 * as eventfd_read/eventfd_write and Ruby's rb_internal_thread_specific_get/set;
 * rules/models/intrinsics.yml: compiler builtins and lock-free atomics). */

/* Allocation: ISO C17 7.22.3, POSIX strdup/strndup/posix_memalign, glibc
 * memalign/valloc/pvalloc/reallocarray/asprintf, and Ruby's ruby_xmalloc family
 * (ruby/internal/xmalloc.h), which may also take the GVL to run GC. */
static const char *const alloc_calls[] = {
	"aligned_alloc",
	"asprintf",
	"calloc",
	"free",
	"malloc",
	"memalign",
	"posix_memalign",
	"pvalloc",
	"realloc",
	"reallocarray",
	"ruby_xcalloc",
	"ruby_xfree",
	"ruby_xmalloc",
	"ruby_xmalloc2",
	"ruby_xrealloc",
	"ruby_xrealloc2",
	"strdup",
	"strndup",
	"valloc",
	"vasprintf",
};

/* Acquiring a lock, or waiting on one: pthread(7) mutex, rwlock, spinlock and
 * condition-variable waits (POSIX.1-2017 XSH pthread_*), POSIX semaphores
 * sem_wait(3), stdio stream locks flockfile(3), and Ruby's native wrappers
 * (ruby/thread_native.h: rb_native_mutex_lock, rb_nativethread_lock_lock,
 * rb_native_cond_wait). Try-locks never wait and are not listed. */
static const char *const lock_calls[] = {
	"flockfile",
	"pthread_cond_clockwait",
	"pthread_cond_timedwait",
	"pthread_cond_wait",
	"pthread_mutex_clocklock",
	"pthread_mutex_lock",
	"pthread_mutex_timedlock",
	"pthread_rwlock_clockrdlock",
	"pthread_rwlock_clockwrlock",
	"pthread_rwlock_rdlock",
	"pthread_rwlock_timedrdlock",
	"pthread_rwlock_timedwrlock",
	"pthread_rwlock_wrlock",
	"pthread_spin_lock",
	"rb_native_cond_timedwait",
	"rb_native_cond_wait",
	"rb_native_mutex_lock",
	"rb_nativethread_lock_lock",
	"sem_clockwait",
	"sem_timedwait",
	"sem_wait",
};

/* Waking a condition-variable waiter: pthread_cond_signal(3p),
 * pthread_cond_broadcast(3p), ruby/thread_native.h rb_native_cond_signal/
 * broadcast. Not async-signal-safe (absent from signal-safety(7)). */
static const char *const cond_signal_calls[] = {
	"pthread_cond_broadcast",
	"pthread_cond_signal",
	"rb_native_cond_broadcast",
	"rb_native_cond_signal",
};

/* stdio streams (ISO C17 7.21: every FILE * function takes the stream lock and
 * may allocate; signal-safety(7): "the stdio library, all of whose functions
 * are not async-signal-safe"), glibc's _FORTIFY_SOURCE variants, syslog(3),
 * err(3)/warn(3). Formatting into memory (snprintf) is not listed here. */
static const char *const stdio_calls[] = {
	"__fprintf_chk",
	"__printf_chk",
	"__vfprintf_chk",
	"__vprintf_chk",
	"clearerr",
	"dprintf",
	"err",
	"errx",
	"fclose",
	"fdopen",
	"feof",
	"ferror",
	"fflush",
	"fgetc",
	"fgets",
	"fileno",
	"fopen",
	"fprintf",
	"fputc",
	"fputs",
	"fread",
	"freopen",
	"fscanf",
	"fseek",
	"ftell",
	"fwrite",
	"getc",
	"getchar",
	"getdelim",
	"getline",
	"pclose",
	"perror",
	"popen",
	"printf",
	"putc",
	"putchar",
	"puts",
	"rewind",
	"scanf",
	"setbuf",
	"setvbuf",
	"syslog",
	"tmpfile",
	"ungetc",
	"vdprintf",
	"verr",
	"verrx",
	"vfprintf",
	"vprintf",
	"vsyslog",
	"vwarn",
	"vwarnx",
	"warn",
	"warnx",
};

/* Writing to a self-pipe, socketpair or eventfd wakes a thread waiting on its
 * other end (gvl-semantics.md 4.4 pattern B): write(2), send(2), sendto(2),
 * eventfd_write (eventfd(2)). */
static const char *const pipe_write_calls[] = {
	"eventfd_write",
	"send",
	"sendto",
	"write",
};

/* Thread identity: pthread_self(3), gettid(2), C11 thrd_current (7.26.5.2),
 * ruby/thread_native.h rb_nativethread_self. */
static const char *const thread_id_calls[] = {
	"gettid",
	"pthread_self",
	"rb_nativethread_self",
	"thrd_current",
};

/* Calls aimed at one thread: pthread_kill(3), pthread_sigqueue(3),
 * pthread_cancel(3), tgkill(2)/tkill(2). */
static const char *const thread_signal_calls[] = {
	"pthread_cancel",
	"pthread_kill",
	"pthread_sigqueue",
	"tgkill",
	"tkill",
};

/* A callback that checks Ruby's interrupt flag itself, or re-enters Ruby
 * where interrupts are handled: thread.c "rb_thread_interrupted() - check
 * interrupt flag" (safe without the GVL), rb_thread_check_ints,
 * rb_thread_call_with_gvl. */
static const char *const interrupt_polls[] = {
	"rb_thread_call_with_gvl",
	"rb_thread_check_ints",
	"rb_thread_interrupted",
};

/* Ruby's headers replace some libc names with its own functions; for what a
 * call does they are the libc function. Sources: ruby/subst.h (snprintf,
 * vsnprintf; close/shutdown/getpeername/getsockname with BROKEN_CLOSE),
 * ruby/internal/memory.h (memcpy), ruby/util.h (strdup, strtod, strtoul, qsort). */
static const char *const libc_alias[][2] = {
	{"ruby_close", "close"},
	{"ruby_getpeername", "getpeername"},
	{"ruby_getsockname", "getsockname"},
	{"ruby_nonempty_memcpy", "memcpy"},
	{"ruby_qsort", "qsort"},
	{"ruby_shutdown", "shutdown"},
	{"ruby_snprintf", "snprintf"},
	{"ruby_strdup", "strdup"},
	{"ruby_strtod", "strtod"},
	{"ruby_strtoul", "strtoul"},
	{"ruby_vsnprintf", "vsnprintf"},
};

const char *ubf_libc_name(const char *name)
{
	if (!name || !str_starts(name, "ruby_"))
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(libc_alias); i++)
		if (strcmp(libc_alias[i][0], name) == 0)
			return libc_alias[i][1];
	return NULL;
}

static int blocking_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct blocking_call *)elem)->name);
}

const struct blocking_call *ubf_blocking_call(const char *name)
{
	if (!name)
		return NULL;
	return bsearch(name, blocking, ARRAY_SIZE(blocking), sizeof(blocking[0]), blocking_cmp);
}

bool ubf_blocking_table_sorted(void)
{
	for (size_t i = 1; i < ARRAY_SIZE(blocking); i++)
		if (strcmp(blocking[i - 1].name, blocking[i].name) >= 0)
			return false;
	return true;
}

bool ubf_cpu_call(const char *name)
{
	return IN(cpu_calls, name);
}

bool ubf_builtin(const char *name)
{
	if (!name)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(builtin_prefixes); i++)
		if (str_starts(name, builtin_prefixes[i]))
			return true;
	return false;
}

bool ubf_async_signal_safe(const char *name)
{
	const struct lib_model *lm = model_find(name);
	return (lm && lm->async_signal_safe == 1) || ubf_builtin(name);
}

bool ubf_alloc_call(const char *name)
{
	return IN(alloc_calls, name);
}

bool ubf_lock_call(const char *name)
{
	return IN(lock_calls, name);
}

bool ubf_cond_signal_call(const char *name)
{
	return IN(cond_signal_calls, name);
}

bool ubf_stdio_call(const char *name)
{
	return IN(stdio_calls, name);
}

bool ubf_pipe_write_call(const char *name)
{
	return IN(pipe_write_calls, name);
}

bool ubf_thread_id_call(const char *name)
{
	return IN(thread_id_calls, name);
}

bool ubf_thread_signal_call(const char *name)
{
	return IN(thread_signal_calls, name);
}

bool ubf_polls_interrupts(const char *name)
{
	return IN(interrupt_polls, name);
}

const struct ubf_table *ubf_tables(size_t *n)
{
#define T(x) {#x, x, ARRAY_SIZE(x)}
	static const struct ubf_table tables[] = {
		T(cpu_calls),         T(alloc_calls),
		T(lock_calls),        T(cond_signal_calls), T(stdio_calls),             T(pipe_write_calls),
		T(thread_id_calls),   T(thread_signal_calls), T(interrupt_polls),
	};
#undef T
	*n = ARRAY_SIZE(tables);
	return tables;
}
