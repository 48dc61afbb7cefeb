/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmapstack: what the children that read a trace.dat send to the parent
 * that replays it, each through a ring of shared memory (ring.h): the
 * children write (tracedat_child.c), the parent merges and replays
 * (tracedat_merge.c).
 *
 * Each child reads a share of the trace's CPUs (tracedat_part.c) in time
 * order, as libtracecmd does for all of them; the parent takes the
 * records of the children in the order of their time and CPU, which is
 * libtracecmd's own order over all the CPUs (the earliest record first,
 * the lowest CPU first among records of the same time).
 */
#ifndef KMS_TRACEDAT_MSG_H
#define KMS_TRACEDAT_MSG_H

#include <stdint.h>
#include <sys/types.h>

#include "decode.h"
#include "input.h"
#include "progress.h"
#include "ring.h"

enum msg_type {
	M_PUSH = RING_PAD + 1, /* a record: struct m_rec */
	M_POP,
	M_VIOLATION,
	M_LOST, /* a: cpu; x: ts, y: events missed (before that record) */
	M_SITE, /* a: the child's site index, text: its name */
	M_COMM, /* a: pid, text: its command */
	M_PROGRESS, /* x: bytes done */
	M_CLOCK, /* text: the trace clock */
	M_LAYOUT, /* text: struct dec_layout */
	M_END, /* x: records, y: malformed */
	M_ERROR, /* text: the message */
};

/*
 * A record: 24 bytes (a violation: 32, with its map_caller and
 * top_caller), then its first size bytes
 */
struct m_rec {
	struct ring_head h;
	uint16_t cpu; /* UINT16_MAX: one the replay has no room for */
	uint16_t size;
	int32_t pid, caller;
	uint64_t ts;
};

/* anything else: 32 bytes, then tlen bytes of text */
struct m_ctl {
	struct ring_head h;
	int32_t a;
	uint32_t tlen, spare;
	uint64_t x, y;
};

_Static_assert(sizeof(struct m_rec) == 24, "a record's head is 24 bytes");
_Static_assert(sizeof(struct m_ctl) == 32, "a control message is 32 bytes");
_Static_assert(sizeof(struct m_rec) + 8 + DEC_MAX_RECORD <= RING_MAX_MSG,
	       "a record fits in a message");

#define MSG_MAX_TEXT (RING_MAX_MSG - sizeof(struct m_ctl))
/*
 * Each child's ring: a few milliseconds of the parent's work, so that a
 * child or the parent held up by the scheduler does not stop the other
 */
#define MSG_RING_SIZE (1u << 22)
/* the children that read one trace.dat, at most */
#define MSG_MAX_CHILDREN 2

/* the parent's view of one child */
struct dat_source {
	struct ring ring;
	pid_t pid;
	/*
	 * The child's sites: below base the table both had at the fork,
	 * then those it sent (M_SITE), mapped to the parent's
	 */
	int base;
	int *site_map; /* the child's site - base -> ours */
	int nmap, cap_map;
	struct dec_layout layout;
	int have_layout;
	long long records, bad; /* as the child counted them (M_END) */
	long long bad_here; /* records found malformed by the parent */
	unsigned long long done_bytes; /* its progress */
	/* its next record or lost events, read but not yet replayed */
	const unsigned char *head;
	size_t head_len;
	unsigned long long head_ts;
	int head_cpu;
	struct m_rec rec; /* the head's own, a copy; M_LOST: its type only */
	long long missed; /* M_LOST: the events missed */
	size_t unreleased; /* bytes read since the last ring_done() */
	int waiting; /* the parent waits for it, since wait_since */
	double wait_since;
	int state; /* MS_* */
	char err[1024]; /* its M_ERROR */
};

enum merge_state {
	MS_RUNNING,
	MS_END, /* it sent M_END */
	MS_ERROR, /* it sent M_ERROR: err */
	MS_CORRUPT, /* its stream broke, or it ended early */
	MS_STUCK, /* it sent nothing for WATCHDOG_IDLE seconds */
};

/*
 * Replay what the n children send, in time order, until they have all
 * ended or one fails. Returns MS_END, or the state of the child that
 * failed (*failed: its index).
 */
int tracedat_merge(struct dat_source *src, int n, struct replay *r,
		   struct input_info *info, unsigned long long size,
		   int *failed);

#endif
