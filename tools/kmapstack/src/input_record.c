// SPDX-License-Identifier: GPL-2.0
/* kmapstack: one tep_record from a binary input into the replay */
#include <event-parse.h>

#include "input_record.h"

void input_record(struct decoder *dec, struct replay *r,
		  struct input_info *info, struct tep_record *rec, int cpu)
{
	struct kms_event ev;
	int ret;

	if (rec->missed_events)
		replay_lost(r, cpu, rec->ts,
			    rec->missed_events > 0 ? rec->missed_events : -1);
	ret = decoder_decode(dec, rec, &ev);
	if (ret > 0) {
		info->records++;
		replay_event(r, &ev);
	} else if (ret < 0) {
		info->bad_records++;
	}
}
