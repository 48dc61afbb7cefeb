// SPDX-License-Identifier: GPL-2.0
/* kmapstack: the store of findings, bounded in detail, exact in count */
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"
#include "findings.h"

void findings_init(struct findings *f, int max)
{
	memset(f, 0, sizeof(*f));
	f->max = max;
}

uint64_t findings_group_of(const struct finding *x)
{
	/* kinds below 32, the input's index and the sites in their bits */
	return (uint64_t)x->kind << 58 | (uint64_t)(x->file & 0x3ff) << 48 |
	       (uint64_t)((x->map_caller + 1) & 0xffffff) << 24 |
	       (uint64_t)((x->caller + 1) & 0xffffff);
}

/* the finding in the scratch, not kept, counted in its group */
void findings_end(struct findings *f)
{
	uint64_t key = findings_group_of(&f->scratch);
	int i;

	if (!f->scratch_live)
		return;
	f->scratch_live = 0;
	i = htab_get(&f->dropped_of, key);
	if (i < 0) {
		i = f->ngroups++;
		f->groups = xgrow(f->groups, &f->cap_groups, i + 1,
				  sizeof(*f->groups));
		f->groups[i] = (struct dropped_group){ key, 0 };
		htab_add(&f->dropped_of, key, i);
	}
	f->groups[i].n++;
}

long long findings_dropped_like(const struct findings *f, uint64_t key)
{
	int i = htab_get(&f->dropped_of, key);

	return i < 0 ? 0 : f->groups[i].n;
}

int findings_shown(const struct findings *f, int kind)
{
	return !f->kinds || (f->kinds & (1u << kind));
}

int findings_add(struct findings *f, int kind)
{
	struct finding *x;

	f->total[kind]++;
	if (f->n >= f->max) {
		f->dropped++;
		findings_end(f);
		f->scratch_live = 1;
		free(f->scratch.frames);
		memset(&f->scratch, 0, sizeof(f->scratch));
		f->scratch.kind = kind;
		return -1;
	}
	f->v = xgrow(f->v, &f->cap, f->n + 1, sizeof(*f->v));
	x = &f->v[f->n];
	memset(x, 0, sizeof(*x));
	x->kind = kind;
	return f->n++;
}

struct finding *findings_get(struct findings *f, int idx)
{
	return idx < 0 || idx >= f->n ? &f->scratch : &f->v[idx];
}

void findings_add_frame(struct findings *f, int idx, const struct frame *fr)
{
	struct finding *x = findings_get(f, idx);

	if (idx < 0)
		return;
	/* doubled, not grown by one: a snapshot of a deep stack is linear */
	x->frames =
		xgrow(x->frames, &x->cap_frames, x->nframes + 1, sizeof(*fr));
	x->frames[x->nframes++] = *fr;
}

struct gap *findings_add_gap(struct findings *f)
{
	f->total_gaps++;
	if (f->ngaps >= f->max)
		return NULL;
	f->gaps = xgrow(f->gaps, &f->cap_gaps, f->ngaps + 1, sizeof(*f->gaps));
	memset(&f->gaps[f->ngaps], 0, sizeof(f->gaps[0]));
	return &f->gaps[f->ngaps++];
}

long long findings_violations(const struct findings *f, int strict)
{
	long long n = 0;

	for (int k = 1; k < KMS_KIND_NR; k++)
		if ((k != KMS_HELD_AT_END || strict) && findings_shown(f, k))
			n += f->total[k];
	return n;
}

long long findings_held(const struct findings *f)
{
	return f->total[KMS_HELD_AT_END];
}

void findings_free(struct findings *f)
{
	for (int i = 0; i < f->n; i++)
		free(f->v[i].frames);
	free(f->v);
	free(f->gaps);
	free(f->scratch.frames);
	free(f->groups);
	htab_free(&f->dropped_of);
	memset(f, 0, sizeof(*f));
}
