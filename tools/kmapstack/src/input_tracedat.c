// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack: the one pass over a trace.dat through libtracecmd and
 * libtraceevent, over all its CPUs or a child's share of them
 * (tracedat_part.c), into a sink: records decoded into events for the
 * replay, or as far as the trace libraries are needed for the ring of a
 * protected child (tracedat_child.c).
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trace-cmd.h>

#include "decode.h"
#include "input.h"
#include "tracedat.h"
#include "tracedat_stall.h"
#include "xalloc.h"

/* exported by libtracecmd, not declared in its header */
const char *tracecmd_get_trace_clock(struct tracecmd_input *handle);

#define MAX_PROGRESS_CPUS 1024

struct dat_ctx {
	struct decoder dec;
	const struct dat_sink *sink;
	struct input_info *info;
	unsigned long long n, total;
	/* progress: the CPUs' data are one after the other in the file */
	unsigned long long first[MAX_PROGRESS_CPUS], cur[MAX_PROGRESS_CPUS];
	struct dat_stall stall; /* the same record for ever: corrupt */
	int stalled;
};

static void progress(struct dat_ctx *c)
{
	unsigned long long done = 0;

	for (int i = 0; i < MAX_PROGRESS_CPUS; i++)
		done += c->cur[i] - c->first[i];
	c->sink->progress(c->sink->priv, done, c->total);
}

/* decoded here */
static void pass_event(struct dat_ctx *c, struct tep_record *rec)
{
	struct kms_event ev;
	int ret = decoder_decode(&c->dec, rec, &ev);

	if (ret > 0) {
		c->info->records++;
		c->sink->event(c->sink->priv, &ev);
	} else if (ret < 0) {
		c->info->bad_records++;
	}
}

/* decoded by the sink, but for what needs the trace libraries */
static void pass_record(struct dat_ctx *c, struct tep_record *rec)
{
	struct decoder *d = &c->dec;
	struct dat_rec r;

	r.e = decoder_kind(d, rec);
	if (r.e < 0) {
		if (r.e == -2)
			c->info->bad_records++;
		return;
	}
	r.cpu = rec->cpu;
	r.pid = decoder_pid(d, rec);
	r.ts = rec->ts;
	r.caller = decoder_site_of(d, r.e, rec->data, DF_CALLER);
	if (r.e == 2) {
		r.map_caller =
			decoder_site_of(d, r.e, rec->data, DF_MAP_CALLER);
		r.top_caller =
			decoder_site_of(d, r.e, rec->data, DF_TOP_CALLER);
	} else {
		r.map_caller = r.top_caller = KMS_NO_SITE;
	}
	r.data = rec->data;
	r.size = d->l.ev[r.e].min_size;
	r.dec = d;
	c->info->records++;
	c->sink->record(c->sink->priv, &r);
}

static int on_record(struct tracecmd_input *handle, struct tep_record *rec,
		     int cpu, void *data)
{
	struct dat_ctx *c = data;

	(void)handle;
	if (tracedat_stalled(&c->stall, cpu, rec->offset)) {
		c->stalled = 1;
		return -1;
	}
	if (rec->missed_events)
		c->sink->lost(c->sink->priv, cpu, rec->ts,
			      rec->missed_events > 0 ? rec->missed_events : -1);
	if (c->sink->record)
		pass_record(c, rec);
	else
		pass_event(c, rec);
	if (cpu >= 0 && cpu < MAX_PROGRESS_CPUS) {
		if (!c->first[cpu] || rec->offset < c->first[cpu])
			c->first[cpu] = rec->offset;
		c->cur[cpu] = rec->offset;
	}
	/* relaxed: the watchdog thread only looks for a change */
	__atomic_store_n(&c->n, c->n + 1, __ATOMIC_RELAXED);
	if (!(c->n & 0xffff))
		progress(c);
	return 0;
}

#define OPEN_FLAGS \
	(TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS)

void tracedat_corrupt(const char *path, char *err, size_t errlen)
{
	snprintf(err, errlen,
		 "%s: cannot read this trace.dat (truncated or corrupt)", path);
}

static struct dat_ctx c;

unsigned long long tracedat_records_seen(void)
{
	return __atomic_load_n(&c.n, __ATOMIC_RELAXED);
}

/* the records of the sink's CPUs, in time order */
static void iterate(struct tracecmd_input *handle, const struct dat_sink *sink)
{
	size_t size = 0;
	cpu_set_t *cpus = NULL;

	if (sink->parts > 1)
		cpus = tracedat_part(handle, sink->part, sink->parts, &size);
	tracecmd_iterate_events(handle, cpus, (int)size, on_record, &c);
	free(cpus);
}

int tracedat_pass(const char *path, const char *name, unsigned long long size,
		  const struct dat_sink *sink, struct input_info *info,
		  char *err, size_t errlen)
{
	struct tracecmd_input *handle;
	char why[256];

	memset(&c, 0, sizeof(c));
	c.sink = sink;
	c.info = info;
	c.total = size;
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	handle = tracecmd_open(path, OPEN_FLAGS);
	if (!handle) {
		tracedat_corrupt(name, err, errlen);
		return -1;
	}
	tep_set_loglevel(TEP_LOG_NONE);
	if (decoder_init(&c.dec, tracecmd_get_tep(handle), why, sizeof(why))) {
		snprintf(err, errlen, "%s: %s", name, why);
		tracecmd_close(handle);
		return -1;
	}
	sink->clock(sink->priv, tracecmd_get_trace_clock(handle));
	if (sink->layout)
		sink->layout(sink->priv, &c.dec.l);
	iterate(handle, sink);
	progress(&c);
	if (c.stalled)
		tracedat_corrupt(name, err, errlen);
	if (sink->last_pass)
		return c.stalled ? -1 : 0;
	decoder_free(&c.dec);
	tracecmd_close(handle);
	return c.stalled ? -1 : 0;
}

/* the direct sink: into the replay */
struct direct {
	struct replay *r;
	struct progress prog;
	struct input_info *info;
};

static void d_event(void *priv, const struct kms_event *ev)
{
	replay_event(((struct direct *)priv)->r, ev);
}

static void d_lost(void *priv, int cpu, unsigned long long ts, long long n)
{
	replay_lost(((struct direct *)priv)->r, cpu, ts, n);
}

static void d_progress(void *priv, unsigned long long done,
		       unsigned long long total)
{
	(void)total;
	progress_update(&((struct direct *)priv)->prog, done);
}

static void d_clock(void *priv, const char *clock)
{
	input_set_clock(((struct direct *)priv)->info, clock);
}

int tracedat_direct(const char *path, unsigned long long size, struct replay *r,
		    struct input_info *info, char *err, size_t errlen)
{
	struct direct d = { .r = r, .info = info };
	struct dat_sink sink = { .event = d_event,
				 .lost = d_lost,
				 .progress = d_progress,
				 .clock = d_clock,
				 .priv = &d };
	int ret;

	info->kind = INPUT_TRACEDAT;
	progress_start(&d.prog, info->progress, info->path, size);
	ret = tracedat_pass(path, info->path, size, &sink, info, err, errlen);
	progress_end(&d.prog);
	return ret;
}

int input_tracedat_direct(const char *path, struct replay *r,
			  struct input_info *info, char *err, size_t errlen)
{
	return tracedat_direct(path, 0, r, info, err, errlen);
}
