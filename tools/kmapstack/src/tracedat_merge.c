// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack: the parent's side of the protected pass over a trace.dat
 * (tracedat_msg.h): the records of the children, decoded with the layout
 * each sent first and replayed in time order. Nothing a child wrote is
 * trusted: lengths, indices and the layout are checked before use.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "htab.h"
#include "sites.h"
#include "tracedat.h"
#include "tracedat_msg.h"
#include "xalloc.h"

struct merge {
	struct dat_source *src;
	int n;
	struct replay *r;
	struct input_info *info;
	struct progress prog;
	struct htab comm_of; /* pid -> index in comms */
	char (*comms)[17];
	int ncomms, cap_comms;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int map_site(const struct dat_source *s, int site)
{
	if (site >= 0 && site < s->base)
		return site;
	site -= s->base;
	return site >= 0 && site < s->nmap ? s->site_map[site] : KMS_NO_SITE;
}

static void add_site(struct dat_source *s, int site, const char *name,
		     size_t len)
{
	site -= s->base;
	if (site < 0 || site > (1 << 28))
		return;
	if (site >= s->nmap) {
		s->site_map =
			xgrow(s->site_map, &s->cap_map, site + 1, sizeof(int));
		for (int i = s->nmap; i <= site; i++)
			s->site_map[i] = KMS_NO_SITE;
		s->nmap = site + 1;
	}
	s->site_map[site] = sites_intern(name, len);
}

static const char *comm_of(void *priv, int pid)
{
	struct merge *m = priv;
	int i = htab_get(&m->comm_of, (uint64_t)(unsigned int)pid);

	return i >= 0 ? m->comms[i] : NULL;
}

static void add_comm(struct merge *m, int pid, const char *text, int len)
{
	if (htab_get(&m->comm_of, (uint64_t)(unsigned int)pid) >= 0)
		return; /* the other child sent it too */
	m->comms = xgrow(m->comms, &m->cap_comms, m->ncomms + 1,
			 sizeof(*m->comms));
	snprintf(m->comms[m->ncomms], sizeof(m->comms[0]), "%.*s", len, text);
	htab_add(&m->comm_of, (uint64_t)(unsigned int)pid, m->ncomms++);
}

static void progress(struct merge *m)
{
	unsigned long long done = 0;

	for (int i = 0; i < m->n; i++)
		done += m->src[i].done_bytes;
	progress_update(&m->prog, done);
}

/* anything but a record or lost events */
static void control(struct merge *m, struct dat_source *s, const void *p,
		    size_t len)
{
	const char *text = (const char *)p + sizeof(struct m_ctl);
	struct m_ctl c;
	int tlen;

	if (len < sizeof(c))
		return;
	memcpy(&c, p, sizeof(c));
	tlen = c.tlen < len - sizeof(c) ? (int)c.tlen : (int)(len - sizeof(c));
	switch (c.h.type) {
	case M_SITE:
		add_site(s, c.a, text, (size_t)tlen);
		break;
	case M_COMM:
		add_comm(m, c.a, text, tlen);
		break;
	case M_PROGRESS:
		s->done_bytes = c.x;
		progress(m);
		break;
	case M_CLOCK: {
		char clock[64];

		snprintf(clock, sizeof(clock), "%.*s", tlen, text);
		input_set_clock(m->info, clock);
		break;
	}
	case M_LAYOUT:
		if (c.tlen != sizeof(s->layout) || (size_t)tlen < c.tlen) {
			s->state = MS_CORRUPT;
			break;
		}
		memcpy(&s->layout, text, sizeof(s->layout));
		if (dec_layout_check(&s->layout))
			s->state = MS_CORRUPT;
		s->have_layout = 1;
		break;
	case M_END:
		s->records = (long long)c.x;
		s->bad = (long long)c.y;
		s->state = MS_END;
		break;
	case M_ERROR:
		snprintf(s->err, sizeof(s->err), "%.*s", tlen, text);
		s->state = MS_ERROR;
		break;
	}
}

/* a record or lost events become the source's head, with their time */
static void set_head(struct dat_source *s, const unsigned char *p, size_t len)
{
	if (((const struct ring_head *)p)->type == M_LOST) {
		struct m_ctl c;

		if (len < sizeof(c)) {
			s->state = MS_CORRUPT;
			return;
		}
		memcpy(&c, p, sizeof(c));
		s->rec.h.type = M_LOST;
		s->head_ts = c.x;
		s->head_cpu = c.a;
		s->missed = (long long)c.y;
	} else {
		/* a copy: the child cannot change what is checked */
		memcpy(&s->rec, p, sizeof(s->rec));
		s->head_ts = s->rec.ts;
		s->head_cpu = s->rec.cpu;
	}
	s->head = p;
	s->head_len = len;
}

/* read the source's messages until its next record, if there is one yet */
static void pull(struct merge *m, struct dat_source *s)
{
	while (!s->head && s->state == MS_RUNNING) {
		const unsigned char *p;
		size_t len = 0;
		int type;

		/* room back for the child now and then, not per message */
		if (s->unreleased >= MSG_RING_SIZE / 8) {
			ring_done(&s->ring);
			s->unreleased = 0;
		}
		p = ring_next(&s->ring, &len);
		if (!p) {
			if (len == (size_t)-1)
				s->state = MS_CORRUPT;
			return;
		}
		s->unreleased += len;
		s->waiting = 0;
		type = ((const struct ring_head *)p)->type;
		if ((type >= M_PUSH && type <= M_VIOLATION) || type == M_LOST)
			set_head(s, p, len);
		else
			control(m, s, p, len);
	}
}

/* a record: the rest of its decoding, then the replay */
static void replay_rec(struct merge *m, struct dat_source *s)
{
	const struct m_rec *rec = &s->rec;
	const unsigned char *p = s->head;
	struct kms_event ev;
	int e = rec->h.type - M_PUSH, extra = e == 2 ? 8 : 0;

	if (e < 0 || e > 2 || !s->have_layout ||
	    sizeof(*rec) + extra + rec->size > s->head_len ||
	    rec->size < s->layout.ev[e].min_size) {
		s->state = MS_CORRUPT;
		return;
	}
	if (dec_fields(&s->layout, e, p + sizeof(*rec) + extra, &ev)) {
		s->bad_here++;
		return;
	}
	ev.ts = rec->ts;
	ev.cpu = rec->cpu;
	ev.pid = rec->pid;
	ev.comm = NULL;
	ev.comm_of = comm_of;
	ev.comm_priv = m;
	ev.caller = map_site(s, rec->caller);
	if (extra) {
		int32_t callers[2];

		memcpy(callers, p + sizeof(*rec), sizeof(callers));
		ev.map_caller = map_site(s, callers[0]);
		ev.top_caller = map_site(s, callers[1]);
	} else {
		ev.map_caller = ev.top_caller = KMS_NO_SITE;
	}
	m->info->last_ts = rec->ts;
	replay_event(m->r, &ev);
}

static void replay_head(struct merge *m, struct dat_source *s)
{
	if (s->rec.h.type == M_LOST)
		replay_lost(m->r, s->head_cpu, s->head_ts, s->missed);
	else
		replay_rec(m, s);
	s->head = NULL;
}

/* wait for a source that has nothing to read yet */
static void wait_for(struct merge *m, struct dat_source *s)
{
	int woke;

	/* everything read is replayed: all of it goes back to the child */
	ring_done(&s->ring);
	s->unreleased = 0;
	if (!s->waiting) {
		s->waiting = 1;
		s->wait_since = now();
	}
	woke = ring_wait(&s->ring, 1000);
	if (woke < 0) {
		/* the child is gone: what it wrote before is there */
		pull(m, s);
		if (!s->head && s->state == MS_RUNNING)
			s->state = MS_CORRUPT;
	} else if (!woke && now() - s->wait_since >= WATCHDOG_IDLE) {
		s->state = MS_STUCK;
	}
}

static int run(struct merge *m, int *failed)
{
	for (;;) {
		struct dat_source *best = NULL;

		for (int i = 0; i < m->n; i++) {
			struct dat_source *s = &m->src[i];

			pull(m, s);
			if (s->state != MS_RUNNING && s->state != MS_END) {
				*failed = i;
				return s->state;
			}
			if (!s->head && s->state == MS_RUNNING) {
				wait_for(m, s);
				best = NULL;
				break;
			}
			if (s->head && (!best || s->head_ts < best->head_ts ||
					(s->head_ts == best->head_ts &&
					 s->head_cpu < best->head_cpu)))
				best = s;
			if (i == m->n - 1 && !best)
				return MS_END; /* they have all ended */
		}
		if (best)
			replay_head(m, best);
	}
}

int tracedat_merge(struct dat_source *src, int n, struct replay *r,
		   struct input_info *info, unsigned long long size,
		   int *failed)
{
	struct merge m = { .src = src, .n = n, .r = r, .info = info };
	int ret;

	htab_init(&m.comm_of);
	progress_start(&m.prog, info->progress, info->path, size);
	ret = run(&m, failed);
	progress_end(&m.prog);
	if (ret == MS_END) {
		info->records = info->bad_records = 0;
		for (int i = 0; i < n; i++) {
			info->records += src[i].records - src[i].bad_here;
			info->bad_records += src[i].bad + src[i].bad_here;
		}
	}
	free(m.comms);
	htab_free(&m.comm_of);
	return ret;
}
