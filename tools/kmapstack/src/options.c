// SPDX-License-Identifier: GPL-2.0
/* kmapstack: the defaults of the options and the times they take */
#include <ctype.h>
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

int kms_parse_time(const char *s, double bare, unsigned long long *ns)
{
	static const struct {
		const char *unit;
		double mul;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
	char *end;
	double v, mul;

	if (!*s || isspace((unsigned char)*s) || *s == '-' || *s == '+')
		return -1;
	v = strtod(s, &end);
	mul = *end ? 0 : bare;
	if (end == s || !(v >= 0))
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit))
			mul = units[i].mul;
	if (!mul || v * mul > 4e18)
		return -1;
	*ns = (unsigned long long)(v * mul + 0.5);
	return 0;
}
