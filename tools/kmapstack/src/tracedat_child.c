// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack: the protected pass over a trace.dat. libtraceevent and
 * libtracecmd do not survive every corrupt file (seen: a SEGV in an event
 * format, a SEGV in tracecmd_close() after corrupt data pages, an endless
 * loop over corrupt headers), so the one pass runs in a child process
 * that streams the decoded events through a pipe; the parent replays them
 * as they come (on a second CPU, at the same time). A child that dies is
 * a clear error; one that sends nothing for WATCHDOG_IDLE seconds is
 * killed. On a busy machine the same pass runs in this process instead,
 * under a watchdog thread (input_tracedat_any()).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "htab.h"
#include "input.h"
#include "sites.h"
#include "tracedat.h"
#include "xalloc.h"

enum msg_type {
	M_PUSH = KMS_EV_PUSH,
	M_POP = KMS_EV_POP,
	M_VIOLATION = KMS_EV_VIOLATION,
	M_LOST = 16,
	M_SITE, /* a: site index, len: name */
	M_COMM, /* a: pid, len: name */
	M_PROGRESS, /* ts: bytes done */
	M_CLOCK, /* len: name */
	M_END, /* ts: records, addr: malformed */
	M_ERROR, /* len: message */
};

/* one message; len bytes of text follow it */
struct msg {
	unsigned long long ts, addr, pfn;
	int cpu, pid, caller, map_caller, top_caller, depth, kind;
	int a, len;
	unsigned char type, ctx, flags;
	signed char in_ctx;
};

/* the child's side */
struct writer {
	int fd;
	unsigned char buf[1 << 16];
	size_t n;
	int sites_sent;
	unsigned char *pid_sent; /* a bit per pid below PID_BITS */
};

#define PID_BITS (1 << 22)

static void w_flush(struct writer *w)
{
	unsigned char *p = w->buf;

	while (w->n) {
		ssize_t k = write(w->fd, p, w->n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			_exit(3); /* the parent is gone */
		p += k;
		w->n -= (size_t)k;
	}
}

static void w_msg(struct writer *w, struct msg *m, const char *text)
{
	size_t len = text ? strlen(text) : 0;

	if (len > 4096)
		len = 4096;
	m->len = (int)len;
	if (w->n + sizeof(*m) + len > sizeof(w->buf))
		w_flush(w);
	memcpy(w->buf + w->n, m, sizeof(*m));
	if (len)
		memcpy(w->buf + w->n + sizeof(*m), text, len);
	w->n += sizeof(*m) + len;
}

static void w_sites(struct writer *w)
{
	while (w->sites_sent < sites_count()) {
		struct msg m = { .type = M_SITE, .a = w->sites_sent };

		w_msg(w, &m, sites_name(w->sites_sent));
		w->sites_sent++;
	}
}

static void w_event(void *priv, const struct kms_event *ev)
{
	struct writer *w = priv;
	struct msg m = {
		.ts = ev->ts,
		.addr = ev->addr,
		.pfn = ev->pfn,
		.cpu = ev->cpu,
		.pid = ev->pid,
		.caller = ev->caller,
		.map_caller = ev->map_caller,
		.top_caller = ev->top_caller,
		.depth = ev->depth,
		.kind = ev->kind,
		.type = (unsigned char)ev->type,
		.ctx = (unsigned char)ev->ctx,
		.flags = (unsigned char)ev->flags,
		.in_ctx = (signed char)ev->in_ctx,
	};

	w_sites(w);
	if (ev->pid < 0 || ev->pid >= PID_BITS ||
	    !(w->pid_sent[ev->pid >> 3] & (1 << (ev->pid & 7)))) {
		struct msg c = { .type = M_COMM, .a = ev->pid };

		if (ev->pid >= 0 && ev->pid < PID_BITS)
			w->pid_sent[ev->pid >> 3] |= 1 << (ev->pid & 7);
		w_msg(w, &c,
		      ev->comm ? ev->comm :
				 ev->comm_of(ev->comm_priv, ev->pid));
	}
	w_msg(w, &m, NULL);
}

static void w_lost(void *priv, int cpu, unsigned long long ts, long long n)
{
	struct msg m = { .type = M_LOST, .cpu = cpu, .ts = ts };

	m.addr = (unsigned long long)n;
	w_msg(priv, &m, NULL);
}

static void w_progress(void *priv, unsigned long long done,
		       unsigned long long total)
{
	struct msg m = { .type = M_PROGRESS, .ts = done };

	(void)total;
	w_msg(priv, &m, NULL);
	w_flush(priv);
}

static void w_clock(void *priv, const char *clock)
{
	struct msg m = { .type = M_CLOCK };

	w_msg(priv, &m, clock);
}

static void child(int fd, struct input_src *src, struct input_info *info)
{
	static struct writer w;
	struct dat_sink sink = { w_event, w_lost, w_progress, w_clock, &w };
	char err[1024];
	struct msg m = { 0 };
	int null = open("/dev/null", O_WRONLY);

	if (null >= 0)
		dup2(null, STDERR_FILENO);
	signal(SIGPIPE, SIG_DFL);
	w.fd = fd;
	w.sites_sent = sites_count();
	w.pid_sent = xcalloc(PID_BITS / 8, 1);
	if (tracedat_pass(src->path, info->path, src->size, &sink, info, err,
			  sizeof(err))) {
		m.type = M_ERROR;
		w_msg(&w, &m, err);
	} else {
		m.type = M_END;
		m.ts = (unsigned long long)info->records;
		m.addr = (unsigned long long)info->bad_records;
		w_msg(&w, &m, NULL);
	}
	w_flush(&w);
	_exit(0);
}

/* the parent's side */
struct reader {
	struct replay *r;
	struct input_info *info;
	struct progress prog;
	int *site_map; /* the child's site -> ours */
	int nmap, cap_map;
	struct htab comm_of; /* pid -> index in comms */
	char (*comms)[17];
	int ncomms, cap_comms;
	int done;
	char err[1024];
};

static int map_site(struct reader *rd, int s)
{
	return s >= 0 && s < rd->nmap ? rd->site_map[s] : KMS_NO_SITE;
}

static const char *comm_of(void *priv, int pid)
{
	struct reader *rd = priv;
	int i = htab_get(&rd->comm_of, (uint64_t)(unsigned int)pid);

	return i >= 0 ? rd->comms[i] : NULL;
}

static void dispatch(struct reader *rd, const struct msg *m, const char *text)
{
	struct kms_event ev;

	switch (m->type) {
	case M_PUSH:
	case M_POP:
	case M_VIOLATION:
		memset(&ev, 0, sizeof(ev));
		ev.type = m->type;
		ev.ts = m->ts;
		ev.cpu = m->cpu;
		ev.pid = m->pid;
		ev.comm_of = comm_of;
		ev.comm_priv = rd;
		ev.in_ctx = m->in_ctx;
		ev.caller = map_site(rd, m->caller);
		ev.map_caller = map_site(rd, m->map_caller);
		ev.top_caller = map_site(rd, m->top_caller);
		ev.addr = m->addr;
		ev.pfn = m->pfn;
		ev.depth = m->depth;
		ev.ctx = m->ctx;
		ev.flags = m->flags;
		ev.kind = m->kind;
		rd->info->last_ts = m->ts;
		replay_event(rd->r, &ev);
		break;
	case M_LOST:
		replay_lost(rd->r, m->cpu, m->ts, (long long)m->addr);
		break;
	case M_SITE:
		if (m->a < 0 || m->a > (1 << 28))
			break;
		if (m->a >= rd->nmap) {
			rd->site_map = xgrow(rd->site_map, &rd->cap_map,
					     m->a + 1, sizeof(int));
			for (int i = rd->nmap; i <= m->a; i++)
				rd->site_map[i] = KMS_NO_SITE;
			rd->nmap = m->a + 1;
		}
		rd->site_map[m->a] = sites_intern(text, (size_t)m->len);
		break;
	case M_COMM:
		rd->comms = xgrow(rd->comms, &rd->cap_comms, rd->ncomms + 1,
				  sizeof(*rd->comms));
		snprintf(rd->comms[rd->ncomms], sizeof(rd->comms[0]), "%.*s",
			 m->len, text);
		htab_add(&rd->comm_of, (uint64_t)(unsigned int)m->a,
			 rd->ncomms++);
		break;
	case M_PROGRESS:
		progress_update(&rd->prog, m->ts);
		break;
	case M_CLOCK: {
		char clock[64];

		snprintf(clock, sizeof(clock), "%.*s", m->len, text);
		input_set_clock(rd->info, clock);
		break;
	}
	case M_END:
		rd->info->records = (long long)m->ts;
		rd->info->bad_records = (long long)m->addr;
		rd->done = 1;
		break;
	case M_ERROR:
		snprintf(rd->err, sizeof(rd->err), "%.*s", m->len, text);
		rd->done = -1;
		break;
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* read the child's stream until its end; 0, or -1 if it stopped early */
static int read_stream(struct reader *rd, int fd, int *stuck)
{
	size_t cap = 1 << 20, have = 0;
	unsigned char *buf = xmalloc(cap);
	double last = now();
	int ret = 0;

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		size_t off = 0;
		ssize_t n;
		int pr = poll(&pfd, 1, 1000);

		if (pr < 0 && errno != EINTR)
			break;
		if (pr <= 0) {
			if (now() - last >= WATCHDOG_IDLE) {
				*stuck = 1;
				ret = -1;
				break;
			}
			continue;
		}
		n = read(fd, buf + have, cap - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = rd->done ? 0 : -1;
			break;
		}
		last = now();
		have += (size_t)n;
		while (have - off >= sizeof(struct msg)) {
			struct msg m;

			memcpy(&m, buf + off, sizeof(m));
			if (m.len < 0 || m.len > 4096)
				goto out;
			if (have - off < sizeof(m) + (size_t)m.len)
				break;
			dispatch(rd, &m, (const char *)buf + off + sizeof(m));
			off += sizeof(m) + (size_t)m.len;
		}
		memmove(buf, buf + off, have - off);
		have -= off;
	}
out:
	free(buf);
	return ret;
}

int input_tracedat(struct input_src *src, struct replay *r,
		   struct input_info *info, char *err, size_t errlen)
{
	struct reader rd = { .r = r, .info = info };
	int pfd[2], status, stuck = 0, ret;
	pid_t pid;

	info->kind = INPUT_TRACEDAT;
	if (pipe2(pfd, O_CLOEXEC)) {
		snprintf(err, errlen, "%s: cannot read: pipe: %s", info->path,
			 strerror(errno));
		return -1;
	}
	/* fewer, larger writes and reads: the events come in 64 KiB blocks */
	fcntl(pfd[0], F_SETPIPE_SZ, 1 << 20);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		/* Unprotected, the file could crash us: refuse it */
		snprintf(err, errlen,
			 "%s: cannot check this trace.dat: fork: %s",
			 info->path, strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		close(pfd[0]);
		child(pfd[1], src, info);
	}
	close(pfd[1]);
	htab_init(&rd.comm_of);
	progress_start(&rd.prog, info->progress, info->path, src->size);
	ret = read_stream(&rd, pfd[0], &stuck);
	progress_end(&rd.prog);
	close(pfd[0]);
	if (stuck)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (stuck) {
		snprintf(err, errlen,
			 "%s: cannot read this trace.dat (corrupt: the "
			 "trace-cmd library made no progress for %d s)",
			 info->path, WATCHDOG_IDLE);
	} else if (rd.done < 0) {
		snprintf(err, errlen, "%s", rd.err);
		ret = -1;
	} else if (ret || !WIFEXITED(status) || WEXITSTATUS(status)) {
		tracedat_corrupt(info->path, err, errlen);
		ret = -1;
	}
	free(rd.site_map);
	free(rd.comms);
	htab_free(&rd.comm_of);
	return ret;
}

/*
 * The pass in this process, with a watchdog thread on its progress: no
 * pipe, no second process, less CPU in all. A crash of the trace libraries
 * is caught by kmapstack's fault handler (main.c: one line, exit 2).
 */
static volatile int watch_done;
static const char *watch_path;

static void *watchdog(void *arg)
{
	unsigned long long last = tracedat_records_seen();
	double since = now();

	(void)arg;
	while (!__atomic_load_n(&watch_done, __ATOMIC_RELAXED)) {
		unsigned long long n;

		usleep(100 * 1000);
		n = tracedat_records_seen();
		if (n != last) {
			last = n;
			since = now();
		} else if (now() - since >= WATCHDOG_IDLE) {
			fprintf(stderr,
				"kmapstack: %s: cannot read this trace.dat "
				"(corrupt: the trace-cmd library made no "
				"progress for %d s)\n",
				watch_path, WATCHDOG_IDLE);
			_exit(2);
		}
	}
	return NULL;
}

static int input_tracedat_watched(struct input_src *src, struct replay *r,
				  struct input_info *info, char *err,
				  size_t errlen)
{
	pthread_t th;
	int ret, have_thread;

	watch_done = 0;
	watch_path = info->path;
	have_thread = !pthread_create(&th, NULL, watchdog, NULL);
	ret = tracedat_direct(src->path, src->size, r, info, err, errlen);
	__atomic_store_n(&watch_done, 1, __ATOMIC_RELAXED);
	if (have_thread)
		pthread_join(th, NULL);
	return ret;
}

/*
 * The child's pass pays off when a second core is free to run the replay
 * beside it; on a busy machine (or one core) the pass in this process costs
 * less. KMAPSTACK_PASS=child or direct chooses.
 */
int tracedat_use_child(void)
{
	const char *e = getenv("KMAPSTACK_PASS");
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	double load;

	if (e && !strcmp(e, "child"))
		return 1;
	if (e && !strcmp(e, "direct"))
		return 0;
	if (ncpu < 2 || getloadavg(&load, 1) != 1)
		return ncpu >= 2;
	return load <= (double)ncpu - 1;
}

int input_tracedat_any(struct input_src *src, struct replay *r,
		       struct input_info *info, char *err, size_t errlen)
{
	if (tracedat_use_child())
		return input_tracedat(src, r, info, err, errlen);
	info->kind = INPUT_TRACEDAT;
	return input_tracedat_watched(src, r, info, err, errlen);
}
