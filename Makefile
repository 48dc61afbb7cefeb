# kmapstack: CONFIG_DEBUG_KMAP_STACK for mainline Linux (7.3) and the 6.12
# LTS, and its tools.
#
#   make demo      the end-to-end demo: build, boot, report, trace, analyze
#   make check     every test (installs what it needs; what CI runs)
#   make check-all make check + check-cross (not in CI)
#
# Kernel work (docs/harness.md):
#   Every kernel target takes BASE=7.3 (default) or BASE=6.12:
#     make kunit-x86_64 BASE=6.12
#   make kernel-tree      build/linux = pristine 7.3 + kernel-patch/series (git am)
#                         (BASE=6.12: build/6.12/linux, kernel-patch/6.12/)
#   make export-patches   build/linux's commits back into kernel-patch/
#   make kernel ARCH=x86_64|i386|arm64   configure and build build/out-ARCH
#                         (the test config of ARCH, scripts/lib.sh arch_fragments;
#                         the same as every script builds)
#   make kunit-ARCH       build, boot and run the KUnit suite kmap_stack
#                         (ARCH: x86_64, i386, arm64)
#                         (booted with panic_on_warn=1 init_on_alloc=1)
#   make check-module-ARCH  the test module tests/modules/kmapbug (x86_64, i386, arm64)
#   make checkpatch       scripts/checkpatch.pl --strict on every patch
#   make bisect-build     build and boot the tree at every patch of the series
#   make build-cross      build only, for arm, mips, powerpc, sparc32, arc (HIGHMEM)
#   make check-cross      build-cross + boot arm, mips, powerpc and run KUnit
#                         (docs/architectures.md)
# Single test steps of make check: check-event-formats-ARCH (x86_64, i386),
#   check-analyzer-ARCH, check-guest, check-erofs (in check-guest: kmap_stack
#   finds 6.12's out-of-order kunmap_local() in erofs lookups, kernel-fixes/),
#   check-romfs (in check-guest), check-romfs-highmem (the romfs bug on an
#   i386 HIGHMEM kernel: kmap_stack's report, or mainline's WARNING without
#   the option; its own kernel build), check-gfs2-highmem (gfs2's metadata
#   in highmem: the mount's oops on i386, or a clean mount with the fix; its
#   own kernel build; not in make check), check-live, check-postmortem, check-drgn (the drgn script without a
#   vmcore), check-tools, check-package (make install, the Debian package),
#   check-suites (the kernel's own KUnit suites and crypto self-tests),
#   check-tree (the kernel tree follows kernel-patch/ and the tarball),
#   check-deps (the set-up goes on past a failed apt-get update),
#   check-lib (the harness's log readers);
#   make check-mutants: the KUnit cases fail on the earlier series' bugs
#   (scripts/mutants/earlier-bugs.py; not in make check);
#   make check-syzkaller: syzkaller's console parser titles every report of
#   make check's logs by its kind and culprit (scripts/syzkaller/; not in
#   make check);
#   make check-world: Debian's configs under a real workload (docs/real-world.md);
#   make check-postmortem-i386: the crash extension on an i386 HIGHMEM vmcore
#   (a crash for target=X86, a debug-info kernel; not in make check);
#   update-event-formats rewrites the golden trace-event formats.
# Static check (docs/static-check.md):
#   make static-check KERNEL_TREE=DIR [PATHS="fs/erofs ..."]  the kmap LIFO
#                         rule checked by Coccinelle on a kernel tree: one
#                         finding a line, then a count
#   make check-static     its tests (in make check)
# Tools:
#   make tools            tools/kmapstack (the trace analyzer)
#   make crash            crash 8.0.6 for tools/crash (scripts/install-crash.sh;
#                         make check-postmortem builds it if missing)
#   make install          the analyzer, its man page and bash completion, the
#                         JSON schema doc; under share/kmapstack/ the bpftrace
#                         scripts, the drgn script and the crash extension's
#                         source.  prefix= (or PREFIX=; /usr/local), DESTDIR=,
#                         CPPFLAGS, CFLAGS, LDFLAGS; WERROR=0 builds without
#                         -Werror.  make uninstall removes them.
#   make check-package    the Debian package (debian/): built with
#                         dpkg-buildpackage, lintian, installed and run
#   make bench            benchmarks (figures in docs/)

SHELL := /bin/bash
ARCH ?= x86_64
PREFIX ?= /usr/local
prefix ?= $(PREFIX)
datadir ?= $(prefix)/share
pkgdatadir ?= $(datadir)/kmapstack
INSTALL ?= install
# BASE=7.3 (default: the mainline series, kernel-patch/) or BASE=6.12 (the
# LTS backport, kernel-patch/6.12/, built under build/6.12/): every kernel
# target takes it (scripts/lib.sh)
ifdef BASE
export KMAPSTACK_BASE := $(BASE)
endif

.PHONY: all deps kernel-tree export-patches kernel kernel-x86_64 kernel-i386 \
	kernel-arm64 kunit-x86_64 kunit-i386 kunit-arm64 checkpatch bisect-build \
	tools install uninstall check check-tools check-package check-event-formats-x86_64 \
	check-event-formats-i386 update-event-formats check-module-x86_64 \
	check-module-i386 check-module-arm64 check-guest check-erofs check-romfs check-romfs-highmem check-gfs2-highmem check-live \
	check-analyzer-x86_64 check-analyzer-i386 \
	check-postmortem check-postmortem-i386 check-drgn check-suites check-tree check-deps check-lib check-static static-check check-mutants check-syzkaller check-world demo bench bench-kernel bench-tools build-cross \
	check-cross check-all crash clean

all: tools

deps:
	bash scripts/install-deps.sh

kernel-tree:
	bash scripts/kernel-tree.sh

export-patches:
	bash scripts/export-patches.sh

kernel: kernel-$(ARCH)

# The KUnit suite must pass on a kernel that panics on a WARN, with
# Debian's init_on_alloc; KUNIT_TRACES=0 boots with the stack traces off,
# on the fast paths
KUNIT_BOOT_ARGS ?= -a "panic_on_warn=1 init_on_alloc=1$(if $(filter 0,$(KUNIT_TRACES)), kmap_stack.stack_traces=0)"

# Explicit rules per architecture: make skips pattern rules for .PHONY
# targets.  The config of each is scripts/lib.sh's, nothing is set here.
define KERNEL_RULES
kernel-$(1):
	bash scripts/build-kernel.sh $(1)

kunit-$(1): kernel-$(1)
	KMAPSTACK_NO_BUILD=1 bash scripts/run-kunit.sh $(1) $(KUNIT_BOOT_ARGS)

check-module-$(1): kernel-$(1)
	bash scripts/test-module.sh $(1)
endef
$(foreach a,x86_64 i386 arm64,$(eval $(call KERNEL_RULES,$(a))))

define X86_RULES
check-event-formats-$(1): kernel-$(1)
	bash scripts/check-event-formats.sh $(1)

check-analyzer-$(1): kernel-$(1) tools
	bash scripts/test-analyzer.sh $(1)
endef
$(foreach a,x86_64 i386,$(eval $(call X86_RULES,$(a))))

update-event-formats: kernel-x86_64 kernel-i386
	bash scripts/check-event-formats.sh x86_64 --update
	bash scripts/check-event-formats.sh i386 --update

GUEST_TESTS ?=
check-guest: kernel-x86_64 tools
	bash scripts/test-guest.sh $(GUEST_TESTS)

check-erofs: kernel-x86_64
	bash scripts/test-guest.sh --only erofs

check-romfs: kernel-x86_64
	bash scripts/test-guest.sh --only romfs

check-romfs-highmem:
	bash scripts/test-romfs-highmem.sh

check-gfs2-highmem:
	bash scripts/test-gfs2-highmem.sh

check-live: kernel-x86_64 tools
	bash scripts/test-live.sh

check-postmortem: kernel-x86_64 tools
	bash scripts/test-guest.sh --only postmortem

# the drgn script's arguments and errors, without a vmcore
check-drgn:
	/usr/bin/python3 tools/drgn/test_kmapstack.py

# crash 8.0.6 (target=X86) and kmapstack-i386.so on a dump of an i386 guest
# with 3 GiB (highmem); builds its own kernel (build/out-i386-dbg)
check-postmortem-i386:
	bash scripts/test-postmortem-i386.sh

# The kernel's own suites (iov_iter, memcpy, usercopy KUnit; the crypto
# self-tests and tcrypt) in the x86_64 and i386 test kernels, with
# init_on_alloc=1: any failure or kmap_stack report fails
check-suites: kernel-x86_64 kernel-i386
	bash scripts/test-suites.sh x86_64 i386

# Debian's amd64, rt and 686-pae configs under a real workload, figures in
# docs/real-world.md (hours under TCG: not part of make check)
check-world: tools
	bash scripts/check-world.sh

crash:
	bash scripts/install-crash.sh

checkpatch:
	bash scripts/checkpatch.sh

# Every HIGHMEM architecture Debian has a cross compiler for (~10 min each
# cold); check-cross also boots arm, mips, powerpc and runs the KUnit suite
build-cross:
	bash scripts/build-cross.sh

check-cross:
	bash scripts/check-cross.sh

bisect-build:
	bash scripts/bisect-build.sh x86_64 i386

tools:
	$(MAKE) -C tools/kmapstack

check-tree:
	bash scripts/test-tree.sh

check-deps:
	bash scripts/test-deps.sh

check-lib:
	bash scripts/test-lib.sh

check-mutants:
	bash scripts/test-mutants.sh

check-syzkaller:
	bash scripts/test-syzkaller.sh

# findings are data: exit 0 whatever is found, 2 on a usage error
static-check:
	@python3 static-check/kmap-static-check.py "$(KERNEL_TREE)" $(PATHS)

check-static:
	bash scripts/test-static-check.sh

check-tools:
	$(MAKE) -C tools/kmapstack check

install: tools
	$(MAKE) -C tools/kmapstack install prefix=$(prefix)
	$(INSTALL) -d $(DESTDIR)$(pkgdatadir)/bpftrace \
		$(DESTDIR)$(pkgdatadir)/drgn $(DESTDIR)$(pkgdatadir)/crash
	$(INSTALL) -m 0755 scripts/bpftrace/*.bt $(DESTDIR)$(pkgdatadir)/bpftrace/
	$(INSTALL) -m 0644 tools/drgn/kmapstack.py $(DESTDIR)$(pkgdatadir)/drgn/
	$(INSTALL) -m 0644 tools/crash/kmapstack.c tools/crash/Makefile \
		$(DESTDIR)$(pkgdatadir)/crash/

uninstall:
	$(MAKE) -C tools/kmapstack uninstall prefix=$(prefix)
	rm -f $(DESTDIR)$(pkgdatadir)/bpftrace/*.bt \
		$(DESTDIR)$(pkgdatadir)/drgn/kmapstack.py \
		$(DESTDIR)$(pkgdatadir)/crash/kmapstack.c \
		$(DESTDIR)$(pkgdatadir)/crash/Makefile
	for d in bpftrace/ drgn/ crash/ ''; do \
		[ ! -d $(DESTDIR)$(pkgdatadir)/$$d ] || \
			rmdir --ignore-fail-on-non-empty $(DESTDIR)$(pkgdatadir)/$$d; \
	done

# make install and uninstall, the Debian package built, lintian-clean,
# installed and run (scripts/test-package.sh)
check-package:
	bash scripts/test-package.sh

# The whole suite, each step logged to build/check/STEP.log; a summary and
# "N passed, N failed".
check:
	bash scripts/check-all.sh

# make check, then check-cross, one summary
check-all:
	bash scripts/check-all.sh --all

demo:
	bash scripts/demo.sh

bench: bench-kernel bench-tools

# kmap map+unmap pairs in the kernel, per kernel variant (docs/performance.md)
bench-kernel:
	bash scripts/bench.sh

bench-tools:
	$(MAKE) -C tools/kmapstack bench

clean:
	$(MAKE) -C tools/kmapstack clean
	rm -rf build/out-* build/*.log build/*.cpio
