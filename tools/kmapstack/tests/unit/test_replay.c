// SPDX-License-Identifier: GPL-2.0
/* kmapstack unit tests: the replay, fed events directly */
#include <limits.h>
#include <string.h>

#include "replay.h"
#include "sites.h"
#include "unit.h"

static struct kms_event ev(int type, unsigned long long ts, int pid,
			   const char *site, unsigned long long addr, int depth,
			   int ctx)
{
	struct kms_event e;

	memset(&e, 0, sizeof(e));
	e.type = type;
	e.ts = ts;
	e.pid = pid;
	e.comm = "t";
	e.in_ctx = -1;
	e.caller = sites_intern(site, strlen(site));
	e.map_caller = e.top_caller = KMS_NO_SITE;
	e.addr = addr;
	e.depth = depth;
	e.ctx = ctx;
	return e;
}

#define PUSH(ts, pid, s, a, d) ev(KMS_EV_PUSH, ts, pid, s, a, d, 0)
#define POP(ts, pid, s, a, d) ev(KMS_EV_POP, ts, pid, s, a, d, 0)

static void feed(struct replay *r, struct kms_event e)
{
	replay_event(r, &e);
}

void test_replay(void)
{
	struct stats st;
	struct findings f;
	struct replay *r;

	sites_reset();
	stats_init(&st, 10, 0);
	findings_init(&f, 2);
	r = replay_new(&st, &f, 0, NULL);
	feed(r, PUSH(1, 1, "a", 0x1000, 1));
	feed(r, PUSH(2, 1, "b", 0x2000, 2));
	feed(r, POP(3, 1, "ua", 0x1000, 1));
	CHECK(f.total[KMS_MISMATCH] == 1 && f.n == 1);
	CHECK(f.v[0].source == FS_REPLAY && f.replay_only == 1);
	CHECK(f.v[0].nframes == 2 && f.v[0].frames[1].marked);
	CHECK(!strcmp(sites_name(f.v[0].map_caller), "a"));
	CHECK(!strcmp(sites_name(f.v[0].top_caller), "b"));
	feed(r, POP(4, 1, "ub", 0x2000, 0));
	CHECK(f.total[KMS_MISMATCH] == 1 && f.depth_mismatches == 0);
	/* counts of lost events as large as text may give: they saturate */
	replay_lost(r, 1, 5, LLONG_MAX - 1);
	replay_lost(r, 1, 6, LLONG_MAX - 1);
	CHECK(f.lost_events == LLONG_MAX && f.total_gaps == 2);
	/* unknown unmaps past the limit are counted, not kept */
	for (int i = 0; i < 5; i++)
		feed(r, POP(10 + i, 1, "u", 0x9000 + i, 0));
	CHECK(f.total[KMS_UNKNOWN] == 5 && f.n == 2 && f.dropped == 4);
	/* a depth the replay does not agree with */
	feed(r, PUSH(20, 1, "a", 0x1000, 1));
	feed(r, PUSH(21, 1, "a", 0x2000, 5));
	CHECK(f.depth_mismatches == 1);
	/* statistics */
	CHECK(st.pushes == 4 && st.pops == 7);
	CHECK(stats_site(&st, sites_intern("a", 1))->maps == 3);
	CHECK(stats_site(&st, sites_intern("a", 1))->hold.count == 1);
	CHECK(stats_site(&st, sites_intern("a", 1))->hold.max == 2);
	replay_finish(r);
	CHECK(findings_held(&f) == 1);
	CHECK(findings_violations(&f, 0) == 6);
	CHECK(findings_violations(&f, 1) == 7);
	replay_free(r);
	findings_free(&f);
	stats_free(&st);
	sites_reset();
}
