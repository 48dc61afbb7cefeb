#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Synthesise kmap_stack traces for the kmapstack tests.

Reads a scenario (see tests/README.md), lays the events out as raw per-CPU
ring-buffer pages following the event format files (offsets and sizes come
from the formats, never from this script), and lets trace-cmd wrap them into
a trace.dat:

  trace-cmd restore -c -t FAKE_TRACEFS -k kallsyms -o partial.dat
  trace-cmd restore -i partial.dat -o trace.dat cpu0.raw cpu1.raw ...

It also writes perf.txt, the same events as perf script prints them, and
ftrace.txt, the same events as /sys/kernel/tracing/trace
prints them.

usage: gen_trace.py SCENARIO OUTDIR [--formats DIR]
       gen_trace.py --bench N OUTDIR [--formats DIR] [--cpus N]
"""

import os
import random
import re
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_FORMATS = os.path.join(HERE, "..", "..", "..", "tracepoints",
                               "formats", "x86_64")
EVENTS = ("kmap_push", "kmap_pop", "kmap_violation")
SHORT = {"push": "kmap_push", "pop": "kmap_pop", "violation": "kmap_violation"}
CTX = {"task": 0, "softirq": 1, "hardirq": 2, "nmi": 3}
CTX_NAME = {v: k for k, v in CTX.items()}
FLAGS = {"atomic": 1, "forced": 2}
KINDS = ["", "mismatch", "unknown", "cross_context", "overflow",
         "leak_hardirq", "leak_softirq", "flavour", "depth",
         "leak_nmi", "leak_work", "leak_user", "leak_exit", "leak_module"]
KIND_TABLE_RE = re.compile(r"__print_symbolic\(REC->kind, (\{ \d+, \"\w+\" \}(, )?)+\)")
# common_flags bits (include/linux/trace_events.h)
TF_IRQS_OFF, TF_HARDIRQ, TF_SOFTIRQ, TF_NMI = 0x01, 0x08, 0x10, 0x40
IN_FLAGS = {"task": 0, "softirq": TF_SOFTIRQ, "hardirq": TF_HARDIRQ | TF_IRQS_OFF,
            "nmi": TF_NMI | TF_HARDIRQ | TF_IRQS_OFF}

PAGE_SIZE = 4096
RB_MISSED_EVENTS = 1 << 31
RB_MISSED_STORED = 1 << 30
TYPE_TIME_EXTEND = 30
MAX_DELTA = (1 << 27) - 1
KSYM_BASE = 0xffffffff81000000
KSYM_STEP = 0x400

HEADER_EVENT = """# compressed entry header
\ttype_len    :    5 bits
\ttime_delta  :   27 bits
\tarray       :   32 bits

\tpadding     : type == 29
\ttime_extend : type == 30
\ttime_stamp : type == 31
\tdata max type_len  == 28
"""


FTRACE_PRINT = """name: print
ID: 5
format:
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;
\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:0;

print fmt: "%ps: %s", (void *)REC->ip, REC->buf
"""


def header_page(long_size):
    """The text of events/header_page for a kernel with that long size."""
    data_off = 8 + long_size
    return ("\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
            "\tfield: local_t commit;\toffset:8;\tsize:%d;\tsigned:1;\n"
            "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
            "\tfield: char data;\toffset:%d;\tsize:%d;\tsigned:1;\n"
            % (long_size, data_off, PAGE_SIZE - data_off))


class Format:
    """One event's format file: ID and fields (offset, size, signed)."""

    FIELD_RE = re.compile(r"field:(.*?)\s+(\w+)(\[\d*\])?;\s*offset:(\d+);"
                          r"\s*size:(\d+);\s*signed:(\d+);")

    def __init__(self, path):
        with open(path) as f:
            self.text = f.read()
        self.name = re.search(r"^name: (\S+)", self.text, re.M).group(1)
        self.id = int(re.search(r"^ID: (\d+)", self.text, re.M).group(1))
        # the kinds as this script knows them (the goldens follow the
        # kernel: scripts/check-event-formats.sh), so that text names them
        self.text = KIND_TABLE_RE.sub(
            "__print_symbolic(REC->kind, " + ", ".join(
                '{ %d, "%s" }' % (i, k) for i, k in enumerate(KINDS) if k)
            + ")", self.text)
        self.fields = {}
        for m in self.FIELD_RE.finditer(self.text):
            self.fields[m.group(2)] = (int(m.group(4)), int(m.group(5)),
                                       int(m.group(6)))
        self.size = max(o + s for o, s, _ in self.fields.values())

    def pack(self, values):
        buf = bytearray(self.size)
        for name, (off, size, signed) in self.fields.items():
            v = values.get(name, 0)
            mask = (1 << (8 * size)) - 1
            buf[off:off + size] = (v & mask).to_bytes(size, "little")
        return bytes(buf)


class Symbols:
    """A fake kallsyms: every function named in a scenario gets an address."""

    def __init__(self, base=KSYM_BASE):
        self.addr = {}
        self.base = base

    def resolve(self, text):
        if re.match(r"^-?\d", text):
            return int(text, 0)
        m = re.match(r"^([A-Za-z_][\w.]*)(?:\+(0x[0-9a-fA-F]+|\d+))?$", text)
        if not m:
            raise ValueError("bad symbol %r" % text)
        name, off = m.group(1), int(m.group(2) or "0", 0)
        if off >= KSYM_STEP:
            raise ValueError("offset too large in %r" % text)
        if name not in self.addr:
            self.addr[name] = self.base + KSYM_STEP * (len(self.addr) + 1)
        return self.addr[name] + off

    def name_of(self, addr):
        """%pS as the kernel prints it: func+0xoff/0xsize."""
        for name, base in self.addr.items():
            if base <= addr < base + KSYM_STEP:
                return "%s+0x%x/0x%x" % (name, addr - base, KSYM_STEP)
        return "0x%x" % addr

    def kallsyms(self):
        lines = ["%016x T _stext" % self.base]
        for name, base in sorted(self.addr.items(), key=lambda x: x[1]):
            lines.append("%016x T %s" % (base, name))
        lines.append("%016x T _etext" % (self.base + KSYM_STEP *
                                          (len(self.addr) + 2)))
        return "\n".join(lines) + "\n"


class CpuBuffer:
    """Raw ring-buffer pages of one CPU."""

    def __init__(self, long_size):
        self.long_size = long_size
        self.data_off = 8 + long_size
        self.pages = []
        self.cur = None
        self.cur_ts = 0
        self.pending_missed = None

    def _flush(self):
        if self.cur is None:
            return
        ts0, body, missed = self.cur
        commit = len(body)
        tail = b""
        if missed is not None:
            commit |= RB_MISSED_EVENTS
            if missed >= 0:
                commit |= RB_MISSED_STORED
                tail = missed.to_bytes(self.long_size, "little")
        page = (struct.pack("<Q", ts0) +
                commit.to_bytes(self.long_size, "little") + body + tail)
        page += bytes(PAGE_SIZE - len(page))
        self.pages.append(page)
        self.cur = None

    def page_break(self):
        self._flush()

    def lost(self, count):
        self._flush()
        self.pending_missed = count

    def add(self, ts, payload):
        if len(payload) % 4:
            payload += bytes(4 - len(payload) % 4)
        need = 4 + len(payload) + 8  # + a possible time extend
        room = PAGE_SIZE - self.data_off - self.long_size  # missed count
        if self.cur is not None and len(self.cur[1]) + need > room:
            self._flush()
        if self.cur is None:
            self.cur = [ts, bytearray(), self.pending_missed]
            self.pending_missed = None
            self.cur_ts = ts
        delta = ts - self.cur_ts
        if delta < 0:
            raise ValueError("timestamps must not go back on a CPU")
        body = self.cur[1]
        if delta > MAX_DELTA:
            body += struct.pack("<II", (delta & MAX_DELTA) << 5 |
                                TYPE_TIME_EXTEND, delta >> 27)
            delta = 0
        body += struct.pack("<I", delta << 5 | (len(payload) // 4))
        body += payload
        self.cur_ts = ts

    def raw(self):
        self._flush()
        return b"".join(self.pages)


class Trace:
    def __init__(self, formats_dir):
        self.formats = {e: Format(os.path.join(formats_dir, e))
                        for e in EVENTS}
        self.formats_dir = formats_dir
        ulong = self.formats["kmap_push"].fields["caller"][1]
        self.long_size = ulong
        self.syms = Symbols(KSYM_BASE if ulong == 8 else 0xc1000000)
        self.system = "kmap_stack"
        self.cpus = {}
        self.comms = {}
        self.text = []
        self.perf = []
        self.keep_text = True

    def cpu(self, n):
        if n not in self.cpus:
            self.cpus[n] = CpuBuffer(8)  # the recording host's long
        return self.cpus[n]

    def event(self, cpu, ts, pid, comm, ev, values, in_ctx=None,
              irqs_off=False):
        fmt = self.formats[ev]
        if comm:
            self.comms[pid] = comm
        ctx = values.get("ctx", 0)
        if in_ctx is None:
            in_ctx = ctx
        cflags = IN_FLAGS[CTX_NAME[in_ctx]] | (TF_IRQS_OFF if irqs_off else 0)
        v = dict(values)
        v.update(common_type=fmt.id, common_flags=cflags,
                 common_preempt_count=1 if in_ctx else 0, common_pid=pid)
        buf = self.cpu(cpu)
        if self.keep_text and buf.pending_missed is not None:
            self.text.append("CPU:%d [LOST %s EVENTS]" % (
                cpu, buf.pending_missed if buf.pending_missed >= 0 else 0))
        buf.add(ts, fmt.pack(v))
        if self.keep_text:
            self.text.append(self.ftrace_line(cpu, ts, pid, ev, v, cflags))
            self.perf.append(self.perf_line(cpu, ts, pid, ev))

    def ftrace_line(self, cpu, ts, pid, ev, v, cflags):
        comm = self.comms.get(pid, "<...>")
        irq = "d" if cflags & TF_IRQS_OFF else "."
        nmi, hard, soft = (cflags & TF_NMI, cflags & TF_HARDIRQ,
                           cflags & TF_SOFTIRQ)
        hs = ("Z" if nmi and hard else "z" if nmi else "H" if hard and soft
              else "h" if hard else "s" if soft else ".")
        pc = v["common_preempt_count"]
        lat = "%s.%s%s." % (irq, hs, "%x" % pc if pc else ".")
        mask = (1 << (8 * self.long_size)) - 1
        sym = lambda a: self.syms.name_of(a & mask) if a else "0x0"
        ctxn = CTX_NAME.get(v.get("ctx", 0), "%d" % v.get("ctx", 0))
        if ev == "kmap_violation":
            k = v.get("kind", 0)
            body = ("kind=%s caller=%s addr=0x%x mapped_at=%s top=%s depth=%d"
                    " ctx=%s" % (KINDS[k] if 0 < k < len(KINDS) else str(k),
                                 sym(v.get("caller", 0)), v.get("addr", 0) & mask,
                                 sym(v.get("map_caller", 0)),
                                 sym(v.get("top_caller", 0)), v.get("depth", 0),
                                 ctxn))
        else:
            fl = v.get("flags", 0)
            fs = "|".join(n for n, b in FLAGS.items() if fl & b)
            body = ("caller=%s addr=0x%x pfn=0x%x depth=%d ctx=%s flags=%s"
                    % (sym(v.get("caller", 0)), v.get("addr", 0) & mask,
                       v.get("pfn", 0), v.get("depth", 0), ctxn, fs))
        return "%16s-%-7d [%03d] %s %6d.%06d: %s: %s" % (
            comm[-16:], pid, cpu, lat, ts // 1000000000,
            (ts % 1000000000) // 1000, ev, body)

    def perf_line(self, cpu, ts, pid, ev):
        """perf script's default: comm tid [cpu] time: sys:event: fields
        (its %pS has no /size; no flags column)."""
        line = self.text[-1]
        body = line.split(": %s: " % ev, 1)[1]
        body = re.sub(r"(\+0x[0-9a-f]+)/0x[0-9a-f]+", r"\1", body)
        return "%16s %6d [%03d] %6d.%06d: %26s: %s" % (
            self.comms.get(pid, ":%d" % pid), pid, cpu, ts // 1000000000,
            (ts % 1000000000) // 1000, "kmap_stack:" + ev, body)

    def write(self, outdir, ncpus=None):
        os.makedirs(outdir, exist_ok=True)
        fake = os.path.join(outdir, "tracefs")
        evdir = os.path.join(fake, "events")
        os.makedirs(os.path.join(evdir, self.system), exist_ok=True)
        with open(os.path.join(evdir, "header_page"), "w") as f:
            f.write(header_page(8))
        with open(os.path.join(evdir, "header_event"), "w") as f:
            f.write(HEADER_EVENT)
        # trace-cmd needs at least one ftrace event
        os.makedirs(os.path.join(evdir, "ftrace", "print"), exist_ok=True)
        with open(os.path.join(evdir, "ftrace", "print", "format"), "w") as f:
            f.write(FTRACE_PRINT)
        for e, fmt in self.formats.items():
            name = e if self.system == "kmap_stack" else "other_" + e
            d = os.path.join(evdir, self.system, name)
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "format"), "w") as f:
                f.write(fmt.text.replace("name: " + e, "name: " + name))
        with open(os.path.join(fake, "saved_cmdlines"), "w") as f:
            for pid, comm in sorted(self.comms.items()):
                f.write("%d %s\n" % (pid, comm))
        with open(os.path.join(fake, "printk_formats"), "w") as f:
            pass
        with open(os.path.join(fake, "trace_clock"), "w") as f:
            f.write("[local] global counter uptime perf mono mono_raw boot\n")
        ksyms = os.path.join(outdir, "kallsyms")
        with open(ksyms, "w") as f:
            f.write(self.syms.kallsyms())
        partial = os.path.join(outdir, "partial.dat")
        run(["trace-cmd", "restore", "-c", "-t", fake, "-k", ksyms,
             "-o", partial])
        n = ncpus or (max(self.cpus) + 1 if self.cpus else 1)
        raws = []
        for c in range(n):
            path = os.path.join(outdir, "cpu%d.raw" % c)
            with open(path, "wb") as f:
                f.write(self.cpus[c].raw() if c in self.cpus else b"")
            raws.append(path)
        run(["trace-cmd", "restore", "-i", partial, "-o",
             os.path.join(outdir, "trace.dat")] + raws)
        for p in raws + [partial]:
            os.unlink(p)
        with open(os.path.join(outdir, "perf.txt"), "w") as f:
            f.write("\n".join(self.perf) + "\n")
        with open(os.path.join(outdir, "ftrace.txt"), "w") as f:
            f.write("# tracer: nop\n#\n")
            f.write("\n".join(self.text) + "\n")


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode:
        sys.stderr.write(r.stdout.decode() + r.stderr.decode())
        raise SystemExit("gen_trace: %s failed" % cmd[0:2])


def parse_value(tr, key, text):
    if key in ("caller", "map_caller", "top_caller"):
        return tr.syms.resolve(text)
    if key == "ctx":
        return CTX[text] if text in CTX else int(text, 0)
    if key == "flags":
        if text in ("", "0"):
            return 0
        if re.match(r"^\d", text):
            return int(text, 0)
        return sum(FLAGS[x] for x in text.split("|"))
    if key == "kind":
        return KINDS.index(text) if text in KINDS else int(text, 0)
    return int(text, 0)


def scenario_formats(path, default):
    """'formats: NAME' in a scenario: the goldens' tracepoints/formats/NAME."""
    with open(path) as f:
        for line in f:
            m = re.match(r"^formats:\s*(\S+)", line)
            if m:
                d = os.path.join(os.path.dirname(DEFAULT_FORMATS), m.group(1))
                if os.path.isdir(d):
                    return d
                raise SystemExit("%s: no formats %s" % (path, m.group(1)))
    return default


def scenario_clock(path):
    """'clock: NAME' in a scenario: the trace clock of its trace.dat
    (trace-cmd record -C NAME), or None for trace-cmd's own (local)."""
    with open(path) as f:
        for line in f:
            m = re.match(r"^clock:\s*(\S+)", line)
            if m:
                return m.group(1)
    return None


def set_trace_clock(dat, clock):
    """Name another trace clock in a trace.dat (version 7) as trace-cmd
    record -C does: in the top buffer's option, which trace-cmd restore
    writes (with "local") in the last section of the file."""
    with open(dat, "rb") as f:
        d = f.read()
    at = d.index(b"\0", 10) + 1
    order = ">" if d[at] else "<"
    at += 6
    for _ in range(2):
        at = d.index(b"\0", at) + 1
    sec = struct.unpack_from(order + "Q", d, at)[0]
    while sec:
        size = struct.unpack_from(order + "Q", d, sec + 8)[0]
        at, end, nxt = sec + 16, sec + 16 + size, 0
        while at < end:
            oid, osz = struct.unpack_from(order + "HI", d, at)
            body = d[at + 6:at + 6 + osz]
            if oid == 3 and end == len(d):
                # offset (8 bytes), name, clock, page size, CPUs...
                name_end = body.index(b"\0", 8) + 1
                clock_end = body.index(b"\0", name_end)
                body = (body[:name_end] + clock.encode() +
                        body[clock_end:])
                out = (d[:sec + 8] +
                       struct.pack(order + "Q", size + len(body) - osz) +
                       d[sec + 16:at] +
                       struct.pack(order + "HI", oid, len(body)) + body +
                       d[at + 6 + osz:])
                with open(dat, "wb") as f:
                    f.write(out)
                return
            if oid == 0:
                nxt = struct.unpack_from(order + "Q", body)[0]
            at += 6 + osz
        sec = nxt
    raise SystemExit("gen_trace: %s: no buffer option at its end" % dat)


def load_scenario(path, tr):
    """Event lines: CPU TS PID[:COMM] push|pop|violation key=value ...
    (ts in ns; 'in=hardirq' sets the context flags of the event header,
    default: the ctx field), 'lost CPU [COUNT]', 'page CPU'.
    Lines starting with '@' belong to the test runner."""
    ncpus = None
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if (not line or line.startswith("@") or
                    re.match(r"^(desc|formats|clock):", line)):
                continue
            w = line.split()
            try:
                if w[0] == "cpus":
                    ncpus = int(w[1])
                elif w[0] == "lost":
                    tr.cpu(int(w[1])).lost(int(w[2]) if len(w) > 2 else -1)
                elif w[0] == "page":
                    tr.cpu(int(w[1])).page_break()
                else:
                    cpu, ts = int(w[0]), int(w[1])
                    pid, _, comm = w[2].partition(":")
                    ev = SHORT[w[3]]
                    vals, in_ctx, irqs_off = {}, None, False
                    for kv in w[4:]:
                        k, _, v = kv.partition("=")
                        if k == "in":
                            in_ctx = CTX[v]
                        elif k == "irqsoff":
                            irqs_off = True
                        else:
                            if k not in tr.formats[ev].fields:
                                raise ValueError("no field %s" % k)
                            vals[k] = parse_value(tr, k, v)
                    tr.event(cpu, ts, int(pid), comm, ev, vals, in_ctx,
                             irqs_off)
            except (ValueError, KeyError, IndexError) as e:
                raise SystemExit("%s:%d: %s" % (path, lineno, e))
    return ncpus


def bench(tr, n, ncpus, seed=1):
    """A busy machine: tasks nest up to 4 mappings, interrupts nest on top."""
    rnd = random.Random(seed)
    # a kernel has a few dozen kmap call sites, nesting in fixed patterns
    levels = [["bench_l%d_site%d" % (lv, i) for i in range(n)]
              for lv, n in enumerate((16, 8, 8, 8, 4))]
    for lv in levels:
        for s in lv:
            tr.syms.resolve(s)
    ts = [1000000000] * ncpus
    pids = list(range(1000, 1000 + 8 * ncpus))
    for p in pids:
        tr.comms[p] = "worker%d" % p
    stacks = {}
    addr_next = [0xffff888000000000]

    def push(cpu, pid, ctx, key):
        st = stacks.setdefault(key, [])
        lv = levels[min(len(st), len(levels) - 1)] if ctx == 0 else levels[4]
        site = rnd.choice(lv) + "+0x%x" % (rnd.randrange(2) * 4)
        addr_next[0] += 4096
        st.append(addr_next[0])
        tr.event(cpu, ts[cpu], pid, None, "kmap_push",
                 dict(caller=tr.syms.resolve(site), addr=addr_next[0],
                      pfn=addr_next[0] >> 12 & 0xffffff, depth=len(st),
                      ctx=ctx, flags=1 if ctx else 0))

    def pop(cpu, pid, ctx, key):
        st = stacks[key]
        a = st.pop()
        tr.event(cpu, ts[cpu], pid, None, "kmap_pop",
                 dict(caller=tr.syms.resolve("bench_unmap+0x8"), addr=a,
                      pfn=a >> 12 & 0xffffff, depth=len(st), ctx=ctx,
                      flags=1 if ctx else 0))

    count = 0
    while count < n:
        cpu = rnd.randrange(ncpus)
        pid = pids[cpu * 8 + rnd.randrange(8)]
        depth = rnd.randint(1, 4)
        for _ in range(depth):
            ts[cpu] += rnd.randint(50, 400)
            push(cpu, pid, 0, ("t", pid))
        if rnd.random() < 0.2:
            ts[cpu] += 100
            push(cpu, pid, 2, ("h", cpu))
            ts[cpu] += rnd.randint(20, 200)
            pop(cpu, pid, 2, ("h", cpu))
            count += 2
        for _ in range(depth):
            ts[cpu] += rnd.randint(50, 2000)
            pop(cpu, pid, 0, ("t", pid))
        count += 2 * depth


def main(argv):
    formats = DEFAULT_FORMATS
    system = "kmap_stack"
    ncpus = 2
    args = []
    i = 1
    bench_n = None
    while i < len(argv):
        if argv[i] == "--formats":
            formats = argv[i + 1]
            i += 2
        elif argv[i] == "--system":
            system = argv[i + 1]
            i += 2
        elif argv[i] == "--cpus":
            ncpus = int(argv[i + 1])
            i += 2
        elif argv[i] == "--bench":
            bench_n = int(argv[i + 1])
            i += 2
        else:
            args.append(argv[i])
            i += 1
    if bench_n is not None and len(args) == 1:
        tr = Trace(formats)
        tr.keep_text = False
        bench(tr, bench_n, ncpus)
        tr.write(args[0], ncpus)
        return 0
    if len(args) != 2:
        sys.stderr.write(__doc__)
        return 2
    tr = Trace(scenario_formats(args[0], formats))
    tr.system = system
    n = load_scenario(args[0], tr)
    tr.write(args[1], n)
    clock = scenario_clock(args[0])
    if clock:
        set_trace_clock(os.path.join(args[1], "trace.dat"), clock)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
