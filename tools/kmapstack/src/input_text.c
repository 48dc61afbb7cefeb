// SPDX-License-Identifier: GPL-2.0
/* kmapstack: trace text (trace-cmd report, /sys/kernel/tracing/trace) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "input.h"
#include "progress.h"
#include "text_parse.h"

/* lines longer than this are not trace lines */
#define MAX_LINE (64 * 1024)

static void text_line(const char *line, size_t len, struct replay *r,
		      struct input_info *info)
{
	struct text_line tl;

	info->lines++;
	if (len > MAX_LINE)
		return;
	switch (text_parse_line(line, len, &tl)) {
	case TL_EVENT:
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

static int text_done(const char *path, struct input_info *info, char *err,
		     size_t errlen)
{
	if (!info->records) {
		snprintf(err, errlen, "%s: no kmap_stack events in this text%s",
			 path,
			 info->bad_records ? " (only malformed ones)" : "");
		return -1;
	}
	return 0;
}

int input_text_buffer(const char *buf, size_t len, struct replay *r,
		      struct input_info *info, char *err, size_t errlen)
{
	const char *p = buf, *end = buf + len;

	info->kind = INPUT_TEXT;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;

		text_line(p, (size_t)(e - p), r, info);
		p = nl ? nl + 1 : end;
	}
	return text_done("<buffer>", info, err, errlen);
}

int input_text(const char *path, struct replay *r, struct input_info *info,
	       char *err, size_t errlen)
{
	FILE *fp = fopen(path, "r");
	struct progress prog;
	struct stat st;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	unsigned long long done = 0;

	info->kind = INPUT_TEXT;
	if (!fp) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	progress_start(&prog, info->progress, path,
		       fstat(fileno(fp), &st) ? 0 :
						(unsigned long long)st.st_size);
	while ((n = getline(&line, &cap, fp)) > 0) {
		text_line(line, (size_t)n, r, info);
		done += (unsigned long long)n;
		if (!(info->lines & 0xffff))
			progress_update(&prog, done);
	}
	progress_end(&prog);
	free(line);
	if (ferror(fp)) {
		snprintf(err, errlen, "%s: read error", path);
		fclose(fp);
		return -1;
	}
	fclose(fp);
	return text_done(path, info, err, errlen);
}
