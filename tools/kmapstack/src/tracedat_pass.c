// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack: the one pass over a trace.dat through the trace libraries:
 * each kmap_stack record decoded as far as they are needed (event, task,
 * call sites' names) and written with its bytes as a message (tracedat.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trace-cmd.h>

#include "decode.h"
#include "sites.h"
#include "tracedat.h"
#include "xalloc.h"

/* exported by libtracecmd, not declared in its header */
const char *tracecmd_get_trace_clock(struct tracecmd_input *handle);
int tracecmd_page_size(struct tracecmd_input *handle);
int tracecmd_cpus(struct tracecmd_input *handle);
void *tracecmd_record_page(struct tracecmd_input *h, struct tep_record *r);

/* NR_CPUS at most (Kconfig); libtracecmd walks every CPU for each record */
#define PASS_MAX_CPUS 8192

struct pass {
	struct decoder dec;
	struct dat_writer *w;
	long long records, bad;
	unsigned long long n;
	unsigned int misses; /* the decoder's as the sites were last sent */
	/* per CPU, the first and the last record's offset in the file */
	unsigned long long (*at)[2];
	int cpus, page_size;
	const char *name;
	char err[1024]; /* the pass's error, if it has one */
};

/* room for len <= WIRE_MAX_LEN bytes after a head, 8-aligned, in place */
static inline void *dat_reserve(struct dat_writer *w, uint32_t type, size_t len)
{
	struct wire_head *h;

	if (w->n + WIRE_ALIGN(sizeof(*h) + len) > WIRE_BUF_SIZE)
		w->flush(w);
	h = (struct wire_head *)(w->b->buf[w->cur] + w->n);
	h->type = type;
	h->len = (uint32_t)len;
	w->n += WIRE_ALIGN(sizeof(*h) + len);
	return h + 1;
}

/* one message: the alen bytes at a, then the blen bytes at b */
static void dat_write(struct dat_writer *w, uint32_t type, const void *a,
		      size_t alen, const void *b, size_t blen)
{
	unsigned char *p;

	if (alen + blen > WIRE_MAX_LEN)
		blen = WIRE_MAX_LEN - alen;
	p = dat_reserve(w, type, alen + blen);
	if (alen)
		memcpy(p, a, alen);
	if (blen)
		memcpy(p + alen, b, blen);
}

static void write_text(struct dat_writer *w, uint32_t type, int32_t a,
		       const char *text)
{
	text = text ? text : "";
	dat_write(w, type, &a, sizeof(a), text, strnlen(text, WIRE_MAX_LEN));
}

static void progress(struct pass *p)
{
	uint64_t done = 0;

	/* the data of each CPU lie one after the other in the file */
	for (int i = 0; i < p->cpus; i++)
		done += p->at[i][1] - p->at[i][0];
	dat_write(p->w, W_PROGRESS, &done, sizeof(done), NULL, 0);
}

/* the sites and the command new to the reader, then the record */
static void record(struct pass *p, struct tep_record *rec, int e)
{
	struct decoder *d = &p->dec;
	struct dat_writer *w = p->w;
	int pid = decoder_pid(d, rec), size = d->l.ev[e].min_size;
	int caller = decoder_site_of(d, e, rec->data, DF_CALLER);
	int map_caller = decoder_site_of(d, e, rec->data, DF_MAP_CALLER);
	int top_caller = decoder_site_of(d, e, rec->data, DF_TOP_CALLER);
	struct wire_rec *m;

	/* a site is new only after a miss of the decoder's cache */
	for (; d->misses != p->misses && w->sites_sent < sites_count();
	     w->sites_sent++)
		write_text(w, W_SITE, w->sites_sent, sites_name(w->sites_sent));
	p->misses = d->misses;
	if (pid < 0 || pid >= DAT_PID_BITS ||
	    !(w->pid_sent[pid >> 3] & (1 << (pid & 7)))) {
		if (pid >= 0 && pid < DAT_PID_BITS)
			w->pid_sent[pid >> 3] |= 1 << (pid & 7);
		write_text(w, W_COMM, pid, tep_data_comm_from_pid(d->tep, pid));
	}
	/* in place: a copy reloads the fields' stores by wider loads (slow) */
	m = dat_reserve(w, W_REC, sizeof(*m) + size);
	*m = (struct wire_rec){ rec->ts,    rec->cpu,	pid, caller,
				map_caller, top_caller, e,   size };
	memcpy(m + 1, rec->data, size);
}

static int on_record(struct tracecmd_input *handle, struct tep_record *rec,
		     int cpu, void *data)
{
	struct pass *p = data;
	const char *page = tracecmd_record_page(handle, rec);
	int e;

	/*
	 * A CPU's records come in file order; on a length leading back in a
	 * corrupt page kbuffer repeats them for ever: the pass ends there.
	 */
	if (cpu >= p->cpus)
		p->at = xgrow_zero(p->at, &p->cpus, cpu + 1, sizeof(*p->at));
	if (p->at[cpu][0] && rec->offset <= p->at[cpu][1]) {
		snprintf(
			p->err, sizeof(p->err),
			"%s: cannot read this trace.dat (truncated or corrupt: CPU %d's record at byte %llu comes again after the one at byte %llu: a length in its data page leads back)",
			p->name, cpu, rec->offset, p->at[cpu][1]);
		return -1; /* ends tracecmd_iterate_events() */
	}
	p->at[cpu][0] = p->at[cpu][0] ? p->at[cpu][0] : rec->offset;
	p->at[cpu][1] = rec->offset;
	/*
	 * kbuffer trusts a record's length; libtracecmd holds a page in page
	 * size bytes: a record that ends past them is malformed.
	 */
	if (!page || rec->size < 0 ||
	    (const char *)rec->data - page + rec->size > p->page_size) {
		p->bad++;
		return 0;
	}
	if (rec->missed_events) {
		struct wire_lost l = { .ts = rec->ts, .cpu = cpu };

		l.missed = rec->missed_events > 0 ? rec->missed_events : -1;
		dat_write(p->w, W_LOST, &l, sizeof(l), NULL, 0);
	}
	e = decoder_kind(&p->dec, rec);
	if (e >= 0) {
		p->records++;
		record(p, rec, e);
	} else if (e == -2) {
		p->bad++;
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

	snprintf(
		err, errlen,
		"%s: no kmap_stack events in this trace.dat (the formats are there, no record): record them with trace-cmd record -e kmap_stack on a kernel with CONFIG_DEBUG_KMAP_STACK",
		name);
	/* only the top-level buffer is read */
	for (int i = 0; i < n; i++)
		snprintf(err + strlen(err), errlen - strlen(err), "%s%s",
			 i ? ", " : "; not read: the buffer instance ",
			 tracecmd_buffer_instance_name(handle, i));
}

void tracedat_pass(const char *path, const char *name, struct dat_writer *w,
		   int last)
{
	static struct pass p;
	struct tracecmd_input *handle;
	char why[256];
	const char *clock;

	memset(&p, 0, sizeof(p));
	p.w = w;
	p.name = name;
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	handle =
		tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS |
					    TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	if (!handle) {
		snprintf(
			p.err, sizeof(p.err),
			"%s: cannot read this trace.dat (truncated or corrupt: libtracecmd cannot open it)",
			name);
	} else if (decoder_init(&p.dec, tracecmd_get_tep(handle), why,
				sizeof(why))) {
		snprintf(p.err, sizeof(p.err), "%s: %s", name, why);
	} else if (tracecmd_cpus(handle) > PASS_MAX_CPUS) {
		snprintf(
			p.err, sizeof(p.err),
			"%s: cannot read this trace.dat (truncated or corrupt: %d CPUs, a kernel has at most %d)",
			name, tracecmd_cpus(handle), PASS_MAX_CPUS);
	} else {
		p.page_size = tracecmd_page_size(handle);
		clock = tracecmd_get_trace_clock(handle);
		dat_write(w, W_CLOCK, NULL, 0, clock ? clock : "",
			  clock ? strnlen(clock, 64) : 0);
		dat_write(w, W_LAYOUT, &p.dec.l, sizeof(p.dec.l), NULL, 0);
		tracecmd_iterate_events(handle, NULL, 0, on_record, &p);
		progress(&p);
		free(p.at);
		if (!*p.err && !p.records && !p.bad)
			no_records(handle, name, p.err, sizeof(p.err));
	}
	dat_write(w, W_END, (int64_t[2]){ p.records, p.bad },
		  sizeof(int64_t[2]), p.err, strlen(p.err));
	w->flush(w);
	if (last || !handle)
		return;
	decoder_free(&p.dec);
	tracecmd_close(handle);
}
