// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack: analyzer of the kmap_stack trace events.
 *
 *   kmapstack report|check|stats [options] FILE...
 *   kmapstack live [--duration S] [options]
 *   kmapstack record [trace-cmd record options] -- CMD (record.c)
 *
 * Exit status: 0 clean, 1 violations found, 2 usage or input error.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xalloc.h"
#include "filter.h"
#include "findings.h"
#include "ksyms.h"
#include "input.h"
#include "options.h"
#include "record.h"
#include "replay.h"
#include "report.h"
#include "stats.h"
#include "usage.h"

#define EXIT_VIOLATIONS 1
#define EXIT_USAGE 2

struct cmd {
	unsigned int kinds; /* --kind: a bit per kind */
	int mode;
	int help; /* -h: the help of the command, then exit 0 */
	int top_set; /* --top given: --hold-threshold leaves it */
	int fail_on_gaps;
	int live;
	int json, folded, svg;
	const char *output, *kallsyms;
	char **rest; /* the words after the command, options and files */
	int nrest;
	char **files;
	int nfiles;
	struct live_opts lo;
	struct kms_opts o;
	struct kms_filter filter;
};

/* the command line: a flag option sets its field itself */
static struct cmd cmd;

enum {
	OPT_THRESHOLD = 256,
	OPT_TOP,
	OPT_MAXV,
	OPT_DURATION,
	OPT_TRACEFS,
	OPT_PID,
	OPT_COMM,
	OPT_CPU,
	OPT_SINCE,
	OPT_UNTIL,
	OPT_KALLSYMS,
	OPT_BUFSIZE,
	OPT_KIND,
};

static const struct option long_opts[] = {
	{ "json", no_argument, &cmd.json, 1 },
	{ "folded", no_argument, &cmd.folded, 1 },
	{ "svg", no_argument, &cmd.svg, 1 },
	{ "output", required_argument, NULL, 'o' },
	{ "hold-threshold", required_argument, NULL, OPT_THRESHOLD },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "max-violations", required_argument, NULL, OPT_MAXV },
	{ "strict", no_argument, &cmd.o.strict, 1 },
	{ "no-progress", no_argument, &cmd.o.progress, 0 },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "tracefs", required_argument, NULL, OPT_TRACEFS },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "fail-on-gaps", no_argument, &cmd.fail_on_gaps, 1 },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "since", required_argument, NULL, OPT_SINCE },
	{ "until", required_argument, NULL, OPT_UNTIL },
	{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
	{ "buffer-size", required_argument, NULL, OPT_BUFSIZE },
	{ "kind", required_argument, NULL, OPT_KIND },
	{ NULL, 0, NULL, 0 },
};

static int usage_error(const char *msg, const char *arg)
{
	if (arg)
		fprintf(stderr, "kmapstack: %s: %s\n", msg, arg);
	else
		fprintf(stderr, "kmapstack: %s\n", msg);
	fprintf(stderr, "Try 'kmapstack --help'.\n");
	return EXIT_USAGE;
}

/* a count from 0 to max */
static int parse_count(const char *s, long long max, int *v)
{
	char *end;
	long long x = strtoll(s, &end, 10);

	if (!*s || *end || x < 0 || x > max)
		return -1;
	*v = (int)x;
	return 0;
}

/* --kind mismatch,unknown: a bit per kind, added to *kinds */
static int parse_kinds(const char *s, unsigned int *kinds)
{
	char name[64];

	while (*s) {
		size_t n = strcspn(s, ",");
		int k;

		snprintf(name, sizeof(name), "%.*s", (int)n, s);
		k = n < sizeof(name) ? kms_kind_from_name(name) : 0;
		if (!k)
			return -1;
		*kinds |= 1u << k;
		s += n;
		if (*s && !*++s)
			return -1;
	}
	return 0;
}

static int kinds_error(const char *arg)
{
	char msg[512] = "bad --kind (kinds: ";
	size_t n = strlen(msg);

	for (int k = 1; k < KMS_KIND_NR; k++)
		n += (size_t)snprintf(msg + n, sizeof(msg) - n, "%s%s",
				      kms_kind_name(k),
				      k + 1 < KMS_KIND_NR ? "," : ")");
	return usage_error(msg, arg);
}

/* the options from optind on; GNU getopt moves the other words after them */
static int parse_opts(int argc, char **argv)
{
	const char *bad = NULL; /* the message of a bad value */
	int c;

	while (!bad &&
	       (c = getopt_long(argc, argv, "o:hV", long_opts, NULL)) != -1) {
		switch (c) {
		case 0: /* a flag */
			break;
		case 'o':
			cmd.output = optarg;
			break;
		case OPT_THRESHOLD:
			if (kms_parse_time(optarg, &cmd.o.hold_threshold))
				bad = "bad --hold-threshold (a duration: 1ms, 250us)";
			cmd.o.have_threshold = 1;
			if (!cmd.top_set)
				cmd.o.top = 100;
			break;
		case OPT_TOP:
			if (parse_count(optarg, 1000000, &cmd.o.top))
				bad = "bad --top";
			cmd.top_set = 1;
			break;
		case OPT_MAXV:
			if (parse_count(optarg, 100000000, &cmd.o.max_findings))
				bad = "bad --max-violations";
			break;
		case OPT_DURATION:
			if (kms_parse_time(optarg, &cmd.lo.duration) ||
			    !cmd.lo.duration ||
			    cmd.lo.duration > 10000000 * 1000000000ULL)
				bad = "bad --duration (a duration: 10, 10s, 500ms)";
			break;
		case OPT_TRACEFS:
			cmd.lo.tracefs = optarg;
			break;
		case OPT_BUFSIZE:
			if (parse_count(optarg, 1 << 30, &cmd.lo.buffer_kb) ||
			    !cmd.lo.buffer_kb)
				bad = "bad --buffer-size (KB per CPU)";
			break;
		case OPT_PID:
			if (filter_add_pids(&cmd.filter, optarg))
				bad = "bad --pid (pids: 12,34)";
			break;
		case OPT_COMM:
			if (filter_add_comms(&cmd.filter, optarg))
				bad = "bad --comm (names: bash,dd)";
			break;
		case OPT_CPU:
			if (filter_add_cpus(&cmd.filter, optarg))
				bad = "bad --cpu (CPUs: 0,2-3)";
			break;
		case OPT_SINCE:
			if (kms_parse_time(optarg, &cmd.filter.since))
				bad = "bad --since (a time: 12.5, 12500ms)";
			cmd.filter.have_since = cmd.filter.active = 1;
			break;
		case OPT_UNTIL:
			if (kms_parse_time(optarg, &cmd.filter.until))
				bad = "bad --until (a time: 12.5, 12500ms)";
			cmd.filter.have_until = cmd.filter.active = 1;
			break;
		case OPT_KIND:
			if (parse_kinds(optarg, &cmd.kinds))
				return kinds_error(optarg);
			break;
		case OPT_KALLSYMS:
			cmd.kallsyms = optarg;
			break;
		case 'h':
			cmd.help = 1;
			break;
		case 'V':
			printf("kmapstack %s\n", KMS_VERSION);
			exit(0);
		default:
			/* getopt said why on stderr */
			fprintf(stderr, "Try 'kmapstack --help'.\n");
			return EXIT_USAGE;
		}
	}
	return bad ? usage_error(bad, optarg) : 0;
}

/* -o names one of the inputs: refused before anything is read */
static int output_is_input(void)
{
	struct stat o, in;

	if (!cmd.output || stat(cmd.output, &o))
		return 0;
	for (int i = 0; i < cmd.nfiles; i++) {
		if (strcmp(cmd.files[i], "-") ? stat(cmd.files[i], &in) :
						fstat(STDIN_FILENO, &in))
			continue;
		if (in.st_dev == o.st_dev && in.st_ino == o.st_ino) {
			fprintf(stderr,
				"kmapstack: -o %s: is an input, not written over\n",
				cmd.output);
			return 1;
		}
	}
	return 0;
}

static int parse_args(int argc, char **argv)
{
	char *argv0 = argv[0];
	const char *sub = NULL;
	int ret;

	memset(&cmd, 0, sizeof(cmd));
	kms_opts_default(&cmd.o);
	/* getopt's messages start with argv[0] */
	argv[0] = "kmapstack";
	optind = 1;
	opterr = 1;
	ret = parse_opts(argc, argv);
	if (!ret && optind < argc) {
		/*
		 * What follows the command, again (POSIXLY_CORRECT stops
		 * getopt there); optind 0 starts getopt afresh at [1]
		 */
		sub = argv[optind];
		cmd.rest = xcalloc((size_t)(argc - optind + 1), sizeof(char *));
		cmd.rest[0] = argv[0];
		for (int i = optind + 1; i < argc; i++)
			cmd.rest[i - optind] = argv[i];
		cmd.nrest = argc - optind;
		/* after '--' (GNU getopt puts it before the command) files */
		if (optind > 1 && !strcmp(argv[optind - 1], "--")) {
			optind = 1;
		} else {
			optind = 0;
			ret = parse_opts(cmd.nrest, cmd.rest);
		}
		cmd.files = cmd.rest + optind;
		cmd.nfiles = cmd.nrest - optind;
	}
	argv[0] = argv0;
	if (ret)
		return ret;
	/* kmapstack help [COMMAND], kmapstack [COMMAND] --help */
	if (sub && !strcmp(sub, "help")) {
		cmd.help = 1;
		sub = cmd.nfiles ? cmd.files[0] : NULL;
	}
	if (cmd.help) {
		if (sub && usage_command(sub) < 0)
			return usage_error("unknown command", sub);
		/* record's own help: kmapstack record --help */
		if (sub && !strcmp(sub, "record")) {
			char *argv_help[] = { "kmapstack", "record", "--help" };

			return kms_record_main(3, argv_help) ? EXIT_USAGE : -1;
		}
		usage_print(stdout, sub ? usage_command(sub) : -1);
		return -1;
	}
	if (!sub)
		return usage_error("no command", NULL);
	if (!strcmp(sub, "report"))
		cmd.mode = MODE_REPORT;
	else if (!strcmp(sub, "check"))
		cmd.mode = MODE_CHECK;
	else if (!strcmp(sub, "stats"))
		cmd.mode = MODE_STATS;
	else if (!strcmp(sub, "live"))
		cmd.mode = MODE_REPORT, cmd.live = 1;
	else if (!strcmp(sub, "record"))
		return usage_error(
			"the options before 'record' are one word each (--kallsyms=FILE)",
			NULL);
	else
		return usage_error("unknown command", sub);
	if (cmd.json + cmd.folded + cmd.svg > 1)
		return usage_error(
			"--json, --folded and --svg exclude each other", NULL);
	if (cmd.filter.have_since && cmd.filter.have_until &&
	    cmd.filter.since > cmd.filter.until)
		return usage_error("--since is after --until", NULL);
	if (cmd.live && cmd.nfiles)
		return usage_error("live takes no file", cmd.files[0]);
	if (!cmd.live && !cmd.nfiles)
		return usage_error("no input file", NULL);
	if (output_is_input())
		return EXIT_USAGE;
	if (!cmd.live &&
	    (cmd.lo.duration || cmd.lo.tracefs || cmd.lo.buffer_kb))
		return usage_error(
			"--duration, --buffer-size and --tracefs are for live",
			NULL);
	cmd.o.paths = cmd.folded;
	return 0;
}

/*
 * KMAPSTACK_MEMSTAT=1: the CPU time taken and the memory in use at the end,
 * for the benchmark
 */
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

/*
 * An incomplete trace does not pass silently: lost events and mappings
 * still held at the end are a warning; with --fail-on-gaps, exit 1.
 */
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

static int run_input(const char *path, struct replay *r,
		     struct input_info *info, char *err, size_t errlen)
{
	struct input_src src;
	int ret;

	info->path = strcmp(path, "-") ? path : "<stdin>";
	info->progress = cmd.o.progress;
	if (input_open(path, info, &src, err, errlen))
		return -1;
	switch (src.kind) {
	case INPUT_TRACEDAT:
		ret = input_tracedat(&src, r, info, err, errlen);
		break;
	case INPUT_PERF:
		ret = input_perf(&src, r, info, err, errlen);
		break;
	default:
		ret = input_text(&src, r, info, err, errlen);
		break;
	}
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

	ret = kms_record_main(argc, argv);
	if (ret >= 0)
		return ret;
	/* (what cmd holds is freed at the end of a run, else at exit) */
	ret = parse_args(argc, argv);
	if (ret)
		return ret < 0 ? 0 : ret;
	if (cmd.kallsyms && ksyms_load(cmd.kallsyms, err, sizeof(err))) {
		fprintf(stderr, "kmapstack: --kallsyms: %s\n", err);
		return EXIT_USAGE;
	}
	ninputs = cmd.live ? 1 : cmd.nfiles;
	inputs = xcalloc((size_t)ninputs, sizeof(*inputs));
	stats_init(&st, cmd.o.top,
		   cmd.o.have_threshold ? cmd.o.hold_threshold : 0);
	st.paths = cmd.o.paths;
	findings_init(&f, cmd.o.max_findings);
	f.kinds = cmd.kinds;
	for (int i = 0; i < ninputs; i++) {
		struct replay *r = replay_new(&st, &f, i, &cmd.filter);

		if (cmd.live) {
			/* violations as they come: on stdout unless it
			 * carries JSON, folded stacks, SVG or nothing */
			cmd.lo.findings = &f;
			cmd.lo.stream = cmd.json || cmd.folded || cmd.svg ||
							cmd.output ?
						stderr :
						stdout;
			ret = input_live(&cmd.lo, r, &inputs[i], err,
					 sizeof(err));
		} else
			ret = run_input(cmd.files[i], r, &inputs[i], err,
					sizeof(err));
		/* the other inputs are read and reported all the same */
		if (ret) {
			fprintf(stderr, "kmapstack: %s\n", err);
			snprintf(inputs[i].error, sizeof(inputs[i].error), "%s",
				 err);
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
	if (cmd.output) {
		out = fopen(cmd.output, "w");
		if (!out) {
			fprintf(stderr, "kmapstack: %s: cannot write\n",
				cmd.output);
			status = EXIT_USAGE;
			goto out;
		}
	}
	findings_end(&f);
	rc = (struct report_ctx){ .o = &cmd.o,
				  .st = &st,
				  .f = &f,
				  .inputs = inputs,
				  .ninputs = ninputs,
				  .mode = cmd.mode,
				  .filtered = cmd.filter.active };
	if (cmd.json)
		report_json(out, &rc);
	else if (cmd.svg)
		report_svg(out, &rc);
	else if (cmd.folded)
		report_folded(out, &rc);
	else
		report_text(out, &rc);
	status = findings_violations(&f, cmd.o.strict) ? EXIT_VIOLATIONS : 0;
	if (cmd.filter.active && !st.events)
		fprintf(stderr,
			"kmapstack: warning: no event passed the filters (--pid, --comm, --cpu, --since, --until)\n");
	if (gaps_warning(&f, cmd.fail_on_gaps))
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
	filter_free(&cmd.filter);
	ksyms_free();
	free(cmd.rest);
	return status;
}
