/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmapstack: decoding of kmap_stack records with libtraceevent, shared by
 * the trace.dat and the live inputs. Field offsets and sizes come from the
 * event formats of the trace (or of the running kernel), never from here;
 * they are copied once into a compact layout that the decoding of each
 * record reads without going back to libtraceevent.
 */
#ifndef KMS_DECODE_H
#define KMS_DECODE_H

#include <event-parse.h>

#include "htab.h"
#include "kms.h"

enum dec_field {
	DF_CALLER,
	DF_ADDR,
	DF_PFN,
	DF_DEPTH,
	DF_CTX,
	DF_FLAGS,
	DF_KIND,
	DF_MAP_CALLER,
	DF_TOP_CALLER,
	DF_NR,
};

/* where a field is in a record: size 0, a field the event lacks */
struct dec_at {
	unsigned short offset;
	unsigned char size;
	unsigned char is_signed;
};

struct dec_event {
	int id;
	int min_size; /* a shorter record is malformed */
	struct dec_at f[DF_NR];
};

#define DEC_RECENT 1024

struct decoder {
	struct tep_handle *tep;
	struct dec_event ev[3]; /* push, pop, violation */
	int swap; /* the file's byte order is not the host's */
	/* the common fields, size 0 when absent or beyond the first 8 bytes */
	struct dec_at c_type, c_pid, c_flags;
	struct htab cache; /* address -> call site */
	/* in front of it: the last site seen at a few addresses */
	struct {
		unsigned long long addr;
		int site;
	} recent[DEC_RECENT];
};

/*
 * Look the kmap_stack events up in tep. Returns 0, or -1 with a message
 * in err when the trace has none or their format lacks a field.
 */
int decoder_init(struct decoder *d, struct tep_handle *tep, char *err,
		 size_t errlen);
/* 1: ev filled, 0: not a kmap_stack record, -1: a malformed record */
int decoder_decode(struct decoder *d, struct tep_record *rec,
		   struct kms_event *ev);
/* the call site of a kernel address, named as %pS prints it */
int decoder_site(struct decoder *d, unsigned long long addr);
void decoder_free(struct decoder *d);

#endif
