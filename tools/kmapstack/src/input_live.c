// SPDX-License-Identifier: GPL-2.0
/* kmapstack: live tracing from tracefs, through libtracefs */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <tracefs.h>

#include "xalloc.h"
#include "decode.h"
#include "findings.h"
#include "input.h"
#include "sites.h"

void input_live_instance_name(char *buf, size_t len, int pid)
{
	/* two runs at once must not share, and so destroy, one instance */
	snprintf(buf, len, "kmapstack-%d", pid);
}

static struct tracefs_instance *live_instance;
static volatile sig_atomic_t live_stop;

static void on_signal(int sig)
{
	(void)sig;
	live_stop = 1;
	if (live_instance)
		tracefs_iterate_stop(live_instance);
}

/* what SIGINT, SIGTERM and SIGHUP do */
static void on_signals(void (*handler)(int))
{
	struct sigaction sa = { .sa_handler = handler };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/*
 * The per-CPU buffers are read one after the other, a round every 100 ms:
 * an event of one CPU can come a round after a later event of another (a
 * task that maps on CPU 1 and unmaps on CPU 0, as kmap_local allows on
 * 64-bit). Events wait here, in time order, until they are older than the
 * newest one read by REORDER_NS; the end of the run replays the rest.
 */
#define REORDER_NS 500000000ULL

struct held_event {
	struct kms_event ev;
	unsigned long long seq; /* arrival order, for equal times */
};

struct live_ctx {
	struct decoder dec;
	struct replay *r;
	struct input_info *info;
	const struct live_opts *lo;
	int shown; /* findings already printed */
	struct held_event *held; /* waiting */
	int nheld, capheld;
	unsigned long long newest; /* the newest time read */
	unsigned long long seq;
};

/* the findings made since the last call, one line each, as they come */
static void stream_findings(struct live_ctx *c)
{
	const struct findings *f = c->lo->findings;

	if (!f || !c->lo->stream || c->shown >= f->n)
		return;
	for (; c->shown < f->n; c->shown++) {
		const struct finding *x = &f->v[c->shown];

		fprintf(c->lo->stream,
			"kmapstack: %s: %s/%d on CPU %d at %llu.%09llu in %s context, address 0x%llx: at %s",
			kms_kind_name(x->kind), x->comm[0] ? x->comm : "<...>",
			x->pid, x->cpu, x->ts / 1000000000ULL,
			x->ts % 1000000000ULL, kms_ctx_name(x->ctx), x->addr,
			x->caller >= 0 ? sites_name(x->caller) : "?");
		if (x->map_caller >= 0)
			fprintf(c->lo->stream, ", mapped at %s",
				sites_name(x->map_caller));
		if (x->top_caller >= 0 && x->top_caller != x->map_caller)
			fprintf(c->lo->stream, ", top of stack %s",
				sites_name(x->top_caller));
		fprintf(c->lo->stream, "\n");
	}
	fflush(c->lo->stream);
}

static int on_record(struct tep_event *event, struct tep_record *rec, int cpu,
		     void *data)
{
	struct live_ctx *c = data;
	struct kms_event ev;
	int ret;

	(void)event;
	if (rec->missed_events)
		replay_lost(c->r, cpu, rec->ts,
			    rec->missed_events > 0 ? rec->missed_events : -1);
	ret = decoder_decode(&c->dec, rec, &ev);
	if (ret < 0)
		c->info->bad_records++;
	if (ret <= 0)
		return live_stop;
	c->info->records++;
	c->held = xgrow(c->held, &c->capheld, c->nheld + 1, sizeof(*c->held));
	c->held[c->nheld++] = (struct held_event){ ev, c->seq++ };
	c->newest = ev.ts > c->newest ? ev.ts : c->newest;
	return live_stop;
}

static int by_time(const void *a, const void *b)
{
	const struct held_event *x = a, *y = b;

	if (x->ev.ts != y->ev.ts)
		return x->ev.ts < y->ev.ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* replay the held events older than the newest by REORDER_NS (all: all) */
static void release_held(struct live_ctx *c, int all)
{
	int n = 0;

	if (!c->nheld)
		return;
	qsort(c->held, (size_t)c->nheld, sizeof(*c->held), by_time);
	while (n < c->nheld &&
	       (all || c->held[n].ev.ts + REORDER_NS <= c->newest))
		replay_event(c->r, &c->held[n++].ev);
	memmove(c->held, c->held + n,
		(size_t)(c->nheld - n) * sizeof(*c->held));
	c->nheld -= n;
	stream_findings(c);
}

/* the call sites' names: /proc/kallsyms, read whole (it has no NUL) */
static void load_kallsyms(struct tep_handle *tep)
{
	FILE *fp = fopen("/proc/kallsyms", "r");
	char *buf = NULL;
	size_t cap = 0;

	if (!fp)
		return;
	if (getdelim(&buf, &cap, '\0', fp) > 0)
		tep_parse_kallsyms(tep, buf);
	free(buf);
	fclose(fp);
}

int input_live(const struct live_opts *lo, struct replay *r,
	       struct input_info *info, char *err, size_t errlen)
{
	const char *systems[] = { "kmap_stack", NULL };
	const char *dir = lo->tracefs;
	struct live_ctx c = { .r = r, .info = info, .lo = lo };
	struct tep_handle *tep;
	struct stat st;
	char path[4096], why[256], name[64];
	int ret = -1;

	info->kind = INPUT_LIVE;
	info->path = "live";
	if (dir) {
		if (stat(dir, &st) || !S_ISDIR(st.st_mode))
			return kms_fail(err, errlen, "%s: no tracefs there",
					dir);
		tracefs_set_tracing_dir((char *)dir);
	}
	dir = tracefs_tracing_dir();
	if (!dir)
		return kms_fail(
			err, errlen,
			"tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
	snprintf(path, sizeof(path), "%s/events/kmap_stack/kmap_push/format",
		 dir);
	if (access(path, R_OK))
		return kms_fail(
			err, errlen, "%s: %s", dir,
			errno == EACCES ?
				"permission denied (run as root)" :
				"this kernel has no kmap_stack events (CONFIG_DEBUG_KMAP_STACK=y?)");
	tep_set_loglevel(TEP_LOG_NONE);
	tep = tracefs_local_events_system(dir, systems);
	if (!tep)
		return kms_fail(err, errlen,
				"%s: cannot read the kmap_stack formats", dir);
	load_kallsyms(tep);
	if (decoder_init(&c.dec, tep, why, sizeof(why))) {
		tep_free(tep);
		return kms_fail(err, errlen, "%s: %s", dir, why);
	}
	/* from here on a signal stops the run and the instance is removed */
	on_signals(on_signal);
	input_live_instance_name(name, sizeof(name), (int)getpid());
	live_instance = tracefs_instance_create(name);
	if (!live_instance) {
		snprintf(err, errlen,
			 "%s: cannot create the tracefs instance %s (%s)", dir,
			 name, strerror(errno));
		goto out;
	}
	if (lo->buffer_kb &&
	    tracefs_instance_set_buffer_size(live_instance,
					     (size_t)lo->buffer_kb, -1) < 0) {
		snprintf(err, errlen,
			 "%s: cannot set the buffer size of %s to %d KB (%s)",
			 dir, name, lo->buffer_kb, strerror(errno));
		goto out;
	}
	if (tracefs_event_enable(live_instance, "kmap_stack", NULL) < 0) {
		snprintf(err, errlen,
			 "%s: cannot enable the kmap_stack events in %s (%s)",
			 dir, name, strerror(errno));
		goto out;
	}
	tracefs_trace_on(live_instance);
	if (lo->duration) {
		/* 1 us at least: a timer of 0 is none */
		long long us = lo->duration < 1000 ? 1 : lo->duration / 1000;
		struct itimerval it = { .it_value = { us / 1000000,
						      us % 1000000 } };

		sigaction(SIGALRM,
			  &(struct sigaction){ .sa_handler = on_signal }, NULL);
		setitimer(ITIMER_REAL, &it, NULL);
	}
	fprintf(stderr,
		"kmapstack: tracing kmap_stack events (instance %s), %s\n",
		name,
		lo->duration ? "until the duration is over" : "Ctrl-C to stop");
	while (!live_stop) {
		tracefs_iterate_raw_events(tep, live_instance, NULL, 0,
					   on_record, &c);
		release_held(&c, 0);
		if (!live_stop)
			usleep(100 * 1000);
	}
	/* drain what is left */
	tracefs_event_disable(live_instance, "kmap_stack", NULL);
	live_stop = 0;
	tracefs_iterate_raw_events(tep, live_instance, NULL, 0, on_record, &c);
	release_held(&c, 1);
	ret = 0;
out:
	if (live_instance) {
		tracefs_event_disable(live_instance, "kmap_stack", NULL);
		tracefs_instance_destroy(live_instance);
		tracefs_instance_free(live_instance);
		live_instance = NULL;
	}
	/* the report that follows is not interrupted half-way */
	on_signals(SIG_DFL);
	decoder_free(&c.dec);
	free(c.held);
	tep_free(tep);
	return ret;
}
