#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""kmapstack.py - the CONFIG_DEBUG_KMAP_STACK shadow stacks, with drgn.

Lists the kmap_local/kmap_atomic mappings every context holds, outermost
first: each CPU's softirq, hardirq and NMI stacks (the static per-CPU array
kmap_stack_irq[3] in mm/kmap_stack.c), then every task whose
task_struct::kmap_stack is not empty, with the symbolized call sites.

Usage (drgn 0.0.22 is in /usr/bin/python3's path, not every python3's):
  drgn -q -c vmcore -s vmlinux tools/drgn/kmapstack.py [-a] [-p PID | -c CPU]
  drgn -q tools/drgn/kmapstack.py            # the running kernel (/proc/kcore)
or, in a drgn session:  exec(open("tools/drgn/kmapstack.py").read())
                        kmapstack(prog, pid=97)

The vmcore must carry vmcoreinfo: QEMU '-device vmcoreinfo', the guest's
CONFIG_FW_CFG_SYSFS, and 'dump-guest-memory -p'.  Module symbols (e.g.
kmapbug_map_first [kmapbug]) are found from the module's kallsyms in memory.

Example:
  CPU 0 softirq  depth 0
  ...
  PID 97     kmapbug_holder   depth 3
      #0  ffff888005bd8000 pfn 5bd8     task    local          8724 ms ago  kmapbug_map_first+0x14 [kmapbug]
  ...
  58 tasks, 1 holding 3 mappings (depth > 0)
"""
import argparse
import sys

CTX_NAMES = ("task", "softirq", "hardirq", "nmi")
FLAG_NAMES = ("local", "atomic", "local,forced", "atomic,forced")


def _module_symbols(prog):
    """(start, end, name, module) of every module function, from kallsyms."""
    from drgn import cast
    from drgn.helpers.linux.list import list_for_each_entry

    syms = []
    try:
        mods = list_for_each_entry("struct module", prog["modules"].address_of_(), "list")
        for mod in mods:
            name = mod.name.string_().decode()
            ks = mod.kallsyms
            if not ks:
                continue
            strtab = ks.strtab
            for i in range(int(ks.num_symtab)):
                sym = ks.symtab[i]
                if int(sym.st_value) == 0 or int(sym.st_size) == 0:
                    continue
                sname = cast("char *", strtab + int(sym.st_name)).string_().decode()
                start = int(sym.st_value)
                syms.append((start, start + int(sym.st_size), sname, name))
    except (LookupError, AttributeError, ValueError):
        pass
    return syms


class Symbolizer:
    def __init__(self, prog):
        self.prog = prog
        self._modsyms = None

    def __call__(self, ip):
        # Modules first, from their kallsyms, so that the module's name is
        # shown whether or not drgn found its debug info.
        if self._modsyms is None:
            self._modsyms = _module_symbols(self.prog)
        for start, end, name, mod in self._modsyms:
            if start <= ip < end:
                return f"{name}+0x{ip - start:x} [{mod}]"
        try:
            sym = self.prog.symbol(ip)
            return f"{sym.name}+0x{ip - sym.address:x}"
        except LookupError:
            return f"{ip:x}"


def _entries(ks):
    depth = int(ks.depth)
    n = min(depth, len(ks.entries))
    return depth, [ks.entries[i] for i in range(n)]


def _header(ks, depth):
    s = f"depth {depth}"
    if int(ks.overflow):
        s += f" overflow {int(ks.overflow)}"
    if int(ks.forced):
        s += " forced"
    if int(ks.in_trace):
        s += " in_trace"
    if depth > len(ks.entries):
        s += f" (corrupt: more than {len(ks.entries)})"
    return s


class Clock:
    """Ages of entries: their ts is jiffies, compared with the dump's."""

    def __init__(self, prog):
        self.mask = (1 << (8 * prog.type("unsigned long").size)) - 1
        # jiffies is a linker alias of (the low word of) jiffies_64
        self.now = int(prog["jiffies_64"]) & self.mask
        try:
            # HZ is in no vmcoreinfo; tick_nsec is NSEC_PER_SEC / HZ
            tick = int(prog["tick_nsec"])
        except (KeyError, LookupError):
            tick = 0
        self.hz = round(1e9 / tick) if tick else 0

    def age(self, ts):
        j = (self.now - ts) & self.mask
        if self.hz:
            return f"{j * 1000 // self.hz:6d} ms ago"
        return f"{j:6d} jiffies ago"


def _print_entries(entries, sym, clock, out):
    for i, e in enumerate(entries):
        ctx = int(e.ctx)
        flags = int(e.flags)
        line = (f"    #{i:<2d} {int(e.addr):016x} pfn {int(e.pfn):<8x} "
                f"{CTX_NAMES[ctx] if ctx < 4 else '?':<7s} "
                f"{FLAG_NAMES[flags & 3]:<12s} "
                f"{clock.age(int(e.ts))}  {sym(int(e.ip))}")
        try:
            if int(e.stack):
                line += f"  stack {int(e.stack):x}"
        except AttributeError:
            pass
        print(line, file=out)


def _all_tasks(prog):
    """init_task, every thread of every thread group, every CPU's idle task."""
    from drgn.helpers.linux.pid import for_each_task
    from drgn.helpers.linux.cpumask import for_each_possible_cpu
    from drgn.helpers.linux.percpu import per_cpu

    seen = set()
    for t in [prog["init_task"].address_of_()] + list(for_each_task(prog)):
        if t.value_() not in seen:
            seen.add(t.value_())
            yield t
    try:
        for cpu in for_each_possible_cpu(prog):
            idle = per_cpu(prog["runqueues"], cpu).idle
            if idle and idle.value_() not in seen:
                seen.add(idle.value_())
                yield idle
    except (LookupError, AttributeError):
        pass


def kmapstack(prog, pid=None, cpu=None, all_tasks=False, out=sys.stdout):
    """Print the shadow stacks; returns (tasks, holding, mappings)."""
    from drgn.helpers.linux.cpumask import for_each_possible_cpu
    from drgn.helpers.linux.percpu import per_cpu

    sym = Symbolizer(prog)
    clock = Clock(prog)
    try:
        irq = prog["kmap_stack_irq"]
    except KeyError:
        sys.exit("kmapstack: no kmap_stack_irq: kernel without CONFIG_DEBUG_KMAP_STACK?")
    if pid is None:
        for c in for_each_possible_cpu(prog):
            if cpu is not None and c != cpu:
                continue
            stacks = per_cpu(irq, c)
            for i in range(len(stacks)):
                ks = stacks[i]
                depth, entries = _entries(ks)
                print(f"CPU {c} {CTX_NAMES[i + 1]:<8s} {ks.address_:016x}  {_header(ks, depth)}", file=out)
                _print_entries(entries, sym, clock, out)
    if cpu is not None:
        return None
    tasks = holding = mappings = 0
    for t in _all_tasks(prog):
        tpid = int(t.pid)
        if pid is not None and tpid != pid:
            continue
        tasks += 1
        ks = t.kmap_stack
        depth, entries = _entries(ks)
        if depth > 0:
            holding += 1
            mappings += depth
        if depth == 0 and not all_tasks and pid is None:
            continue
        comm = t.comm.string_().decode(errors="replace")
        print(f"PID {tpid:<6d} {comm:<16s} task {t.value_():016x}  {_header(ks, depth)}", file=out)
        _print_entries(entries, sym, clock, out)
    if pid is not None and not tasks:
        print(f"kmapstack: no task with pid {pid}", file=out)
    else:
        print(f"{tasks} tasks, {holding} holding {mappings} mapping{'' if mappings == 1 else 's'} (depth > 0)",
              file=out)
    return tasks, holding, mappings


def main(argv):
    ap = argparse.ArgumentParser(prog="kmapstack.py", description=__doc__.splitlines()[0])
    ap.add_argument("-a", "--all", action="store_true", help="also the tasks that hold no mapping")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("-p", "--pid", type=int, help="only this task")
    g.add_argument("-c", "--cpu", type=int, help="only this CPU's interrupt-context stacks")
    args = ap.parse_args(argv)
    kmapstack(prog, pid=args.pid, cpu=args.cpu, all_tasks=args.all)  # noqa: F821 (drgn's global)


if __name__ == "__main__":
    main(sys.argv[1:])
