// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack: analyzer of the kmap_stack trace events: kmapstack record
 * (record.c), or the inputs of report, check, stats or live (options.c)
 * replayed into one report; the exit status is 0 clean, 1 violations
 * found, 2 usage or input error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "xalloc.h"
#include "findings.h"
#include "ksyms.h"
#include "input.h"
#include "options.h"
#include "record.h"
#include "replay.h"
#include "report.h"
#include "stats.h"

/* KMAPSTACK_MEMSTAT=1: the CPU time and the memory used, for the bench */
static void memstat(void)
{
	FILE *fp;
	char line[256];
	struct rusage self, kids;

	if (!getenv("KMAPSTACK_MEMSTAT"))
		return;
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	fprintf(stderr,
		"kmapstack: CPU: %.3f s, its trace.dat readers: %.3f s\n",
		self.ru_utime.tv_sec + self.ru_utime.tv_usec / 1e6 +
			self.ru_stime.tv_sec + self.ru_stime.tv_usec / 1e6,
		kids.ru_utime.tv_sec + kids.ru_utime.tv_usec / 1e6 +
			kids.ru_stime.tv_sec + kids.ru_stime.tv_usec / 1e6);
	fp = fopen("/proc/self/status", "r");
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp))
		if (!strncmp(line, "VmHWM:", 6) ||
		    !strncmp(line, "RssAnon:", 8) ||
		    !strncmp(line, "RssFile:", 8))
			fprintf(stderr, "kmapstack: %s", line);
	fclose(fp);
}

/* lost events, mappings held at the end: a warning (--fail-on-gaps: 1) */
static int gaps_warning(const struct findings *f, int fail)
{
	long long held = findings_held(f), n = f->held_mappings;

	if (!f->total_gaps && !held)
		return 0;
	fprintf(stderr, "kmapstack: %s: the trace is incomplete:",
		fail ? "error" : "warning");
	if (f->total_gaps)
		fprintf(stderr, " events lost %lld time%s (%lld event%s%s)",
			f->total_gaps, f->total_gaps == 1 ? "" : "s",
			f->lost_events, f->lost_events == 1 ? "" : "s",
			f->lost_unknown ? " and more" : "");
	if (f->total_gaps && held)
		fputc(';', stderr);
	if (held)
		fprintf(stderr,
			" %lld mapping%s still held at the end (on %lld stack%s)",
			n, n == 1 ? "" : "s", held, held == 1 ? "" : "s");
	fprintf(stderr, "%s\n",
		fail ? "" : "; --fail-on-gaps makes this an error");
	return fail;
}

static int run_input(const char *path, int progress, struct replay *r,
		     struct input_info *info, char *err, size_t errlen)
{
	struct input_src src;
	int ret;

	info->path = strcmp(path, "-") ? path : "<stdin>";
	info->progress = progress;
	if (input_open(path, info, &src, err, errlen))
		ret = -1;
	else if (src.kind == INPUT_TRACEDAT)
		ret = input_tracedat(&src, r, info, err, errlen);
	else if (src.kind == INPUT_PERF)
		ret = input_perf(&src, r, info, err, errlen);
	else
		ret = input_text(&src, r, info, err, errlen);
	input_close(&src);
	return ret;
}

int main(int argc, char **argv)
{
	struct stats st;
	struct findings f;
	struct input_info *inputs;
	struct report_ctx rc;
	int ninputs, ret, status, failed = 0;
	char err[1024];
	FILE *out = stdout;
	struct cmdline *cmd;

	ret = kms_record_main(argc, argv);
	if (ret >= 0)
		return ret;
	/* (what cmd holds is freed at the end of a run, else at exit) */
	ret = cmdline_parse(argc, argv, &cmd);
	if (ret)
		return ret < 0 ? 0 : ret;
	if (cmd->kallsyms && ksyms_load(cmd->kallsyms, err, sizeof(err))) {
		fprintf(stderr, "kmapstack: --kallsyms: %s\n", err);
		return EXIT_USAGE;
	}
	ninputs = cmd->live ? 1 : cmd->nfiles;
	inputs = xcalloc((size_t)ninputs, sizeof(*inputs));
	stats_init(&st, cmd->o.top,
		   cmd->o.have_threshold ? cmd->o.hold_threshold : 0);
	st.paths = cmd->folded;
	findings_init(&f, cmd->o.max_findings);
	f.kinds = cmd->kinds;
	for (int i = 0; i < ninputs; i++) {
		struct replay *r = replay_new(&st, &f, i, &cmd->filter);
		char *why =
			inputs[i].error; /* why it was not read to its end */
		size_t len = sizeof(inputs[i].error);

		if (cmd->live) {
			cmd->lo.findings = &f;
			ret = input_live(&cmd->lo, r, &inputs[i], why, len);
		} else
			ret = run_input(cmd->files[i], cmd->o.progress, r,
					&inputs[i], why, len);
		/* the other inputs are read and reported all the same */
		if (ret) {
			fprintf(stderr, "kmapstack: %s\n", why);
			failed++;
		} else {
			replay_finish(r);
		}
		replay_free(r);
	}
	/* nothing was read: no report */
	if (failed == ninputs) {
		status = EXIT_USAGE;
		goto out;
	}
	if (cmd->output) {
		out = fopen(cmd->output, "w");
		if (!out) {
			fprintf(stderr, "kmapstack: %s: cannot write\n",
				cmd->output);
			status = EXIT_USAGE;
			goto out;
		}
	}
	findings_end(&f);
	rc = (struct report_ctx){ .o = &cmd->o,
				  .st = &st,
				  .f = &f,
				  .inputs = inputs,
				  .ninputs = ninputs,
				  .mode = cmd->mode,
				  .filtered = cmd->filter.active };
	if (cmd->json)
		report_json(out, &rc);
	else if (cmd->svg)
		report_svg(out, &rc);
	else if (cmd->folded)
		report_folded(out, &rc);
	else
		report_text(out, &rc);
	status = findings_violations(&f, cmd->o.strict) ? EXIT_VIOLATIONS : 0;
	if (cmd->filter.active && !st.events)
		fprintf(stderr,
			"kmapstack: warning: no event passed the filters (--pid, --comm, --cpu, --since, --until)\n");
	if (gaps_warning(&f, cmd->fail_on_gaps))
		status = EXIT_VIOLATIONS;
	if (fflush(out) || (out != stdout && fclose(out))) {
		fprintf(stderr, "kmapstack: write error\n");
		status = EXIT_USAGE;
	}
	if (failed)
		status = EXIT_USAGE;
out:
	memstat();
	findings_free(&f);
	stats_free(&st);
	free(inputs);
	ksyms_free();
	cmdline_free();
	return status;
}
