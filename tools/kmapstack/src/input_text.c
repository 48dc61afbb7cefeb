// SPDX-License-Identifier: GPL-2.0
/* kmapstack: trace text (trace-cmd report, /sys/kernel/tracing/trace) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input.h"
#include "progress.h"
#include "text_parse.h"
#include "xalloc.h"

/* lines longer than this are not trace lines */
#define MAX_LINE (64 * 1024)

void input_text_line(char *line, size_t len, struct replay *r,
		     struct input_info *info)
{
	struct text_line tl;

	if (len > MAX_LINE)
		return;
	switch (text_parse_line(line, &tl)) {
	case TL_EVENT:
		if (tl.ts_digits < info->ts_digits)
			info->ts_digits = tl.ts_digits;
		info->records++;
		info->last_ts = tl.ev.ts;
		replay_event(r, &tl.ev);
		break;
	case TL_LOST:
		/* the gap is before the next event of that CPU */
		replay_lost(r, tl.lost_cpu, info->last_ts + 1, tl.lost);
		break;
	case TL_BAD:
		info->bad_records++;
		break;
	default:
		break;
	}
}

#define READ_BUF (1 << 20)

/* the lines of src->fd, its head first; returns 0, or -1 on a read error */
static int text_lines(struct input_src *src, struct replay *r,
		      struct input_info *info)
{
	char *buf = xmalloc(READ_BUF + 1);
	size_t have = src->nhead, skip = 0;
	unsigned long long done = 0;
	struct progress prog;
	int ret = 0, eof = 0;

	memcpy(buf, src->head, src->nhead);
	progress_start(&prog, info->progress, info->path,
		       src->regular ? src->size : 0);
	while (!eof || have) {
		char *p = buf, *end, *nl;

		if (!eof && have < READ_BUF) {
			ssize_t n = read(src->fd, buf + have, READ_BUF - have);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				ret = -1;
				break;
			}
			eof = !n;
			have += (size_t)n;
			done += (unsigned long long)n;
			progress_update(&prog, done);
			if (!eof && have < READ_BUF)
				continue;
		}
		/* the last line may have no newline */
		if (eof && have && buf[have - 1] != '\n')
			buf[have++] = '\n';
		end = buf + have;
		while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
			*nl = '\0';
			if (!skip)
				input_text_line(p, (size_t)(nl - p), r, info);
			skip = 0;
			p = nl + 1;
		}
		if (p == buf && have == READ_BUF) {
			/* a line longer than the buffer: not a trace line */
			skip = 1;
			p = end;
		}
		have = (size_t)(end - p);
		memmove(buf, p, have);
	}
	progress_end(&prog);
	free(buf);
	return ret;
}

int input_text(struct input_src *src, struct replay *r, struct input_info *info,
	       char *err, size_t errlen)
{
	info->kind = INPUT_TEXT;
	info->ts_digits = 9;
	if (text_lines(src, r, info))
		return kms_fail(err, errlen, "%s: %s", info->path,
				strerror(errno));
	if (!info->records)
		return kms_fail(
			err, errlen, "%s: no kmap_stack events in this text%s",
			info->path,
			info->bad_records ? " (only malformed ones)" : "");
	/* the times are printed in ns: say when they are rounded */
	if (info->ts_digits == 6)
		fprintf(stderr,
			"kmapstack: warning: %s: its timestamps are in whole microseconds (6 decimals): the times printed in ns are rounded to microseconds; trace-cmd report -t or perf script --ns print ns\n",
			info->path);
	else if (info->ts_digits < 9)
		fprintf(stderr,
			"kmapstack: warning: %s: its timestamps have %d decimals: the times printed in ns are rounded\n",
			info->path, info->ts_digits);
	return 0;
}
