// SPDX-License-Identifier: GPL-2.0
/* kmapstack: the human report, modelled on lockdep's */
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "sites.h"
#include "xalloc.h"

#define RULE "============================================================"
#define THIN "------------------------------------------------------------"

/* timestamps in seconds, or as counted when the trace clock is no time */
static int ts_raw;

const char *report_time_unit(const struct report_ctx *rc)
{
	const char *u = rc->ninputs ? input_time_unit(&rc->inputs[0]) : "ns";

	/* inputs of different clocks: their times are not comparable */
	for (int i = 1; i < rc->ninputs; i++)
		if (strcmp(u, input_time_unit(&rc->inputs[i])))
			return "ticks";
	return u;
}

static void ts(FILE *out, unsigned long long t)
{
	if (ts_raw)
		fprintf(out, "%llu", t);
	else
		fprintf(out, "%llu.%09llu", t / 1000000000ULL,
			t % 1000000000ULL);
}

static const char *const kind_text[KMS_KIND_NR] = {
	[KMS_MISMATCH] = "unmap of a mapping that is not on top of its stack",
	[KMS_UNKNOWN] = "unmap of an address that is on no stack",
	[KMS_CROSS_CONTEXT] =
		"an interrupt unmapped a mapping of the context it interrupted",
	[KMS_OVERFLOW] = "shadow stack full: mapping not recorded",
	[KMS_LEAK_HARDIRQ] = "mappings leaked out of a hardirq handler",
	[KMS_LEAK_SOFTIRQ] =
		"mappings leaked out of a softirq handler (tasklet, timer)",
	[KMS_FLAVOUR] =
		"kunmap_local() of a kmap_atomic() mapping, or the reverse",
	[KMS_DEPTH] =
		"the nesting of a task and its interrupts exceeds the 16 slots of the 32-bit kmap stack",
	[KMS_LEAK_NMI] = "mappings leaked out of an NMI handler",
	[KMS_LEAK_WORK] = "mappings leaked out of a work item",
	[KMS_LEAK_USER] = "return to user space holding mappings",
	[KMS_LEAK_EXIT] = "task exit holding mappings",
	[KMS_LEAK_MODULE] =
		"a module was unloaded while a mapping made by its code was held",
	[KMS_LEAK_TASK] = "mappings of a task removed by the kernel (leak)",
	[KMS_HELD_AT_END] = "mappings still held at the end of the trace",
};

/* the widest of a name and the names of sites (n of them) */
static int width(const char *name, const int *site, int n, size_t stride)
{
	int w = (int)strlen(name);

	for (int i = 0; i < n; i++) {
		int s = *(const int *)((const char *)site + stride * (size_t)i);
		int len = (int)strlen(sites_name(s));

		w = len > w ? len : w;
	}
	return w;
}

static void frames(FILE *out, const struct finding *x)
{
	int w;

	if (!x->nframes) {
		fprintf(out, "stack at that moment: empty\n");
		return;
	}
	w = width("[unknown]", &x->frames[0].site, x->nframes,
		  sizeof(x->frames[0]));
	fprintf(out, "stack at that moment (innermost first), %d entr%s:\n",
		x->nframes, x->nframes == 1 ? "y" : "ies");
	for (int i = 0; i < x->nframes; i++) {
		const struct frame *fr = &x->frames[i];

		/* a placeholder's site is [unknown] */
		fprintf(out, "  #%d: %-*s ", x->nframes - 1 - i, w,
			sites_name(fr->site));
		if (fr->placeholder) {
			fprintf(out, "%-18s %-7s (lost events)", "?",
				kms_ctx_name(fr->ctx));
		} else {
			fprintf(out, "0x%-16llx %-7s mapped at ", fr->addr,
				kms_ctx_name(fr->ctx));
			ts(out, fr->ts);
			if (fr->flags & KMS_F_ATOMIC)
				fprintf(out, " atomic");
			if (fr->unrec)
				fprintf(out, " (not recorded by the kernel)");
		}
		fprintf(out, "%s\n", fr->marked ? "  <- this one" : "");
	}
}

static void finding(FILE *out, struct report_ctx *rc, const struct finding *x)
{
	int leak = kms_kind_is_leak(x->kind);

	fprintf(out, "\n" RULE "\nWARNING: kmap stack %s: %s\n" THIN "\n%s\n",
		x->kind == KMS_HELD_AT_END ? "warning" : "violation",
		kms_kind_name(x->kind), kind_text[x->kind]);
	if (rc->ninputs > 1)
		fprintf(out, "in %s\n", rc->inputs[x->file].path);
	fprintf(out, "%s/%d", x->comm[0] ? x->comm : "<...>", x->pid);
	if (x->kind == KMS_HELD_AT_END) {
		fprintf(out,
			" still holds %d mapping%s on CPU %d (%s stack) when the trace ends; last event at ",
			x->nleaked, x->nleaked == 1 ? "" : "s", x->cpu,
			kms_ctx_name(x->stack_ctx));
		ts(out, x->ts);
	} else {
		fprintf(out, " on CPU %d at ", x->cpu);
		ts(out, x->ts);
		if (leak)
			fprintf(out, ": %d mapping%s left on the %s stack",
				x->nleaked, x->nleaked == 1 ? "" : "s",
				kms_ctx_name(x->stack_ctx));
		else
			fprintf(out, " in %s context, address 0x%llx",
				kms_ctx_name(x->ctx), x->addr);
		if (x->kind == KMS_CROSS_CONTEXT)
			fprintf(out, " (on the %s stack)",
				kms_ctx_name(x->stack_ctx));
	}
	fprintf(out, "\n");
	if (x->kind != KMS_HELD_AT_END)
		fprintf(out, "  %-13s %s\n",
			leak ? "removed by:" : "unmapped at:",
			sites_name(x->caller));
	fprintf(out, "  %-13s %s\n", "mapped at:", sites_name(x->map_caller));
	fprintf(out, "  %-13s %s\n",
		"top of stack:", sites_name(x->top_caller));
	if (x->depth >= 0)
		fprintf(out, "  %-13s %d\n", "depth:", x->depth);
	fprintf(out, "\n");
	frames(out, x);
	fprintf(out, "\n");
	if (x->source & FS_KERNEL)
		fprintf(out, "found by: %s (kmap_violation kind=%s)\n",
			x->source & FS_REPLAY ? "replay and kernel" : "kernel",
			kms_kind_name(x->kernel_kind));
	else
		fprintf(out, "found by: replay\n");
	if (x->uncertain)
		fprintf(out, "uncertain: events were lost on this stack\n");
	if (x->note)
		fprintf(out, "note: %s\n", x->note);
}

/*
 * The findings shown, each group (kind, map site, unmap site) once: its
 * first finding in full, with the count of the others
 */
static void violations(FILE *out, struct report_ctx *rc, int held)
{
	struct findings *f = rc->f;
	struct htab first = { 0 }; /* group -> its first finding */
	long long *more = xcalloc((size_t)f->n + 1, sizeof(*more)), hidden = 0;

	for (int i = 0; i < f->n; i++) {
		uint64_t key = findings_group_of(&f->v[i]);
		int j = htab_get(&first, key);

		if (j >= 0) {
			more[j]++;
			more[i] = -1;
		} else {
			htab_add(&first, key, i);
			more[i] += findings_dropped_like(f, key);
		}
	}
	for (int i = 0; i < f->n; i++) {
		const struct finding *x = &f->v[i];

		if ((x->kind == KMS_HELD_AT_END) != held || more[i] < 0 ||
		    !findings_shown(f, x->kind))
			continue;
		finding(out, rc, x);
		if (more[i])
			fprintf(out,
				"repeated: %lld more time%s with the same kind, map site and unmap site (the first is shown)\n",
				more[i], more[i] == 1 ? "" : "s");
	}
	/* the findings not kept of no group shown */
	for (int k = 0; k < f->ngroups && !held; k++)
		if (findings_shown(f, (int)(f->groups[k].key >> 58)) &&
		    htab_get(&first, f->groups[k].key) < 0)
			hidden += f->groups[k].n;
	if (hidden)
		fprintf(out,
			"\n... and %lld more finding%s not shown (--max-violations)\n",
			hidden, hidden == 1 ? "" : "s");
	htab_free(&first);
	free(more);
}

static void gaps(FILE *out, struct report_ctx *rc)
{
	struct findings *f = rc->f;

	if (!f->total_gaps)
		return;
	fprintf(out, "\nLost events (the ring buffer overflowed):\n");
	for (int i = 0; i < f->ngaps; i++) {
		const struct gap *g = &f->gaps[i];

		fprintf(out, "  CPU %d before ", g->cpu);
		ts(out, g->ts);
		if (g->missed >= 0)
			fprintf(out, ": %lld events lost", g->missed);
		else
			fprintf(out, ": events lost");
		fprintf(out, "; CPU stacks and %d task%s resynchronised",
			g->resynced_tasks, g->resynced_tasks == 1 ? "" : "s");
		if (rc->ninputs > 1)
			fprintf(out, " (%s)", rc->inputs[g->file].path);
		fprintf(out, "\n");
	}
	if (f->total_gaps > f->ngaps)
		fprintf(out, "  ... %lld more gaps\n",
			f->total_gaps - f->ngaps);
	fprintf(out, "  %lld finding%s suppressed on unsynchronised stacks\n",
		f->suppressed, f->suppressed == 1 ? "" : "s");
}

static void cross(FILE *out, struct report_ctx *rc)
{
	struct findings *f = rc->f;
	long long dis = f->kernel_only + f->replay_only + f->kind_differs;

	fprintf(out,
		"\nCross-check with the kernel's kmap_violation events (%lld seen):\n"
		"  agreed: %lld, kernel only: %lld, replay only: %lld, different kind: %lld; explained by the kernel's overflow: %lld\n",
		f->kernel_events, f->agreed, f->kernel_only, f->replay_only,
		f->kind_differs, f->overflow_explained);
	if (f->depth_mismatches)
		fprintf(out,
			"  %lld events had a depth field that disagreed with the replay (stacks resynchronised)\n",
			f->depth_mismatches);
	if (dis)
		fprintf(out,
			"  the replay and the kernel DISAGREE on %lld violation%s (see the notes above)\n",
			dis, dis == 1 ? "" : "s");
}

static void hold_cell(FILE *out, const struct hist *h)
{
	if (!h->count) {
		fprintf(out, "%10s %10s %10s %10s", "-", "-", "-", "-");
		return;
	}
	fprintf(out, "%10llu %10llu %10llu %10llu", (unsigned long long)h->min,
		(unsigned long long)hist_quantile(h, 0.5),
		(unsigned long long)hist_quantile(h, 0.99),
		(unsigned long long)h->max);
}

static void statistics(FILE *out, struct report_ctx *rc)
{
	struct stats *st = rc->st;
	const struct hold_rec *lh;
	const char *unit = report_time_unit(rc);
	int n, *order = stats_sorted_sites(st, &n), w, wm, wu;

	w = width("site", order, n, sizeof(int));
	fprintf(out,
		"\nCall sites (%d), by number of maps; hold times in %s:\n", n,
		unit);
	fprintf(out, "  %-*s %9s %9s %5s %10s %10s %10s %10s\n", w, "site",
		"maps", "atomic", "depth", "min", "median", "p99", "max");
	for (int i = 0; i < n; i++) {
		const struct site_stats *s = &st->sites[order[i]];

		fprintf(out, "  %-*s %9lld %9lld %5d ", w, sites_name(order[i]),
			s->maps, s->atomic, s->max_depth);
		hold_cell(out, &s->hold);
		fprintf(out, "\n");
	}
	free(order);
	fprintf(out, "  %-*s %9lld %9s %5s ", w, "all", st->pushes, "", "");
	hold_cell(out, &st->holds);
	fprintf(out, "\n");

	lh = stats_longest(st, &n);
	wm = n ? width("", &lh[0].map_site, n, sizeof(lh[0])) : 0;
	wu = n ? width("", &lh[0].unmap_site, n, sizeof(lh[0])) : 0;
	if (rc->o->have_threshold)
		fprintf(out, "\nHolds of %llu %s or more: %lld",
			rc->o->hold_threshold, unit, st->over_threshold);
	else
		fprintf(out, "\nLongest holds");
	fprintf(out, " (%d shown):\n", n);
	for (int i = 0; i < n; i++) {
		fprintf(out, "  %12llu %s  %-*s -> %-*s %s/%d CPU %d %s at ",
			(unsigned long long)lh[i].ns, unit, wm,
			sites_name(lh[i].map_site), wu,
			sites_name(lh[i].unmap_site),
			lh[i].comm[0] ? lh[i].comm : "<...>", lh[i].pid,
			lh[i].cpu, kms_ctx_name(lh[i].ctx));
		ts(out, lh[i].ts);
		fprintf(out, "\n");
	}

	fprintf(out,
		"\nDepth histogram per CPU (maps by depth after the map):\n");
	for (int c = 0; c < st->ncpus; c++) {
		const struct cpu_stats *cs = &st->cpus[c];

		if (!cs->pushes)
			continue;
		fprintf(out, "  CPU %d:", c);
		for (int d = 1; d < cs->ndepth; d++)
			if (cs->depth[d])
				fprintf(out, " %d:%lld", d, cs->depth[d]);
		fprintf(out, "  (deepest nesting of all contexts: %d)\n",
			cs->max_total);
	}
}

static void summary(FILE *out, struct report_ctx *rc)
{
	struct findings *f = rc->f;
	long long v = findings_violations(f, rc->o->strict);
	long long held = findings_held(f), read = 0;
	long long dis = f->kernel_only + f->replay_only + f->kind_differs;
	int kinds = 0;

	fprintf(out, "\nkmapstack: %s", v ? "" : "no violations");
	if (v) {
		fprintf(out, "%lld violation%s (", v, v == 1 ? "" : "s");
		for (int k = 1; k < KMS_KIND_NR; k++)
			if (f->total[k] && findings_shown(f, k) &&
			    (k != KMS_HELD_AT_END || rc->o->strict))
				fprintf(out, "%s%lld %s", kinds++ ? ", " : "",
					f->total[k], kms_kind_name(k));
		fprintf(out, ")");
	}
	fprintf(out, " in %lld events", rc->st->events);
	for (int i = 0; i < rc->ninputs; i++)
		read += rc->inputs[i].records;
	/* the header counts the events read, this those analysed */
	if (rc->filtered)
		fprintf(out, " (%lld read, %lld filtered out)", read,
			read - rc->st->events);
	if (rc->ninputs > 1)
		fprintf(out, " from %d inputs", rc->ninputs);
	if (held && !rc->o->strict)
		fprintf(out, "; %lld held at end of trace", held);
	if (f->total_gaps) {
		fprintf(out, "; %lld gap%s", f->total_gaps,
			f->total_gaps == 1 ? "" : "s");
		if (f->lost_events)
			fprintf(out, ", %lld events lost", f->lost_events);
	}
	if (dis)
		fprintf(out, "; %lld disagreement%s with the kernel", dis,
			dis == 1 ? "" : "s");
	if (f->overflow_explained)
		fprintf(out, "; %lld explained by the kernel's stack overflow",
			f->overflow_explained);
	fprintf(out, "\n");
}

void report_text(FILE *out, struct report_ctx *rc)
{
	long long v = findings_violations(rc->f, rc->o->strict);

	ts_raw = strcmp(report_time_unit(rc), "ns") != 0;
	if (rc->mode == MODE_CHECK) {
		if (!v)
			return;
		violations(out, rc, 0);
		if (rc->o->strict)
			violations(out, rc, 1);
		summary(out, rc);
		return;
	}
	if (rc->mode == MODE_REPORT) {
		long long bad = 0;

		fprintf(out, "kmapstack %s:", KMS_VERSION);
		for (int i = 0; i < rc->ninputs; i++) {
			fprintf(out, " %s (%lld events%s)", rc->inputs[i].path,
				rc->inputs[i].records,
				rc->inputs[i].error[0] ?
					", not read to its end" :
					"");
			bad += rc->inputs[i].bad_records;
		}
		fprintf(out, "\n");
		if (bad)
			fprintf(out, "%lld malformed records skipped\n", bad);
		violations(out, rc, 0);
		violations(out, rc, 1);
		cross(out, rc);
		gaps(out, rc);
	}
	statistics(out, rc);
	summary(out, rc);
}
