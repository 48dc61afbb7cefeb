/* SPDX-License-Identifier: GPL-2.0 */
/* kmapstack: a progress line on stderr, for long files on a terminal */
#ifndef KMS_PROGRESS_H
#define KMS_PROGRESS_H

/* files smaller than this get no progress line */
#define PROGRESS_MIN_BYTES (16ULL << 20)

struct progress {
	int on;
	const char *label;
	unsigned long long total;
	double last;
};

void progress_start(struct progress *p, int enabled, const char *label,
		    unsigned long long total);
void progress_update(struct progress *p, unsigned long long done);
void progress_end(struct progress *p);

#endif
