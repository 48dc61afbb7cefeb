/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmapstack: decoding of kmap_stack records, shared by the trace.dat and
 * the live inputs. Field offsets and sizes come from the event formats of
 * the trace (or of the running kernel), copied once into a compact layout:
 * the process that replays a trace.dat has no tep handle (the libraries
 * run in a child), so tep_read_number_field() cannot serve it.
 */
#ifndef KMS_DECODE_H
#define KMS_DECODE_H

#include <event-parse.h>

#include "htab.h"
#include "kms.h"

/* the events' fields: DF_CALLER... and their names (decode.c) */
#define DEC_FIELDS(F)             \
	F(CALLER, caller)         \
	F(ADDR, addr)             \
	F(PFN, pfn)               \
	F(DEPTH, depth)           \
	F(CTX, ctx)               \
	F(FLAGS, flags)           \
	F(KIND, kind)             \
	F(MAP_CALLER, map_caller) \
	F(TOP_CALLER, top_caller)
#define DEC_FIELD_ENUM(e, name) DF_##e,
enum dec_field { DEC_FIELDS(DEC_FIELD_ENUM) DF_NR };

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

/* what the formats say: where each event's fields are */
struct dec_layout {
	struct dec_event ev[3]; /* push, pop, violation */
	/* the common fields, size 0 when absent or beyond the first 8 bytes */
	struct dec_at c_type, c_pid, c_flags;
	int swap; /* the file's byte order is not the host's */
};

#define DEC_RECENT 1024
/* the fields of a kmap_stack record lie within its first bytes */
#define DEC_MAX_RECORD 4096

struct decoder {
	struct tep_handle *tep;
	unsigned int misses; /* of the recent cache: a site may be new */
	struct dec_layout l;
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
/*
 * The same in steps, partly in another process: the event (decoder_kind():
 * 0 push, 1 pop, 2 violation; -1 none, -2 too short for its event), pid,
 * call sites; then, from the layout alone, the other fields (dec_fields():
 * 0, or -1 for a malformed record).
 */
int dec_fields(const struct dec_layout *l, int e, const void *data,
	       struct kms_event *ev);
/*
 * A layout made here or come from elsewhere: fields within 8 bytes, the
 * minimum sizes made from the fields. 0, or -1 when it is unusable.
 */
int dec_layout_check(struct dec_layout *l);
/* decoder_site() when the address is not in the recent cache */
int decoder_site_slow(struct decoder *d, unsigned int r,
		      unsigned long long addr);

/* the number at a field's place, in the file's byte order; 0 if absent */
static inline unsigned long long
dec_rd(const struct dec_layout *l, const struct dec_at *at, const void *data)
{
	const unsigned char *p = (const unsigned char *)data + at->offset;
	unsigned long long v;
	unsigned int v4;
	unsigned short v2;

	switch (at->size) {
	case 1:
		return *p;
	case 2:
		__builtin_memcpy(&v2, p, 2);
		return l->swap ? __builtin_bswap16(v2) : v2;
	case 4:
		__builtin_memcpy(&v4, p, 4);
		return l->swap ? __builtin_bswap32(v4) : v4;
	case 8:
		__builtin_memcpy(&v, p, 8);
		return l->swap ? __builtin_bswap64(v) : v;
	}
	return 0;
}

static inline long long dec_rd_signed(const struct dec_layout *l,
				      const struct dec_at *at, const void *data)
{
	unsigned long long v = dec_rd(l, at, data);
	int bits = at->size * 8;

	if (!at->is_signed || at->size >= 8 || !at->size)
		return (long long)v;
	if (v & (1ULL << (bits - 1)))
		v |= ~0ULL << bits;
	return (long long)v;
}

static inline int decoder_kind(struct decoder *d, struct tep_record *rec)
{
	const struct dec_layout *l = &d->l;
	int type, e;

	if (rec->size < 8)
		return -1;
	/* the common fields of the formats, read as the others are */
	type = l->c_type.size ? (int)dec_rd(l, &l->c_type, rec->data) :
				tep_data_type(d->tep, rec);
	for (e = 0; e < 3 && type != l->ev[e].id; e++)
		;
	return e == 3 ? -1 : rec->size < l->ev[e].min_size ? -2 : e;
}

static inline int decoder_pid(struct decoder *d, struct tep_record *rec)
{
	if (d->l.c_pid.size)
		return (int)dec_rd_signed(&d->l, &d->l.c_pid, rec->data);
	return tep_data_pid(d->tep, rec);
}

/* the call site of a kernel address, as %pS names it; Fibonacci hashing */
static inline int decoder_site(struct decoder *d, unsigned long long addr)
{
	unsigned int r = (unsigned int)((addr * 0x9e3779b97f4a7c15ULL) >> 54);

	_Static_assert(DEC_RECENT == 1 << 10, "the hash gives 10 bits");
	if (!addr)
		return KMS_NO_SITE;
	return d->recent[r].addr == addr ? d->recent[r].site :
					   decoder_site_slow(d, r, addr);
}

/* the site of a field (DF_*_CALLER); none for a field the event lacks */
static inline int decoder_site_of(struct decoder *d, int e, const void *data,
				  int field)
{
	const struct dec_at *at = &d->l.ev[e].f[field];

	return at->size ? decoder_site(d, dec_rd(&d->l, at, data)) :
			  KMS_NO_SITE;
}

void decoder_free(struct decoder *d);

#endif
