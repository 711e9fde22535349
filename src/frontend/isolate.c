/* isolate.c: see isolate.h. */
#include "isolate.h"
#include "pch.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <signal.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clang_api.h"

#include "facts_io.h"
#include "log.h"
#include "outguard.h"

#define MAX_FRAME (512u * 1024 * 1024)

/* ---- framing: "<length>\n<bytes>" ---- */

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int write_frame(int fd, const char *data, size_t len)
{
	char head[32];
	int hl = snprintf(head, sizeof(head), "%zu\n", len);
	return write_all(fd, head, (size_t)hl) || write_all(fd, data, len) ? -1 : 0;
}

/* What a wait for the worker's answer is bounded by: a deadline (0: none),
 * and the worker's resident memory (rss_limit_kib 0: not watched). */
struct wait_bounds {
	double deadline;
	pid_t pid;
	long rss_limit_kib;
};

/* How often the parent looks at a parsing worker's memory. */
#define WATCH_INTERVAL_MS 50

/* The resident memory of process pid in KiB, or -1. */
static long rss_kib(pid_t pid)
{
	char path[64], buf[128];
	snprintf(path, sizeof(path), "/proc/%ld/statm", (long)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	unsigned long size = 0, resident = 0;
	if (sscanf(buf, "%lu %lu", &size, &resident) != 2)
		return -1;
	return (long)(resident * (unsigned long)sysconf(_SC_PAGESIZE) / 1024);
}

/* Reads exactly n bytes within the bounds (NULL: none). 0 ok, -1 EOF/error,
 * -2 timeout, -3 the worker's memory passed its limit. */
static int read_exact(int fd, char *p, size_t n, const struct wait_bounds *b)
{
	double deadline = b ? b->deadline : 0;
	bool watch = b && b->rss_limit_kib > 0 && b->pid > 0;
	while (n) {
		if (deadline > 0 || watch) {
			int wait_ms = -1;
			if (deadline > 0) {
				double left = deadline - now_seconds();
				if (left <= 0)
					return -2;
				wait_ms = (int)(left * 1000) + 1;
			}
			if (watch && (wait_ms < 0 || wait_ms > WATCH_INTERVAL_MS))
				wait_ms = WATCH_INTERVAL_MS;
			struct pollfd pfd = {fd, POLLIN, 0};
			int pr = poll(&pfd, 1, wait_ms);
			if (pr < 0 && errno == EINTR)
				continue;
			if (pr < 0)
				return -1;
			if (pr == 0) {
				if (watch && rss_kib(b->pid) > b->rss_limit_kib)
					return -3;
				continue; /* the deadline is looked at above */
			}
		}
		ssize_t r = read(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* Returns the payload (caller frees) or NULL; *status as read_exact. */
static char *read_frame(int fd, size_t *len, const struct wait_bounds *b, int *status)
{
	char head[32];
	size_t hl = 0;
	for (;;) {
		if (hl + 1 >= sizeof(head)) {
			*status = -1;
			return NULL;
		}
		int r = read_exact(fd, head + hl, 1, b);
		if (r) {
			*status = r;
			return NULL;
		}
		if (head[hl] == '\n')
			break;
		if (head[hl] < '0' || head[hl] > '9') {
			*status = -1;
			return NULL;
		}
		hl++;
	}
	head[hl] = '\0';
	unsigned long long n = strtoull(head, NULL, 10);
	if (!hl || n > MAX_FRAME) {
		*status = -1;
		return NULL;
	}
	char *buf = xmalloc((size_t)n + 1);
	int r = read_exact(fd, buf, (size_t)n, b);
	if (r) {
		free(buf);
		*status = r;
		return NULL;
	}
	buf[n] = '\0';
	*len = (size_t)n;
	*status = 0;
	return buf;
}

/* AddressSanitizer reserves terabytes of address space for its shadow
 * memory: under it, RLIMIT_AS would stop the parser process at its first
 * allocation, so the limit is not set (sanitizer builds are for tests). */
#if defined(__SANITIZE_ADDRESS__)
#define MEMORY_LIMIT_SKIPPED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MEMORY_LIMIT_SKIPPED 1
#endif
#endif
#ifndef MEMORY_LIMIT_SKIPPED
#define MEMORY_LIMIT_SKIPPED 0
#endif
/* the address-space limit of a parser process, in --memory-limits (its
 * resident memory is watched by the parent at 1) */
#define AS_LIMIT_FACTOR 2

/* ---- the parent side ---- */

static json_t *strings(char *const *v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_bytes(v[i]));
	return a;
}

static char *opts_json(const struct parse_opts *o)
{
	json_t *j = json_object();
	json_object_set_new(j, "recover", json_boolean(o->recover));
	json_object_set_new(j, "verbose", json_integer(o->verbose));
	json_object_set_new(j, "memory_limit_mb", json_real(o->memory_limit_mb));
	json_object_set_new(j, "pch_dir", o->pch ? json_bytes(pch_set_dir(o->pch)) : json_null());
	json_t *rd = json_array(), *roots = json_array(), *virt = json_array();
	for (size_t i = 0; o->fc && i < o->fc->nruby_dirs; i++)
		json_array_append_new(rd, json_bytes(o->fc->ruby_dirs[i]));
	for (size_t i = 0; o->fc && i < o->fc->nproject_roots; i++)
		json_array_append_new(roots, json_bytes(o->fc->project_roots[i]));
	for (unsigned i = 0; i < o->nvirtual; i++) {
		char *text = xstrndup(o->virtual_files[i].Contents, o->virtual_files[i].Length);
		json_array_append_new(virt,
				      json_pack("[oo]", json_bytes(o->virtual_files[i].Filename), json_bytes(text)));
		free(text);
	}
	json_object_set_new(j, "ruby_dirs", rd);
	json_object_set_new(j, "roots", roots);
	json_object_set_new(j, "stub_name", o->fc && o->fc->stub_name ? json_bytes(o->fc->stub_name) : json_null());
	json_object_set_new(j, "virtual", virt);
	char *s = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	return s;
}

static char *job_json(const struct tu_job *job)
{
	json_t *j = json_object();
	json_object_set_new(j, "file", json_bytes(job->file));
	json_object_set_new(j, "display", json_bytes(job->display ? job->display : job->file));
	json_object_set_new(j, "directory", job->directory ? json_bytes(job->directory) : json_null());
	json_object_set_new(j, "args", strings(job->args.v, job->args.n));
	json_object_set_new(j, "dropped", strings(job->dropped.v, job->dropped.n));
	json_object_set_new(j, "buildless", json_boolean(job->buildless));
	json_object_set_new(j, "cxx", json_boolean(job->cxx));
	char *s = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	return s;
}

void isolate_stop(struct worker_proc *w)
{
	if (w->pid <= 0)
		return;
	close(w->to_child);
	close(w->from_child);
	kill(w->pid, SIGKILL);
	while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
		;
	w->pid = 0;
}

static int start(struct worker_proc *w, const struct parse_opts *o)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return -1;
	self[n] = '\0';
	int down[2], up[2];
	if (pipe2(down, O_CLOEXEC) != 0)
		return -1;
	if (pipe2(up, O_CLOEXEC) != 0) {
		close(down[0]);
		close(down[1]);
		return -1;
	}
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		close(down[0]);
		close(down[1]);
		close(up[0]);
		close(up[1]);
		return -1;
	}
	if (pid == 0) {
		/* only async-signal-safe calls until exec. A parser process dies
		 * with the thread that started it (which stops it before it ends):
		 * killed by SIGTERM or SIGKILL, nogvl-lint leaves no worker behind,
		 * even one stuck in a hanging include (PR_SET_PDEATHSIG survives
		 * exec) */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		dup2(down[0], 0);
		dup2(up[1], 1);
		char *argv[] = {self, "--internal-parse-worker", NULL};
		execv(self, argv);
		_exit(127);
	}
	close(down[0]);
	close(up[1]);
	w->pid = pid;
	w->to_child = down[1];
	w->from_child = up[0];
	char *oj = opts_json(o);
	int r = write_frame(w->to_child, oj, strlen(oj));
	free(oj);
	if (r) {
		isolate_stop(w);
		return -1;
	}
	return 0;
}

static struct tu_facts *failed_tu(const struct tu_job *job, const char *why)
{
	struct tu_facts *tu = xcalloc(1, sizeof(*tu));
	tu->path = intern(&tu->pool, job->file);
	tu->display = intern(&tu->pool, job->display ? job->display : job->file);
	tu->buildless = job->buildless;
	tu->cxx = job->cxx;
	tu->status = TU_FAILED;
	tu->fail_reason = intern(&tu->pool, why);
	return tu;
}

struct tu_facts *isolate_parse(struct worker_proc *w, const struct tu_job *job, const struct parse_opts *o)
{
	if (w->pid <= 0 && start(w, o) != 0)
		return failed_tu(job, "could not start a parser process");
	char *jj = job_json(job);
	int wr = write_frame(w->to_child, jj, strlen(jj));
	free(jj);
	double deadline = o->tu_timeout > 0 ? now_seconds() + o->tu_timeout : 0;
	bool budget = false;
	if (o->deadline > 0 && (deadline <= 0 || o->deadline < deadline)) {
		deadline = o->deadline; /* --time-budget ends first */
		budget = true;
	}
	size_t len = 0;
	int status = -1;
	struct wait_bounds wb = {deadline, w->pid, (long)(o->memory_limit_mb * 1024)};
	char *buf = wr ? NULL : read_frame(w->from_child, &len, &wb, &status);
	if (!buf) {
		pid_t pid = w->pid;
		if (status == -3) {
			isolate_stop(w);
			char *why = xasprintf("resource limit: parsing it took more than %g MiB of memory "
					      "(--memory-limit); stopped",
					      o->memory_limit_mb);
			struct tu_facts *tu = failed_tu(job, why);
			free(why);
			return tu;
		}
		if (status == -2) {
			isolate_stop(w);
			char *why =
				budget ? xstrdup("budget: the run's --time-budget ran out while parsing it; stopped")
				       : xasprintf("parsing took longer than %g s (--tu-timeout); stopped",
						   o->tu_timeout);
			struct tu_facts *tu = failed_tu(job, why);
			free(why);
			return tu;
		}
		close(w->to_child);
		close(w->from_child);
		int ws = 0;
		while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
			;
		w->pid = 0;
		char *why = WIFSIGNALED(ws) ? xasprintf("the parser crashed (signal %d)", WTERMSIG(ws))
					    : xasprintf("the parser stopped (exit status %d)", WEXITSTATUS(ws));
		if (WIFSIGNALED(ws) && o->memory_limit_mb > 0 && !MEMORY_LIMIT_SKIPPED)
			log_verbose(1,
				    "%s: the parser process may have reached its address-space limit (%g MiB: twice "
				    "--memory-limit)",
				    job->display, AS_LIMIT_FACTOR * o->memory_limit_mb);
		struct tu_facts *tu = failed_tu(job, why);
		free(why);
		return tu;
	}
	char *err = NULL;
	struct tu_facts *tu = facts_load(buf, len, &err);
	free(buf);
	if (!tu) {
		char *why = xasprintf("the parser sent unreadable facts (%s)", err ? err : "?");
		free(err);
		isolate_stop(w);
		tu = failed_tu(job, why);
		free(why);
	}
	return tu;
}

/* ---- the worker ---- */

static char **str_array(const json_t *a, size_t *n)
{
	*n = json_is_array(a) ? json_array_size(a) : 0;
	char **v = xcalloc(*n + 1, sizeof(char *));
	for (size_t i = 0; i < *n; i++) {
		char *s = json_bytes_value(json_array_get(a, i), NULL);
		v[i] = s ? s : xstrdup("");
	}
	return v;
}

static void free_strs(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static bool worker_entry;

void isolate_enable(void)
{
	worker_entry = true;
}

bool isolate_available(void)
{
	return worker_entry;
}

/* Test hooks, compiled in only with -DNOGVL_TEST_HOOKS=ON (the test
 * builds): a parser process hangs on, or crashes at, a file whose path holds
 * $NOGVL_LINT_TEST_HANG / $NOGVL_LINT_TEST_CRASH. Release builds ignore them. */
static void test_hooks(const char *file)
{
#ifdef NOGVL_TEST_HOOKS
	const char *hang = getenv("NOGVL_LINT_TEST_HANG");
	const char *crash = getenv("NOGVL_LINT_TEST_CRASH");
	if (hang && *hang && strstr(file, hang))
		for (;;)
			pause();
	if (crash && *crash && strstr(file, crash))
		abort();
#else
	(void)file;
#endif
}

/* The parent's in-memory files (the stub header) for libclang; vstore holds
 * their names and texts. */
static void worker_virtual_files(const json_t *virt, size_t nvirt, struct CXUnsavedFile *vf, char **vstore)
{
	for (size_t i = 0; i < nvirt; i++) {
		const json_t *e = json_array_get(virt, i);
		char *path = json_bytes_value(json_array_get(e, 0), NULL);
		char *text = json_bytes_value(json_array_get(e, 1), NULL);
		vstore[2 * i] = path ? path : xstrdup("");
		vstore[2 * i + 1] = text ? text : xstrdup("");
		vf[i].Filename = vstore[2 * i];
		vf[i].Contents = vstore[2 * i + 1];
		vf[i].Length = (unsigned long)strlen(vstore[2 * i + 1]);
	}
}

/* bounded memory: `#include` of a device or a hostile file makes
 * libclang grow without end. The parent stops this process when its
 * resident memory passes --memory-limit (read_exact); the address space
 * is limited too, to twice that, for growth faster than the parent
 * looks: past it an allocation fails and this process ends, losing only
 * the file it was parsing */
static void worker_limit_memory(const json_t *oj)
{
	double mem_mb = json_number_value(json_object_get(oj, "memory_limit_mb"));
	if (mem_mb > 0 && !MEMORY_LIMIT_SKIPPED) {
		rlim_t bytes = (rlim_t)(AS_LIMIT_FACTOR * mem_mb * 1024 * 1024);
		struct rlimit rl = {bytes, bytes};
		if (setrlimit(RLIMIT_AS, &rl) != 0)
			log_verbose(1, "cannot limit a parser process's memory: %s", strerror(errno));
	}
}

/* One job the parent sent: the file, its display name, directory and
 * arguments. */
static void job_from_json(const json_t *jj, struct tu_job *job)
{
	char *file = json_bytes_value(json_object_get(jj, "file"), NULL);
	char *disp = json_bytes_value(json_object_get(jj, "display"), NULL);
	job->file = file ? file : xstrdup("");
	job->display = disp ? disp : xstrdup(job->file);
	job->directory = json_bytes_value(json_object_get(jj, "directory"), NULL);
	size_t na = 0, nd = 0;
	char **args = str_array(json_object_get(jj, "args"), &na);
	char **dropped = str_array(json_object_get(jj, "dropped"), &nd);
	for (size_t i = 0; i < na; i++)
		vec_push(&job->args, args[i]);
	for (size_t i = 0; i < nd; i++)
		vec_push(&job->dropped, dropped[i]);
	free(args);
	free(dropped);
	job->buildless = json_is_true(json_object_get(jj, "buildless"));
	job->cxx = json_is_true(json_object_get(jj, "cxx"));
}

/* Parses job and sends its facts to the parent on fd frames; 0, or not 0 when
 * the frame could not be written. */
static int worker_parse_send(CXIndex idx, struct tu_job *job, struct parse_opts *po, int frames)
{
	struct tu_facts *tu = parse_one(idx, job, po);
	size_t flen = 0;
	char *fb = facts_pack(tu, &flen);
	tu_facts_free(tu);
	tu_job_free(job);
	int wr = fb ? write_frame(frames, fb, flen) : -1;
	free(fb);
#ifdef __GLIBC__
	/* give the file's memory back: the next file starts from the
	 * process's baseline, not from this file's high-water mark */
	malloc_trim(0);
#endif
	return wr;
}

int isolate_worker_main(void)
{
#ifdef __GLIBC__
	/* glibc raises its mmap threshold each time a large block is freed (up
	 * to 32 MiB): after a few hundred files, libclang's large tables and
	 * buffers came from the heap, and the largest file's parse found the
	 * heap cut up by everything before it. Pinned at its initial 128 KiB,
	 * a large block is mapped for the file that needs it and unmapped when
	 * it is freed: the worker's peak on bench/run's input 145 -> 136 MB,
	 * within 4 MB of its largest file parsed alone (malloc_trim below
	 * gives back the rest after each file) */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
	const char *lerr = NULL;
	if (!clang_api_load(&lerr)) {
		fprintf(stderr, "nogvl-lint: %s\n", lerr);
		return 2;
	}
	size_t len = 0;
	int status = 0;
	char *ob = read_frame(0, &len, NULL, &status);
	if (!ob)
		return 2;
	json_error_t je;
	json_t *oj = json_loadb(ob, len, 0, &je);
	free(ob);
	if (!json_is_object(oj))
		return 2;
	size_t nrd = 0, nroots = 0;
	char **rd = str_array(json_object_get(oj, "ruby_dirs"), &nrd);
	char **roots = str_array(json_object_get(oj, "roots"), &nroots);
	char *stub_name = json_bytes_value(json_object_get(oj, "stub_name"), NULL);
	const json_t *virt = json_object_get(oj, "virtual");
	size_t nvirt = json_is_array(virt) ? json_array_size(virt) : 0;
	struct CXUnsavedFile *vf = xcalloc(nvirt + 1, sizeof(*vf));
	char **vstore = xcalloc(2 * nvirt + 1, sizeof(char *));
	worker_virtual_files(virt, nvirt, vf, vstore);
	struct file_classifier fc = {0};
	fc.ruby_dirs = (const char *const *)rd;
	fc.nruby_dirs = nrd;
	fc.project_roots = (const char *const *)roots;
	fc.nproject_roots = nroots;
	fc.stub_name = stub_name;
	struct parse_opts po = {0};
	po.jobs = 1;
	po.fc = &fc;
	po.recover = json_is_true(json_object_get(oj, "recover"));
	po.virtual_files = vf;
	po.nvirtual = (unsigned)nvirt;
	po.verbose = (int)json_integer_value(json_object_get(oj, "verbose"));
	worker_limit_memory(oj);
	log_verbosity = po.verbose;
	char *pch_dir = json_bytes_value(json_object_get(oj, "pch_dir"), NULL);
	po.pch = pch_dir ? pch_set_new(pch_dir) : NULL;
	free(pch_dir);
	json_decref(oj);

	/* frames go to the parent on the real fd 1; what libclang prints goes
	 * through the guard (outguard.h) */
	struct out_guard guard;
	int frames = out_guard_start(&guard, po.verbose) == 0 ? guard.saved_out : 1;
	CXIndex idx = clang_createIndex(1, 0); /* as parse.c's workers */
	int rc = 0;
	for (;;) {
		char *jb = read_frame(0, &len, NULL, &status);
		if (!jb)
			break; /* the parent closed the pipe: done */
		json_t *jj = json_loadb(jb, len, 0, &je);
		free(jb);
		if (!json_is_object(jj)) {
			json_decref(jj);
			rc = 2;
			break;
		}
		struct tu_job job = {0};
		job_from_json(jj, &job);
		json_decref(jj);
		test_hooks(job.file);
		int wr = worker_parse_send(idx, &job, &po, frames);
		if (wr) {
			rc = 2;
			break;
		}
	}
	clang_disposeIndex(idx);
	parse_one_done();
	out_guard_stop(&guard);
	pch_set_free(po.pch);
	free_strs(rd, nrd);
	free_strs(roots, nroots);
	free(stub_name);
	free_strs(vstore, 2 * nvirt);
	free(vf);
	return rc;
}
