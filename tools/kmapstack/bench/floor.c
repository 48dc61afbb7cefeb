// SPDX-License-Identifier: GPL-2.0
/*
 * The floor of the benchmark: iterate every record of a trace.dat with
 * tracecmd_iterate_events() and do nothing else. No analysis of a
 * trace.dat through libtracecmd can be faster than this.
 */
#include <stdio.h>

#include <trace-cmd.h>

static int on_record(struct tracecmd_input *h, struct tep_record *rec, int cpu,
		     void *data)
{
	(void)h;
	(void)cpu;
	*(unsigned long long *)data += rec->size;
	return 0;
}

int main(int argc, char **argv)
{
	struct tracecmd_input *h;
	unsigned long long bytes = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: floor TRACE.DAT\n");
		return 2;
	}
	h = tracecmd_open(argv[1], TRACECMD_FL_LOAD_NO_PLUGINS |
					   TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	if (!h)
		return 2;
	tracecmd_iterate_events(h, NULL, 0, on_record, &bytes);
	tracecmd_close(h);
	printf("%llu\n", bytes);
	return 0;
}
