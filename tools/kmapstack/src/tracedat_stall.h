/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmapstack: a trace.dat pass that no longer moves on. libtraceevent's
 * kbuffer (1.7) reads a zero length word in a data page (a corrupt commit
 * size that reaches the page's zero padding) as an event of -4 bytes and
 * returns that record for ever: records keep coming, so no watchdog that
 * waits for them fires. tracedat_stalled() tells, per record of the pass,
 * that the same record came twice in a row.
 */
#ifndef KMS_TRACEDAT_STALL_H
#define KMS_TRACEDAT_STALL_H

struct dat_stall {
	int seen; /* a record came before */
	int cpu;
	unsigned long long offset; /* its offset in the file */
};

/*
 * tracedat_stalled() - is the record at offset on cpu the one just seen?
 * @s: zeroed before the pass
 *
 * Returns 1 if so: the pass should stop there (its callback returns -1 to
 * tracecmd_iterate_events()) and call the file corrupt.
 */
int tracedat_stalled(struct dat_stall *s, int cpu, unsigned long long offset);

#endif
