// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack: the pass over a trace.dat in this process, with a watchdog
 * thread on its progress: no second process, no stream, less CPU in all.
 * A crash of the trace libraries is caught by kmapstack's fault handler
 * (main.c: one line, exit 2); a pass that makes no progress for
 * WATCHDOG_IDLE seconds ends the process with the same error as the
 * child's. And the choice between this pass and the child's.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpu_load.h"
#include "input.h"
#include "tracedat.h"

static volatile int watch_done;
static const char *watch_path;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *watchdog(void *arg)
{
	unsigned long long last = tracedat_records_seen();
	double since = now();

	(void)arg;
	while (!__atomic_load_n(&watch_done, __ATOMIC_RELAXED)) {
		unsigned long long n;

		usleep(100 * 1000);
		n = tracedat_records_seen();
		if (n != last) {
			last = n;
			since = now();
		} else if (now() - since >= WATCHDOG_IDLE) {
			fprintf(stderr,
				"kmapstack: %s: cannot read this trace.dat "
				"(corrupt: the trace-cmd library made no "
				"progress for %d s)\n",
				watch_path, WATCHDOG_IDLE);
			_exit(2);
		}
	}
	return NULL;
}

static int input_tracedat_watched(struct input_src *src, struct replay *r,
				  struct input_info *info, char *err,
				  size_t errlen)
{
	pthread_t th;
	int ret, have_thread;

	watch_done = 0;
	watch_path = info->path;
	have_thread = !pthread_create(&th, NULL, watchdog, NULL);
	ret = tracedat_direct(src->path, src->size, r, info, err, errlen);
	__atomic_store_n(&watch_done, 1, __ATOMIC_RELAXED);
	if (have_thread)
		pthread_join(th, NULL);
	return ret;
}

/*
 * The child's pass pays off when a second core is free to run the replay
 * beside it; on a busy machine (or one core) the pass in this process costs
 * less. Free means that few enough other tasks want a CPU now, not by the
 * load average, a minute's mean that still counts a build that has just
 * ended, or kmapstack's own last run. KMAPSTACK_PASS=child or direct
 * chooses.
 */
int tracedat_use_child(void)
{
	const char *e = getenv("KMAPSTACK_PASS");
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	double others, load;

	if (e && !strcmp(e, "child"))
		return 1;
	if (e && !strcmp(e, "direct"))
		return 0;
	if (ncpu < 2)
		return 0;
	others = cpu_load_others();
	if (others < 0) {
		if (getloadavg(&load, 1) != 1)
			return 1;
		others = load;
	}
	return others <= (double)ncpu - 1;
}

static const char *pass_taken;

const char *tracedat_pass_taken(void)
{
	return pass_taken;
}

int input_tracedat_any(struct input_src *src, struct replay *r,
		       struct input_info *info, char *err, size_t errlen)
{
	if (tracedat_use_child()) {
		pass_taken = "child";
		return input_tracedat(src, r, info, err, errlen);
	}
	pass_taken = "direct";
	info->kind = INPUT_TRACEDAT;
	return input_tracedat_watched(src, r, info, err, errlen);
}
