// SPDX-License-Identifier: GPL-2.0
/* kmapstack: the JSON output (schema: docs/kmapstack-json.md) */
#include <stdlib.h>

#include "report.h"
#include "sites.h"

#define SCHEMA "kmapstack/1"

/* the length of the valid UTF-8 sequence at s, 0 if it is not one */
static int utf8_len(const unsigned char *s)
{
	int n;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* no overlong forms, no surrogates, nothing past U+10FFFF */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

/*
 * A JSON string, null for NULL. Task names and symbols are bytes: a byte
 * that is not part of valid UTF-8 is written as the code point of the same
 * value (\u00XX, as Latin-1 reads it), so the output is always valid UTF-8.
 */
static void jstr(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	while (*s) {
		unsigned char c = *s;
		int n = utf8_len(s);

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < 0x20 || c == 0x7f || !n)
			fprintf(out, "\\u%04x", c);
		else
			fwrite(s, 1, (size_t)n, out);
		s += n ? n : 1;
	}
	fputc('"', out);
}

static void jsite(FILE *out, int site)
{
	jstr(out, site < 0 ? NULL : sites_name(site));
}

static void jfinding(FILE *out, const struct finding *x, int strict)
{
	fprintf(out,
		"{\"kind\": \"%s\", \"violation\": %s, \"source\": \"%s\", \"kernel_kind\": ",
		kms_kind_name(x->kind),
		x->kind != KMS_HELD_AT_END || strict ? "true" : "false",
		x->source == FS_REPLAY ? "replay" :
		x->source == FS_KERNEL ? "kernel" :
					 "both");
	jstr(out, x->kernel_kind ? kms_kind_name(x->kernel_kind) : NULL);
	fprintf(out,
		", \"file\": %d, \"ts\": %llu, \"cpu\": %d, \"pid\": %d, \"comm\": ",
		x->file, x->ts, x->cpu, x->pid);
	jstr(out, x->comm);
	fprintf(out,
		", \"ctx\": \"%s\", \"stack_ctx\": \"%s\", \"addr\": \"0x%llx\", \"caller\": ",
		kms_ctx_name(x->ctx), kms_ctx_name(x->stack_ctx), x->addr);
	jsite(out, x->caller);
	fprintf(out, ", \"map_caller\": ");
	jsite(out, x->map_caller);
	fprintf(out, ", \"top_caller\": ");
	jsite(out, x->top_caller);
	fprintf(out,
		", \"depth\": %d, \"entries\": %d, \"uncertain\": %s, \"note\": ",
		x->depth, x->nleaked, x->uncertain ? "true" : "false");
	jstr(out, x->note);
	fprintf(out, ", \"stack\": [");
	for (int i = 0; i < x->nframes; i++) {
		const struct frame *fr = &x->frames[i];

		fprintf(out, "%s{\"site\": ", i ? ", " : "");
		jsite(out, fr->placeholder ? -1 : fr->site);
		fprintf(out,
			", \"addr\": \"0x%llx\", \"ctx\": \"%s\", \"mapped_ts\": %llu, \"atomic\": %s, \"lost\": %s, \"this\": %s}",
			fr->addr, kms_ctx_name(fr->ctx), fr->ts,
			fr->flags & KMS_F_ATOMIC ? "true" : "false",
			fr->placeholder ? "true" : "false",
			fr->marked ? "true" : "false");
	}
	fprintf(out, "]}");
}

/* the findings shown, held at the end or not */
static void jfindings(FILE *out, const struct findings *f, int held, int strict)
{
	int shown = 0;

	for (int i = 0; i < f->n; i++) {
		if ((f->v[i].kind == KMS_HELD_AT_END) != held ||
		    !findings_shown(f, f->v[i].kind))
			continue;
		fprintf(out, "%s\n  ", shown++ ? "," : "");
		jfinding(out, &f->v[i], strict);
	}
}

static void jhist(FILE *out, const struct hist *h)
{
	if (!h->count) {
		fputs("null", out);
		return;
	}
	fprintf(out,
		"{\"count\": %llu, \"min\": %llu, \"median\": %llu, "
		"\"p99\": %llu, \"max\": %llu, \"mean\": %llu}",
		(unsigned long long)h->count, (unsigned long long)h->min,
		(unsigned long long)hist_quantile(h, 0.5),
		(unsigned long long)hist_quantile(h, 0.99),
		(unsigned long long)h->max,
		(unsigned long long)(h->sum / h->count));
}

void report_json(FILE *out, struct report_ctx *rc)
{
	struct findings *f = rc->f;
	struct stats *st = rc->st;
	const struct hold_rec *lh;
	int n, *order, items; /* items: of the list being written */
	long long v = findings_violations(f, rc->o->strict);

	fprintf(out,
		"{\n\"schema\": \"%s\",\n\"version\": \"%s\",\n\"inputs\": [",
		SCHEMA, KMS_VERSION);
	for (int i = 0; i < rc->ninputs; i++) {
		const struct input_info *in = &rc->inputs[i];

		fprintf(out, "%s{\"path\": ", i ? ", " : "");
		jstr(out, in->path);
		fprintf(out,
			", \"format\": \"%s\", \"events\": %lld, \"malformed\": %lld, \"clock\": ",
			in->kind == INPUT_TRACEDAT ? "trace.dat" :
			in->kind == INPUT_TEXT	   ? "text" :
						     "live",
			in->records, in->bad_records);
		jstr(out, in->clock[0] ? in->clock : "local");
		fprintf(out, ", \"time_unit\": \"%s\", \"error\": ",
			input_time_unit(in));
		jstr(out, in->error[0] ? in->error : NULL);
		fputc('}', out);
	}
	fprintf(out,
		"],\n\"summary\": {\"clean\": %s, \"violations\": %lld, "
		"\"held_at_end\": %lld, \"events\": %lld, \"maps\": %lld, "
		"\"unmaps\": %lld, \"kernel_violation_events\": %lld, "
		"\"gaps\": %lld, \"lost_events\": %lld, \"gaps_of_unknown_size\": %lld, \"by_kind\": {",
		v ? "false" : "true", v, findings_held(f), st->events,
		st->pushes, st->pops, f->kernel_events, f->total_gaps,
		f->lost_events, f->lost_unknown);
	items = 0;
	for (int k = 1; k < KMS_KIND_NR; k++)
		if (f->total[k] && findings_shown(f, k))
			fprintf(out, "%s\"%s\": %lld", items++ ? ", " : "",
				kms_kind_name(k), f->total[k]);
	fprintf(out,
		"}, \"not_shown\": %lld},\n"
		"\"cross_check\": {\"agreed\": %lld, \"kernel_only\": %lld, "
		"\"replay_only\": %lld, \"kind_differs\": %lld, "
		"\"depth_mismatches\": %lld, \"suppressed\": %lld, "
		"\"overflow_explained\": %lld},\n\"violations\": [",
		f->dropped, f->agreed, f->kernel_only, f->replay_only,
		f->kind_differs, f->depth_mismatches, f->suppressed,
		f->overflow_explained);
	jfindings(out, f, 0, rc->o->strict);
	fprintf(out, "],\n\"held_at_end\": [");
	jfindings(out, f, 1, rc->o->strict);
	fprintf(out, "],\n\"gaps\": [");
	for (int i = 0; i < f->ngaps; i++) {
		const struct gap *g = &f->gaps[i];

		fprintf(out,
			"%s{\"file\": %d, \"cpu\": %d, \"ts\": %llu, \"missed\": ",
			i ? ", " : "", g->file, g->cpu, g->ts);
		fprintf(out, g->missed >= 0 ? "%lld" : "null", g->missed);
		fprintf(out, ", \"resynced_tasks\": %d}", g->resynced_tasks);
	}
	fprintf(out, "],\n\"sites\": [");
	order = stats_sorted_sites(st, &n);
	for (int i = 0; i < n; i++) {
		const struct site_stats *s = &st->sites[order[i]];

		fprintf(out, "%s\n  {\"site\": ", i ? "," : "");
		jstr(out, sites_name(order[i]));
		fprintf(out,
			", \"maps\": %lld, \"atomic\": %lld, \"max_depth\": %d, \"hold_ns\": ",
			s->maps, s->atomic, s->max_depth);
		jhist(out, &s->hold);
		fputc('}', out);
	}
	free(order);
	fprintf(out, "],\n\"holds\": ");
	jhist(out, &st->holds);
	fprintf(out, ",\n\"hold_histogram\": [");
	items = 0;
	for (int i = 0; st->holds.b && i < HIST_BUCKETS; i++)
		if (st->holds.b[i])
			fprintf(out,
				"%s{\"min_ns\": %llu, \"max_ns\": %llu, \"count\": %llu}",
				items++ ? ", " : "",
				(unsigned long long)hist_bucket_lo(i),
				(unsigned long long)hist_bucket_hi(i),
				(unsigned long long)st->holds.b[i]);
	fprintf(out,
		"],\n\"longest_holds\": {\"threshold_ns\": %llu, \"count\": %lld, \"shown\": [",
		rc->o->have_threshold ? rc->o->hold_threshold : 0ULL,
		st->over_threshold);
	lh = stats_longest(st, &n);
	for (int i = 0; i < n; i++) {
		fprintf(out,
			"%s\n  {\"ns\": %llu, \"map_caller\": ", i ? "," : "",
			(unsigned long long)lh[i].ns);
		jsite(out, lh[i].map_site);
		fprintf(out, ", \"unmap_caller\": ");
		jsite(out, lh[i].unmap_site);
		fprintf(out,
			", \"ts\": %llu, \"cpu\": %d, \"pid\": %d, \"comm\": ",
			lh[i].ts, lh[i].cpu, lh[i].pid);
		jstr(out, lh[i].comm);
		fprintf(out, ", \"ctx\": \"%s\", \"file\": %d}",
			kms_ctx_name(lh[i].ctx), lh[i].file);
	}
	fprintf(out, "]},\n\"cpus\": [");
	items = 0;
	for (int c = 0; c < st->ncpus; c++) {
		const struct cpu_stats *cs = &st->cpus[c];
		int depths = 0;

		if (!cs->pushes)
			continue;
		fprintf(out,
			"%s\n  {\"cpu\": %d, \"maps\": %lld, \"max_nesting\": %d, \"depth_histogram\": {",
			items++ ? "," : "", c, cs->pushes, cs->max_total);
		for (int d = 1; d < cs->ndepth; d++)
			if (cs->depth[d])
				fprintf(out, "%s\"%d\": %lld",
					depths++ ? ", " : "", d, cs->depth[d]);
		fprintf(out, "}}");
	}
	fprintf(out, "]\n}\n");
}
