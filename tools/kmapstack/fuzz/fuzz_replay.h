/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmapstack fuzz targets: the replay each input is fed to, made and torn
 * down as main() does, so each run starts from nothing.
 */
#ifndef KMS_FUZZ_REPLAY_H
#define KMS_FUZZ_REPLAY_H

#include "findings.h"
#include "input.h"
#include "replay.h"
#include "sites.h"
#include "stats.h"

struct fuzz_replay {
	struct input_info info;
	struct findings f;
	struct stats st;
	struct replay *r;
	char err[256];
};

static inline void fuzz_replay_begin(struct fuzz_replay *fr)
{
	fr->info = (struct input_info){ 0 };
	stats_init(&fr->st, 10, 0);
	findings_init(&fr->f, 100);
	fr->r = replay_new(&fr->st, &fr->f, 0, NULL);
}

static inline void fuzz_replay_end(struct fuzz_replay *fr)
{
	replay_free(fr->r);
	findings_free(&fr->f);
	stats_free(&fr->st);
	sites_reset();
}

#endif
