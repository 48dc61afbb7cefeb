// SPDX-License-Identifier: GPL-2.0
/* kmapstack unit tests: the parser of trace text lines */
#include <stdio.h>
#include <string.h>

#include "sites.h"
#include "text_parse.h"
#include "unit.h"

static int parse(const char *line, struct text_line *tl)
{
	static char buf[1024];

	snprintf(buf, sizeof(buf), "%s", line);
	return text_parse_line(buf, tl);
}

void test_text_parse(void)
{
	struct text_line tl;

	sites_reset();
	/* /sys/kernel/tracing/trace, hardirq flags */
	CHECK(parse("            bash-100     [001] d.h1.  1234.567890: "
		    "kmap_push: caller=foo+0x10/0x40 addr=0xffff888000001000 "
		    "pfn=0x1001 depth=2 ctx=hardirq flags=atomic\n",
		    &tl) == TL_EVENT);
	CHECK(tl.ev.type == KMS_EV_PUSH);
	CHECK(tl.ev.cpu == 1 && tl.ev.pid == 100);
	CHECK(!strcmp(tl.comm, "bash"));
	CHECK(tl.ev.ts == 1234567890000ULL);
	CHECK(tl.ev.in_ctx == KMS_CTX_HARDIRQ);
	CHECK(!strcmp(sites_name(tl.ev.caller), "foo+0x10"));
	CHECK(tl.ev.addr == 0xffff888000001000ULL && tl.ev.pfn == 0x1001);
	CHECK(tl.ev.depth == 2 && tl.ev.ctx == KMS_CTX_HARDIRQ);
	CHECK(tl.ev.flags == KMS_F_ATOMIC);

	/* trace-cmd report: no flags, comm with spaces and dashes */
	CHECK(parse("  kw/u8:2-my wq-77   [000]     5.000000100: "
		    "kmap_pop:             caller=bar+0x8 addr=0x2000 pfn=0x2 "
		    "depth=0 ctx=task flags=atomic|forced",
		    &tl) == TL_EVENT);
	CHECK(tl.ev.type == KMS_EV_POP && tl.ev.pid == 77);
	CHECK(!strcmp(tl.comm, "kw/u8:2-my wq"));
	CHECK(tl.ev.in_ctx == -1 && tl.ev.ts == 5000000100ULL);
	CHECK(tl.ev.flags == (KMS_F_ATOMIC | KMS_F_FORCED));

	/* trace-cmd report --ts-diff, with -t */
	CHECK(parse("            bash-100   [000]     0.000002000: (+1000)  "
		    "kmap_push:            caller=inner_map+0x20 "
		    "addr=0xffff888000002000 pfn=0x2 depth=2 ctx=task flags=",
		    &tl) == TL_EVENT);
	CHECK(tl.ev.pid == 100 && tl.ev.ts == 2000 && tl.ev.depth == 2);
	/* trace-cmd report -r kmap_pop / -R: the fields as numbers */
	CHECK(parse("            bash-100   [000]     0.000003: kmap_pop:     "
		    "        caller=outer_unmap+0x8 addr=0xffff888000001000 "
		    "pfn=0x1 depth=1 ctx=2 flags=3",
		    &tl) == TL_EVENT);
	CHECK(tl.ev.ctx == KMS_CTX_HARDIRQ &&
	      tl.ev.flags == (KMS_F_ATOMIC | KMS_F_FORCED));

	/* perf script: comm tid [cpu] time: sys:event: fields */
	CHECK(parse("     Web Content  4242 [003] 81234.567890:       "
		    "kmap_stack:kmap_push: caller=ext4_readdir+0x1a4 "
		    "addr=0xffff888012345000 pfn=0x12345 depth=1 ctx=task "
		    "flags=",
		    &tl) == TL_EVENT);
	CHECK(tl.ev.type == KMS_EV_PUSH && tl.ev.pid == 4242 &&
	      tl.ev.cpu == 3 && tl.ev.in_ctx == -1);
	CHECK(!strcmp(tl.comm, "Web Content"));
	CHECK(tl.ev.ts == 81234567890000ULL);
	CHECK(!strcmp(sites_name(tl.ev.caller), "ext4_readdir+0x1a4"));
	/* perf script -F +pid: pid/tid */
	CHECK(parse("  kworker/1:2-ev  4000/4011 [001]    12.000001:  "
		    "kmap_stack:kmap_violation: kind=mismatch caller=b+0x8 "
		    "addr=0x1000 mapped_at=a+0x10 top=c+0x20 depth=2 ctx=task",
		    &tl) == TL_EVENT);
	CHECK(tl.ev.type == KMS_EV_VIOLATION && tl.ev.pid == 4011 &&
	      !strcmp(tl.comm, "kworker/1:2-ev") && tl.ev.kind == 1);
	/* the event name must follow the timestamp */
	CHECK(parse("bash-100 [000] 1.0: print: kmap_push: caller=x+0x1 "
		    "addr=0x1 pfn=0x1 depth=1 ctx=task flags=",
		    &tl) != TL_EVENT);
	CHECK(parse("bash-100 [000] 1.0: (+12 kmap_push: caller=x+0x1", &tl) ==
	      TL_OTHER);

	/* trace-cmd report -l: the CPU glued to the flags */
	CHECK(parse("    bash-100     1d.s2.     0.000003: kmap_push: "
		    "caller=x+0x1 addr=0x3000 pfn=0x3 depth=1 ctx=softirq flags=",
		    &tl) == TL_EVENT);
	CHECK(tl.ev.cpu == 1 && tl.ev.in_ctx == KMS_CTX_SOFTIRQ);
	CHECK(tl.ev.flags == 0);

	/* record-tgid column, NMI, module symbol */
	CHECK(parse("   <...>-42  (   40) [003] dNZ1.   7.5: kmap_violation: "
		    "kind=cross_context caller=m_unmap+0x4/0x10 [mymod] "
		    "addr=0x4000 mapped_at=m_map+0x8/0x10 [mymod] top=0x0 "
		    "depth=3 ctx=nmi",
		    &tl) == TL_EVENT);
	CHECK(tl.ev.type == KMS_EV_VIOLATION && tl.ev.pid == 42);
	CHECK(tl.ev.cpu == 3 && tl.ev.in_ctx == KMS_CTX_NMI);
	CHECK(tl.ev.kind == 3 && tl.ev.ts == 7500000000ULL);
	CHECK(!strcmp(sites_name(tl.ev.caller), "m_unmap+0x4 [mymod]"));
	CHECK(!strcmp(sites_name(tl.ev.map_caller), "m_map+0x8 [mymod]"));
	CHECK(tl.ev.top_caller == KMS_NO_SITE);

	/* lost events, both spellings */
	CHECK(parse("CPU:2 [LOST 1234 EVENTS]", &tl) == TL_LOST);
	CHECK(tl.lost_cpu == 2 && tl.lost == 1234);
	CHECK(parse("CPU:0 [57 EVENTS DROPPED]\n", &tl) == TL_LOST);
	CHECK(tl.lost_cpu == 0 && tl.lost == 57);
	CHECK(parse("CPU:5 [EVENTS DROPPED]", &tl) == TL_LOST);
	CHECK(tl.lost_cpu == 5 && tl.lost == -1);

	/* other lines */
	CHECK(parse("# tracer: nop", &tl) == TL_OTHER);
	CHECK(parse("cpus=2", &tl) == TL_OTHER);
	CHECK(parse("bash-1 [000] 1.0: sched_switch: prev=a", &tl) == TL_OTHER);
	CHECK(parse("", &tl) == TL_OTHER);

	/* malformed kmap lines */
	CHECK(parse("bash-1 [000] 1.0: kmap_push: caller=f+0x1 addr=zz "
		    "pfn=1 depth=1 ctx=task flags=",
		    &tl) == TL_BAD);
	CHECK(parse("bash-1 [000] 1.0: kmap_push: caller=f+0x1", &tl) ==
	      TL_BAD);
	CHECK(parse("garbage: kmap_pop: caller=f", &tl) == TL_BAD);
	CHECK(parse("bash-1 [000] 1.0: kmap_pop: caller=f+0x1 addr=0x1 "
		    "pfn=1 depth=1 ctx=bogus flags=",
		    &tl) == TL_BAD);
	/* a field added at the end of the ABI is ignored */
	CHECK(parse("bash-1 [000] 1.0: kmap_pop: caller=f+0x1 addr=0x1 "
		    "pfn=1 depth=1 ctx=task flags= newfield=7",
		    &tl) == TL_EVENT);
	sites_reset();
}
