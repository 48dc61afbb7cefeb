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

The layout is include/linux/kmap_stack.h's: struct kmap_stack holds the
arrays addr[] (page-aligned, KMAP_STACK_F_ATOMIC in the low bits), ip[],
ts[] (jiffies) and, with CONFIG_DEBUG_KMAP_STACK_TRACES, stack[] (stack
depot handles); an entry's context is the stack it is on. The kernel keeps
no pfn: it is found from the address as kmap_stack_pfn() finds it, in the
direct map; for a task's kmap_local fixmap slot (i386 HIGHMEM,
CONFIG_DEBUG_KMAP_LOCAL_FORCE_MAP) in the task's kmap_ctrl.pteval[], as
a task's slots are unmapped while it is scheduled out; else in the kernel
page tables (drgn's follow_pfn() when it has one, else a walk of x86_64's).
An address nothing maps shows pfn '?'. The previous layout, entries[] of
struct kmap_stack_entry { ip, addr, pfn, ts[, stack] }, is read too, with
its recorded pfn; the one before it (entries with ctx and flags) is not.

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
    """depth, capacity and the entries [0, depth) of a stack as (addr, ip,
    ts, stack handle, pfn) tuples; pfn None: the kernel keeps none."""
    depth = int(ks.depth)
    if ks.type_.has_member("entries"):
        # the previous layout: struct kmap_stack_entry { ip, addr, pfn, ts[, stack] }
        if ks.entries.type_.type.has_member("flags"):
            raise KmapStackError("kmapstack: struct kmap_stack_entry with ctx and "
                                 "flags: a layout this script no longer reads")
        cap = len(ks.entries)
        has_stack = ks.entries.type_.type.has_member("stack")
        rows = [(int(e.addr), int(e.ip), int(e.ts), int(e.stack) if has_stack else 0, int(e.pfn))
                for e in (ks.entries[i] for i in range(min(depth, cap)))]
        return depth, cap, rows
    cap = len(ks.addr)
    n = min(depth, cap)
    stack = ks.stack.value_() if ks.type_.has_member("stack") else [0] * cap
    rows = list(zip(ks.addr.value_()[:n], ks.ip.value_()[:n], ks.ts.value_()[:n],
                    stack[:n], [None] * n))
    return depth, cap, rows


def _header(ks, depth, cap):
    s = f"depth {depth}"
    if int(ks.overflow):
        s += f" overflow {int(ks.overflow)}"
    if int(ks.in_trace):
        s += " in_trace"
    if depth > cap:
        s += f" (corrupt: more than {cap})"
    return s


class Pfns:
    """The pfn an address maps, None if none: kmap_stack_pfn() of the
    kernel, which keeps no pfn, in a dump."""

    PTE_PFN_MASK = (1 << 52) - 1  # x86: bits 12-51 of a PTE (PAE, 64-bit)

    def __init__(self, prog):
        from drgn import Architecture
        from drgn.helpers.linux.mm import pfn_to_virt

        self.prog = prog
        try:
            self.page_shift = int(prog["PAGE_SHIFT"])
        except (KeyError, LookupError, ValueError):
            self.page_shift = 12
        # the direct map: virt_addr_valid()
        self.page_offset = int(pfn_to_virt(prog, 0))
        self.high_memory = int(prog["high_memory"])
        self.x86_64 = prog.platform.arch == Architecture.X86_64
        # the kmap_local fixmap slots (CONFIG_KMAP_LOCAL: i386 HIGHMEM or
        # DEBUG_KMAP_LOCAL_FORCE_MAP); x86_64's FIXADDR_TOP is a constant
        self.fix = None
        try:
            top = int(prog["__FIXADDR_TOP"]) if not self.x86_64 else 0xffffffffff7ff000
            self.fix = (top, int(prog["FIX_KMAP_BEGIN"]), int(prog["FIX_KMAP_END"]))
        except (KeyError, LookupError):
            pass
        try:
            from drgn.helpers.linux.mm import follow_pfn  # newer drgn than 0.0.22
            self.follow_pfn = follow_pfn
        except ImportError:
            self.follow_pfn = None

    def __call__(self, addr, task=None):
        from drgn import FaultError

        if self.page_offset <= addr < self.high_memory:
            return (addr - self.page_offset) >> self.page_shift
        try:
            if task is not None and self.fix and addr <= self.fix[0]:
                top, begin, end = self.fix
                idx = (top - addr) >> self.page_shift
                if begin <= idx <= end:
                    return self._kmap_local(task, idx - begin)
            if self.follow_pfn:
                return int(self.follow_pfn(self.prog["init_mm"].address_of_(), addr))
            if self.x86_64:
                return self._walk_x86_64(addr)
        except (FaultError, LookupError, AttributeError, ValueError):
            pass
        return None

    def _kmap_local(self, task, idx):
        """kmap_local_addr_pfn() for task: fixmap index idx (from
        FIX_KMAP_BEGIN) is slot idx % KM_MAX_IDX of the CPU it mapped on."""
        ctrl = task.kmap_ctrl
        slot = idx % len(ctrl.pteval)
        if slot >= int(ctrl.idx):
            return None
        pte = int(ctrl.pteval[slot].pte) & self.PTE_PFN_MASK
        return (pte >> self.page_shift) or None

    def _walk_x86_64(self, addr):
        """The pfn of addr in init_mm's page tables (4 or 5 levels, 1 GiB
        and 2 MiB pages), None if unmapped."""
        try:
            l5 = int(self.prog["__pgtable_l5_enabled"])
        except (KeyError, LookupError):
            l5 = 0
        table, physical = int(self.prog["init_mm"].pgd), False
        for shift in (48, 39, 30, 21, 12)[0 if l5 else 1:]:
            e = self.prog.read_u64(table + ((addr >> shift) & 511) * 8, physical)
            if not e & 1:
                return None
            table, physical = e & self.PTE_PFN_MASK & ~0xfff, True
            if shift in (30, 21) and e & 0x80:  # a huge page
                table &= ~((1 << shift) - 1)
                return (table | (addr & ((1 << shift) - 1))) >> 12
        return table >> 12


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


def _print_entries(entries, stack_ctx, task, sym, clock, depot, pfns, out, stacks=False):
    """entries of the stack of context stack_ctx (of task, None: an
    interrupt context's)"""
    page_mask = ~((1 << pfns.page_shift) - 1)
    for i, (addr, ip, ts, handle, pfn) in enumerate(entries):
        flags, addr = addr & KMAP_STACK_F_ATOMIC, addr & page_mask
        if pfn is None:
            pfn = pfns(addr, task)
        pfn = "?" if pfn is None else f"{pfn:x}"
        line = (f"    #{i:<2d} {addr:016x} pfn {pfn:<8s} "
                f"{CTX_NAMES[stack_ctx]:<7s} "
                f"{'atomic' if flags else 'local':<12s} "
                f"{clock.age(ts)}  {sym(ip)}")
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
    pfns = Pfns(prog)
    if pid is None and task is None:
        for c in _cpus(prog, cpu):
            irq_stacks = per_cpu(irq, c)
            for i in range(len(irq_stacks)):
                ks = irq_stacks[i]
                depth, cap, entries = _entries(ks)
                print(f"CPU {c} {CTX_NAMES[i + 1]:<8s} {ks.address_:016x}  {_header(ks, depth, cap)}", file=out)
                _print_entries(entries, i + 1, None, sym, clock, depot, pfns, out, stacks)
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
        depth, cap, entries = _entries(ks)
        if depth > 0:
            holding += 1
            mappings += depth
        if depth == 0 and not all_tasks and pid is None and task is None:
            continue
        comm = t.comm.string_().decode(errors="replace")
        print(f"PID {tpid:<6d} {comm:<16s} task {t.value_():016x}  {_header(ks, depth, cap)}", file=out)
        _print_entries(entries, 0, t, sym, clock, depot, pfns, out, stacks)
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
