// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack: the protected pass over a trace.dat. libtraceevent and
 * libtracecmd do not survive every corrupt file (seen: a SEGV in an event
 * format, a SEGV in tracecmd_close() after corrupt data pages, an endless
 * loop over corrupt headers), so the one pass runs in a child process
 * that writes the kmap_stack records into a ring of shared memory
 * (ring.h), decoded only as far as the trace libraries are needed (the
 * event, the pid, the call sites' names); the parent decodes the rest of
 * each record with the layout of the formats that the child sent first,
 * and replays the events as they come, on a second CPU, at the same time:
 * the child does little beyond libtracecmd's own iteration.
 * A child that dies is a clear error; one that sends nothing for
 * WATCHDOG_IDLE seconds is killed. On a busy machine the same pass runs
 * in this process instead, under a watchdog thread (tracedat_watch.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "htab.h"
#include "input.h"
#include "ring.h"
#include "sites.h"
#include "tracedat.h"
#include "xalloc.h"

/* the shared ring: large enough that neither side waits on the other */
#define RING_SIZE (1u << 20)

enum msg_type {
	M_PUSH = RING_PAD + 1, /* a record: struct m_rec */
	M_POP,
	M_VIOLATION,
	M_LOST, /* a: cpu; x: ts, y: events missed */
	M_SITE, /* a: the child's site index, text: its name */
	M_COMM, /* a: pid, text: its command */
	M_PROGRESS, /* x: bytes done */
	M_CLOCK, /* text: the trace clock */
	M_LAYOUT, /* text: struct dec_layout */
	M_END, /* x: records, y: malformed */
	M_ERROR, /* text: the message */
};

/*
 * A record: 24 bytes (a violation: 32, with its map_caller and
 * top_caller), then its first size bytes
 */
struct m_rec {
	struct ring_head h;
	uint16_t cpu; /* UINT16_MAX: one the replay has no room for */
	uint16_t size;
	int32_t pid, caller;
	uint64_t ts;
};

/* anything else: 32 bytes, then tlen bytes of text */
struct m_ctl {
	struct ring_head h;
	int32_t a;
	uint32_t tlen, spare;
	uint64_t x, y;
};

_Static_assert(sizeof(struct m_rec) == 24, "a record's head is 24 bytes");
_Static_assert(sizeof(struct m_ctl) == 32, "a control message is 32 bytes");
_Static_assert(sizeof(struct m_rec) + 8 + DEC_MAX_RECORD <= RING_MAX_MSG,
	       "a record fits in a message");

#define MAX_TEXT (RING_MAX_MSG - sizeof(struct m_ctl))

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
	w_msg(w, type, a, x, y, text, text ? strnlen(text, MAX_TEXT) : 0);
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

static void child(struct ring *ring, struct input_src *src,
		  struct input_info *info)
{
	static struct writer w;
	struct dat_sink sink = { .record = w_record,
				 .layout = w_layout,
				 .lost = w_lost,
				 .progress = w_progress,
				 .clock = w_clock,
				 .priv = &w,
				 .last_pass = 1 };
	char err[1024];
	int null = open("/dev/null", O_WRONLY);

	if (null >= 0)
		dup2(null, STDERR_FILENO);
	w.ring = *ring;
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

/* the parent's side */
struct reader {
	struct replay *r;
	struct input_info *info;
	struct progress prog;
	/*
	 * The child's sites: below base the table both had at the fork,
	 * then those it sent (M_SITE), mapped to ours
	 */
	int base;
	int *site_map; /* the child's site - base -> ours */
	int nmap, cap_map;
	struct htab comm_of; /* pid -> index in comms */
	char (*comms)[17];
	int ncomms, cap_comms;
	struct dec_layout layout;
	int have_layout;
	long long bad; /* records found malformed here */
	int done; /* 1: the end, -1: an error (err), -2: a corrupt stream */
	char err[1024];
};

static int map_site(struct reader *rd, int s)
{
	if (s >= 0 && s < rd->base)
		return s;
	s -= rd->base;
	return s >= 0 && s < rd->nmap ? rd->site_map[s] : KMS_NO_SITE;
}

static const char *comm_of(void *priv, int pid)
{
	struct reader *rd = priv;
	int i = htab_get(&rd->comm_of, (uint64_t)(unsigned int)pid);

	return i >= 0 ? rd->comms[i] : NULL;
}

/* a record: the rest of its decoding, then the replay */
static void replay_rec(struct reader *rd, const unsigned char *p, size_t len)
{
	struct m_rec m;
	struct kms_event ev;
	int e, extra;

	memcpy(&m, p, sizeof(m));
	e = m.h.type - M_PUSH;
	extra = e == 2 ? 8 : 0;
	if (e < 0 || e > 2 || !rd->have_layout ||
	    sizeof(m) + extra + m.size > len ||
	    m.size < rd->layout.ev[e].min_size) {
		rd->done = -2;
		return;
	}
	if (dec_fields(&rd->layout, e, p + sizeof(m) + extra, &ev)) {
		rd->bad++;
		return;
	}
	ev.ts = m.ts;
	ev.cpu = m.cpu;
	ev.pid = m.pid;
	ev.comm = NULL;
	ev.comm_of = comm_of;
	ev.comm_priv = rd;
	ev.caller = map_site(rd, m.caller);
	if (extra) {
		int32_t callers[2];

		memcpy(callers, p + sizeof(m), sizeof(callers));
		ev.map_caller = map_site(rd, callers[0]);
		ev.top_caller = map_site(rd, callers[1]);
	} else {
		ev.map_caller = ev.top_caller = KMS_NO_SITE;
	}
	rd->info->last_ts = m.ts;
	replay_event(rd->r, &ev);
}

static void add_site(struct reader *rd, int s, const char *name, size_t len)
{
	s -= rd->base;
	if (s < 0 || s > (1 << 28))
		return;
	if (s >= rd->nmap) {
		rd->site_map =
			xgrow(rd->site_map, &rd->cap_map, s + 1, sizeof(int));
		for (int i = rd->nmap; i <= s; i++)
			rd->site_map[i] = KMS_NO_SITE;
		rd->nmap = s + 1;
	}
	rd->site_map[s] = sites_intern(name, len);
}

static void dispatch(struct reader *rd, const void *p, size_t len)
{
	const char *text = (const char *)p + sizeof(struct m_ctl);
	struct m_ctl m;
	int tlen;

	if (len >= sizeof(struct m_rec) &&
	    (unsigned int)(((const struct ring_head *)p)->type - M_PUSH) <= 2) {
		replay_rec(rd, p, len);
		return;
	}
	if (len < sizeof(m))
		return;
	memcpy(&m, p, sizeof(m));
	tlen = m.tlen < len - sizeof(m) ? (int)m.tlen : (int)(len - sizeof(m));
	switch (m.h.type) {
	case M_LOST:
		replay_lost(rd->r, m.a, m.x, (long long)m.y);
		break;
	case M_SITE:
		add_site(rd, m.a, text, (size_t)tlen);
		break;
	case M_COMM:
		rd->comms = xgrow(rd->comms, &rd->cap_comms, rd->ncomms + 1,
				  sizeof(*rd->comms));
		snprintf(rd->comms[rd->ncomms], sizeof(rd->comms[0]), "%.*s",
			 tlen, text);
		htab_add(&rd->comm_of, (uint64_t)(unsigned int)m.a,
			 rd->ncomms++);
		break;
	case M_PROGRESS:
		progress_update(&rd->prog, m.x);
		break;
	case M_CLOCK: {
		char clock[64];

		snprintf(clock, sizeof(clock), "%.*s", tlen, text);
		input_set_clock(rd->info, clock);
		break;
	}
	case M_LAYOUT:
		if (m.tlen != sizeof(rd->layout) || (size_t)tlen < m.tlen) {
			rd->done = -2;
			break;
		}
		memcpy(&rd->layout, text, sizeof(rd->layout));
		if (dec_layout_check(&rd->layout))
			rd->done = -2;
		rd->have_layout = 1;
		break;
	case M_END:
		rd->info->records = (long long)m.x - rd->bad;
		rd->info->bad_records = (long long)m.y + rd->bad;
		rd->done = 1;
		break;
	case M_ERROR:
		snprintf(rd->err, sizeof(rd->err), "%.*s", tlen, text);
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

/* the messages there; -1 if the ring is corrupt */
static int drain(struct reader *rd, struct ring *ring, int *got)
{
	size_t len = 0, since = 0;
	const void *p;

	while (!rd->done && (p = ring_next(ring, &len))) {
		dispatch(rd, p, len);
		*got = 1;
		/* room back for the child now and then, not per message */
		since += len;
		if (since >= RING_SIZE / 8) {
			ring_done(ring);
			since = 0;
		}
	}
	ring_done(ring);
	return len == (size_t)-1 ? -1 : 0;
}

/* read the child's stream until its end; 0, or -1 if it stopped early */
static int read_stream(struct reader *rd, struct ring *ring, int *stuck)
{
	double last = now();

	for (;;) {
		int got = 0, woke;

		if (drain(rd, ring, &got))
			return -1;
		if (rd->done)
			return 0;
		if (got)
			last = now();
		woke = ring_wait(ring, 1000);
		if (woke < 0) {
			/* the child is gone: what it wrote before is there */
			if (drain(rd, ring, &got))
				return -1;
			return rd->done ? 0 : -1;
		}
		if (!woke && now() - last >= WATCHDOG_IDLE) {
			*stuck = 1;
			return -1;
		}
	}
}

int input_tracedat(struct input_src *src, struct replay *r,
		   struct input_info *info, char *err, size_t errlen)
{
	struct reader rd = { .r = r, .info = info };
	struct ring ring;
	int status, stuck = 0, ret;
	pid_t pid;

	info->kind = INPUT_TRACEDAT;
	rd.base = sites_count();
	if (ring_init(&ring, RING_SIZE)) {
		snprintf(err, errlen, "%s: cannot read: shared memory: %s",
			 info->path, strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		/* Unprotected, the file could crash us: refuse it */
		snprintf(err, errlen,
			 "%s: cannot check this trace.dat: fork: %s",
			 info->path, strerror(errno));
		ring_free(&ring);
		return -1;
	}
	if (pid == 0)
		child(&ring, src, info);
	ring_reader(&ring);
	htab_init(&rd.comm_of);
	progress_start(&rd.prog, info->progress, info->path, src->size);
	ret = read_stream(&rd, &ring, &stuck);
	progress_end(&rd.prog);
	ring_free(&ring);
	if (rd.done != 1)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (stuck) {
		snprintf(err, errlen,
			 "%s: cannot read this trace.dat (corrupt: the "
			 "trace-cmd library made no progress for %d s)",
			 info->path, WATCHDOG_IDLE);
	} else if (rd.done == -1) {
		snprintf(err, errlen, "%s", rd.err);
		ret = -1;
	} else if (ret || rd.done != 1 || !WIFEXITED(status) ||
		   WEXITSTATUS(status)) {
		tracedat_corrupt(info->path, err, errlen);
		ret = -1;
	}
	free(rd.site_map);
	free(rd.comms);
	htab_free(&rd.comm_of);
	return ret;
}
