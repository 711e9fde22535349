/* safe_calls.c: library functions a callback may call on any thread.
 *
 * Used by the offload gate's "opaque callees" check: a reached function
 * without a body must be one of these (or Ruby's allowed/pure helpers) for the
 * verdict to be "safe"; anything else is "cannot verify".
 *
 * Sources:
 *  - POSIX.1-2017 XSH 2.9.1 "Thread-Safety": all functions are thread-safe
 *    except those listed there (strtok, localtime, rand, readdir, getenv ...
 *    which mt-unsafe-call covers); the entries below are from the POSIX and C11
 *    function lists and keep no per-thread state visible to the caller other
 *    than errno (which Ruby carries back; gvl-semantics.md 2.4);
 *  - glibc manual "POSIX Safety Concepts": MT-Safe entries for the same
 *    functions;
 *  - zlib FAQ ("Is zlib thread-safe? Yes ... as long as ... each thread uses
 *    its own z_stream") for the zlib entries;
 *  - GCC "__atomic Builtins" / "__sync Builtins": compiler builtins.
 * Kept sorted (binary search).
 */
#include "knowledge.h"

static const char *const safe_calls[] = {
	"__errno_location",
	"abs",
	"accept",
	"accept4",
	"adler32",
	"aligned_alloc",
	"atoi",
	"atol",
	"atoll",
	"bsearch",
	"calloc",
	"ceil",
	"clock_gettime",
	"close",
	"compress",
	"compress2",
	"compressBound",
	"connect",
	"cos",
	"crc32",
	"deflate",
	"deflateBound",
	"deflateEnd",
	"deflateInit2_",
	"deflateInit_",
	"deflateReset",
	"dup",
	"dup2",
	"epoll_wait",
	"exp",
	"fabs",
	"fcntl",
	"fdatasync",
	"floor",
	"fmod",
	"free",
	"freeaddrinfo",
	"fstat",
	"fsync",
	"ftruncate",
	"getaddrinfo",
	"getnameinfo",
	"getpid",
	"gettimeofday",
	"htonl",
	"htons",
	"inet_ntop",
	"inet_pton",
	"inflate",
	"inflateEnd",
	"inflateInit2_",
	"inflateInit_",
	"inflateReset",
	"isalnum",
	"isalpha",
	"isdigit",
	"isspace",
	"isxdigit",
	"labs",
	"llabs",
	"log",
	"log10",
	"lseek",
	"lstat",
	"madvise",
	"malloc",
	"memchr",
	"memcmp",
	"memcpy",
	"memmem",
	"memmove",
	"memset",
	"mmap",
	"msync",
	"munmap",
	"nanosleep",
	"ntohl",
	"ntohs",
	"open",
	"openat",
	"pipe",
	"poll",
	"posix_memalign",
	"pow",
	"pread",
	"pthread_cond_broadcast",
	"pthread_cond_signal",
	"pthread_cond_timedwait",
	"pthread_cond_wait",
	"pthread_mutex_lock",
	"pthread_mutex_trylock",
	"pthread_mutex_unlock",
	"pwrite",
	"qsort",
	"read",
	"readv",
	"realloc",
	"recv",
	"recvfrom",
	"recvmsg",
	"round",
	"sched_yield",
	"select",
	"sem_post",
	"sem_timedwait",
	"sem_trywait",
	"sem_wait",
	"send",
	"sendmsg",
	"sendto",
	"sin",
	"snprintf",
	"sqrt",
	"stat",
	"strcasecmp",
	"strcat",
	"strchr",
	"strcmp",
	"strcpy",
	"strcspn",
	"strlen",
	"strncasecmp",
	"strncat",
	"strncmp",
	"strncpy",
	"strnlen",
	"strpbrk",
	"strrchr",
	"strspn",
	"strstr",
	"strtol",
	"strtoll",
	"strtoul",
	"strtoull",
	"tolower",
	"toupper",
	"uncompress",
	"usleep",
	"vsnprintf",
	"waitpid",
	"write",
	"writev",
};

/* Constant-time or small fixed-cost calls (for small-work-nogvl). */
static const char *const cheap_calls[] = {
	"__errno_location",
	"abs",
	"ceil",
	"clock_gettime",
	"cos",
	"exp",
	"fabs",
	"floor",
	"fmod",
	"getpid",
	"gettimeofday",
	"htonl",
	"htons",
	"isalnum",
	"isalpha",
	"isdigit",
	"isspace",
	"isxdigit",
	"labs",
	"llabs",
	"log",
	"log10",
	"memcmp",
	"memcpy",
	"memmove",
	"memset",
	"ntohl",
	"ntohs",
	"pow",
	"round",
	"sin",
	"sqrt",
	"tolower",
	"toupper",
};

bool known_safe_call(const char *name)
{
	if (!name)
		return false;
	if (str_starts(name, "__builtin_") || str_starts(name, "__atomic_") || str_starts(name, "__sync_") ||
	    str_starts(name, "__c11_atomic_") || str_starts(name, "atomic_"))
		return true;
	return str_in_sorted(name, safe_calls, ARRAY_SIZE(safe_calls));
}

bool cheap_call(const char *name)
{
	if (!name)
		return false;
	if (str_starts(name, "__builtin_") || str_starts(name, "__atomic_") || str_starts(name, "__sync_"))
		return true;
	return str_in_sorted(name, cheap_calls, ARRAY_SIZE(cheap_calls));
}

/* Size argument positions of the cheap functions that take one. */
int cheap_call_size_arg(const char *name)
{
	if (!name)
		return -1;
	if (str_eq(name, "memcpy") || str_eq(name, "memmove") || str_eq(name, "memset") || str_eq(name, "memcmp") ||
	    str_eq(name, "ruby_nonempty_memcpy") ||
	    str_eq(name, "__builtin_memcpy") || str_eq(name, "__builtin_memmove") || str_eq(name, "__builtin_memset"))
		return 2;
	return -1;
}
