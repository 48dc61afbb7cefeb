// SPDX-License-Identifier: GPL-2.0
/* kmapstack: the event filters */
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "xalloc.h"

/* the comma-separated items of list, each given to add(); -1 if one fails */
static int each_item(struct kms_filter *f, const char *list,
		     int (*add)(struct kms_filter *f, const char *s, size_t n))
{
	const char *p = list;

	if (!*p)
		return -1;
	for (;;) {
		const char *c = strchr(p, ',');
		size_t n = c ? (size_t)(c - p) : strlen(p);

		if (!n || add(f, p, n))
			return -1;
		if (!c)
			return 0;
		p = c + 1;
	}
}

/* a decimal number of s[0..n) no larger than max */
static int number(const char *s, size_t n, long max, long *v)
{
	long x = 0;

	if (!n || n > 10 || strspn(s, "0123456789") < n)
		return -1;
	for (size_t i = 0; i < n; i++)
		x = x * 10 + (s[i] - '0');
	if (x > max)
		return -1;
	*v = x;
	return 0;
}

static int add_pid(struct kms_filter *f, const char *s, size_t n)
{
	long v;

	if (number(s, n, 0x7fffffff, &v))
		return -1;
	f->pids = xrealloc(f->pids, sizeof(int) * (size_t)(f->npids + 1));
	f->pids[f->npids++] = (int)v;
	return 0;
}

static int add_comm(struct kms_filter *f, const char *s, size_t n)
{
	f->comms = xrealloc(f->comms, sizeof(char *) * (size_t)(f->ncomms + 1));
	/* the kernel keeps 15 bytes of a task's name */
	f->comms[f->ncomms++] = xstrndup(s, n > 15 ? 15 : n);
	return 0;
}

static int add_cpu(struct kms_filter *f, const char *s, size_t n)
{
	const char *dash = memchr(s, '-', n);
	size_t k = dash ? (size_t)(dash - s) : n;
	long a, b;

	/* A-B, or A read twice */
	if (number(s, k, FILTER_MAX_CPUS - 1, &a) ||
	    number(dash ? dash + 1 : s, dash ? n - k - 1 : k,
		   FILTER_MAX_CPUS - 1, &b) ||
	    b < a)
		return -1;
	if (!f->cpus)
		f->cpus = xcalloc(FILTER_MAX_CPUS / 8, 1);
	for (long c = a; c <= b; c++)
		f->cpus[c >> 3] |= (unsigned char)(1u << (c & 7));
	return 0;
}

int filter_add_pids(struct kms_filter *f, const char *list)
{
	f->active = f->by_task = 1;
	return each_item(f, list, add_pid);
}

int filter_add_comms(struct kms_filter *f, const char *list)
{
	f->active = f->by_task = 1;
	return each_item(f, list, add_comm);
}

int filter_add_cpus(struct kms_filter *f, const char *list)
{
	f->active = f->by_task = 1;
	return each_item(f, list, add_cpu);
}

void filter_free(struct kms_filter *f)
{
	for (int i = 0; i < f->ncomms; i++)
		free(f->comms[i]);
	free(f->comms);
	free(f->pids);
	free(f->cpus);
	memset(f, 0, sizeof(*f));
}

int filter_time_match(const struct kms_filter *f, unsigned long long ts)
{
	return (!f->have_since || ts >= f->since) &&
	       (!f->have_until || ts <= f->until);
}

int filter_task_match(const struct kms_filter *f, const struct kms_event *ev)
{
	const char *comm = ev->comm;
	int pid_ok = !f->npids, comm_ok = !f->ncomms;

	for (int i = 0; i < f->npids; i++)
		pid_ok |= f->pids[i] == ev->pid;
	if (!filter_cpu_match(f, ev->cpu) || !pid_ok)
		return 0;
	/* the comm asked only when --comm is set */
	if (!comm && f->ncomms && ev->comm_of)
		comm = ev->comm_of(ev->comm_priv, ev->pid);
	for (int i = 0; comm && i < f->ncomms; i++)
		comm_ok |= !strncmp(f->comms[i], comm, 15);
	return comm_ok;
}
