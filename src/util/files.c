/* files.c: paths, reading files and replacing them (see files.h). */
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- paths ---- */

char *path_join(const char *a, const char *b)
{
	if (!a || !*a || b[0] == '/')
		return xstrdup(b);
	size_t la = strlen(a);
	return xasprintf("%s%s%s", a, a[la - 1] == '/' ? "" : "/", b);
}

char *path_dirname(const char *p)
{
	const char *slash = strrchr(p, '/');
	if (!slash)
		return xstrdup(".");
	if (slash == p)
		return xstrdup("/");
	return xstrndup(p, (size_t)(slash - p));
}

const char *path_basename(const char *p)
{
	const char *slash = strrchr(p, '/');
	return slash ? slash + 1 : p;
}

char *path_normalize(const char *p)
{
	bool abs = p[0] == '/';
	VEC(char *) parts = {0};
	char *copy = xstrdup(p);
	char *save = NULL;
	for (char *tok = strtok_r(copy, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (strcmp(tok, ".") == 0)
			continue;
		if (strcmp(tok, "..") == 0) {
			if (parts.n && strcmp(parts.v[parts.n - 1], "..") != 0) {
				parts.n--;
				continue;
			}
			if (abs)
				continue;
		}
		vec_push(&parts, tok);
	}
	struct strbuf sb = {0};
	if (abs)
		sb_putc(&sb, '/');
	for (size_t i = 0; i < parts.n; i++) {
		if (i)
			sb_putc(&sb, '/');
		sb_puts(&sb, parts.v[i]);
	}
	if (!sb.len)
		sb_putc(&sb, '.');
	vec_free(&parts);
	free(copy);
	return sb_detach(&sb);
}

char *path_absolute(const char *p)
{
	char buf[PATH_MAX];
	if (realpath(p, buf))
		return xstrdup(buf);
	if (p[0] == '/')
		return path_normalize(p);
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof(cwd)))
		return path_normalize(p);
	char *j = path_join(cwd, p);
	char *n = path_normalize(j);
	free(j);
	return n;
}

bool path_is_below(const char *p, const char *dir)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (strncmp(p, dir, n) != 0)
		return false;
	return p[n] == '/' || p[n] == '\0' || (n == 1 && dir[0] == '/');
}

char *path_relative(const char *p, const char *base)
{
	if (base && path_is_below(p, base)) {
		size_t n = strlen(base);
		while (n > 1 && base[n - 1] == '/')
			n--;
		const char *rest = p + n;
		while (*rest == '/')
			rest++;
		if (*rest)
			return xstrdup(rest);
	}
	return xstrdup(p);
}

bool path_is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

bool path_is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

const char *path_ext(const char *p)
{
	const char *base = path_basename(p);
	const char *dot = strrchr(base, '.');
	return dot && dot != base ? dot : "";
}

char *read_file(const char *path, size_t *len, size_t max_bytes)
{
	/* O_NONBLOCK: opening a FIFO (a "source file" or response file planted in
	 * the analysed tree) would otherwise wait for a writer forever; only
	 * regular files are read, so the flag changes nothing else */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		return NULL;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	if (max_bytes && (size_t)st.st_size > max_bytes) {
		close(fd);
		errno = EFBIG;
		return NULL;
	}
	size_t cap = (size_t)st.st_size + 1, n = 0;
	char *buf = xmalloc(cap);
	for (;;) {
		if (n + 1 >= cap) {
			if (max_bytes && cap > max_bytes) {
				free(buf);
				close(fd);
				errno = EFBIG;
				return NULL;
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

char *read_bounded_text(const char *path, size_t max_bytes, const char *what, size_t *len, char **err)
{
	/* max_bytes + 1: read_file refuses a file that fills its cap exactly */
	char *text = read_file(path, len, max_bytes + 1);
	if (!text) {
		if (errno == EFBIG)
			*err = xasprintf("%s:1:1: larger than %zu KiB: not a %s", path, max_bytes / 1024, what);
		else
			*err = xasprintf("%s: cannot read: %s", path, strerror(errno));
	}
	return text;
}

/* A name that is not a file to replace: a character device, FIFO or socket
 * named directly (`-o /dev/null`, a pipe), or any name in /dev or /proc
 * (`/dev/stdout`, `/proc/self/fd/1`: symlinks the system made, not the
 * analysed tree, whatever they lead to). Renaming a file over such a name would replace the device
 * itself. */
static bool write_in_place(const char *path)
{
	struct stat st;
	if (lstat(path, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		return true;
	char *dir = path_dirname(path);
	char *real = realpath(dir[0] ? dir : ".", NULL);
	free(dir);
	bool sys = real && (strcmp(real, "/dev") == 0 || str_starts(real, "/dev/") || strcmp(real, "/proc") == 0 ||
			    str_starts(real, "/proc/"));
	free(real);
	return sys && stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

#define REPLACE_INFIX ".nogvl-lint."
/* *tmp of an anonymous (O_TMPFILE) temporary starts with this byte; the
 * rest is the template of the name it is given at commit */
#define ANON_MARK '\x01'

/* Removes temporaries (".<base>.nogvl-lint.XXXXXX", regular files) that a
 * run killed with SIGKILL left next to path. */
static void remove_stale_replace_temps(const char *path)
{
	char *dir = path_dirname(path);
	const char *base = path_basename(path);
	size_t bl = strlen(base), il = strlen(REPLACE_INFIX);
	DIR *d = opendir(dir[0] ? dir : ".");
	if (d) {
		struct dirent *de;
		while ((de = readdir(d)) != NULL) {
			const char *n = de->d_name;
			if (n[0] != '.' || strncmp(n + 1, base, bl) != 0 ||
			    strncmp(n + 1 + bl, REPLACE_INFIX, il) != 0 || strlen(n + 1 + bl + il) != 6)
				continue;
			char *t = path_join(dir, n);
			struct stat st;
			if (lstat(t, &st) == 0 && S_ISREG(st.st_mode))
				unlink(t);
			free(t);
		}
		closedir(d);
	}
	free(dir);
}

FILE *file_replace_open(const char *path, char **tmp)
{
	if (write_in_place(path)) {
		*tmp = NULL;
		/* /dev/stderr may lead to a file the caller is appending to */
		int fd = open(path, O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC);
		FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
		if (fd >= 0 && !f)
			close(fd);
		return f;
	}
	remove_stale_replace_temps(path);
	char *dir = path_dirname(path);
	mode_t um = umask(0);
	umask(um);
	/* anonymous while it is written: a run killed (even by SIGKILL)
	 * before the commit leaves nothing; it gets a name (linkat through
	 * /proc/self/fd) only to be renamed at once */
	int fd = access("/proc/self/fd", X_OK) == 0
			 ? open(dir[0] ? dir : ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666 & ~um)
			 : -1;
	if (fd >= 0) {
		*tmp = xasprintf("%c%s/.%s" REPLACE_INFIX "XXXXXX", ANON_MARK, dir, path_basename(path));
	} else {
		*tmp = xasprintf("%s/.%s" REPLACE_INFIX "XXXXXX", dir, path_basename(path));
		fd = mkstemp(*tmp);
	}
	free(dir);
	if (fd < 0) {
		free(*tmp);
		*tmp = NULL;
		return NULL;
	}
	fchmod(fd, 0666 & ~um);
	FILE *f = fdopen(fd, "w");
	if (!f) {
		int e = errno;
		close(fd);
		if (**tmp != ANON_MARK)
			unlink(*tmp);
		free(*tmp);
		*tmp = NULL;
		errno = e;
	}
	return f;
}

/* Gives the anonymous file f a name from template (its XXXXXX replaced). */
static int link_anonymous(FILE *f, char *name)
{
	char proc[64];
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fileno(f));
	size_t n = strlen(name);
	for (unsigned attempt = 0; attempt < 100; attempt++) {
		static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
		uint64_t x = str_hash(name) ^ ((uint64_t)getpid() << 20) ^ (uint64_t)(now_seconds() * 1e9) ^
			     (uint64_t)attempt * 0x9E3779B97F4A7C15u;
		for (size_t i = n - 6; i < n; i++, x /= 62)
			name[i] = chars[x % 62];
		if (linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0)
			return 0;
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

int file_replace_commit(FILE *f, char *tmp, const char *path, bool ok)
{
	if (fflush(f) != 0 || ferror(f))
		ok = false;
	bool anon = tmp && tmp[0] == ANON_MARK;
	char *name = anon ? tmp + 1 : tmp;
	if (anon && ok && link_anonymous(f, name) != 0) {
		ok = false;
		anon = false; /* nothing named to remove */
		name = NULL;
	} else if (anon && !ok) {
		name = NULL; /* never named */
	}
	if (fclose(f) != 0)
		ok = false;
	int e = errno;
	if (!tmp) /* written in place (write_in_place) */
		return ok ? 0 : (errno = e ? e : EIO, -1);
	if (ok) {
		/* rename replaces a symlink at the name, never its target */
		if (rename(name, path) == 0) {
			free(tmp);
			return 0;
		}
		e = errno;
	}
	if (name)
		unlink(name);
	free(tmp);
	errno = e ? e : EIO;
	return -1;
}
