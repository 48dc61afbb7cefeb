// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack: the protected pass over a trace.dat. libtraceevent and
 * libtracecmd do not survive every corrupt file (seen: a SEGV in an event
 * format, a SEGV in tracecmd_close() after corrupt data pages, an endless
 * loop over corrupt headers), so the pass runs in child processes, each
 * reading a share of the trace's CPUs (tracedat_msg.h). A child writes
 * its kmap_stack records into a ring of shared memory, decoded only as
 * far as the trace libraries are needed (the event, the pid, the call
 * sites' names); the parent decodes the rest with the layout of the
 * formats that the child sent first, and replays the records of all the
 * children in time order as they come (tracedat_merge.c): the children do
 * little beyond libtracecmd's own iteration, and share it. A child that
 * dies is a clear error; one that sends nothing for WATCHDOG_IDLE seconds
 * is killed. On a busy machine the same pass runs in this process
 * instead, under a watchdog thread (tracedat_watch.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "input.h"
#include "ring.h"
#include "sites.h"
#include "tracedat.h"
#include "tracedat_msg.h"
#include "xalloc.h"

/* the child's side */
struct writer {
	struct ring ring;
	int sites_sent;
	unsigned char *pid_sent; /* a bit per pid below PID_BITS */
};

#define PID_BITS (1 << 22)

static void *w_reserve(struct writer *w, size_t len)
{
	void *p = ring_reserve(&w->ring, len);

	if (!p)
		_exit(3); /* the parent is gone */
	return p;
}

static void w_msg(struct writer *w, int type, int a, unsigned long long x,
		  unsigned long long y, const void *text, size_t tlen)
{
	size_t len = (sizeof(struct m_ctl) + tlen + 7) & ~(size_t)7;
	struct m_ctl *m = w_reserve(w, len);

	memset(m, 0, sizeof(*m));
	m->h.len = (uint16_t)len;
	m->h.type = (uint8_t)type;
	m->a = a;
	m->tlen = (uint32_t)tlen;
	m->x = x;
	m->y = y;
	memcpy(m + 1, text ? text : "", tlen);
	ring_put(&w->ring, len);
}

static void w_ctl(struct writer *w, int type, int a, unsigned long long x,
		  unsigned long long y, const char *text)
{
	w_msg(w, type, a, x, y, text, text ? strnlen(text, MSG_MAX_TEXT) : 0);
}

static void w_sites(struct writer *w)
{
	for (; w->sites_sent < sites_count(); w->sites_sent++)
		w_ctl(w, M_SITE, w->sites_sent, 0, 0,
		      sites_name(w->sites_sent));
}

static void w_comm(struct writer *w, int pid, const char *comm)
{
	if (pid >= 0 && pid < PID_BITS) {
		if (w->pid_sent[pid >> 3] & (1 << (pid & 7)))
			return;
		w->pid_sent[pid >> 3] |= 1 << (pid & 7);
	}
	w_ctl(w, M_COMM, pid, 0, 0, comm);
}

static void w_record(void *priv, const struct dat_rec *r)
{
	struct writer *w = priv;
	size_t extra = r->e == 2 ? 8 : 0;
	size_t len = (sizeof(struct m_rec) + extra + (size_t)r->size + 7) &
		     ~(size_t)7;
	struct m_rec *m;

	if (w->sites_sent != sites_count())
		w_sites(w);
	if (r->pid < 0 || r->pid >= PID_BITS ||
	    !(w->pid_sent[r->pid >> 3] & (1 << (r->pid & 7))))
		w_comm(w, r->pid, decoder_comm(r->dec, r->pid));
	m = w_reserve(w, len);
	m->h.len = (uint16_t)len;
	m->h.type = (uint8_t)(M_PUSH + r->e);
	m->cpu = r->cpu >= 0 && r->cpu < UINT16_MAX ? (uint16_t)r->cpu :
						      UINT16_MAX;
	m->size = (uint16_t)r->size;
	m->pid = r->pid;
	m->caller = r->caller;
	m->ts = r->ts;
	if (extra) {
		int32_t callers[2] = { r->map_caller, r->top_caller };

		memcpy(m + 1, callers, sizeof(callers));
	}
	memcpy((unsigned char *)(m + 1) + extra, r->data, (size_t)r->size);
	ring_put(&w->ring, len);
}

static void w_layout(void *priv, const struct dec_layout *l)
{
	w_msg(priv, M_LAYOUT, 0, 0, 0, l, sizeof(*l));
}

static void w_lost(void *priv, int cpu, unsigned long long ts, long long n)
{
	w_ctl(priv, M_LOST, cpu, ts, (unsigned long long)n, NULL);
}

static void w_progress(void *priv, unsigned long long done,
		       unsigned long long total)
{
	(void)total;
	w_ctl(priv, M_PROGRESS, 0, done, 0, NULL);
	ring_flush(&((struct writer *)priv)->ring);
}

static void w_clock(void *priv, const char *clock)
{
	w_ctl(priv, M_CLOCK, 0, 0, 0, clock);
}

static void child(struct dat_source *srcs, int i, int n, struct input_src *src,
		  struct input_info *info)
{
	static struct writer w;
	struct dat_sink sink = { .record = w_record,
				 .layout = w_layout,
				 .lost = w_lost,
				 .progress = w_progress,
				 .clock = w_clock,
				 .priv = &w,
				 .last_pass = 1,
				 .part = i,
				 .parts = n };
	char err[1024];
	int null = open("/dev/null", O_WRONLY);

	if (null >= 0)
		dup2(null, STDERR_FILENO);
	/* the other children's rings: their ends must close with them */
	for (int j = 0; j < i; j++)
		ring_free(&srcs[j].ring);
	w.ring = srcs[i].ring;
	ring_writer(&w.ring);
	w.sites_sent = sites_count();
	w.pid_sent = xcalloc(PID_BITS / 8, 1);
	if (tracedat_pass(src->path, info->path, src->size, &sink, info, err,
			  sizeof(err)))
		w_ctl(&w, M_ERROR, 0, 0, 0, err);
	else
		w_ctl(&w, M_END, 0, (unsigned long long)info->records,
		      (unsigned long long)info->bad_records, NULL);
	ring_flush(&w.ring);
	_exit(0);
}

/* the children the machine can run beside the parent */
static int children(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	return ncpu >= 2 ? MSG_MAX_CHILDREN : 1;
}

static int start(struct dat_source *srcs, int i, int n, struct input_src *src,
		 struct input_info *info, char *err, size_t errlen)
{
	struct dat_source *s = &srcs[i];

	memset(s, 0, sizeof(*s));
	s->base = sites_count();
	if (ring_init(&s->ring, MSG_RING_SIZE)) {
		snprintf(err, errlen, "%s: cannot read: shared memory: %s",
			 info->path, strerror(errno));
		return -1;
	}
	fflush(NULL);
	s->pid = fork();
	if (s->pid < 0) {
		/* Unprotected, the file could crash us: refuse it */
		snprintf(err, errlen,
			 "%s: cannot check this trace.dat: fork: %s",
			 info->path, strerror(errno));
		ring_free(&s->ring);
		return -1;
	}
	if (s->pid == 0)
		child(srcs, i, n, src, info);
	ring_reader(&s->ring);
	return 0;
}

/* the children's end: 0 if each exited cleanly */
static int finish(struct dat_source *srcs, int n, int kill_them)
{
	int bad = 0;

	for (int i = 0; i < n; i++) {
		int status = 0;
		pid_t got;

		ring_free(&srcs[i].ring);
		if (kill_them)
			kill(srcs[i].pid, SIGKILL);
		while ((got = waitpid(srcs[i].pid, &status, 0)) < 0 &&
		       errno == EINTR)
			;
		if (got < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			bad = 1;
		free(srcs[i].site_map);
	}
	return bad ? -1 : 0;
}

int input_tracedat(struct input_src *src, struct replay *r,
		   struct input_info *info, char *err, size_t errlen)
{
	struct dat_source srcs[MSG_MAX_CHILDREN];
	int n = children(), state, failed = 0, bad;

	info->kind = INPUT_TRACEDAT;
	for (int i = 0; i < n; i++) {
		if (start(srcs, i, n, src, info, err, errlen)) {
			finish(srcs, i, 1);
			return -1;
		}
	}
	state = tracedat_merge(srcs, n, r, info, src->size, &failed);
	if (state == MS_ERROR)
		snprintf(err, errlen, "%s", srcs[failed].err);
	bad = finish(srcs, n, state != MS_END);
	if (state == MS_STUCK) {
		snprintf(err, errlen,
			 "%s: cannot read this trace.dat (corrupt: the "
			 "trace-cmd library made no progress for %d s)",
			 info->path, WATCHDOG_IDLE);
	} else if (state == MS_CORRUPT || (state == MS_END && bad)) {
		tracedat_corrupt(info->path, err, errlen);
	}
	return state == MS_END && !bad ? 0 : -1;
}
