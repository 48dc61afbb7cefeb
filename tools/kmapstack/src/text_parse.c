// SPDX-License-Identifier: GPL-2.0
/* kmapstack: parsing one line of trace text */
#include <ctype.h>
#include <string.h>

#include "ksyms.h"
#include "sites.h"
#include "text_parse.h"

#define SPACE " \t\n\v\f\r"

/* a number in base 10, or 16 after 0x, of the n bytes at s; 0 if not one */
static int parse_ull(const char *s, size_t n, unsigned long long *v)
{
	int hex = n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	unsigned long long x = 0;

	if (!n)
		return 0;
	for (size_t i = hex ? 2 : 0; i < n; i++) {
		int c = tolower((unsigned char)s[i]);

		if (isdigit(c))
			x = x * (hex ? 16 : 10) + (unsigned long long)(c - '0');
		else if (hex && c >= 'a' && c <= 'f')
			x = x * 16 + (unsigned long long)(c - 'a' + 10);
		else
			return 0;
	}
	*v = x;
	return 1;
}

static int parse_int(const char *s, int *v)
{
	unsigned long long x;
	int neg = *s == '-';

	if (!parse_ull(s + neg, strlen(s + neg), &x) || x > (1u << 30))
		return 0;
	*v = neg ? -(int)x : (int)x;
	return 1;
}

/* the digits at p as a count; -1 if there are none */
static long long parse_count(const char *p)
{
	unsigned long long n;

	return parse_ull(p, strspn(p, "0123456789"), &n) ? (long long)n : -1;
}

/* a call site as %pS prints it, without its "/0xsize"; 0 is none */
static int parse_site(char *s)
{
	char buf[512], *slash = strchr(s, '/');
	unsigned long long v;

	if (parse_ull(s, strlen(s), &v)) {
		if (!v)
			return KMS_NO_SITE;
		/* a bare address: --kallsyms may know it */
		if (ksyms_name(v, buf, sizeof(buf)))
			return sites_intern(buf, strlen(buf));
	}
	/* keep a " [module]" suffix */
	if (slash && memchr(s, '+', (size_t)(slash - s))) {
		char *e = slash + strcspn(slash, SPACE);

		memmove(slash, e, strlen(e) + 1);
	}
	return *s ? sites_intern(s, strlen(s)) : KMS_NO_SITE;
}

static int ctx_of(const char *s, int *ctx)
{
	for (*ctx = 0; *ctx < KMS_CTX_NR; ++*ctx)
		if (!strcmp(s, kms_ctx_name(*ctx)))
			return 1;
	return parse_int(s, ctx);
}

/* "atomic|forced", or a number */
static int flags_of(char *s, int *flags)
{
	char *w;

	*flags = 0;
	if (isdigit((unsigned char)*s))
		return parse_int(s, flags);
	while ((w = strsep(&s, "|"))) {
		if (!strcmp(w, "atomic"))
			*flags |= KMS_F_ATOMIC;
		else if (!strcmp(w, "forced"))
			*flags |= KMS_F_FORCED;
		else if (*w && !parse_int(w, flags))
			return 0;
	}
	return 1;
}

/* CPU:N [LOST M EVENTS], CPU:N [M EVENTS DROPPED], CPU:N [EVENTS DROPPED] */
static int parse_lost(char *line, struct text_line *out)
{
	long long cpu = parse_count(line + 4);
	char *b = strchr(line + 4, '['), *e = b ? strchr(b, ']') : NULL, *l;

	if (cpu < 0 || cpu > 1000000 || !e)
		return TL_OTHER;
	*e = '\0';
	out->lost_cpu = (int)cpu;
	l = strstr(b, "LOST ");
	if (l)
		out->lost = parse_count(l + 5);
	else if (strstr(b, "EVENTS DROPPED"))
		out->lost = parse_count(b + 1);
	else
		return TL_OTHER;
	return TL_LOST;
}

/* seconds.fraction (or plain ns) to ns; *digits: of the fraction */
static int parse_ts(const char *s, unsigned long long *ns, int *digits)
{
	const char *dot = strchr(s, '.');
	unsigned long long sec, frac = 0;
	size_t n;

	*digits = 9;
	if (!dot)
		return parse_ull(s, strlen(s), ns);
	/* the first 9 digits of the fraction */
	n = strnlen(dot + 1, 9);
	if (!parse_ull(s, (size_t)(dot - s), &sec) || sec > 18000000000ULL ||
	    (n && !parse_ull(dot + 1, n, &frac)))
		return 0;
	*digits = (int)n;
	for (size_t i = n; i < 9; i++)
		frac *= 10;
	*ns = sec * 1000000000ULL + frac;
	return 1;
}

/*
 * The latency flags: irqs-off, need-resched, hardirq/softirq, preempt,
 * [migrate]; the third tells the context (-2: not latency flags)
 */
static int latency_ctx(const char *s, size_t n)
{
	static const char flag[] = "zZhHs.";
	static const int ctx[] = { KMS_CTX_NMI,	    KMS_CTX_NMI,
				   KMS_CTX_HARDIRQ, KMS_CTX_HARDIRQ,
				   KMS_CTX_SOFTIRQ, KMS_CTX_TASK };
	const char *c;

	if (n < 4 || n > 6 || !strchr(".dDbBX", s[0]) ||
	    strspn(s, ".dDbBnNpPXhHsSzZ0123456789abcdef") < n)
		return -2;
	c = strchr(flag, s[2]);
	return c ? ctx[c - flag] : -2;
}

/* the last word of [p, *q): its length; *q moves to its start */
static size_t last_word(const char *p, const char **q)
{
	const char *e = *q;

	while (e > p && isspace((unsigned char)e[-1]))
		e--;
	for (*q = e; *q > p && !isspace((unsigned char)(*q)[-1]); --*q)
		;
	return (size_t)(e - *q);
}

/* "[cpu]" */
static int cpu_word(const char *t, size_t n, int *cpu)
{
	unsigned long long v;

	if (n < 3 || t[0] != '[' || t[n - 1] != ']' ||
	    !parse_ull(t + 1, n - 2, &v) || v >= 65536)
		return 0;
	*cpu = (int)v;
	return 1;
}

/* comm, set from [c, e) without the spaces around it, its last 16 bytes */
static void set_comm(struct text_line *out, const char *c, const char *e)
{
	size_t n;

	while (c < e && isspace((unsigned char)*c))
		c++;
	while (e > c && isspace((unsigned char)e[-1]))
		e--;
	n = (size_t)(e - c);
	if (n > sizeof(out->comm) - 1) {
		c += n - (sizeof(out->comm) - 1);
		n = sizeof(out->comm) - 1;
	}
	memcpy(out->comm, c, n);
	out->comm[n] = '\0';
}

/*
 * The part [p, end) before the timestamp: "comm-pid [cpu] lat",
 * "comm-pid [cpu]", "comm-pid cpulat" (trace-cmd report -l),
 * "comm-pid (tgid) [cpu] lat"; perf script's "comm tid [cpu]" and
 * "comm pid/tid [cpu]".
 */
static int parse_header(const char *p, const char *end, struct text_line *out)
{
	const char *q = end, *e, *dash, *c;
	size_t n = last_word(p, &q), i = 0;
	unsigned long long v;
	int lc;

	out->ev.in_ctx = -1;
	if (!n)
		return 0;
	if (!cpu_word(q, n, &out->ev.cpu)) {
		lc = latency_ctx(q, n);
		if (lc >= -1) {
			out->ev.in_ctx = lc;
			n = last_word(p, &q);
			if (!cpu_word(q, n, &out->ev.cpu))
				return 0;
		} else {
			/* "0d.h1." : the CPU, then the latency flags */
			while (i < n && isdigit((unsigned char)q[i]))
				i++;
			lc = latency_ctx(q + i, n - i);
			if (!i || lc < -1 || !parse_ull(q, i, &v) || v >= 65536)
				return 0;
			out->ev.in_ctx = lc;
			out->ev.cpu = (int)v;
		}
	}
	/* an optional (tgid), then comm-pid */
	e = q;
	while (e > p && isspace((unsigned char)e[-1]))
		e--;
	if (e > p && e[-1] == ')') {
		while (e > p && e[-1] != '(')
			e--;
		if (e == p)
			return 0;
		e--;
		while (e > p && isspace((unsigned char)e[-1]))
			e--;
	}
	dash = e;
	while (dash > p && isdigit((unsigned char)dash[-1]))
		dash--;
	if (dash == e || dash == p ||
	    !parse_ull(dash, (size_t)(e - dash), &v) || v > 0x7fffffff)
		return 0;
	c = dash - 1;
	if (*c == '/') {
		/* pid/tid: the pid before the slash */
		while (c > p && isdigit((unsigned char)c[-1]))
			c--;
		if (c == dash - 1 || c == p || c[-1] != ' ')
			return 0;
	} else if (*c != '-' && *c != ' ') {
		return 0;
	}
	out->ev.pid = (int)v;
	set_comm(out, p, c);
	return 1;
}

/* in the order of enum kms_ev_type */
static const char *const tags[] = { "kmap_push:", "kmap_pop:",
				    "kmap_violation:" };

/*
 * The event name, after the timestamp's ':' and before the fields:
 *   1234.567890: kmap_push:              trace-cmd report, ftrace
 *   1234.567890: (+1000)  kmap_push:     trace-cmd report --ts-diff
 *   1234.567890: kmap_stack:kmap_push:   perf script
 * Returns where the timestamp's ':' is, or NULL; *body after the name.
 */
static char *find_tag(char *line, int *type, char **body)
{
	for (int i = 0; i < 3; i++) {
		for (char *t = line; (t = strstr(t, tags[i])); t++) {
			char *q = t;

			if (q - line >= 11 &&
			    !strncmp(q - 11, "kmap_stack:", 11))
				q -= 11;
			if (q == line || q[-1] != ' ')
				continue;
			while (q > line && q[-1] == ' ')
				q--;
			if (q > line && q[-1] == ')') {
				/* --ts-diff: "(+1000)" */
				while (q > line && q[-1] != '(')
					q--;
				if (q == line || q[0] != '+')
					continue;
				q--;
				while (q > line && q[-1] == ' ')
					q--;
			}
			if (q == line || q[-1] != ':')
				continue;
			*type = i;
			*body = t + strlen(tags[i]);
			return q - 1;
		}
	}
	return NULL;
}

enum { K_CALLER, K_ADDR, K_PFN, K_DEPTH, K_CTX, K_FLAGS, K_KIND, K_MAP, K_TOP };

/* in the order of the K_ constants */
static const char *const keys[] = { "caller", "addr",	   "pfn",
				    "depth",  "ctx",	   "flags",
				    "kind",   "mapped_at", "top" };

#define HAVE(k) (1u << (k))
#define NKEYS (int)(sizeof(keys) / sizeof(keys[0]))

/* the fields every event must have; and flags, or a violation's kind */
#define NEED (HAVE(K_CALLER) | HAVE(K_ADDR) | HAVE(K_DEPTH) | HAVE(K_CTX))

/* field k of ev from its value: 1, or 0 if the value is not one */
static int set_field(struct kms_event *ev, int k, char *val)
{
	switch (k) {
	case K_CALLER:
		ev->caller = parse_site(val);
		return 1;
	case K_ADDR:
		return parse_ull(val, strlen(val), &ev->addr);
	case K_PFN:
		return parse_ull(val, strlen(val), &ev->pfn);
	case K_DEPTH:
		return parse_int(val, &ev->depth);
	case K_CTX:
		return ctx_of(val, &ev->ctx) && ev->ctx >= 0 &&
		       ev->ctx < KMS_CTX_NR;
	case K_FLAGS:
		return flags_of(val, &ev->flags);
	case K_KIND:
		ev->kind = kms_kind_from_name(val);
		return ev->kind || parse_int(val, &ev->kind);
	case K_MAP:
		ev->map_caller = parse_site(val);
		return 1;
	default:
		ev->top_caller = parse_site(val);
		return 1;
	}
}

int text_parse_line(char *line, struct text_line *out)
{
	char *tag, *body, *ts;
	unsigned int have = 0, need;
	int type = 0;

	memset(out, 0, sizeof(*out));
	if (!strncmp(line, "CPU:", 4))
		return parse_lost(line, out);
	tag = find_tag(line, &type, &body);
	if (!tag)
		return TL_OTHER;
	/* the timestamp ends at that ':' */
	*tag = '\0';
	for (ts = tag; ts > line && !isspace((unsigned char)ts[-1]); ts--)
		;
	if (!parse_ts(ts, &out->ev.ts, &out->ts_digits) ||
	    !parse_header(line, ts, out))
		return TL_BAD;
	out->ev.type = type;
	out->ev.comm = out->comm;
	out->ev.caller = out->ev.map_caller = out->ev.top_caller = KMS_NO_SITE;
	/* key=value ...; fields added at the end of the ABI are ignored */
	for (;;) {
		char *key = body + strspn(body, SPACE), *val, *m, c;
		int k = 0;

		if (!*key)
			break;
		val = key + strcspn(key, "=" SPACE);
		if (*val != '=')
			return TL_BAD;
		*val++ = '\0';
		body = val + strcspn(val, SPACE);
		/* a " [module]" after the value is part of it */
		m = body + strspn(body, " ");
		if (*m == '[') {
			m += strcspn(m, "]" SPACE);
			if (*m == ']')
				body = m + 1;
		}
		while (k < NKEYS && strcmp(key, keys[k]))
			k++;
		if (k == NKEYS)
			continue;
		c = *body;
		*body = '\0';
		if (!set_field(&out->ev, k, val))
			return TL_BAD;
		*body = c;
		have |= HAVE(k);
	}
	need = NEED | HAVE(type == KMS_EV_VIOLATION ? K_KIND : K_FLAGS);
	return (have & need) == need ? TL_EVENT : TL_BAD;
}
