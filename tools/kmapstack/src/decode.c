// SPDX-License-Identifier: GPL-2.0
/* kmapstack: kmap_stack records to events, through libtraceevent */
#include <stdio.h>
#include <string.h>

#include "decode.h"
#include "ksyms.h"
#include "sites.h"

static const char *const ev_names[3] = { "kmap_push", "kmap_pop",
					 "kmap_violation" };
#define DEC_FIELD_NAME(e, name) #name,
static const char *const field_names[DF_NR] = { DEC_FIELDS(DEC_FIELD_NAME) };

/* the fields each event must have */
static const unsigned int needed[3] = {
	1 << DF_CALLER | 1 << DF_ADDR | 1 << DF_PFN | 1 << DF_DEPTH |
		1 << DF_CTX | 1 << DF_FLAGS,
	1 << DF_CALLER | 1 << DF_ADDR | 1 << DF_PFN | 1 << DF_DEPTH |
		1 << DF_CTX | 1 << DF_FLAGS,
	1 << DF_KIND | 1 << DF_CALLER | 1 << DF_ADDR | 1 << DF_MAP_CALLER |
		1 << DF_TOP_CALLER | 1 << DF_DEPTH | 1 << DF_CTX,
};

/* a field's place, if it is a number the decoding can read (else size 0) */
static void at_of(struct dec_at *at, const struct tep_format_field *f)
{
	memset(at, 0, sizeof(*at));
	if (!f || f->offset < 0 || f->offset > 65535 || f->size < 1 ||
	    f->size > 8 || (f->flags & TEP_FIELD_IS_ARRAY))
		return;
	at->offset = (unsigned short)f->offset;
	at->size = (unsigned char)f->size;
	at->is_signed = !!(f->flags & TEP_FIELD_IS_SIGNED);
}

/* a common field read from the first 8 bytes, which every record has */
static void common_at(struct dec_at *at, struct tep_event *te, const char *name)
{
	if (at->size)
		return;
	at_of(at, tep_find_common_field(te, name));
	if (at->offset + at->size > 8)
		at->size = 0;
}

static int event_init(struct dec_layout *l, int e, struct tep_event *te,
		      char *err, size_t errlen)
{
	struct dec_event *de = &l->ev[e];

	de->id = te->id;
	for (int f = 0; f < DF_NR; f++) {
		struct tep_format_field *ff;

		if (!(needed[e] & (1u << f)))
			continue;
		ff = tep_find_field(te, field_names[f]);
		if (!ff)
			return kms_fail(
				err, errlen,
				"the format of kmap_stack:%s has no field '%s'",
				ev_names[e], field_names[f]);
		at_of(&de->f[f], ff);
		if (de->f[f].size && ff->offset + ff->size > DEC_MAX_RECORD)
			return kms_fail(
				err, errlen,
				"kmap_stack:%s field '%s' is beyond the first %d bytes of a record",
				ev_names[e], field_names[f], DEC_MAX_RECORD);
		if (!de->f[f].size)
			return kms_fail(
				err, errlen,
				"kmap_stack:%s field '%s' has an unexpected size %d",
				ev_names[e], field_names[f], ff->size);
	}
	common_at(&l->c_type, te, "common_type");
	common_at(&l->c_pid, te, "common_pid");
	common_at(&l->c_flags, te, "common_flags");
	return 0;
}

int decoder_init(struct decoder *d, struct tep_handle *tep, char *err,
		 size_t errlen)
{
	memset(d, 0, sizeof(*d));
	d->tep = tep;
	d->l.swap = tep_is_file_bigendian(tep) !=
		    (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	for (int e = 0; e < 3; e++) {
		struct tep_event *te =
			tep_find_event_by_name(tep, "kmap_stack", ev_names[e]);

		d->l.ev[e].id = -1;
		if (te && event_init(&d->l, e, te, err, errlen))
			return -1;
	}
	if (d->l.ev[0].id < 0 || d->l.ev[1].id < 0)
		return kms_fail(
			err, errlen,
			"no kmap_stack events in this trace (record them with: trace-cmd record -e kmap_stack)");
	return dec_layout_check(&d->l); /* the minimum sizes */
}

static int clamp_int(long long v)
{
	return v > 1 << 30 ? 1 << 30 : v < -(1 << 30) ? -(1 << 30) : (int)v;
}

int decoder_site_slow(struct decoder *d, unsigned int r,
		      unsigned long long addr)
{
	int site = htab_get(&d->cache, addr);
	unsigned long long start;
	const char *name;
	char buf[512];

	d->misses++;
	/* --kallsyms first: saved after the recording, it knows more */
	if (site < 0 && !ksyms_name(addr, buf, sizeof(buf))) {
		name = tep_find_function(d->tep, addr);
		start = name ? tep_find_function_address(d->tep, addr) : 0;
		if (name)
			snprintf(buf, sizeof(buf), "%s+0x%llx", name,
				 addr - start);
		else
			snprintf(buf, sizeof(buf), "0x%llx", addr);
	}
	if (site < 0) {
		site = sites_intern(buf, strlen(buf));
		htab_add(&d->cache, addr, site);
	}
	d->recent[r].addr = addr;
	d->recent[r].site = site;
	return site;
}

static const char *comm_of(void *tep, int pid)
{
	return tep_data_comm_from_pid(tep, pid);
}

static int flags_ctx(unsigned long long fl)
{
	/* TRACE_FLAG_* of include/linux/trace_events.h */
	return fl & 0x40 ? KMS_CTX_NMI :
	       fl & 0x08 ? KMS_CTX_HARDIRQ :
	       fl & 0x10 ? KMS_CTX_SOFTIRQ :
			   KMS_CTX_TASK;
}

int dec_fields(const struct dec_layout *l, int e, const void *data,
	       struct kms_event *ev)
{
	const struct dec_event *de = &l->ev[e];

	ev->type = e; /* in the order of enum kms_ev_type */
	ev->in_ctx = l->c_flags.size ? flags_ctx(dec_rd(l, &l->c_flags, data)) :
				       -1;
	ev->addr = dec_rd(l, &de->f[DF_ADDR], data);
	ev->depth = clamp_int(dec_rd_signed(l, &de->f[DF_DEPTH], data));
	ev->ctx = (int)dec_rd(l, &de->f[DF_CTX], data);
	/* a field the event lacks reads 0 */
	ev->pfn = dec_rd(l, &de->f[DF_PFN], data);
	ev->flags = (int)dec_rd(l, &de->f[DF_FLAGS], data);
	ev->kind = clamp_int(dec_rd_signed(l, &de->f[DF_KIND], data));
	return ev->ctx >= KMS_CTX_NR ? -1 : 0;
}

int decoder_decode(struct decoder *d, struct tep_record *rec,
		   struct kms_event *ev)
{
	int e = decoder_kind(d, rec);

	if (e < 0)
		return e == -1 ? 0 : -1;
	ev->ts = rec->ts;
	ev->cpu = rec->cpu;
	ev->pid = decoder_pid(d, rec);
	ev->comm = NULL;
	ev->comm_of = comm_of;
	ev->comm_priv = d->tep;
	ev->caller = decoder_site_of(d, e, rec->data, DF_CALLER);
	ev->map_caller = decoder_site_of(d, e, rec->data, DF_MAP_CALLER);
	ev->top_caller = decoder_site_of(d, e, rec->data, DF_TOP_CALLER);
	return dec_fields(&d->l, e, rec->data, ev) ? -1 : 1;
}

int dec_layout_check(struct dec_layout *l)
{
	/* up to 8 bytes, as decoder_init() takes them */
	if (l->c_type.size > 8 || l->c_pid.size > 8 || l->c_flags.size > 8)
		return -1;
	l->swap = !!l->swap;
	if (l->c_flags.offset + l->c_flags.size > 8)
		return -1;
	for (int e = 0; e < 3; e++) {
		struct dec_event *de = &l->ev[e];

		de->min_size = 8;
		for (int f = 0; f < DF_NR; f++) {
			if (de->f[f].size > 8)
				return -1;
			if (de->f[f].size &&
			    de->f[f].offset + de->f[f].size > de->min_size)
				de->min_size = de->f[f].offset + de->f[f].size;
		}
		if (de->min_size > DEC_MAX_RECORD)
			return -1;
	}
	return 0;
}

void decoder_free(struct decoder *d)
{
	htab_free(&d->cache);
}
