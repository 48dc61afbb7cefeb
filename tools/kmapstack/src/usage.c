// SPDX-License-Identifier: GPL-2.0
/* kmapstack: the help texts, each option with the commands it is for */
#include <string.h>

#include "usage.h"

#define R 1 /* report */
#define C 2 /* check */
#define S 4 /* stats */
#define L 8 /* live */
#define ALL (R | C | S | L)

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

static const struct {
	int cmds;
	const char *text;
} opts[] = {
	{ ALL, "  --json              JSON output (docs/kmapstack-json.md)" },
	{ ALL,
	  "  --folded            folded stacks for flame graphs: outer;inner count" },
	{ ALL,
	  "  --svg               SVG output: depth over time and hold times" },
	{ ALL,
	  "  -o, --output FILE   the output to FILE (never one of the inputs)" },
	{ ALL,
	  "  --pid LIST          only the events of these tasks (1234,1235)" },
	{ ALL,
	  "  --comm LIST         only the events of tasks of these names (bash,dd)" },
	{ ALL, "  --cpu LIST          only the events of these CPUs (0,2-3)" },
	{ ALL,
	  "  --since T, --until T  only the events from / up to trace time T\n"
	  "                      (12.5, 12500ms; a bare number is seconds)" },
	{ R | C | L,
	  "  --kind LIST         only the violations of these kinds (mismatch,unknown)" },
	{ ALL,
	  "  --kallsyms FILE     a /proc/kallsyms saved after the recording: names\n"
	  "                      the functions of modules loaded during it" },
	{ R | S | L,
	  "  --hold-threshold T  list the holds of T or more (1ms, 250us; a bare\n"
	  "                      number is seconds)" },
	{ R | S | L,
	  "  --top N             longest holds to list (default 10)" },
	{ R | C | L,
	  "  --max-violations N  violations to keep in detail (default 1000)" },
	{ R | C | L,
	  "  --strict            mappings held at the end of the trace are violations" },
	{ C,
	  "  --fail-on-gaps      lost events or mappings held at the end make the exit\n"
	  "                      status 1 (else a warning)" },
	{ R | C | S, "  --no-progress       no progress line on stderr" },
	{ L,
	  "  --duration T        stop after T (10, 10s, 500ms; default: at Ctrl-C\n"
	  "                      or SIGTERM)" },
	{ L,
	  "  --buffer-size KB    the ring buffer of each CPU (trace-cmd -b)" },
	{ L, "  --tracefs DIR       the tracefs mount point" },
	{ ALL, "  -h, --help          this text" },
	{ ALL, "  -V, --version       the version" },
};

int usage_command(const char *name)
{
	for (int i = 0; i < (int)(sizeof(cmds) / sizeof(cmds[0])); i++)
		if (!strcmp(name, cmds[i].name))
			return i;
	return -1;
}

void usage_print(FILE *out, int cmd)
{
	int n = (int)(sizeof(cmds) / sizeof(cmds[0]));

	for (int i = 0; i < n; i++)
		if (cmd < 0 || cmd == i)
			fprintf(out, "%s kmapstack %s %s\n%s%s\n",
				i && cmd < 0 ? "      " : "usage:",
				cmds[i].name, cmds[i].args,
				cmd < 0 ? "         " : "  ", cmds[i].what);
	fprintf(out,
		"Options go before or after the command; '--' ends them (record: 'kmapstack record --help').\n");
	if (cmd < 0 || cmd < usage_command("live"))
		fprintf(out,
			"\nFILE is a trace.dat (trace-cmd record -e kmap_stack), a perf.data (perf\n"
			"record -e 'kmap_stack:*'; read through perf script --ns), or the text of\n"
			"trace-cmd report, perf script or /sys/kernel/tracing/trace ('-' reads\n"
			"standard input). Several files are analysed one after the other, each with\n"
			"its own stacks; the findings and statistics are added up.\n");
	fprintf(out, "\noptions:\n");
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (cmd < 0 || (opts[i].cmds & (1 << cmd)))
			fprintf(out, "%s\n", opts[i].text);
	fprintf(out,
		"\nexit status: 0 clean, 1 violations found, 2 usage or input error\n");
}
