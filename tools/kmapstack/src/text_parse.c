// SPDX-License-Identifier: GPL-2.0
/* kmapstack: parsing one line of trace text */
#include <ctype.h>
#include <string.h>

#include "ksyms.h"
#include "sites.h"
#include "text_parse.h"

struct span {
	const char *p;
	size_t n;
};

static int span_eq(struct span s, const char *lit)
{
	size_t n = strlen(lit);

	return s.n == n && !memcmp(s.p, lit, n);
}

static const char *find(const char *p, const char *end, const char *lit)
{
	return memmem(p, (size_t)(end - p), lit, strlen(lit));
}

/* an unsigned number in base 10 or 16 (0x); returns 0 if not one */
static int parse_ull(struct span s, unsigned long long *v)
{
	unsigned long long x = 0;
	size_t i = 0;
	int base = 10, digits = 0;

	if (s.n > 2 && s.p[0] == '0' && (s.p[1] == 'x' || s.p[1] == 'X')) {
		base = 16;
		i = 2;
	}
	for (; i < s.n; i++) {
		int d;
		char c = s.p[i];

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return 0;
		x = x * (unsigned long long)base + (unsigned long long)d;
		digits++;
	}
	if (!digits)
		return 0;
	*v = x;
	return 1;
}

static int parse_int(struct span s, int *v)
{
	unsigned long long x;
	int neg = 0;

	if (s.n && s.p[0] == '-') {
		neg = 1;
		s.p++;
		s.n--;
	}
	if (!parse_ull(s, &x) || x > (1u << 30))
		return 0;
	*v = neg ? -(int)x : (int)x;
	return 1;
}

/* a call site as %pS prints it: the "/0xsize" is dropped, 0 is none */
static int parse_site(struct span s)
{
	unsigned long long v;
	const char *slash;
	size_t n = s.n;

	if (!s.n)
		return KMS_NO_SITE;
	if (parse_ull(s, &v)) {
		char buf[512];

		if (v == 0)
			return KMS_NO_SITE;
		/* a bare address: --kallsyms may know it */
		if (ksyms_name(v, buf, sizeof(buf)))
			return sites_intern(buf, strlen(buf));
	}
	slash = memchr(s.p, '/', s.n);
	if (slash && memchr(s.p, '+', (size_t)(slash - s.p))) {
		const char *e = slash + 1;

		while (e < s.p + s.n && !isspace((unsigned char)*e))
			e++;
		/* keep a " [module]" suffix */
		if (e < s.p + s.n) {
			static char buf[512];
			size_t a = (size_t)(slash - s.p);
			size_t b = (size_t)(s.p + s.n - e);

			if (a + b >= sizeof(buf))
				return sites_intern(s.p, a);
			memcpy(buf, s.p, a);
			memcpy(buf + a, e, b);
			return sites_intern(buf, a + b);
		}
		n = (size_t)(slash - s.p);
	}
	return sites_intern(s.p, n);
}

static int ctx_of(struct span s, int *ctx)
{
	for (int c = 0; c < KMS_CTX_NR; c++) {
		if (span_eq(s, kms_ctx_name(c))) {
			*ctx = c;
			return 1;
		}
	}
	return parse_int(s, ctx);
}

static int flags_of(struct span s, int *flags)
{
	size_t i = 0;

	*flags = 0;
	if (s.n && isdigit((unsigned char)s.p[0]))
		return parse_int(s, flags);
	while (i < s.n) {
		size_t j = i;
		struct span w;

		while (j < s.n && s.p[j] != '|')
			j++;
		w = (struct span){ s.p + i, j - i };
		if (span_eq(w, "atomic"))
			*flags |= KMS_F_ATOMIC;
		else if (span_eq(w, "forced"))
			*flags |= KMS_F_FORCED;
		else if (w.n && !parse_int(w, flags))
			return 0;
		i = j + 1;
	}
	return 1;
}

/* The digits at p (before end) as a count; -1 if there are none */
static long long parse_count(const char *p, const char *end)
{
	struct span s = { .p = p };
	unsigned long long n;

	while (p < end && isdigit((unsigned char)*p))
		p++;
	s.n = (size_t)(p - s.p);
	return parse_ull(s, &n) ? (long long)n : -1;
}

/* CPU:N [LOST M EVENTS], CPU:N [M EVENTS DROPPED], CPU:N [EVENTS DROPPED] */
static int parse_lost(const char *p, const char *end, struct text_line *out)
{
	long long cpu = parse_count(p + 4, end);
	const char *b = find(p + 4, end, "["), *e, *l;

	e = b ? find(b, end, "]") : NULL;
	if (cpu < 0 || cpu > 1000000 || !e)
		return TL_OTHER;
	out->lost_cpu = (int)cpu;
	l = find(b, e, "LOST ");
	if (l)
		out->lost = parse_count(l + 5, e);
	else if (find(b, e, "EVENTS DROPPED"))
		out->lost = parse_count(b + 1, e);
	else
		return TL_OTHER;
	return TL_LOST;
}

/* seconds.fraction (or plain ns) to ns; *digits: of the fraction */
static int parse_ts(struct span s, unsigned long long *ns, int *digits)
{
	const char *dot = memchr(s.p, '.', s.n);
	struct span a, b;
	unsigned long long sec, frac = 0;

	*digits = 9;
	if (!dot)
		return parse_ull(s, ns);
	a = (struct span){ s.p, (size_t)(dot - s.p) };
	/* the first 9 digits of the fraction */
	b = (struct span){ dot + 1, s.n - a.n - 1 };
	b.n = b.n > 9 ? 9 : b.n;
	if (!parse_ull(a, &sec) || sec > 18000000000ULL)
		return 0;
	*digits = (int)b.n;
	if (b.n && !parse_ull(b, &frac))
		return 0;
	for (size_t i = b.n; i < 9; i++)
		frac *= 10;
	*ns = sec * 1000000000ULL + frac;
	return 1;
}

static int latency_ctx(struct span s)
{
	/* irqs-off, need-resched, hardirq/softirq, preempt, [migrate] */
	if (s.n < 4 || s.n > 6 || !strchr(".dDbBX", s.p[0]))
		return -2;
	for (size_t i = 0; i < s.n; i++)
		if (!strchr(".dDbBnNpPXhHsSzZ0123456789abcdef", s.p[i]))
			return -2;
	switch (s.p[2]) {
	case 'Z':
	case 'z':
		return KMS_CTX_NMI;
	case 'H':
	case 'h':
		return KMS_CTX_HARDIRQ;
	case 's':
		return KMS_CTX_SOFTIRQ;
	case '.':
		return KMS_CTX_TASK;
	default:
		return -2;
	}
}

/* the last whitespace-separated token of [p, *q), moving *q before it */
static struct span last_token(const char *p, const char **q)
{
	const char *e = *q, *b;

	while (e > p && isspace((unsigned char)e[-1]))
		e--;
	b = e;
	while (b > p && !isspace((unsigned char)b[-1]))
		b--;
	*q = b;
	return (struct span){ b, (size_t)(e - b) };
}

static int cpu_token(struct span t, int *cpu)
{
	unsigned long long v;

	if (t.n < 3 || t.p[0] != '[' || t.p[t.n - 1] != ']' ||
	    !parse_ull((struct span){ t.p + 1, t.n - 2 }, &v) || v >= 65536)
		return 0;
	*cpu = (int)v;
	return 1;
}

/* comm, set from [c, e) */
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

/* perf script: "comm pid [cpu]" or "comm pid/tid [cpu]"; tid is [t, e) */
static int perf_header(const char *p, const char *t, const char *e,
		       struct text_line *out)
{
	struct span ts = { t, (size_t)(e - t) };
	unsigned long long v;
	const char *c = t - 1;

	if (!parse_ull(ts, &v) || v > 0x7fffffff)
		return 0;
	if (*c == '/') {
		/* pid/tid: the pid before the slash */
		while (c > p && isdigit((unsigned char)c[-1]))
			c--;
		if (c == t - 1 || c == p || c[-1] != ' ')
			return 0;
	}
	out->ev.pid = (int)v;
	set_comm(out, p, c);
	return 1;
}

/*
 * The part before the timestamp: "comm-pid [cpu] lat", "comm-pid [cpu]",
 * "comm-pid cpulat" (trace-cmd report -l), "comm-pid (tgid) [cpu] lat".
 */
static int parse_header(const char *p, const char *end, struct text_line *out)
{
	const char *q = end, *e, *dash;
	struct span t = last_token(p, &q);
	unsigned long long v;
	size_t i = 0;
	int lc;

	out->ev.in_ctx = -1;
	if (!t.n)
		return 0;
	if (!cpu_token(t, &out->ev.cpu)) {
		lc = latency_ctx(t);
		if (lc >= -1) {
			out->ev.in_ctx = lc;
			if (!cpu_token(last_token(p, &q), &out->ev.cpu))
				return 0;
		} else {
			/* "0d.h1." : the CPU, then the latency flags */
			while (i < t.n && isdigit((unsigned char)t.p[i]))
				i++;
			lc = latency_ctx((struct span){ t.p + i, t.n - i });
			if (!i || lc < -1 ||
			    !parse_ull((struct span){ t.p, i }, &v) ||
			    v >= 65536)
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
	if (dash != e && dash > p && (dash[-1] == ' ' || dash[-1] == '/'))
		return perf_header(p, dash, e, out);
	if (dash == e || dash == p || dash[-1] != '-')
		return 0;
	if (!parse_ull((struct span){ dash, (size_t)(e - dash) }, &v) ||
	    v > 0x7fffffff)
		return 0;
	out->ev.pid = (int)v;
	set_comm(out, p, dash - 1);
	return 1;
}

static const struct {
	const char *tag;
	int type;
} tags[] = {
	{ "kmap_push:", KMS_EV_PUSH },
	{ "kmap_pop:", KMS_EV_POP },
	{ "kmap_violation:", KMS_EV_VIOLATION },
};

/*
 * The event name, after the timestamp's ':' and before the fields:
 *   1234.567890: kmap_push:              trace-cmd report, ftrace
 *   1234.567890: (+1000)  kmap_push:     trace-cmd report --ts-diff
 *   1234.567890: kmap_stack:kmap_push:   perf script
 * Returns where the timestamp's ':' is, or NULL; *body after the name.
 */
static const char *find_tag(const char *line, const char *end, int *type,
			    const char **body)
{
	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		const char *p = line, *t, *q;

		while ((t = find(p, end, tags[i].tag))) {
			p = t + 1;
			q = t;
			if (q - line >= 11 &&
			    !memcmp(q - 11, "kmap_stack:", 11))
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
			*type = tags[i].type;
			*body = t + strlen(tags[i].tag);
			return q - 1;
		}
	}
	return NULL;
}

#define HAVE(f) (1u << (f))
enum { K_CALLER, K_ADDR, K_PFN, K_DEPTH, K_CTX, K_FLAGS, K_KIND, K_MAP, K_TOP };

int text_parse_line(const char *line, size_t len, struct text_line *out)
{
	const char *end = line + len, *tag, *body = NULL, *tsp;
	struct span ts;
	unsigned int have = 0, need;
	int type = 0;

	memset(out, 0, sizeof(*out));
	while (end > line && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	if (end - line >= 4 && !memcmp(line, "CPU:", 4))
		return parse_lost(line, end, out);
	tag = find_tag(line, end, &type, &body);
	if (!tag)
		return TL_OTHER;
	/* the timestamp ends at that ':' */
	tsp = tag;
	while (tsp > line && !isspace((unsigned char)tsp[-1]))
		tsp--;
	ts = (struct span){ tsp, (size_t)(tag - tsp) };
	if (!parse_ts(ts, &out->ev.ts, &out->ts_digits) ||
	    !parse_header(line, tsp, out))
		return TL_BAD;
	out->ev.type = type;
	out->ev.comm = out->comm;
	out->ev.caller = out->ev.map_caller = out->ev.top_caller = KMS_NO_SITE;
	/* key=value ... ; a value may be followed by " [module]" */
	while (body < end) {
		const char *k, *eq, *v, *ve, *m;
		struct span key, val;

		while (body < end && isspace((unsigned char)*body))
			body++;
		if (body >= end)
			break;
		k = body;
		eq = k;
		while (eq < end && *eq != '=' && !isspace((unsigned char)*eq))
			eq++;
		if (eq >= end || *eq != '=')
			return TL_BAD;
		v = eq + 1;
		ve = v;
		while (ve < end && !isspace((unsigned char)*ve))
			ve++;
		/* a " [module]" after the value is part of it */
		m = ve;
		while (m < end && *m == ' ')
			m++;
		if (m < end && *m == '[') {
			while (m < end && *m != ']' &&
			       !isspace((unsigned char)*m))
				m++;
			if (m < end && *m == ']')
				ve = m + 1;
		}
		body = ve;
		key = (struct span){ k, (size_t)(eq - k) };
		val = (struct span){ v, (size_t)(ve - v) };
		if (span_eq(key, "caller")) {
			out->ev.caller = parse_site(val);
			have |= HAVE(K_CALLER);
		} else if (span_eq(key, "addr")) {
			if (!parse_ull(val, &out->ev.addr))
				return TL_BAD;
			have |= HAVE(K_ADDR);
		} else if (span_eq(key, "pfn")) {
			if (!parse_ull(val, &out->ev.pfn))
				return TL_BAD;
			have |= HAVE(K_PFN);
		} else if (span_eq(key, "depth")) {
			if (!parse_int(val, &out->ev.depth))
				return TL_BAD;
			have |= HAVE(K_DEPTH);
		} else if (span_eq(key, "ctx")) {
			if (!ctx_of(val, &out->ev.ctx) || out->ev.ctx < 0 ||
			    out->ev.ctx >= KMS_CTX_NR)
				return TL_BAD;
			have |= HAVE(K_CTX);
		} else if (span_eq(key, "flags")) {
			if (!flags_of(val, &out->ev.flags))
				return TL_BAD;
			have |= HAVE(K_FLAGS);
		} else if (span_eq(key, "kind")) {
			char buf[32];

			if (val.n >= sizeof(buf))
				return TL_BAD;
			memcpy(buf, val.p, val.n);
			buf[val.n] = '\0';
			out->ev.kind = kms_kind_from_name(buf);
			if (!out->ev.kind && !parse_int(val, &out->ev.kind))
				return TL_BAD;
			have |= HAVE(K_KIND);
		} else if (span_eq(key, "mapped_at")) {
			out->ev.map_caller = parse_site(val);
			have |= HAVE(K_MAP);
		} else if (span_eq(key, "top")) {
			out->ev.top_caller = parse_site(val);
			have |= HAVE(K_TOP);
		}
		/* fields added at the end of the ABI are ignored */
	}
	if (type == KMS_EV_VIOLATION)
		need = HAVE(K_KIND) | HAVE(K_CALLER) | HAVE(K_ADDR) |
		       HAVE(K_DEPTH) | HAVE(K_CTX);
	else
		need = HAVE(K_CALLER) | HAVE(K_ADDR) | HAVE(K_DEPTH) |
		       HAVE(K_CTX) | HAVE(K_FLAGS);
	if ((have & need) != need)
		return TL_BAD;
	return TL_EVENT;
}
