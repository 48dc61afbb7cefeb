// SPDX-License-Identifier: GPL-2.0
/* kmapstack: the command line: each option once, with its commands and help */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "options.h"
#include "record.h"
#include "report.h"
#include "xalloc.h"

/* the commands, in the order of enum report_mode, then live and record */
static const struct {
	const char *name, *args, *what;
} cmds[] = {
	{ "report", "[options] FILE...",
	  "violations, the cross-check with the kernel, statistics" },
	{ "check", "[options] FILE...",
	  "the violations only; nothing and exit 0 when there are none" },
	{ "stats", "[options] FILE...", "statistics" },
	{ "live", "[options]", "trace this machine, report at the end" },
	{ "record", "[trace-cmd record options] -- CMD",
	  "record CMD's events with trace-cmd, then check them" },
};

enum { CMD_LIVE = 3, CMD_RECORD = 4, NCMDS = 5 };

/* the commands an option is for: a bit per command */
enum { R = 1, C = 2, S = 4, L = 8, ALL = R | C | S | L };

/* the command line: a flag option sets its field itself */
static struct cmdline cmd;
static int help; /* -h: the help of the command, then exit 0 */
static int top_set; /* --top given: --hold-threshold leaves it */
static char **rest; /* the words after the command, options and files */

/*
 * In the order of the help, its lines as printed (NULL: in the line
 * before). The letters of long-only options are no short options.
 */
static const struct {
	const char *name;
	int has_arg, *flag, val; /* as in struct option */
	int cmds;
	const char *help;
} opts[] = {
	{ "json", no_argument, &cmd.json, 1, ALL,
	  "  --json              JSON output (docs/kmapstack-json.md)" },
	{ "folded", no_argument, &cmd.folded, 1, ALL,
	  "  --folded            folded stacks for flame graphs: outer;inner count" },
	{ "svg", no_argument, &cmd.svg, 1, ALL,
	  "  --svg               SVG output: depth over time and hold times" },
	{ "output", required_argument, NULL, 'o', ALL,
	  "  -o, --output FILE   the output to FILE (never one of the inputs)" },
	{ "pid", required_argument, NULL, 'p', ALL,
	  "  --pid LIST          only the events of these tasks (1234,1235)" },
	{ "comm", required_argument, NULL, 'c', ALL,
	  "  --comm LIST         only the events of tasks of these names (bash,dd)" },
	{ "cpu", required_argument, NULL, 'C', ALL,
	  "  --cpu LIST          only the events of these CPUs (0,2-3)" },
	{ "since", required_argument, NULL, 's', ALL,
	  "  --since T, --until T  only the events from / up to trace time T\n"
	  "                      (12.5, 12500ms; a bare number is seconds)" },
	{ "until", required_argument, NULL, 'u', ALL, NULL },
	{ "kind", required_argument, NULL, 'K', R | C | L,
	  "  --kind LIST         only the violations of these kinds (mismatch,unknown)" },
	{ "kallsyms", required_argument, NULL, 'k', ALL,
	  "  --kallsyms FILE     a /proc/kallsyms saved after the recording: names\n"
	  "                      the functions of modules loaded during it" },
	{ "hold-threshold", required_argument, NULL, 'T', R | S | L,
	  "  --hold-threshold T  list the holds of T or more (1ms, 250us; a bare\n"
	  "                      number is seconds)" },
	{ "top", required_argument, NULL, 't', R | S | L,
	  "  --top N             longest holds to list (default 10)" },
	{ "max-violations", required_argument, NULL, 'm', R | C | L,
	  "  --max-violations N  violations to keep in detail (default 1000)" },
	{ "strict", no_argument, &cmd.o.strict, 1, R | C | L,
	  "  --strict            mappings held at the end of the trace are violations" },
	{ "fail-on-gaps", no_argument, &cmd.fail_on_gaps, 1, C,
	  "  --fail-on-gaps      lost events or mappings held at the end make the exit\n"
	  "                      status 1 (else a warning)" },
	{ "no-progress", no_argument, &cmd.o.progress, 0, R | C | S,
	  "  --no-progress       no progress line on stderr" },
	{ "duration", required_argument, NULL, 'd', L,
	  "  --duration T        stop after T (10, 10s, 500ms; default: at Ctrl-C\n"
	  "                      or SIGTERM)" },
	{ "buffer-size", required_argument, NULL, 'b', L,
	  "  --buffer-size KB    the ring buffer of each CPU (trace-cmd -b)" },
	{ "tracefs", required_argument, NULL, 'f', L,
	  "  --tracefs DIR       the tracefs mount point" },
	{ "help", no_argument, NULL, 'h', ALL,
	  "  -h, --help          this text" },
	{ "version", no_argument, NULL, 'V', ALL,
	  "  -V, --version       the version" },
};

#define NOPTS (sizeof(opts) / sizeof(opts[0]))

/* the command's index in cmds, or -1 */
static int command(const char *name)
{
	for (int i = 0; i < NCMDS; i++)
		if (!strcmp(name, cmds[i].name))
			return i;
	return -1;
}

/* the help of command c (-1: of kmapstack, all commands) */
static void usage(FILE *out, int c)
{
	for (int i = 0; i < NCMDS; i++)
		if (c < 0 || c == i)
			fprintf(out, "%s kmapstack %s %s\n%s%s\n",
				i && c < 0 ? "      " : "usage:", cmds[i].name,
				cmds[i].args, c < 0 ? "         " : "  ",
				cmds[i].what);
	fprintf(out,
		"Options go before or after the command; '--' ends them (record: 'kmapstack record --help').\n");
	if (c < CMD_LIVE)
		fprintf(out,
			"\nFILE is a trace.dat (trace-cmd record -e kmap_stack), a perf.data (perf\n"
			"record -e 'kmap_stack:*'; read through perf script --ns), or the text of\n"
			"trace-cmd report, perf script or /sys/kernel/tracing/trace ('-' reads\n"
			"standard input). Several files are analysed one after the other, each with\n"
			"its own stacks; the findings and statistics are added up.\n");
	fprintf(out, "\noptions:\n");
	for (size_t i = 0; i < NOPTS; i++)
		if (opts[i].help && (c < 0 || (opts[i].cmds & (1 << c))))
			fprintf(out, "%s\n", opts[i].help);
	fprintf(out,
		"\nexit status: 0 clean, 1 violations found, 2 usage or input error\n");
}

static int usage_error(const char *msg, const char *arg)
{
	fprintf(stderr, "kmapstack: %s%s%s\nTry 'kmapstack --help'.\n", msg,
		arg ? ": " : "", arg ? arg : "");
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
	fprintf(stderr, "kmapstack: bad --kind (kinds: ");
	for (int k = 1; k < KMS_KIND_NR; k++)
		fprintf(stderr, "%s%s", kms_kind_name(k),
			k + 1 < KMS_KIND_NR ? "," : ")");
	fprintf(stderr, ": %s\nTry 'kmapstack --help'.\n", arg);
	return EXIT_USAGE;
}

/* the options from optind on; GNU getopt moves the other words after them */
static int parse_opts(int argc, char **argv)
{
	static struct option long_opts[NOPTS + 1];
	const char *bad = NULL; /* the message of a bad value */
	int c;

	for (size_t i = 0; i < NOPTS; i++)
		long_opts[i] = (struct option){ opts[i].name, opts[i].has_arg,
						opts[i].flag, opts[i].val };
	while (!bad &&
	       (c = getopt_long(argc, argv, "o:hV", long_opts, NULL)) != -1) {
		switch (c) {
		case 0: /* a flag */
			break;
		case 'o':
			cmd.output = optarg;
			break;
		case 'T': /* --hold-threshold */
			if (kms_parse_time(optarg, &cmd.o.hold_threshold))
				bad = "bad --hold-threshold (a duration: 1ms, 250us)";
			cmd.o.have_threshold = 1;
			if (!top_set)
				cmd.o.top = 100;
			break;
		case 't': /* --top */
			if (parse_count(optarg, 1000000, &cmd.o.top))
				bad = "bad --top";
			top_set = 1;
			break;
		case 'm': /* --max-violations */
			if (parse_count(optarg, 100000000, &cmd.o.max_findings))
				bad = "bad --max-violations";
			break;
		case 'd': /* --duration */
			if (kms_parse_time(optarg, &cmd.lo.duration) ||
			    !cmd.lo.duration ||
			    cmd.lo.duration > 10000000 * 1000000000ULL)
				bad = "bad --duration (a duration: 10, 10s, 500ms)";
			break;
		case 'f': /* --tracefs */
			cmd.lo.tracefs = optarg;
			break;
		case 'b': /* --buffer-size */
			if (parse_count(optarg, 1 << 30, &cmd.lo.buffer_kb) ||
			    !cmd.lo.buffer_kb)
				bad = "bad --buffer-size (KB per CPU)";
			break;
		case 'p': /* --pid */
			if (filter_add_pids(&cmd.filter, optarg))
				bad = "bad --pid (pids: 12,34)";
			break;
		case 'c': /* --comm */
			if (filter_add_comms(&cmd.filter, optarg))
				bad = "bad --comm (names: bash,dd)";
			break;
		case 'C': /* --cpu */
			if (filter_add_cpus(&cmd.filter, optarg))
				bad = "bad --cpu (CPUs: 0,2-3)";
			break;
		case 's': /* --since */
			if (kms_parse_time(optarg, &cmd.filter.since))
				bad = "bad --since (a time: 12.5, 12500ms)";
			cmd.filter.have_since = cmd.filter.active = 1;
			break;
		case 'u': /* --until */
			if (kms_parse_time(optarg, &cmd.filter.until))
				bad = "bad --until (a time: 12.5, 12500ms)";
			cmd.filter.have_until = cmd.filter.active = 1;
			break;
		case 'K': /* --kind */
			if (parse_kinds(optarg, &cmd.kinds))
				return kinds_error(optarg);
			break;
		case 'k': /* --kallsyms */
			cmd.kallsyms = optarg;
			break;
		case 'h':
			help = 1;
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

int cmdline_parse(int argc, char **argv, struct cmdline **out)
{
	char *argv0 = argv[0];
	const char *sub = NULL;
	int ret, c;

	*out = &cmd;
	kms_opts_default(&cmd.o);
	/* getopt's messages start with argv[0] */
	argv[0] = "kmapstack";
	optind = 1;
	opterr = 1;
	ret = parse_opts(argc, argv);
	if (!ret && optind < argc) {
		int nrest = argc - optind;

		/*
		 * What follows the command, again (POSIXLY_CORRECT stops
		 * getopt there); optind 0 starts getopt afresh at [1]
		 */
		sub = argv[optind];
		rest = xcalloc((size_t)nrest + 1, sizeof(char *));
		memcpy(rest, argv + optind, sizeof(char *) * (size_t)nrest);
		rest[0] = argv[0];
		/* after '--' (GNU getopt puts it before the command) files */
		if (optind > 1 && !strcmp(argv[optind - 1], "--")) {
			optind = 1;
		} else {
			optind = 0;
			ret = parse_opts(nrest, rest);
		}
		cmd.files = rest + optind;
		cmd.nfiles = nrest - optind;
	}
	argv[0] = argv0;
	if (ret)
		return ret;
	/* kmapstack help [COMMAND], kmapstack [COMMAND] --help */
	if (sub && !strcmp(sub, "help")) {
		help = 1;
		sub = cmd.nfiles ? cmd.files[0] : NULL;
	}
	c = sub ? command(sub) : -1;
	if (sub && c < 0)
		return usage_error("unknown command", sub);
	if (help) {
		/* record's own help: kmapstack record --help */
		if (c == CMD_RECORD) {
			char *argv_help[] = { "kmapstack", "record", "--help" };

			return kms_record_main(3, argv_help) ? EXIT_USAGE : -1;
		}
		usage(stdout, c);
		return -1;
	}
	if (!sub)
		return usage_error("no command", NULL);
	if (c == CMD_RECORD)
		return usage_error(
			"the options before 'record' are one word each (--kallsyms=FILE)",
			NULL);
	cmd.live = c == CMD_LIVE;
	cmd.mode = cmd.live ? MODE_REPORT : c;
	/* live: violations as they come, on stdout if the text report is there */
	cmd.lo.stream = cmd.json || cmd.folded || cmd.svg || cmd.output ?
				stderr :
				stdout;
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
	return 0;
}

void cmdline_free(void)
{
	filter_free(&cmd.filter);
	free(rest);
}

void kms_opts_default(struct kms_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->max_findings = 1000;
	o->top = 10;
	o->progress = isatty(STDERR_FILENO);
}

int kms_parse_time(const char *s, unsigned long long *ns)
{
	static const struct {
		const char *unit;
		double mul;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
	size_t digits = strspn(s, "0123456789."), points = 0;
	char *end;
	double v, mul;

	/* digits and one point at most: strtod would take 0x10 and 1e3 */
	for (size_t i = 0; i < digits; i++)
		points += s[i] == '.';
	if (!digits || points > 1)
		return -1;
	v = strtod(s, &end);
	if (end != s + digits)
		return -1;
	mul = *end ? 0 : 1e9; /* a bare number is seconds */
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit))
			mul = units[i].mul;
	if (!mul || v * mul > 4e18)
		return -1;
	*ns = (unsigned long long)(v * mul + 0.5);
	return 0;
}
