/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmapstack: one tep_record from a binary input (trace.dat or tracefs)
 * into the replay.
 */
#ifndef KMS_INPUT_RECORD_H
#define KMS_INPUT_RECORD_H

#include "decode.h"
#include "input.h"

/*
 * Mark the events the ring buffer lost before @rec on @cpu, then decode
 * @rec and replay it when it is a kmap_stack event; count it in @info.
 */
void input_record(struct decoder *dec, struct replay *r,
		  struct input_info *info, struct tep_record *rec, int cpu);

#endif
