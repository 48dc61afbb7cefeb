#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""earlier-bugs.py TREE NAME: put one of the earlier series' bugs back into TREE.

Each mutant restores the shape of code an earlier version of the series had,
on the current series' source, so that the KUnit case written for that bug
can be seen to fail (scripts/test-mutants.sh). A mutant whose code is no
longer found in the tree is an error: the series changed, update it here.

  nested  the slow path filled the entry, saved its stack trace, and only
          then raised the depth: a mapping made while the trace is saved
          (the page allocator clears pages through kmap_local_page() with
          init_on_alloc) overwrote the entry being filled
  oops    a task killed by an oops got the task-exit check (and a second,
          misleading report) instead of having its shadow forgotten
  cross   an interrupt unmapping what the context it interrupted mapped
          removed the entry from that context's stack
  nmi     (third series) the end of an NMI was not checked: a mapping an
          NMI handler leaked was reported by nothing
"""
import sys

MUTANTS = {
    "nested": [("mm/kmap_stack/core.c", """	WRITE_ONCE(ks->addr[depth], 0);
	barrier();
	WRITE_ONCE(ks->depth, depth + 1);
	barrier();
	ks->ip[depth] = ip;
	ks->ts[depth] = jiffies;
	/*""", """	WRITE_ONCE(ks->addr[depth], page | flags);
	ks->ip[depth] = ip;
	ks->ts[depth] = jiffies;
	/*"""), ("mm/kmap_stack/core.c", """	barrier();
	WRITE_ONCE(ks->addr[depth], page | flags);

	if (unlikely(kmap_stack_total(ctx)""", """	barrier();
	WRITE_ONCE(ks->depth, depth + 1);

	if (unlikely(kmap_stack_total(ctx)""")],
    "oops": [("mm/kmap_stack/core.c", """	struct kmap_stack *ks = &current->kmap_stack;

	ks->overflow = 0;
	WRITE_ONCE(ks->depth, 0);
}""", """	kmap_stack_check(KMAP_STACK_LEAK_EXIT, KMAP_STACK_CTX_TASK);
}""")],
    "cross": [("mm/kmap_stack/core.c", """		r.kind = KMAP_STACK_CROSS_CONTEXT;
		r.entry_ks = other;
		r.entry = i;
		r.entry_ctx = c;
		kmap_stack_report(&r);""", """		r.kind = KMAP_STACK_CROSS_CONTEXT;
		r.entry_ks = other;
		r.entry = i;
		r.entry_ctx = c;
		kmap_stack_report(&r);
		kmap_stack_remove(other, i);""")],
    "nmi": [("mm/kmap_stack/core.c", """	/* No NMI runs on this CPU now: what its stack holds, one leaked */
	kmap_stack_check(KMAP_STACK_LEAK_NMI, KMAP_STACK_CTX_NMI);
""", "")],
}


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in MUTANTS:
        sys.exit("usage: earlier-bugs.py TREE %s" % "|".join(MUTANTS))
    tree, name = sys.argv[1], sys.argv[2]
    for path, old, new in MUTANTS[name]:
        p = "%s/%s" % (tree, path)
        with open(p) as f:
            s = f.read()
        if s.count(old) != 1:
            sys.exit("earlier-bugs.py: mutant %s: its code is not found once in %s "
                     "(the series changed: update scripts/mutants/earlier-bugs.py)"
                     % (name, path))
        with open(p, "w") as f:
            f.write(s.replace(old, new))


if __name__ == "__main__":
    main()
