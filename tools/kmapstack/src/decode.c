// SPDX-License-Identifier: GPL-2.0
/* kmapstack: kmap_stack records to events, through libtraceevent */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "ksyms.h"
#include "sites.h"

static const char *const ev_names[3] = { "kmap_push", "kmap_pop",
					 "kmap_violation" };
static const char *const field_names[DF_NR] = {
	[DF_CALLER] = "caller",
	[DF_ADDR] = "addr",
	[DF_PFN] = "pfn",
	[DF_DEPTH] = "depth",
	[DF_CTX] = "ctx",
	[DF_FLAGS] = "flags",
	[DF_KIND] = "kind",
	[DF_MAP_CALLER] = "map_caller",
	[DF_TOP_CALLER] = "top_caller",
};

/* the fields each event must have */
static const unsigned int needed[3] = {
	1 << DF_CALLER | 1 << DF_ADDR | 1 << DF_PFN | 1 << DF_DEPTH |
		1 << DF_CTX | 1 << DF_FLAGS,
	1 << DF_CALLER | 1 << DF_ADDR | 1 << DF_PFN | 1 << DF_DEPTH |
		1 << DF_CTX | 1 << DF_FLAGS,
	1 << DF_KIND | 1 << DF_CALLER | 1 << DF_ADDR | 1 << DF_MAP_CALLER |
		1 << DF_TOP_CALLER | 1 << DF_DEPTH | 1 << DF_CTX,
};

static int same_endian;

int decoder_init(struct decoder *d, struct tep_handle *tep, char *err,
		 size_t errlen)
{
	int found = 0;

	memset(d, 0, sizeof(*d));
	d->tep = tep;
	same_endian = tep_is_file_bigendian(tep) ==
		      (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	for (int e = 0; e < 3; e++) {
		struct tep_event *te =
			tep_find_event_by_name(tep, "kmap_stack", ev_names[e]);

		d->ev[e].id = -1;
		if (!te)
			continue;
		found++;
		d->ev[e].id = te->id;
		for (int f = 0; f < DF_NR; f++) {
			struct tep_format_field *ff;

			ff = tep_find_field(te, field_names[f]);
			if (!(needed[e] & (1u << f)))
				continue;
			if (!ff) {
				snprintf(err, errlen,
					 "the format of kmap_stack:%s has no "
					 "field '%s'",
					 ev_names[e], field_names[f]);
				return -1;
			}
			if (ff->size < 1 || ff->size > 8 ||
			    (ff->flags & TEP_FIELD_IS_ARRAY)) {
				snprintf(err, errlen,
					 "kmap_stack:%s field '%s' has an "
					 "unexpected size %d",
					 ev_names[e], field_names[f], ff->size);
				return -1;
			}
			d->ev[e].f[f] = ff;
			if (ff->offset + ff->size > d->min_size[e])
				d->min_size[e] = ff->offset + ff->size;
		}
		if (!d->f_flags)
			d->f_flags = tep_find_common_field(te, "common_flags");
		if (!d->f_type)
			d->f_type = tep_find_common_field(te, "common_type");
		if (!d->f_pid)
			d->f_pid = tep_find_common_field(te, "common_pid");
	}
	if (!found || d->ev[0].id < 0 || d->ev[1].id < 0) {
		snprintf(err, errlen,
			 "no kmap_stack events in this trace (record them "
			 "with: trace-cmd record -e kmap_stack)");
		return -1;
	}
	return 0;
}

static unsigned long long rd(const struct tep_format_field *f, const void *data)
{
	unsigned long long v = 0;

	if (!f)
		return 0;
	if (same_endian) {
		/* the offset and size are the format's */
		const unsigned char *p =
			(const unsigned char *)data + f->offset;

		switch (f->size) {
		case 1:
			return *p;
		case 2: {
			unsigned short x;

			memcpy(&x, p, 2);
			return x;
		}
		case 4: {
			unsigned int x;

			memcpy(&x, p, 4);
			return x;
		}
		case 8:
			memcpy(&v, p, 8);
			return v;
		}
	}
	tep_read_number_field((struct tep_format_field *)f, data, &v);
	return v;
}

static long long rd_signed(const struct tep_format_field *f, const void *data)
{
	unsigned long long v = rd(f, data);
	int bits;

	if (!f || f->size >= 8 || !(f->flags & TEP_FIELD_IS_SIGNED))
		return (long long)v;
	bits = f->size * 8;
	if (v & (1ULL << (bits - 1)))
		v |= ~0ULL << bits;
	return (long long)v;
}

static int clamp_int(long long v)
{
	if (v > 1 << 30)
		return 1 << 30;
	if (v < -(1 << 30))
		return -(1 << 30);
	return (int)v;
}

int decoder_site(struct decoder *d, unsigned long long addr)
{
	const char *name;
	unsigned long long start;
	char buf[512];
	unsigned int r = (unsigned int)(addr ^ addr >> 7 ^ addr >> 17) & 255;
	int site;

	if (!addr)
		return KMS_NO_SITE;
	if (d->recent[r].addr == addr)
		return d->recent[r].site;
	site = htab_get(&d->cache, addr);
	if (site >= 0)
		goto out;
	/* --kallsyms first: saved after the recording, it knows more */
	if (!ksyms_name(addr, buf, sizeof(buf))) {
		name = tep_find_function(d->tep, addr);
		start = name ? tep_find_function_address(d->tep, addr) : 0;
		if (name)
			snprintf(buf, sizeof(buf), "%s+0x%llx", name,
				 addr - start);
		else
			snprintf(buf, sizeof(buf), "0x%llx", addr);
	}
	site = sites_intern(buf, strlen(buf));
	htab_add(&d->cache, addr, site);
out:
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
	if (fl & 0x40)
		return KMS_CTX_NMI;
	if (fl & 0x08)
		return KMS_CTX_HARDIRQ;
	if (fl & 0x10)
		return KMS_CTX_SOFTIRQ;
	return KMS_CTX_TASK;
}

int decoder_decode(struct decoder *d, struct tep_record *rec,
		   struct kms_event *ev)
{
	const void *data = rec->data;
	int type, e;
	struct dec_event *de;

	if (rec->size < 8)
		return 0;
	/* the common fields of the formats, read as the others are */
	if (d->f_type && d->f_type->offset + d->f_type->size <= 8)
		type = (int)rd(d->f_type, data);
	else
		type = tep_data_type(d->tep, rec);
	if (type == d->ev[0].id)
		e = 0;
	else if (type == d->ev[1].id)
		e = 1;
	else if (type == d->ev[2].id)
		e = 2;
	else
		return 0;
	if (rec->size < d->min_size[e]) {
		d->bad_records++;
		return -1;
	}
	de = &d->ev[e];
	memset(ev, 0, sizeof(*ev));
	ev->type = e == 0 ? KMS_EV_PUSH :
		   e == 1 ? KMS_EV_POP :
			    KMS_EV_VIOLATION;
	ev->ts = rec->ts;
	ev->cpu = rec->cpu;
	if (d->f_pid && d->f_pid->offset + d->f_pid->size <= 8)
		ev->pid = (int)rd_signed(d->f_pid, data);
	else
		ev->pid = tep_data_pid(d->tep, rec);
	ev->comm_of = comm_of;
	ev->comm_priv = d->tep;
	if (d->f_flags && d->f_flags->offset + d->f_flags->size <= rec->size)
		ev->in_ctx = flags_ctx(rd(d->f_flags, data));
	else
		ev->in_ctx = -1;
	ev->caller = decoder_site(d, rd(de->f[DF_CALLER], data));
	ev->addr = rd(de->f[DF_ADDR], data);
	ev->depth = clamp_int(rd_signed(de->f[DF_DEPTH], data));
	ev->ctx = (int)rd(de->f[DF_CTX], data);
	if (e < 2) {
		ev->pfn = rd(de->f[DF_PFN], data);
		ev->flags = (int)rd(de->f[DF_FLAGS], data);
		ev->map_caller = ev->top_caller = KMS_NO_SITE;
	} else {
		ev->kind = clamp_int(rd_signed(de->f[DF_KIND], data));
		ev->map_caller =
			decoder_site(d, rd(de->f[DF_MAP_CALLER], data));
		ev->top_caller =
			decoder_site(d, rd(de->f[DF_TOP_CALLER], data));
	}
	if (ev->ctx >= KMS_CTX_NR) {
		d->bad_records++;
		return -1;
	}
	return 1;
}

void decoder_free(struct decoder *d)
{
	htab_free(&d->cache);
}
