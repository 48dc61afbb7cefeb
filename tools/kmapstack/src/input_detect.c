// SPDX-License-Identifier: GPL-2.0
/* kmapstack: tell a trace.dat from trace text from anything else */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input.h"

/* the first bytes of a trace.dat file (trace-cmd.dat(5)) */
static const char tracedat_magic[] = { 0x17, 0x08, 0x44, 't', 'r',
				       'a',  'c',  'i',	 'n', 'g' };

int input_detect(const char *path, char *err, size_t errlen)
{
	unsigned char buf[4096];
	struct stat st;
	ssize_t n;
	int fd, text = 1;

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		snprintf(err, errlen, "%s: is a directory", path);
		return -1;
	}
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (n == 0) {
		snprintf(err, errlen, "%s: empty file", path);
		return -1;
	}
	if ((size_t)n >= sizeof(tracedat_magic) &&
	    !memcmp(buf, tracedat_magic, sizeof(tracedat_magic)))
		return INPUT_TRACEDAT;
	for (ssize_t i = 0; i < n; i++) {
		unsigned char c = buf[i];

		/* text: no control characters but tab, CR, LF; UTF-8 ok */
		if (c == 0 || (c < 0x20 && c != '\t' && c != '\n' &&
			       c != '\r' && c != '\f')) {
			text = 0;
			break;
		}
	}
	if (!text) {
		snprintf(err, errlen,
			 "%s: not a trace.dat file nor trace text "
			 "(unknown format)",
			 path);
		return -1;
	}
	return INPUT_TEXT;
}
