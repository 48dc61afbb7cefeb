// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack.c - crash(8) extension: the CONFIG_DEBUG_KMAP_STACK shadow stacks
 * of a vmcore or a live system.
 *
 *   crash> extend tools/crash/kmapstack.so
 *   crash> kmapstack            every CPU's interrupt stacks, every task
 *                               holding mappings
 *   crash> kmapstack -a         also the tasks that hold none
 *   crash> kmapstack -s         each entry's stack trace (stack depot)
 *   crash> kmapstack -p PID     one task, by pid or task address (as
 *                               crash's own commands take "pid | task")
 *   crash> kmapstack -c LIST    these CPUs' softirq/hardirq/NMI stacks
 *                               (0,2-3; a or all: every CPU)
 *
 * Data (include/linux/kmap_stack.h, mm/kmap_stack/core.c): task context
 * mappings are on task_struct::kmap_stack, interrupt context ones on the
 * static per-CPU array kmap_stack_irq[3] (softirq, hardirq, NMI).  Entries
 * [0, depth) are valid, outermost first: struct kmap_stack holds the arrays
 * addr[], ip[], ts[] (jiffies) and, with CONFIG_DEBUG_KMAP_STACK_TRACES,
 * stack[] (stack depot handles).  Every layout detail is read from the
 * vmlinux debug info.  An addr is page-aligned with KMAP_STACK_F_ATOMIC
 * (0x1) in its low bits; an entry's context is the stack it is on.
 *
 * The kernel keeps no pfn: the extension finds it from the address as
 * kmap_stack_pfn() does: for a task's kmap_local fixmap slot (i386 HIGHMEM,
 * CONFIG_DEBUG_KMAP_LOCAL_FORCE_MAP) in the task's kmap_ctrl.pteval[], as a
 * task's slots are unmapped while it is scheduled out; else with kvtop()
 * (the direct map; the kernel page tables).  An address nothing maps shows
 * pfn '?'.  The previous layout, entries[] of struct kmap_stack_entry
 * { ip, addr, pfn, ts[, stack] }, is read too, with its recorded pfn; the
 * one before it (entries with ctx and flags) is not.
 *
 * Builds for x86_64 (TARGET_ARCH_DEF=-DX86_64) and i386 (-DX86 -m32: make
 * ARCH=i386), the HIGHMEM architecture; the layout comes from the debug
 * info either way, sizes from crash's own ulong.
 *
 * With CONFIG_DEBUG_KMAP_STACK_TRACES, -s follows each entry's stack depot
 * handle with the frames it stands for, one a line, innermost first.
 *
 * Tasks are found by walking init_task.tasks and each thread group's
 * signal->thread_head, plus every CPU's idle task (runqueues.idle): crash's
 * own task table can be incomplete for some kernels.
 *
 * Module functions are named "func+0xoff [module]": from crash's own module
 * tables (crash 8.0.6 reads the struct module::mem[] layout of Linux >= 6.4),
 * else (crash --no_modules, or an older crash) from the modules' kallsyms in
 * memory.
 *
 * Build: make -C tools/crash, against the defs.h of the crash that loads the
 * extension (scripts/install-crash.sh's crash 8.0.6 by default).
 */
#include <crash/defs.h>

#include <stdbool.h>

#define KS_CTX_NR 4

static const char *const ctx_name[KS_CTX_NR] = { "task", "softirq", "hardirq",
						 "nmi" };

/* Field @f of entry i of a stack is at f.off + i * f.stride; off -1: none */
struct ks_field {
	long off, stride;
};

/* Offsets and sizes from the debug info; filled in by ks_init_layout(). */
static struct {
	bool ready;
	long stack_size;
	long depth, overflow, in_trace;
	struct ks_field ip, addr, ts, stack, pfn;
	long nr_entries;
	/* a task's kmap_local slots: task_struct::kmap_ctrl (CONFIG_KMAP_LOCAL) */
	long task_kmap_ctrl, kc_idx, kc_pteval, pte_size, nr_ptes;
	ulong fix_top; /* FIXADDR_TOP, 0: no kmap_local fixmap slots */
	long fix_begin, fix_end;
	long task_kmap_stack, task_pid, task_comm, task_tasks;
	long task_signal, task_thread_node, signal_thread_head;
	long rq_idle;
	ulong irq_stacks; /* per-CPU offset of kmap_stack_irq[] */
	ulong runqueues;
	ulong jiffies; /* at the time of the dump, to age the entries */
	ulong hz;
} ks;

struct ks_opts {
	bool all;
	bool have_pid;
	ulong pid;
	ulong task; /* -p given a task address: that task, 0: by pid */
	bool have_cpus; /* -c: only the CPUs in cpus[] */
	bool tasks; /* list tasks */
	bool cpus; /* list CPUs */
};

static bool cpu_wanted[NR_CPUS];

struct ks_count {
	ulong tasks;
	ulong holding;
	ulong mappings;
};

static long member(char *s, char *m, bool required)
{
	long off = MEMBER_OFFSET(s, m);

	if (off < 0 && required)
		error(FATAL, "kmapstack: no %s.%s in the debug info\n", s, m);
	return off;
}

/* ks_field of member @m of struct @s, at @base + @stride * i */
static void field(struct ks_field *f, char *s, char *m, long base, long stride,
		  bool required)
{
	long off = member(s, m, required);

	f->off = off < 0 ? -1 : base + off;
	f->stride = stride;
}

static void ks_init_layout(void)
{
	struct syment *sp;
	long entries, entry_size;

	if (ks.ready)
		return;
	if (STRUCT_SIZE("kmap_stack") <= 0)
		error(FATAL,
		      "kmapstack: struct kmap_stack not in the debug info "
		      "(kernel without CONFIG_DEBUG_KMAP_STACK, or no DWARF)\n");
	ks.stack_size = STRUCT_SIZE("kmap_stack");
	ks.depth = member("kmap_stack", "depth", true);
	ks.overflow = member("kmap_stack", "overflow", true);
	ks.in_trace = member("kmap_stack", "in_trace", false);
	entries = member("kmap_stack", "entries", false);
	if (entries < 0) {
		/* the arrays addr[], ip[], ts[], stack[] */
		field(&ks.addr, "kmap_stack", "addr", 0, sizeof(ulong), true);
		field(&ks.ip, "kmap_stack", "ip", 0, sizeof(ulong), true);
		field(&ks.ts, "kmap_stack", "ts", 0, sizeof(ulong), true);
		field(&ks.stack, "kmap_stack", "stack", 0, sizeof(uint), false);
		ks.pfn.off = -1;
		ks.nr_entries =
			MEMBER_SIZE("kmap_stack", "addr") / sizeof(ulong);
	} else {
		/* the previous layout: entries[] of ip, addr, pfn, ts[, stack] */
		entry_size = STRUCT_SIZE("kmap_stack_entry");
		if (entry_size <= 0)
			error(FATAL, "kmapstack: no struct kmap_stack_entry\n");
		if (MEMBER_OFFSET("kmap_stack_entry", "flags") >= 0)
			error(FATAL,
			      "kmapstack: struct kmap_stack_entry with ctx and "
			      "flags: a layout this extension no longer reads\n");
		field(&ks.addr, "kmap_stack_entry", "addr", entries, entry_size,
		      true);
		field(&ks.ip, "kmap_stack_entry", "ip", entries, entry_size,
		      true);
		field(&ks.ts, "kmap_stack_entry", "ts", entries, entry_size,
		      true);
		field(&ks.stack, "kmap_stack_entry", "stack", entries,
		      entry_size, false);
		field(&ks.pfn, "kmap_stack_entry", "pfn", entries, entry_size,
		      true);
		ks.nr_entries =
			MEMBER_SIZE("kmap_stack", "entries") / entry_size;
	}

	/* the kmap_local fixmap slots, if the kernel has them */
	ks.task_kmap_ctrl = member("task_struct", "kmap_ctrl", false);
	ks.kc_idx = member("kmap_ctrl", "idx", false);
	ks.kc_pteval = member("kmap_ctrl", "pteval", false);
	ks.nr_ptes = ks.kc_pteval >= 0 ?
			     get_array_length("kmap_ctrl.pteval", NULL, 0) :
			     0;
	ks.pte_size = ks.nr_ptes > 0 ?
			      MEMBER_SIZE("kmap_ctrl", "pteval") / ks.nr_ptes :
			      0;
	if (ks.task_kmap_ctrl >= 0 && ks.kc_idx >= 0 && ks.pte_size > 0 &&
	    ks.pte_size <= (long)sizeof(ulonglong) &&
	    enumerator_value("FIX_KMAP_BEGIN", &ks.fix_begin) &&
	    enumerator_value("FIX_KMAP_END", &ks.fix_end)) {
#ifdef X86_64
		/* a constant: round_up(VSYSCALL_ADDR + 4K, 2M) - 4K */
		ks.fix_top = 0xffffffffff7ff000UL;
#else
		if (!symbol_exists("__FIXADDR_TOP") ||
		    !readmem(symbol_value("__FIXADDR_TOP"), KVADDR, &ks.fix_top,
			     sizeof(ks.fix_top), "__FIXADDR_TOP",
			     RETURN_ON_ERROR | QUIET))
			ks.fix_top = 0;
#endif
	}

	ks.task_kmap_stack = member("task_struct", "kmap_stack", true);
	ks.task_pid = member("task_struct", "pid", true);
	ks.task_comm = member("task_struct", "comm", true);
	ks.task_tasks = member("task_struct", "tasks", true);
	ks.task_signal = member("task_struct", "signal", true);
	ks.task_thread_node = member("task_struct", "thread_node", false);
	ks.signal_thread_head = member("signal_struct", "thread_head", false);
	ks.rq_idle = member("rq", "idle", false);

	sp = symbol_search("kmap_stack_irq");
	if (!sp)
		error(FATAL, "kmapstack: no symbol kmap_stack_irq\n");
	ks.irq_stacks = sp->value;
	sp = symbol_search("runqueues");
	ks.runqueues = sp ? sp->value : 0;
	ks.ready = true;
}

/*
 * The dump's jiffies and HZ, to give the entries' ages (their ts is jiffies).
 * crash's machdep->hz is a per-architecture default unless the kernel has
 * IKCONFIG; tick_nsec is NSEC_PER_SEC / HZ (gone in Linux 7.x, where
 * workqueue's enumerator CREATE_COOLDOWN, which is HZ, gives it).
 */
static void read_clock(void)
{
	ulong tick = 0;
	long hz = 0;

	if (!readmem(symbol_value("jiffies"), KVADDR, &ks.jiffies,
		     sizeof(ks.jiffies), "jiffies", RETURN_ON_ERROR))
		error(FATAL, "kmapstack: cannot read jiffies\n");
	if (symbol_exists("tick_nsec"))
		readmem(symbol_value("tick_nsec"), KVADDR, &tick, sizeof(tick),
			"tick_nsec", RETURN_ON_ERROR | QUIET);
	if (tick)
		ks.hz = (1000000000UL + tick / 2) / tick;
	else if (enumerator_value("CREATE_COOLDOWN", &hz) && hz > 0)
		ks.hz = hz;
	else
		ks.hz = machdep->hz;
}

static ulong rd_ulong(const char *buf, long off)
{
	return ULONG(buf + off);
}

/*
 * Module functions, from each module's kallsyms in memory (struct module::
 * kallsyms): the fallback when crash has no module tables of its own
 * (crash --no_modules; crash 8.0.2 cannot read the struct module::mem[]
 * layout of Linux >= 6.4).
 */
struct ks_modsym {
	ulong start, end;
	char name[64];
	char mod[64];
};

static struct ks_modsym *modsyms;
static long nr_modsyms = -1;

static void add_modsym(ulong start, ulong size, const char *name,
		       const char *mod)
{
	static long cap;

	if (nr_modsyms >= cap) {
		cap = cap ? cap * 2 : 256;
		modsyms = realloc(modsyms, cap * sizeof(*modsyms));
		if (!modsyms)
			error(FATAL, "kmapstack: out of memory\n");
	}
	modsyms[nr_modsyms].start = start;
	modsyms[nr_modsyms].end = start + size;
	snprintf(modsyms[nr_modsyms].name, sizeof(modsyms[0].name), "%s", name);
	snprintf(modsyms[nr_modsyms].mod, sizeof(modsyms[0].mod), "%s", mod);
	nr_modsyms++;
}

static ulong rd_ptr(ulong addr);
static void load_cpus(void);

static void load_modsyms(void)
{
	long m_list, m_name, m_kallsyms, k_symtab, k_num, k_strtab;
	ulong head, n;
	long guard = 0;

	if (nr_modsyms >= 0)
		return;
	nr_modsyms = 0;
	m_list = MEMBER_OFFSET("module", "list");
	m_name = MEMBER_OFFSET("module", "name");
	m_kallsyms = MEMBER_OFFSET("module", "kallsyms");
	k_symtab = MEMBER_OFFSET("mod_kallsyms", "symtab");
	k_num = MEMBER_OFFSET("mod_kallsyms", "num_symtab");
	k_strtab = MEMBER_OFFSET("mod_kallsyms", "strtab");
	if (m_list < 0 || m_name < 0 || m_kallsyms < 0 || k_symtab < 0 ||
	    k_num < 0 || k_strtab < 0 || !symbol_exists("modules"))
		return;
	head = symbol_value("modules");
	for (n = rd_ptr(head); n && n != head && guard < 10000;
	     n = rd_ptr(n), guard++) {
		ulong mod = n - m_list, ks, symtab, strtab;
		char mname[64] = "";
		uint num = 0, i;

		read_string(mod + m_name, mname, sizeof(mname) - 1);
		ks = rd_ptr(mod + m_kallsyms);
		if (!ks)
			continue;
		symtab = rd_ptr(ks + k_symtab);
		strtab = rd_ptr(ks + k_strtab);
		readmem(ks + k_num, KVADDR, &num, sizeof(num), "num_symtab",
			RETURN_ON_ERROR | QUIET);
		for (i = 0; i < num && i < 100000; i++) {
#if __SIZEOF_LONG__ == 8
			/* Elf64_Sym: name u32, info, other, shndx u16, value, size */
			struct {
				uint name;
				unsigned char info, other;
				unsigned short shndx;
				ulong value, size;
			} sym;
#else
			/* Elf32_Sym: name, value, size u32, info, other, shndx */
			struct {
				uint name;
				ulong value, size;
				unsigned char info, other;
				unsigned short shndx;
			} sym;
#endif
			char sname[64] = "";

			if (!readmem(symtab + i * sizeof(sym), KVADDR, &sym,
				     sizeof(sym), "Elf_Sym",
				     RETURN_ON_ERROR | QUIET))
				break;
			if (!sym.value || !sym.size)
				continue;
			read_string(strtab + sym.name, sname,
				    sizeof(sname) - 1);
			add_modsym(sym.value, sym.size, sname, mname);
		}
	}
}

static void symbolize(ulong ip, char *out, size_t len)
{
	struct syment *sp;
	ulong offset = 0;
	long i;

	if (in_ksymbol_range(ip) && (sp = value_search(ip, &offset))) {
		struct load_module *lm = NULL;

		if (module_symbol(ip, NULL, &lm, NULL, 0) && lm)
			snprintf(out, len, "%s+0x%lx [%s]", sp->name, offset,
				 lm->mod_name);
		else
			snprintf(out, len, "%s+0x%lx", sp->name, offset);
		return;
	}
	load_modsyms();
	for (i = 0; i < nr_modsyms; i++) {
		if (ip >= modsyms[i].start && ip < modsyms[i].end) {
			snprintf(out, len, "%s+0x%lx [%s]", modsyms[i].name,
				 ip - modsyms[i].start, modsyms[i].mod);
			return;
		}
	}
	snprintf(out, len, "%lx", ip);
}

/* Read the stack at @addr; returns its depth, or -1 if unreadable. */
static int read_stack(ulong addr, char *buf)
{
	if (!readmem(addr, KVADDR, buf, ks.stack_size, "kmap_stack",
		     RETURN_ON_ERROR | QUIET))
		return -1;
	return (int)UINT(buf + ks.depth);
}

/*
 * The pfn @addr maps, false if none: kmap_stack_pfn() of the kernel.  A
 * kmap_local fixmap slot of @task (0: an interrupt context's stack, whose
 * mappings are live) is fixmap index FIX_KMAP_BEGIN + slot + KM_MAX_IDX *
 * cpu: its pte is the task's kmap_ctrl.pteval[slot].
 */
static bool addr_pfn(ulong addr, ulong task, ulong *pfn)
{
	physaddr_t pa;

	if (task && ks.fix_top && addr <= ks.fix_top) {
		ulong idx = (ks.fix_top - addr) >> PAGESHIFT();

		if (idx >= (ulong)ks.fix_begin && idx <= (ulong)ks.fix_end) {
			ulong ctrl = task + ks.task_kmap_ctrl;
			ulong slot = (idx - ks.fix_begin) % ks.nr_ptes;
			ulonglong pte = 0;
			int n = 0;

			/* x86: the pfn is bits 12-51 of a (PAE, 64-bit) pte */
			if (!readmem(ctrl + ks.kc_idx, KVADDR, &n, sizeof(n),
				     "kmap_ctrl", RETURN_ON_ERROR | QUIET) ||
			    slot >= (ulong)n ||
			    !readmem(ctrl + ks.kc_pteval + slot * ks.pte_size,
				     KVADDR, &pte, ks.pte_size, "kmap_ctrl",
				     RETURN_ON_ERROR | QUIET))
				return false;
			*pfn = (pte & ((1ULL << 52) - 1)) >> PAGESHIFT();
			return *pfn != 0;
		}
	}
	if (!kvtop(NULL, addr, &pa, 0))
		return false;
	*pfn = pa >> PAGESHIFT();
	return true;
}

/*
 * The frames of a stack depot handle (CONFIG_DEBUG_KMAP_STACK_TRACES), as
 * depot_fetch_stack() of lib/stackdepot.c finds them: union handle_parts
 * is pool_index_plus_1 (the low bits), offset (in 16-byte units), 5 extra
 * bits; the pool is stack_pools[index] (an array in 6.12, a pointer
 * to one in 7.3), the record a struct stack_record
 * whose size first entries are the frames, innermost first.
 */
static void print_depot_frames(uint handle)
{
	static long r_size = -2, r_entries, r_count;
	static ulong pools;
	static uint pools_num;
	int offset_bits = 2 + PAGESHIFT() - 4;
	int index_bits = 32 - offset_bits - 5;
	uint index, n, size = 0, count = 0;
	ulong pool = 0, rec, ip;
	int type;
	char sym[BUFSIZE];

	if (r_size == -2) {
		r_size = MEMBER_OFFSET("stack_record", "size");
		r_entries = MEMBER_OFFSET("stack_record", "entries");
		r_count = MEMBER_OFFSET("stack_record", "count");
		if (symbol_exists("stack_pools") &&
		    symbol_exists("pools_num")) {
			pools = symbol_value("stack_pools");
			/* An array in 6.12, a pointer to one in 7.3 */
			type = get_symbol_type("stack_pools", NULL, NULL);
			if (type == TYPE_CODE_PTR &&
			    !readmem(pools, KVADDR, &pools, sizeof(pools),
				     "stack_pools", RETURN_ON_ERROR | QUIET))
				pools = 0;
			readmem(symbol_value("pools_num"), KVADDR, &pools_num,
				sizeof(pools_num), "pools_num",
				RETURN_ON_ERROR | QUIET);
		}
	}
	if (!handle || r_size < 0 || r_entries < 0 || !pools)
		return;
	index = (handle & ((1U << index_bits) - 1)) - 1;
	if (index >= pools_num)
		return;
	if (!readmem(pools + index * sizeof(ulong), KVADDR, &pool, sizeof(pool),
		     "stack_pools", RETURN_ON_ERROR | QUIET) ||
	    !pool)
		return;
	rec = pool +
	      (((handle >> index_bits) & ((1U << offset_bits) - 1)) << 4);
	if (!readmem(rec + r_size, KVADDR, &size, sizeof(size), "stack_record",
		     RETURN_ON_ERROR | QUIET))
		return;
	/* a record with no reference is free: its frames are not */
	if (r_count >= 0 &&
	    (!readmem(rec + r_count, KVADDR, &count, sizeof(count),
		      "stack_record", RETURN_ON_ERROR | QUIET) ||
	     !count))
		return;
	for (n = 0; n < size && n < 64; n++) {
		if (!readmem(rec + r_entries + n * sizeof(ulong), KVADDR, &ip,
			     sizeof(ip), "stack_record",
			     RETURN_ON_ERROR | QUIET))
			return;
		symbolize(ip, sym, sizeof(sym));
		fprintf(fp, "          %s\n", sym);
	}
}

static bool show_frames; /* -s */

/*
 * The entries of the stack of context @stack_ctx: @task's, 0: an interrupt
 * context's.
 */
static void print_entries(const char *buf, int depth, int stack_ctx, ulong task)
{
	char sym[BUFSIZE], pfn_str[32];
	int i, n = depth;

	if (n > ks.nr_entries)
		n = ks.nr_entries;
	for (i = 0; i < n; i++) {
		/* page-aligned, KMAP_STACK_F_ATOMIC in the low bits */
		ulong addr = rd_ulong(buf, ks.addr.off + i * ks.addr.stride);
		bool atomic = addr & 1;
		/* ts is jiffies: the age at the time of the dump */
		ulong age = ks.jiffies -
			    rd_ulong(buf, ks.ts.off + i * ks.ts.stride);
		uint handle = ks.stack.off >= 0 ? UINT(buf + ks.stack.off +
						       i * ks.stack.stride) :
						  0;
		ulong pfn;

		addr &= ~((ulong)PAGESIZE() - 1);
		if (ks.pfn.off >= 0) {
			pfn = rd_ulong(buf, ks.pfn.off + i * ks.pfn.stride);
			snprintf(pfn_str, sizeof(pfn_str), "%lx", pfn);
		} else if (addr_pfn(addr, task, &pfn)) {
			snprintf(pfn_str, sizeof(pfn_str), "%lx", pfn);
		} else {
			snprintf(pfn_str, sizeof(pfn_str), "?");
		}
		symbolize(rd_ulong(buf, ks.ip.off + i * ks.ip.stride), sym,
			  sizeof(sym));
		fprintf(fp,
			"    #%-2d %0*lx pfn %-8s %-7s %-12s %6llu ms ago  %s",
			i, VADDR_PRLEN, addr, pfn_str, ctx_name[stack_ctx],
			atomic ? "atomic" : "local",
			(ulonglong)age * 1000ULL / (ulonglong)ks.hz, sym);
		if (handle)
			fprintf(fp, "  stack %x", handle);
		fprintf(fp, "\n");
		if (show_frames)
			print_depot_frames(handle);
	}
}

static void print_stack_header(const char *buf, int depth)
{
	uint overflow = UINT(buf + ks.overflow);

	fprintf(fp, "depth %d", depth);
	if (overflow)
		fprintf(fp, " overflow %u", overflow);
	if (ks.in_trace >= 0 && UCHAR(buf + ks.in_trace))
		fprintf(fp, " in_trace");
	if (depth > ks.nr_entries)
		fprintf(fp, " (corrupt: more than %ld)", ks.nr_entries);
}

/*
 * CPUs from the kernel's own variables (nr_cpu_ids, __cpu_online_mask,
 * __per_cpu_offset[]) rather than crash's kt->cpus, which depends on crash
 * knowing the kernel's per-CPU layout (crash 8.0.2 finds one CPU on Linux
 * >= 6.2, which moved cpu_number into struct pcpu_hot).
 */
static int nr_cpus = -1;
static ulong cpu_offset[NR_CPUS];
static bool cpu_online[NR_CPUS];

static void load_cpus(void)
{
	uint n = 0;
	ulong mask[NR_CPUS / (8 * sizeof(ulong))] = { 0 };
	bool have_mask;
	int cpu;

	if (nr_cpus >= 0)
		return;
	if (!symbol_exists("nr_cpu_ids") ||
	    !symbol_exists("__per_cpu_offset") ||
	    !readmem(symbol_value("nr_cpu_ids"), KVADDR, &n, sizeof(n),
		     "nr_cpu_ids", RETURN_ON_ERROR | QUIET) ||
	    n == 0 || n > NR_CPUS) {
		nr_cpus = kt->cpus;
		for (cpu = 0; cpu < nr_cpus; cpu++) {
			cpu_offset[cpu] = kt->__per_cpu_offset[cpu];
			cpu_online[cpu] = true;
		}
		return;
	}
	nr_cpus = (int)n;
	have_mask = symbol_exists("__cpu_online_mask") &&
		    readmem(symbol_value("__cpu_online_mask"), KVADDR, mask,
			    (n + 8 * sizeof(ulong) - 1) / (8 * sizeof(ulong)) *
				    sizeof(ulong),
			    "__cpu_online_mask", RETURN_ON_ERROR | QUIET);
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		readmem(symbol_value("__per_cpu_offset") + cpu * sizeof(ulong),
			KVADDR, &cpu_offset[cpu], sizeof(ulong),
			"__per_cpu_offset", RETURN_ON_ERROR | QUIET);
		cpu_online[cpu] = !have_mask ||
				  (mask[cpu / (8 * sizeof(ulong))] >>
				   (cpu % (8 * sizeof(ulong)))) &
					  1;
	}
}

static void show_cpu(int cpu, char *buf)
{
	int c;

	for (c = 1; c < KS_CTX_NR; c++) {
		ulong addr = ks.irq_stacks + cpu_offset[cpu] +
			     (c - 1) * ks.stack_size;
		int depth = read_stack(addr, buf);

		fprintf(fp, "CPU %d %-8s %0*lx  ", cpu, ctx_name[c],
			VADDR_PRLEN, addr);
		if (depth < 0) {
			fprintf(fp, "unreadable\n");
			continue;
		}
		print_stack_header(buf, depth);
		fprintf(fp, "\n");
		print_entries(buf, depth, c, 0);
	}
}

static void show_task(ulong task, char *buf, const struct ks_opts *o,
		      struct ks_count *cnt)
{
	char comm[TASK_COMM_LEN + 1] = "";
	int pid = 0, depth;

	readmem(task + ks.task_pid, KVADDR, &pid, sizeof(pid), "task pid",
		RETURN_ON_ERROR | QUIET);
	if (o->task ? task != o->task : o->have_pid && (ulong)pid != o->pid)
		return;
	readmem(task + ks.task_comm, KVADDR, comm, TASK_COMM_LEN, "task comm",
		RETURN_ON_ERROR | QUIET);
	comm[TASK_COMM_LEN] = '\0';
	cnt->tasks++;
	depth = read_stack(task + ks.task_kmap_stack, buf);
	if (depth > 0) {
		cnt->holding++;
		cnt->mappings += depth;
	}
	if (depth == 0 && !o->all && !o->have_pid)
		return;
	fprintf(fp, "PID %-6d %-16s task %0*lx  ", pid, comm, VADDR_PRLEN,
		task);
	if (depth < 0) {
		fprintf(fp, "unreadable\n");
		return;
	}
	print_stack_header(buf, depth);
	fprintf(fp, "\n");
	print_entries(buf, depth, 0, task);
}

static ulong rd_ptr(ulong addr)
{
	ulong v = 0;

	if (!readmem(addr, KVADDR, &v, sizeof(v), "pointer",
		     RETURN_ON_ERROR | QUIET))
		return 0;
	return v;
}

/* Every thread of @leader's thread group but @leader itself. */
static void walk_threads(ulong leader, char *buf, const struct ks_opts *o,
			 struct ks_count *cnt)
{
	ulong signal, head, n;
	long guard = 0;

	if (ks.task_thread_node < 0 || ks.signal_thread_head < 0)
		return;
	signal = rd_ptr(leader + ks.task_signal);
	if (!signal)
		return;
	head = signal + ks.signal_thread_head;
	for (n = rd_ptr(head); n && n != head && guard < 1000000;
	     n = rd_ptr(n), guard++) {
		ulong t = n - ks.task_thread_node;

		if (t != leader)
			show_task(t, buf, o, cnt);
	}
}

static void walk_tasks(char *buf, const struct ks_opts *o, struct ks_count *cnt)
{
	ulong init = symbol_value("init_task");
	ulong head = init + ks.task_tasks, n;
	long guard = 0;
	int cpu;

	show_task(init, buf, o, cnt);
	for (n = rd_ptr(head); n && n != head && guard < 1000000;
	     n = rd_ptr(n), guard++) {
		ulong t = n - ks.task_tasks;

		show_task(t, buf, o, cnt);
		walk_threads(t, buf, o, cnt);
	}
	/* The idle tasks of the other CPUs are on no list. */
	if (!ks.runqueues || ks.rq_idle < 0)
		return;
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		ulong idle =
			rd_ptr(ks.runqueues + cpu_offset[cpu] + ks.rq_idle);

		if (idle && idle != init)
			show_task(idle, buf, o, cnt);
	}
}

/* -p: a pid, or a task address as crash's own commands take them */
static void parse_task_arg(const char *arg, struct ks_opts *o)
{
	char *end;
	ulong v;

	o->have_pid = true;
	v = strtoul(arg, &end, 10);
	if (*arg && !*end && v <= 0x7fffffff) {
		o->pid = v;
		return;
	}
	v = strtoul(arg, &end, 16);
	if (*arg && !*end && IS_KVADDR(v)) {
		o->task = v;
		return;
	}
	error(FATAL, "kmapstack: -p takes a pid or a task address: %s\n", arg);
}

/* -c: "0,2-3"; "a" or "all": every CPU */
static void parse_cpu_list(const char *arg, struct ks_opts *o)
{
	const char *p = arg;

	o->have_cpus = true;
	if (!strcmp(arg, "a") || !strcmp(arg, "all")) {
		for (int c = 0; c < nr_cpus; c++)
			cpu_wanted[c] = true;
		return;
	}
	for (;;) {
		char *end;
		ulong a = strtoul(p, &end, 10), b = a;

		if (end == p)
			goto bad;
		if (*end == '-') {
			p = end + 1;
			b = strtoul(p, &end, 10);
			if (end == p || b < a)
				goto bad;
		}
		if (b >= (ulong)nr_cpus)
			error(FATAL, "kmapstack: no CPU %lu (0-%d)\n", b,
			      nr_cpus - 1);
		for (ulong c = a; c <= b; c++)
			cpu_wanted[c] = true;
		if (!*end)
			return;
		if (*end != ',')
			goto bad;
		p = end + 1;
	}
bad:
	error(FATAL, "kmapstack: -c takes CPUs: 0,2-3 or all: %s\n", arg);
}

static void cmd_kmapstack(void)
{
	struct ks_opts o = { .tasks = true, .cpus = true };
	struct ks_count cnt = { 0 };
	const char *pid_arg = NULL, *cpu_arg = NULL;
	char *buf;
	int c, cpu;

	show_frames = false;
	while ((c = getopt(argcnt, args, "ap:c:s")) != EOF) {
		switch (c) {
		case 'a':
			o.all = true;
			break;
		case 's':
			show_frames = true;
			break;
		case 'p':
			pid_arg = optarg;
			o.cpus = false;
			break;
		case 'c':
			cpu_arg = optarg;
			o.tasks = false;
			break;
		default:
			argerrs++;
			break;
		}
	}
	if (argerrs || args[optind] || (pid_arg && cpu_arg))
		cmd_usage(pc->curcmd, SYNOPSIS);

	ks_init_layout();
	read_clock();
	load_cpus();
	memset(cpu_wanted, 0, sizeof(cpu_wanted));
	if (pid_arg)
		parse_task_arg(pid_arg, &o);
	if (cpu_arg)
		parse_cpu_list(cpu_arg, &o);
	buf = GETBUF(ks.stack_size);
	if (o.cpus) {
		for (cpu = 0; cpu < nr_cpus; cpu++) {
			if (o.have_cpus ? !cpu_wanted[cpu] : !cpu_online[cpu])
				continue;
			show_cpu(cpu, buf);
		}
	}
	if (o.tasks) {
		walk_tasks(buf, &o, &cnt);
		if (o.task && !cnt.tasks)
			fprintf(fp, "kmapstack: no task at %lx\n", o.task);
		else if (o.have_pid && !cnt.tasks)
			fprintf(fp, "kmapstack: no task with pid %lu\n", o.pid);
		else
			fprintf(fp,
				"%lu tasks, %lu holding %lu mapping%s (depth > 0)\n",
				cnt.tasks, cnt.holding, cnt.mappings,
				cnt.mappings == 1 ? "" : "s");
	}
	FREEBUF(buf);
}

static char *help_kmapstack[] = {
	"kmapstack",
	"CONFIG_DEBUG_KMAP_STACK shadow stacks (kmap_local/kmap_atomic)",
	"[-a] [-s] [-p pid | task] [-c cpu-list]",
	"  Lists the temporary kernel mappings each context holds, outermost",
	"  first: every CPU's softirq, hardirq and NMI stacks (kmap_stack_irq),",
	"  then every task whose task_struct::kmap_stack is not empty.  Each",
	"  entry shows the mapped address, the pfn it maps ('?' if none: the",
	"  kernel keeps none, it is found from the live mapping), the context and",
	"  API (local or atomic) it was made with, its age (the entry's time is",
	"  in jiffies) and the symbolized call site.",
	"",
	"    -a      also list the tasks that hold no mapping",
	"    -s      each entry's stack trace (CONFIG_DEBUG_KMAP_STACK_TRACES:",
	"            its stack depot handle resolved to frames, innermost first)",
	"    -p pid | task  only this task: a pid, or a task_struct address",
	"    -c cpu-list    only these CPUs' interrupt-context stacks: 0,2-3,",
	"                   or a (all) for every CPU, offline ones too",
	"",
	"EXAMPLE",
	"    %s> kmapstack -p 97",
	"    PID 97     kmapbug_holder   task ffff888004a1c100  depth 3",
	"        #0  ffff888005bd8000 pfn 5bd8     task    local          8724 ms ago  kmapbug_map_first+0x14 [kmapbug]",
	"        ...",
	NULL
};

static struct command_table_entry command_table[] = {
	{ "kmapstack", cmd_kmapstack, help_kmapstack, 0 },
	{ NULL, NULL, NULL, 0 },
};

void __attribute__((constructor)) kmapstack_init(void)
{
	register_extension(command_table);
}

void __attribute__((destructor)) kmapstack_fini(void)
{
}
