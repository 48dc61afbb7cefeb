// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack: this process's side of the child that reads a trace.dat: its
 * messages (tracedat.h) read from the buffers it hands over and checked,
 * the records decoded and replayed as they come.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode.h"
#include "htab.h"
#include "progress.h"
#include "sites.h"
#include "tracedat.h"
#include "xalloc.h"

struct dat_stream {
	struct replay *r;
	struct input_info *info;
	struct progress prog;
	/* the child's sites: below base as here at the fork, then mapped */
	int base;
	int *site_map, nmap, cap_map;
	struct dec_layout layout;
	int have_layout;
	long long bad; /* records found malformed here */
	struct htab comm_of; /* pid -> index in comms */
	char (*comms)[17];
	int ncomms, cap_comms;
};

struct dat_stream *dat_stream_new(struct replay *r, struct input_info *info,
				  unsigned long long size)
{
	struct dat_stream *s = xcalloc(1, sizeof(*s));

	s->r = r;
	s->info = info;
	s->base = sites_count();
	progress_start(&s->prog, info->progress, info->path, size);
	return s;
}

void dat_stream_free(struct dat_stream *s)
{
	progress_end(&s->prog);
	htab_free(&s->comm_of);
	free(s->comms);
	free(s->site_map);
	free(s);
}

static int map_site(const struct dat_stream *s, int site)
{
	if (site >= 0 && site < s->base)
		return site;
	site -= s->base;
	return site >= 0 && site < s->nmap ? s->site_map[site] : KMS_NO_SITE;
}

static int add_site(struct dat_stream *s, int site, const char *name,
		    size_t len)
{
	site -= s->base;
	/* the child sends each new site once, in order */
	if (site != s->nmap)
		return -1;
	s->site_map = xgrow(s->site_map, &s->cap_map, site + 1, sizeof(int));
	s->site_map[s->nmap++] = sites_intern(name, len);
	return 0;
}

static const char *comm_of(void *priv, int pid)
{
	struct dat_stream *s = priv;
	int i = htab_get(&s->comm_of, (uint64_t)(unsigned int)pid);

	return i >= 0 ? s->comms[i] : NULL;
}

static void add_comm(struct dat_stream *s, int pid, const char *text,
		     size_t len)
{
	if (htab_get(&s->comm_of, (uint64_t)(unsigned int)pid) >= 0)
		return;
	s->comms = xgrow(s->comms, &s->cap_comms, s->ncomms + 1,
			 sizeof(*s->comms));
	snprintf(s->comms[s->ncomms], sizeof(s->comms[0]), "%.*s", (int)len,
		 text);
	htab_add(&s->comm_of, (uint64_t)(unsigned int)pid, s->ncomms++);
}

/* the rest of a record's decoding, then the replay */
static int record(struct dat_stream *s, const unsigned char *p, size_t len)
{
	struct wire_rec w;
	struct kms_event ev;

	if (len < sizeof(w) || !s->have_layout)
		return -1;
	memcpy(&w, p, sizeof(w));
	if (w.e > 2 || w.size < s->layout.ev[w.e].min_size ||
	    len != sizeof(w) + w.size || w.cpu < 0)
		return -1;
	if (dec_fields(&s->layout, w.e, p + sizeof(w), &ev)) {
		s->bad++;
		return 0;
	}
	ev.ts = w.ts;
	ev.cpu = w.cpu;
	ev.pid = w.pid;
	ev.comm = NULL;
	ev.comm_of = comm_of;
	ev.comm_priv = s;
	ev.caller = map_site(s, w.caller);
	ev.map_caller = map_site(s, w.map_caller);
	ev.top_caller = map_site(s, w.top_caller);
	replay_event(s->r, &ev);
	return 0;
}

/* one message: 1 the end, 0 more to come, -1 malformed */
static int message(struct dat_stream *s, uint32_t type, const void *p,
		   size_t len, char *err, size_t errlen)
{
	const char *text = p;
	struct wire_lost l;
	int64_t counts[2];
	uint64_t done;
	int32_t a;

	switch (type) {
	case W_REC:
		return record(s, p, len);
	case W_LAYOUT:
		if (len != sizeof(s->layout) || s->have_layout)
			return -1;
		memcpy(&s->layout, p, sizeof(s->layout));
		s->have_layout = 1;
		return dec_layout_check(&s->layout);
	case W_SITE:
	case W_COMM:
		if (len < 4)
			return -1;
		memcpy(&a, p, 4);
		if (type == W_COMM)
			add_comm(s, a, text + 4, len - 4);
		else if (add_site(s, a, text + 4, len - 4))
			return -1;
		return 0;
	case W_LOST:
		if (len != sizeof(l))
			return -1;
		memcpy(&l, p, sizeof(l));
		replay_lost(s->r, l.cpu, l.ts, l.missed < 0 ? -1 : l.missed);
		return 0;
	case W_CLOCK:
		snprintf(s->info->clock, sizeof(s->info->clock), "%.*s",
			 (int)len, text);
		return 0;
	case W_PROGRESS:
		if (len != sizeof(done))
			return -1;
		memcpy(&done, p, sizeof(done));
		progress_update(&s->prog, done);
		return 0;
	case W_END:
		if (len < sizeof(counts))
			return -1;
		memcpy(counts, p, sizeof(counts));
		s->info->records = counts[0] - s->bad;
		s->info->bad_records = counts[1] + s->bad;
		if (len > sizeof(counts))
			snprintf(err, errlen, "%.*s",
				 (int)(len - sizeof(counts)),
				 text + sizeof(counts));
		return 1;
	}
	return -1;
}

int dat_stream_buffer(struct dat_stream *s, const unsigned char *buf,
		      size_t len, char *err, size_t errlen)
{
	struct wire_head h;

	for (size_t at = 0; at < len; at += WIRE_ALIGN(sizeof(h) + h.len)) {
		int ret;

		/* a copy: the child cannot change what is checked */
		if (len - at < sizeof(h))
			return -1;
		memcpy(&h, buf + at, sizeof(h));
		if (h.len > WIRE_MAX_LEN || len - at - sizeof(h) < h.len)
			return -1;
		ret = message(s, h.type, buf + at + sizeof(h), h.len, err,
			      errlen);
		if (ret)
			return ret;
	}
	return 0;
}

int dat_stream_run(struct dat_stream *s, const struct wire_bufs *b, int full_fd,
		   int free_fd, char *err, size_t errlen)
{
	struct wire_full f;
	int ret;

	*err = 0;
	for (;;) {
		ssize_t n = read(full_fd, &f, sizeof(f));

		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			return 0;
		if (n != sizeof(f) || f.i > 1 || f.len > WIRE_BUF_SIZE)
			return -1;
		ret = dat_stream_buffer(s, b->buf[f.i], f.len, err, errlen);
		if (ret)
			return ret;
		if (write(free_fd, "", 1) != 1)
			return 0;
	}
}
