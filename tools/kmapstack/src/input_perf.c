// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack: a perf.data (perf record -e 'kmap_stack:*'), read through the
 * text of `perf script`, which knows the file's formats and symbols. One
 * that came through a pipe is in the unlinked copy input_open() made:
 * perf gets it by its /proc/self/fd path, the descriptor kept open over
 * the exec.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "input.h"

/*
 * The file a user can run perf on: the path given, or the file that '-'
 * stands for (< FILE); NULL for a pipe, whose data is only in the copy.
 */
static const char *perf_file(const struct input_src *src,
			     const struct input_info *info, char *buf,
			     size_t len)
{
	ssize_t n;

	if (!src->regular)
		return NULL;
	if (src->fd != STDIN_FILENO)
		return info->path;
	n = readlink(src->path, buf, len - 1); /* /proc/self/fd/0 */
	if (n <= 0 || buf[0] != '/')
		return NULL;
	buf[n] = '\0';
	return buf;
}

/* what perf wrote on its stderr, its lines joined: 1, or 0 if nothing */
static int perf_says(FILE *errs, char *buf, size_t len)
{
	char line[256];
	size_t n = 0;

	buf[0] = 0;
	if (!errs)
		return 0;
	rewind(errs);
	while (fgets(line, sizeof(line), errs) && n + 1 < len) {
		char *p = line, *e = line + strcspn(line, "\r\n");

		p += strspn(p, " \t");
		if (p == e)
			continue;
		*e = 0;
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? " " : "",
				      p);
	}
	return n > 0;
}

int input_perf(struct input_src *src, struct replay *r, struct input_info *info,
	       char *err, size_t errlen)
{
	struct input_src text;
	int pfd[2], status, ret;
	char buf[4096], why[512];
	FILE *errs;
	const char *file = perf_file(src, info, buf, sizeof(buf));
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC))
		return kms_fail(err, errlen, "%s: pipe: %s", info->path,
				strerror(errno));
	/* perf's own messages, for the error when it fails */
	errs = tmpfile();
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "%s: fork: %s", info->path,
			 strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(pfd[1], STDOUT_FILENO);
		if (errs)
			dup2(fileno(errs), STDERR_FILENO);
		if (!src->regular)
			fcntl(src->fd, F_SETFD, 0);
		execlp("perf", "perf", "script", "--ns", "-i", src->path,
		       (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	text = (struct input_src){ .fd = pfd[0], .kind = INPUT_TEXT };
	ret = input_text(&text, r, info, err, errlen);
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		ret = kms_fail(
			err, errlen,
			"%s: a perf.data file, and perf is not installed here: %srun 'perf script --ns -i %s | kmapstack check -' where it is",
			info->path, file ? "" : "save it to a file and ",
			file ? file : "FILE");
	} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;

		if (!perf_says(errs, why, sizeof(why)))
			snprintf(
				why, sizeof(why), "%s",
				file ? "run it to see why" :
				       "save it to a file and run 'perf script --ns -i FILE' to see why");
		if (file)
			ret = kms_fail(
				err, errlen,
				"%s: 'perf script --ns -i %s' failed (exit %d): %s",
				info->path, file, code, why);
		else
			ret = kms_fail(
				err, errlen,
				"%s: 'perf script --ns' failed on it (exit %d): %s",
				info->path, code, why);
	}
	if (errs)
		fclose(errs);
	return ret;
}
