// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack: a trace.dat is read in a child process. libtracecmd and
 * libtraceevent do not survive every corrupt file (they crash, free what
 * they never allocated, or loop for ever on some), so the pass runs in a
 * child that writes the decoded events on a pipe (tracedat_wire.h) and
 * this process replays them as they come (tracedat_stream.c). The child
 * has a limit of CPU time, a generous one for the file's size; when it
 * dies before the end of its pass, the error says how.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "progress.h"
#include "sites.h"
#include "tracedat.h"
#include "tracedat_wire.h"
#include "xalloc.h"

/*
 * The child's CPU time at most: libtracecmd reads hundreds of MB a second,
 * so this is many times what a good file takes on a slow machine
 */
#define CPU_LIMIT_BASE 10
#define CPU_LIMIT_BYTES_PER_S (4ULL << 20)

/* the child's side */
struct writer {
	int full_fd, free_fd;
	struct wire_bufs *b;
	int cur; /* the buffer being filled, with n bytes */
	int nfree; /* the other one is free */
	size_t n;
	int sites_sent;
	unsigned char *pid_sent; /* a bit per pid below PID_BITS */
};

#define PID_BITS (1 << 22)

static void w_flush(struct writer *w)
{
	struct wire_full f = { (uint32_t)w->cur, (uint32_t)w->n };
	char c;

	/* a write of a few bytes to a pipe is whole or nothing */
	if (write(w->full_fd, &f, sizeof(f)) != sizeof(f))
		_exit(3); /* the parent is gone */
	w->cur ^= 1;
	w->n = 0;
	if (!w->nfree) {
		if (read(w->free_fd, &c, 1) != 1)
			_exit(3);
		w->nfree++;
	}
	w->nfree--;
}

static void w_msg(struct writer *w, uint32_t type, const void *a, size_t alen,
		  const char *text)
{
	size_t tlen = text ? strnlen(text, WIRE_MAX_LEN - alen) : 0;
	struct wire_head h = { type, (uint32_t)(alen + tlen) };

	unsigned char *p;

	if (w->n + sizeof(h) + h.len > WIRE_BUF_SIZE)
		w_flush(w);
	p = w->b->buf[w->cur] + w->n;
	memcpy(p, &h, sizeof(h));
	if (alen)
		memcpy(p + sizeof(h), a, alen);
	if (tlen)
		memcpy(p + sizeof(h) + alen, text, tlen);
	w->n += sizeof(h) + h.len;
}

static void w_record(void *priv, const struct dat_rec *r,
		     const char *(*comm)(void *tep, int pid), void *tep)
{
	struct writer *w = priv;
	struct wire_rec m = { .ts = r->ts,
			      .cpu = r->cpu,
			      .pid = r->pid,
			      .caller = r->caller,
			      .map_caller = r->map_caller,
			      .top_caller = r->top_caller,
			      .e = (uint16_t)r->e,
			      .size = (uint16_t)r->size };
	struct wire_head h = { W_REC, (uint32_t)(sizeof(m) + (size_t)r->size) };
	int pid = r->pid;
	unsigned char *p;

	if (w->sites_sent != sites_count())
		for (; w->sites_sent < sites_count(); w->sites_sent++)
			w_msg(w, W_SITE, &w->sites_sent, 4,
			      sites_name(w->sites_sent));
	if (pid < 0 || pid >= PID_BITS ||
	    !(w->pid_sent[pid >> 3] & (1 << (pid & 7)))) {
		if (pid >= 0 && pid < PID_BITS)
			w->pid_sent[pid >> 3] |= 1 << (pid & 7);
		w_msg(w, W_COMM, &pid, 4, comm(tep, pid));
	}
	if (w->n + sizeof(h) + h.len > WIRE_BUF_SIZE)
		w_flush(w);
	p = w->b->buf[w->cur] + w->n;
	memcpy(p, &h, sizeof(h));
	memcpy(p + sizeof(h), &m, sizeof(m));
	memcpy(p + sizeof(h) + sizeof(m), r->data, (size_t)r->size);
	w->n += sizeof(h) + h.len;
}

static void w_layout(void *priv, const struct dec_layout *l)
{
	w_msg(priv, W_LAYOUT, l, sizeof(*l), NULL);
}

static void w_lost(void *priv, int cpu, unsigned long long ts, long long n)
{
	struct wire_lost l = { .ts = ts, .missed = n, .cpu = cpu };

	w_msg(priv, W_LOST, &l, sizeof(l), NULL);
}

static void w_progress(void *priv, unsigned long long done)
{
	uint64_t d = done;

	w_msg(priv, W_PROGRESS, &d, sizeof(d), NULL);
}

static void w_clock(void *priv, const char *clock)
{
	w_msg(priv, W_CLOCK, NULL, 0, clock ? clock : "");
}

static void child(int full_fd, int free_fd, struct wire_bufs *b,
		  struct input_src *src, struct input_info *info)
{
	static struct writer w;
	struct dat_sink sink = { .layout = w_layout,
				 .record = w_record,
				 .lost = w_lost,
				 .progress = w_progress,
				 .clock = w_clock,
				 .priv = &w,
				 .last_pass = 1 };
	rlim_t cpu = CPU_LIMIT_BASE + src->size / CPU_LIMIT_BYTES_PER_S;
	struct rlimit rl = { cpu, cpu + 1 };
	char err[1024] = "";
	int64_t counts[2];
	setrlimit(RLIMIT_CPU, &rl);
	/* its death is the report, also where a sanitizer handles faults */
	signal(SIGSEGV, SIG_DFL);
	signal(SIGBUS, SIG_DFL);
	signal(SIGFPE, SIG_DFL);
	w.full_fd = full_fd;
	w.free_fd = free_fd;
	w.b = b;
	w.nfree = 1;
	w.sites_sent = sites_count();
	w.pid_sent = xcalloc(PID_BITS / 8, 1);
	tracedat_pass(src->path, info->path, &sink, info, err, sizeof(err));
	counts[0] = info->records;
	counts[1] = info->bad_records;
	w_msg(&w, W_END, counts, sizeof(counts), err);
	w_flush(&w);
	_exit(0);
}

/* how the child ended, when it did not end its pass */
static void death(int status, struct input_src *src, const char *path,
		  char *err, size_t errlen)
{
	int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;

	if (sig == SIGXCPU || sig == SIGKILL)
		snprintf(
			err, errlen,
			"%s: cannot read this trace.dat (truncated or corrupt: "
			"libtracecmd did not end its pass within %llu s of "
			"CPU time)",
			path,
			(unsigned long long)(CPU_LIMIT_BASE +
					     src->size /
						     CPU_LIMIT_BYTES_PER_S));
	else if (sig)
		snprintf(
			err, errlen,
			"%s: cannot read this trace.dat (truncated or corrupt: "
			"the process reading it through libtracecmd died of "
			"signal %d, %s)",
			path, sig, strsignal(sig));
	else
		snprintf(
			err, errlen,
			"%s: cannot read this trace.dat (truncated or corrupt: "
			"the process reading it through libtracecmd exited "
			"with status %d before its end)",
			path, WEXITSTATUS(status));
}

int input_tracedat(struct input_src *src, struct replay *r,
		   struct input_info *info, char *err, size_t errlen)
{
	struct wire_bufs *b;
	struct dat_stream *s;
	int full[2], back[2], status = 0, ended;
	pid_t pid;

	info->kind = INPUT_TRACEDAT;
	*err = 0;
	b = mmap(NULL, sizeof(*b), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (b == MAP_FAILED) {
		snprintf(err, errlen, "%s: mmap: %s", info->path,
			 strerror(errno));
		return -1;
	}
	if (pipe2(full, O_CLOEXEC)) {
		snprintf(err, errlen, "%s: pipe: %s", info->path,
			 strerror(errno));
		munmap(b, sizeof(*b));
		return -1;
	}
	if (pipe2(back, O_CLOEXEC)) {
		snprintf(err, errlen, "%s: pipe: %s", info->path,
			 strerror(errno));
		close(full[0]);
		close(full[1]);
		munmap(b, sizeof(*b));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(full[0]);
		close(back[1]);
		child(full[1], back[0], b, src, info);
	}
	close(full[1]);
	close(back[0]);
	if (pid < 0) {
		snprintf(err, errlen, "%s: fork: %s", info->path,
			 strerror(errno));
		ended = -2;
	} else {
		s = dat_stream_new(r, info, src->size);
		ended = dat_stream_run(s, b, full[0], back[1], err, errlen);
		dat_stream_free(s);
	}
	close(full[0]);
	close(back[1]);
	if (pid > 0 && ended <= 0)
		kill(pid, SIGKILL);
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	munmap(b, sizeof(*b));
	if (ended == 0)
		death(status, src, info->path, err, errlen);
	else if (ended == -1)
		snprintf(
			err, errlen,
			"%s: cannot read this trace.dat (truncated or corrupt: "
			"the process reading it wrote a malformed stream)",
			info->path);
	return ended > 0 && !*err ? 0 : -1;
}

/* the same pass in this process, unprotected (the fuzzer) */
struct direct {
	struct replay *r;
	struct input_info *info;
	struct progress prog;
	const struct dec_layout *l;
};

static void d_layout(void *priv, const struct dec_layout *l)
{
	((struct direct *)priv)->l = l;
}

static void d_record(void *priv, const struct dat_rec *rec,
		     const char *(*comm)(void *tep, int pid), void *tep)
{
	struct direct *d = priv;
	struct kms_event ev;

	ev.comm_of = comm;
	ev.comm_priv = tep;
	if (dat_rec_event(d->l, rec, &ev)) {
		d->info->records--;
		d->info->bad_records++;
		return;
	}
	replay_event(d->r, &ev);
}

static void d_lost(void *priv, int cpu, unsigned long long ts, long long n)
{
	replay_lost(((struct direct *)priv)->r, cpu, ts, n);
}

static void d_progress(void *priv, unsigned long long done)
{
	progress_update(&((struct direct *)priv)->prog, done);
}

static void d_clock(void *priv, const char *clock)
{
	input_set_clock(((struct direct *)priv)->info, clock);
}

int input_tracedat_direct(const char *path, struct replay *r,
			  struct input_info *info, char *err, size_t errlen)
{
	struct direct d = { .r = r, .info = info };
	struct dat_sink sink = { .layout = d_layout,
				 .record = d_record,
				 .lost = d_lost,
				 .progress = d_progress,
				 .clock = d_clock,
				 .priv = &d };
	int ret;

	*err = 0;
	info->kind = INPUT_TRACEDAT;
	progress_start(&d.prog, info->progress, info->path, 0);
	ret = tracedat_pass(path, info->path, &sink, info, err, errlen);
	progress_end(&d.prog);
	return ret;
}
