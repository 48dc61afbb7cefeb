// SPDX-License-Identifier: GPL-2.0
/* kmapstack: trace.dat files, read through libtracecmd and libtraceevent */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <trace-cmd.h>

#include "decode.h"
#include "input.h"
#include "input_record.h"
#include "progress.h"

#define MAX_PROGRESS_CPUS 1024

struct dat_ctx {
	struct decoder dec;
	struct replay *r;
	struct input_info *info;
	struct progress prog;
	unsigned long long n;
	/* progress: the CPUs' data are one after the other in the file */
	unsigned long long first[MAX_PROGRESS_CPUS], cur[MAX_PROGRESS_CPUS];
};

static int on_record(struct tracecmd_input *handle, struct tep_record *rec,
		     int cpu, void *data)
{
	struct dat_ctx *c = data;

	(void)handle;
	input_record(&c->dec, c->r, c->info, rec, cpu);
	if (cpu >= 0 && cpu < MAX_PROGRESS_CPUS) {
		if (!c->first[cpu] || rec->offset < c->first[cpu])
			c->first[cpu] = rec->offset;
		c->cur[cpu] = rec->offset;
	}
	if (!(++c->n & 0xffff) && c->prog.on) {
		unsigned long long done = 0;

		for (int i = 0; i < MAX_PROGRESS_CPUS; i++)
			done += c->cur[i] - c->first[i];
		progress_update(&c->prog, done);
	}
	return 0;
}

#define OPEN_FLAGS \
	(TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS)

static void corrupt_error(const char *path, char *err, size_t errlen)
{
	snprintf(err, errlen,
		 "%s: cannot read this trace.dat (truncated or corrupt)", path);
}

static int probe_record(struct tracecmd_input *handle, struct tep_record *rec,
			int cpu, void *data)
{
	(void)handle;
	(void)rec;
	(void)cpu;
	(void)data;
	return 0;
}

/*
 * The probe child's time limit: the library reads some 250 MB/s here, so
 * 5 s plus 1 s per 20 MB is ten times what a sound file needs.
 */
static unsigned int probe_seconds(const char *path)
{
	struct stat st;
	unsigned long long mb = 0;

	if (stat(path, &st) == 0 && st.st_size > 0)
		mb = (unsigned long long)st.st_size >> 20;
	return 5 + (unsigned int)(mb / 20 < 3600 ? mb / 20 : 3600);
}

/*
 * libtraceevent and libtracecmd do not survive every corrupt file (seen: an
 * event format, a SEGV in tracecmd_close() after reading corrupt data
 * pages, and an endless loop over corrupt page headers): read the file
 * through once in a child with a time limit, so that a crash or a hang
 * there is a clear error here. It costs one more pass over the file.
 */
static int probe_open(const char *path, char *err, size_t errlen)
{
	unsigned int limit = probe_seconds(path);
	pid_t pid = fork();
	int status;

	if (pid < 0) {
		/* Unchecked, the file could crash us: refuse it */
		snprintf(err, errlen,
			 "%s: cannot check this trace.dat: fork: %s", path,
			 strerror(errno));
		return -1;
	}
	if (pid == 0) {
		struct tracecmd_input *h;
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0)
			dup2(fd, STDERR_FILENO);
		/* The default action of SIGALRM ends the child */
		signal(SIGALRM, SIG_DFL);
		alarm(limit);
		h = tracecmd_open(path, OPEN_FLAGS);
		if (h) {
			tracecmd_iterate_events(h, NULL, 0, probe_record, NULL);
			tracecmd_close(h);
		}
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			snprintf(err, errlen,
				 "%s: cannot check this trace.dat: waitpid: %s",
				 path, strerror(errno));
			return -1;
		}
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
		snprintf(
			err, errlen,
			"%s: cannot read this trace.dat (corrupt: the trace-cmd "
			"library did not get through it in %u s)",
			path, limit);
		return -1;
	}
	corrupt_error(path, err, errlen);
	return -1;
}

int input_tracedat(const char *path, struct replay *r, struct input_info *info,
		   char *err, size_t errlen)
{
	struct tracecmd_input *handle;
	static struct dat_ctx c;
	struct stat st;
	char why[256];

	memset(&c, 0, sizeof(c));
	c.r = r;
	c.info = info;
	info->kind = INPUT_TRACEDAT;
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	if (probe_open(path, err, errlen))
		return -1;
	handle = tracecmd_open(path, OPEN_FLAGS);
	if (!handle) {
		corrupt_error(path, err, errlen);
		return -1;
	}
	tep_set_loglevel(TEP_LOG_NONE);
	if (decoder_init(&c.dec, tracecmd_get_tep(handle), why, sizeof(why))) {
		snprintf(err, errlen, "%s: %s", path, why);
		tracecmd_close(handle);
		return -1;
	}
	progress_start(&c.prog, info->progress, path,
		       stat(path, &st) ? 0 : (unsigned long long)st.st_size);
	tracecmd_iterate_events(handle, NULL, 0, on_record, &c);
	progress_end(&c.prog);
	decoder_free(&c.dec);
	tracecmd_close(handle);
	return 0;
}
