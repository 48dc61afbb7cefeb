#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""kmapstack.py - the CONFIG_DEBUG_KMAP_STACK shadow stacks, with drgn.

Lists the kmap_local/kmap_atomic mappings every context holds, outermost
first: each CPU's softirq, hardirq and NMI stacks (the static per-CPU array
kmap_stack_irq[3] in mm/kmap_stack/core.c), then every task whose
task_struct::kmap_stack is not empty, with the symbolized call sites.

Usage (drgn 0.0.22 is in /usr/bin/python3's path, not every python3's):
  drgn -q -c vmcore -s vmlinux tools/drgn/kmapstack.py [-a] [-s] [-p PID|TASK] [-c CPUS]
  drgn -q tools/drgn/kmapstack.py            # the running kernel (/proc/kcore)
or, in a drgn session:  exec(open("tools/drgn/kmapstack.py").read())
                        kmapstack(prog, pid=97)
-p takes a pid or a task_struct address, -c a CPU list (0,2-3; all), as the
crash extension does; the CPUs are the online ones (__cpu_online_mask), or
those of -c. A mistake (no such CPU, a kernel without kmap_stack) raises
KmapStackError, which ends the script but not an interactive session.

With CONFIG_DEBUG_KMAP_STACK_TRACES, -s (stacks=True) follows each entry's
stack depot handle with its frames, innermost first (lib/stackdepot.c's
pools, walked here: drgn 0.0.22 has no stackdepot helper), as the crash
extension's -s does.

The layout is include/linux/kmap_stack_types.h's (an entry's addr is
page-aligned with KMAP_STACK_F_ATOMIC in its low bits; its context is the
stack it is on); entries of an older layout, with ctx and flags members,
are read too.

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
KMAP_STACK_F_ATOMIC = 0x1


class KmapStackError(Exception):
    """A mistake in the arguments, or a kernel without kmap_stack."""


def parse_cpus(text, nr_cpus):
    """'0,2-3' or 'all' (a) to a sorted list of CPUs below nr_cpus."""
    if text in ("a", "all"):
        return list(range(nr_cpus))
    cpus = set()
    try:
        for part in text.split(","):
            a, _, b = part.partition("-")
            lo, hi = int(a), int(b) if b else int(a)
            if hi < lo or lo < 0:
                raise ValueError(part)
            cpus.update(range(lo, hi + 1))
    except ValueError:
        raise KmapStackError(f"kmapstack: -c takes CPUs: 0,2-3 or all: {text}") from None
    if max(cpus) >= nr_cpus:
        raise KmapStackError(f"kmapstack: no CPU {max(cpus)} (0-{nr_cpus - 1})")
    return sorted(cpus)


def parse_task(text):
    """-p: a pid (decimal) or a task_struct address (hex): (pid, address)."""
    try:
        return int(text, 10), None
    except ValueError:
        pass
    try:
        return None, int(text, 16)
    except ValueError:
        raise KmapStackError(f"kmapstack: -p takes a pid or a task address: {text}") from None


class StackDepot:
    """Stack depot handles to frames: depot_fetch_stack() of lib/stackdepot.c."""

    def __init__(self, prog):
        self.prog = prog
        self.pools = None
        try:
            self.pools = prog["stack_pools"]
            self.pools_num = int(prog["pools_num"])
        except KeyError:
            return
        # union handle_parts { u32 pool_index_plus_1, offset, extra bit fields }
        self.index_bits, self.offset_bits = 17, 10
        try:
            t = prog.type("union handle_parts")
            for m in t.members:
                if m.name is None:
                    sizes = {x.name: x.bit_field_size for x in m.type.members}
                    self.index_bits = sizes["pool_index_plus_1"]
                    self.offset_bits = sizes["offset"]
        except (LookupError, KeyError, AttributeError):
            pass

    def frames(self, handle):
        """The return addresses of a handle, innermost first; [] if unknown."""
        from drgn import Object

        if not handle or self.pools is None:
            return []
        index = (handle & ((1 << self.index_bits) - 1)) - 1
        offset = ((handle >> self.index_bits) & ((1 << self.offset_bits) - 1)) << 4
        if index < 0 or index >= self.pools_num:
            return []
        pool = int(self.pools[index])
        if not pool:
            return []
        rec = Object(self.prog, "struct stack_record *", pool + offset)
        try:
            if int(rec.count.refs.counter) == 0:
                return []
            n = min(int(rec.size), len(rec.entries))
            return [int(rec.entries[i]) for i in range(n)]
        except Exception:  # noqa: BLE001 (an unreadable record)
            return []


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
    try:
        if int(ks.forced):  # the older layout only
            s += " forced"
    except AttributeError:
        pass
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
        if not self.hz:
            try:
                # Linux 7.x has no tick_nsec: workqueue's enumerator
                # CREATE_COOLDOWN is HZ
                self.hz = max(int(prog["CREATE_COOLDOWN"]), 0)
            except (KeyError, LookupError):
                self.hz = 0

    def age(self, ts):
        j = (self.now - ts) & self.mask
        if self.hz:
            return f"{j * 1000 // self.hz:6d} ms ago"
        return f"{j:6d} jiffies ago"


def _entry(e, stack_ctx, page_mask):
    """(addr, ctx, flags) of an entry, in either series' layout."""
    addr = int(e.addr)
    try:
        return addr, int(e.ctx), int(e.flags)
    except AttributeError:
        return addr & page_mask, stack_ctx, addr & KMAP_STACK_F_ATOMIC


def _print_entries(entries, stack_ctx, sym, clock, depot, out, stacks=False):
    page_mask = ~(depot.page_size - 1)
    for i, e in enumerate(entries):
        addr, ctx, flags = _entry(e, stack_ctx, page_mask)
        line = (f"    #{i:<2d} {addr:016x} pfn {int(e.pfn):<8x} "
                f"{CTX_NAMES[ctx] if ctx < 4 else '?':<7s} "
                f"{FLAG_NAMES[flags & 3]:<12s} "
                f"{clock.age(int(e.ts))}  {sym(int(e.ip))}")
        try:
            handle = int(e.stack)
        except AttributeError:
            handle = 0
        if handle:
            line += f"  stack {handle:x}"
        print(line, file=out)
        for ip in depot.frames(handle) if stacks else ():
            print(f"          {sym(ip)}", file=out)


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


def _cpus(prog, cpus):
    """The CPUs the crash extension walks: the online ones, or cpus (a list
    or '0,2-3') among nr_cpu_ids."""
    from drgn.helpers.linux.cpumask import for_each_online_cpu

    nr = int(prog["nr_cpu_ids"])
    if cpus is None:
        return list(for_each_online_cpu(prog))
    if isinstance(cpus, int):
        cpus = [cpus]
    if isinstance(cpus, str):
        return parse_cpus(cpus, nr)
    for c in cpus:
        if not 0 <= c < nr:
            raise KmapStackError(f"kmapstack: no CPU {c} (0-{nr - 1})")
    return sorted(cpus)


def kmapstack(prog, pid=None, cpu=None, all_tasks=False, task=None, stacks=False,
              out=sys.stdout):
    """Print the shadow stacks; returns (tasks, holding, mappings).

    pid or task (a task_struct address) picks one task; cpu (a number, a
    list or '0,2-3') only those CPUs' interrupt stacks; stacks the frames
    of each entry's stack depot handle. Raises
    KmapStackError on a mistake."""
    from drgn.helpers.linux.percpu import per_cpu

    try:
        irq = prog["kmap_stack_irq"]
    except KeyError:
        raise KmapStackError("kmapstack: no kmap_stack_irq: kernel without "
                             "CONFIG_DEBUG_KMAP_STACK?") from None
    sym = Symbolizer(prog)
    clock = Clock(prog)
    depot = StackDepot(prog)
    try:
        depot.page_size = int(prog["PAGE_SIZE"])
    except (KeyError, LookupError, ValueError):
        depot.page_size = 4096
    if pid is None and task is None:
        for c in _cpus(prog, cpu):
            irq_stacks = per_cpu(irq, c)
            for i in range(len(irq_stacks)):
                ks = irq_stacks[i]
                depth, entries = _entries(ks)
                print(f"CPU {c} {CTX_NAMES[i + 1]:<8s} {ks.address_:016x}  {_header(ks, depth)}", file=out)
                _print_entries(entries, i + 1, sym, clock, depot, out, stacks)
    if cpu is not None:
        return None
    tasks = holding = mappings = 0
    for t in _all_tasks(prog):
        tpid = int(t.pid)
        if task is not None and t.value_() != task:
            continue
        if pid is not None and tpid != pid:
            continue
        tasks += 1
        ks = t.kmap_stack
        depth, entries = _entries(ks)
        if depth > 0:
            holding += 1
            mappings += depth
        if depth == 0 and not all_tasks and pid is None and task is None:
            continue
        comm = t.comm.string_().decode(errors="replace")
        print(f"PID {tpid:<6d} {comm:<16s} task {t.value_():016x}  {_header(ks, depth)}", file=out)
        _print_entries(entries, 0, sym, clock, depot, out, stacks)
    if task is not None and not tasks:
        print(f"kmapstack: no task at {task:x}", file=out)
    elif pid is not None and not tasks:
        print(f"kmapstack: no task with pid {pid}", file=out)
    else:
        print(f"{tasks} tasks, {holding} holding {mappings} mapping{'' if mappings == 1 else 's'} (depth > 0)",
              file=out)
    return tasks, holding, mappings


def main(prog, argv):
    """The script's command line; prog None: not run by drgn (the options
    and --help still work, anything else raises KmapStackError)."""
    ap = argparse.ArgumentParser(
        prog="kmapstack.py", description=__doc__.splitlines()[0],
        epilog="Run it with drgn: drgn -q -c vmcore -s vmlinux "
               "kmapstack.py [options], or drgn -q kmapstack.py on the "
               "running kernel.")
    ap.add_argument("-a", "--all", action="store_true", help="also the tasks that hold no mapping")
    ap.add_argument("-s", "--stacks", action="store_true",
                    help="each entry's stack trace (its stack depot handle's frames)")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("-p", "--pid", metavar="PID|TASK", help="only this task: a pid or a task_struct address")
    g.add_argument("-c", "--cpu", metavar="CPUS", help="only these CPUs' interrupt stacks: 0,2-3 or all")
    args = ap.parse_args(argv)
    pid, task = parse_task(args.pid) if args.pid is not None else (None, None)
    if prog is None:
        raise KmapStackError("kmapstack: no kernel to read: run this script "
                             "with drgn (drgn -q -c vmcore -s vmlinux "
                             "kmapstack.py, or drgn -q kmapstack.py on the "
                             "running kernel)")
    kmapstack(prog, pid=pid, task=task, cpu=args.cpu, all_tasks=args.all, stacks=args.stacks)


# drgn runs a script with sys.argv[0] its path and its Program as the global
# prog; exec() in a session does not; python3 alone has no prog
if __name__ == "__main__" and sys.argv and sys.argv[0].endswith("kmapstack.py"):
    try:
        main(globals().get("prog"), sys.argv[1:])
    except KmapStackError as e:
        # run as a script: one line and exit 2; in a session the exception
        # reaches the caller instead
        print(e, file=sys.stderr)
        sys.exit(2)
