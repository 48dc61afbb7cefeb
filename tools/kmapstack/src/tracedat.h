/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmapstack: the pass over a trace.dat (input_tracedat.c) and where its
 * events go: the replay directly (under a watchdog: tracedat_watch.c), or
 * the streams of the protected children (tracedat_child.c).
 */
#ifndef KMS_TRACEDAT_H
#define KMS_TRACEDAT_H

#include <sched.h>

#include "decode.h"
#include "input.h"
#include "kms.h"
#include "progress.h"

/* a kmap_stack record, decoded only as far as the trace libraries must */
struct dat_rec {
	int e; /* 0 push, 1 pop, 2 violation */
	int cpu, pid;
	unsigned long long ts;
	int caller, map_caller, top_caller; /* sites; the last two: violation */
	const void *data; /* the record, its first size bytes */
	int size; /* the event's min_size in the layout */
	struct decoder *dec; /* for decoder_comm() */
};

struct dat_sink {
	/* each event decoded; or, when record is set, each record as is */
	void (*event)(void *priv, const struct kms_event *ev);
	void (*record)(void *priv, const struct dat_rec *rec);
	/* before the first record: where the fields are (for record) */
	void (*layout)(void *priv, const struct dec_layout *l);
	void (*lost)(void *priv, int cpu, unsigned long long ts,
		     long long missed);
	void (*progress)(void *priv, unsigned long long done,
			 unsigned long long total);
	/* the trace clock of the file (trace-cmd record -C), may be NULL */
	void (*clock)(void *priv, const char *clock);
	void *priv;
	/* the process ends after the pass: nothing to close or free */
	int last_pass;
	/* the CPUs to read: share part of parts (tracedat_part.c; 0: all) */
	int part, parts;
};

/* a share of the CPUs counts those below this */
#define DAT_PART_CPUS 65536

struct tracecmd_input;

/* the CPUs of the share part of parts (tracedat_part.c), to free() */
cpu_set_t *tracedat_part(struct tracecmd_input *handle, int part, int parts,
			 size_t *setsize);

/* one pass: path to open, name for messages, size for progress */
int tracedat_pass(const char *path, const char *name, unsigned long long size,
		  const struct dat_sink *sink, struct input_info *info,
		  char *err, size_t errlen);
void tracedat_corrupt(const char *path, char *err, size_t errlen);
/* the pass into the replay, in this process; size for the progress */
int tracedat_direct(const char *path, unsigned long long size, struct replay *r,
		    struct input_info *info, char *err, size_t errlen);
/* records the pass has seen so far (any thread may ask) */
unsigned long long tracedat_records_seen(void);

/* no record for this long: the trace-cmd library is stuck (both passes) */
#define WATCHDOG_IDLE 5

#endif
