// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack: the one pass over a trace.dat through libtracecmd and
 * libtraceevent: each kmap_stack record decoded (decode.h) into the sink.
 */
#include <stdio.h>
#include <string.h>

#include <trace-cmd.h>

#include "decode.h"
#include "tracedat.h"

/* exported by libtracecmd, not declared in its header */
const char *tracecmd_get_trace_clock(struct tracecmd_input *handle);

/* progress: the data of each CPU lie one after the other in the file */
#define PROGRESS_CPUS 1024

struct pass {
	struct decoder dec;
	const struct dat_sink *sink;
	struct input_info *info;
	unsigned long long n;
	unsigned long long first[PROGRESS_CPUS], cur[PROGRESS_CPUS];
};

static void progress(struct pass *p)
{
	unsigned long long done = 0;

	for (int i = 0; i < PROGRESS_CPUS; i++)
		done += p->cur[i] - p->first[i];
	p->sink->progress(p->sink->priv, done);
}

static const char *comm_of(void *tep, int pid)
{
	return tep_data_comm_from_pid(tep, pid);
}

static int on_record(struct tracecmd_input *handle, struct tep_record *rec,
		     int cpu, void *data)
{
	struct pass *p = data;
	struct decoder *d = &p->dec;
	struct dat_rec r;

	(void)handle;
	if (rec->missed_events)
		p->sink->lost(p->sink->priv, cpu, rec->ts,
			      rec->missed_events > 0 ? rec->missed_events : -1);
	r.e = decoder_kind(d, rec);
	if (r.e >= 0) {
		r.cpu = rec->cpu;
		r.pid = decoder_pid(d, rec);
		r.ts = rec->ts;
		r.caller = decoder_site_of(d, r.e, rec->data, DF_CALLER);
		r.map_caller = r.top_caller = KMS_NO_SITE;
		if (r.e == 2) {
			r.map_caller = decoder_site_of(d, r.e, rec->data,
						       DF_MAP_CALLER);
			r.top_caller = decoder_site_of(d, r.e, rec->data,
						       DF_TOP_CALLER);
		}
		r.data = rec->data;
		r.size = d->l.ev[r.e].min_size;
		p->info->records++;
		p->info->last_ts = r.ts;
		p->sink->record(p->sink->priv, &r, comm_of, d->tep);
	} else if (r.e == -2) {
		p->info->bad_records++;
	}
	if (cpu >= 0 && cpu < PROGRESS_CPUS) {
		if (!p->first[cpu] || rec->offset < p->first[cpu])
			p->first[cpu] = rec->offset;
		p->cur[cpu] = rec->offset;
	}
	if (!(++p->n & 0xffff))
		progress(p);
	return 0;
}

/* a trace.dat without a kmap_stack record is an error, with a hint */
static void no_records(struct tracecmd_input *handle, const char *name,
		       char *err, size_t errlen)
{
	int n = tracecmd_buffer_instances(handle);
	size_t len;

	snprintf(err, errlen,
		 "%s: no kmap_stack events in this trace.dat (the formats are "
		 "there, no record): record them with trace-cmd record -e "
		 "kmap_stack on a kernel with CONFIG_DEBUG_KMAP_STACK",
		 name);
	/* only the top-level buffer is read */
	for (int i = 0; i < n; i++) {
		len = strlen(err);
		snprintf(err + len, errlen - len, "%s%s",
			 i ? ", " :
			     "; not read: "
			     "the buffer instance ",
			 tracecmd_buffer_instance_name(handle, i));
	}
}

int tracedat_pass(const char *path, const char *name,
		  const struct dat_sink *sink, struct input_info *info,
		  char *err, size_t errlen)
{
	static struct pass p;
	struct tracecmd_input *handle;
	char why[256];

	memset(&p, 0, sizeof(p));
	*err = 0;
	p.sink = sink;
	p.info = info;
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	handle =
		tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS |
					    TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	if (!handle) {
		snprintf(err, errlen,
			 "%s: cannot read this trace.dat (truncated or "
			 "corrupt: libtracecmd cannot open it)",
			 name);
		return -1;
	}
	if (decoder_init(&p.dec, tracecmd_get_tep(handle), why, sizeof(why))) {
		snprintf(err, errlen, "%s: %s", name, why);
		if (!sink->last_pass)
			tracecmd_close(handle);
		return -1;
	}
	sink->clock(sink->priv, tracecmd_get_trace_clock(handle));
	sink->layout(sink->priv, &p.dec.l);
	tracecmd_iterate_events(handle, NULL, 0, on_record, &p);
	progress(&p);
	if (!info->records && !info->bad_records)
		no_records(handle, name, err, errlen);
	if (sink->last_pass)
		return *err ? -1 : 0;
	decoder_free(&p.dec);
	tracecmd_close(handle);
	return *err ? -1 : 0;
}

int dat_rec_event(const struct dec_layout *l, const struct dat_rec *rec,
		  struct kms_event *ev)
{
	ev->ts = rec->ts;
	ev->cpu = rec->cpu;
	ev->pid = rec->pid;
	ev->comm = NULL;
	ev->caller = rec->caller;
	ev->map_caller = rec->map_caller;
	ev->top_caller = rec->top_caller;
	return dec_fields(l, rec->e, rec->data, ev);
}
