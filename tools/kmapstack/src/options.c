// SPDX-License-Identifier: GPL-2.0
/* kmapstack: the defaults of the options and the times they take */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options.h"

void kms_opts_default(struct kms_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->max_findings = 1000;
	o->top = 10;
	o->progress = isatty(STDERR_FILENO);
}

int kms_parse_time(const char *s, unsigned long long *ns)
{
	static const struct {
		const char *unit;
		double mul;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
	size_t digits = strspn(s, "0123456789."), points = 0;
	char *end;
	double v, mul;

	/* digits and one point at most: strtod would take 0x10 and 1e3 */
	for (size_t i = 0; i < digits; i++)
		points += s[i] == '.';
	if (!digits || points > 1)
		return -1;
	v = strtod(s, &end);
	if (end != s + digits)
		return -1;
	mul = *end ? 0 : 1e9; /* a bare number is seconds */
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit))
			mul = units[i].mul;
	if (!mul || v * mul > 4e18)
		return -1;
	*ns = (unsigned long long)(v * mul + 0.5);
	return 0;
}
