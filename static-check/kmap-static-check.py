#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""kmap-static-check.py KERNEL_TREE [PATH...]: the kmap LIFO check of a tree.

Runs static-check/kmap_wrappers.cocci over the C files of PATH... (default:
the whole tree) that name a mapping function, to derive the helpers that
map or release for their caller, again with what it found until nothing new
is found (at most --rounds times), then static-check/kmap_lifo.cocci with the
API's functions and the derived helpers.  Prints one finding per line,

    path:line: function: what

(path relative to KERNEL_TREE), then "N findings".  Exit status 0 whatever
it finds, 2 on a usage error (no such tree or path, no spatch), 1 if spatch
itself could not run.

Options:
  -j N          spatch processes at once (default 2, at most 2)
  --rounds N    rounds of helper derivation (default 6)
  --wrappers F  also write the derived helpers to F
  --use-wrappers F  take the helpers from F (written by --wrappers) instead
                of deriving them
  --log F       spatch's own messages (parse errors, timeouts) to F
  --timeout S   per-file spatch timeout (default 120)
  --cocci F     the semantic patch to run instead of kmap_lifo.cocci
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LIFO = os.path.join(HERE, "kmap_lifo.cocci")
WRAPPERS = os.path.join(HERE, "kmap_wrappers.cocci")

# The API: the classes of kmap_lifo.cocci's identifier constraints.
BASE = {
    "mapr": ["kmap_local_page", "kmap_local_folio", "kmap_local_page_prot",
             "kmap_local_pfn", "kmap_local_page_try_from_panic",
             "kmap_atomic", "kmap_atomic_prot", "kmap_atomic_pfn"],
    "maph0": ["sg_miter_next", "scatterwalk_map"],
    "maph1": [],
    # the mapping helpers that release nothing of that parameter (the
    # start of a mapping held at return)
    "mapo0": ["scatterwalk_map"],
    "mapo1": [],
    "unm0": ["kunmap_local", "__kunmap_local", "kunmap_atomic",
             "__kunmap_atomic", "sg_miter_stop", "scatterwalk_unmap"],
    "unm1": ["folio_release_kmap"],
    "unm2": [],
    # every release helper, whatever the place of the mapping among its
    # arguments (what ends a mapping held at return)
    "unma": ["kunmap_local", "__kunmap_local", "kunmap_atomic",
             "__kunmap_atomic", "sg_miter_stop", "scatterwalk_unmap",
             "folio_release_kmap"],
}
FLAVOUR = {
    "kmap_local_page": "local", "kmap_local_folio": "local",
    "kmap_local_page_prot": "local", "kmap_local_pfn": "local",
    "kmap_local_page_try_from_panic": "local",
    "kmap_atomic": "atomic", "kmap_atomic_prot": "atomic",
    "kmap_atomic_pfn": "atomic",
    "kunmap_local": "local", "__kunmap_local": "local",
    "folio_release_kmap": "local",
    "kunmap_atomic": "atomic", "__kunmap_atomic": "atomic",
}
API = {n for names in BASE.values() for n in names}
# what an empty class is constrained to (a name no code has)
NONE = "kmapstack_none_"
FINDING = re.compile(r"^(?P<file>[^:\s]+):(?P<line>\d+):\d+-\d+: (?P<rest>.*)$")
WRAPPER = re.compile(r"^WRAPPER (ret|map|rel|maps) (\S+) (\S+) (\S+) (\S+)$")


def rank(msg):
    """The order of preference of two findings of one line."""
    for i, word in enumerate(("in the order the loop", "the other flavour",
                              "not the most recent", "still held")):
        if word in msg:
            return i
    return 9


def usage(msg):
    print("kmap-static-check: %s" % msg, file=sys.stderr)
    print("usage: kmap-static-check.py KERNEL_TREE [PATH...]", file=sys.stderr)
    sys.exit(2)


def render(template, classes, flavours):
    """The semantic patch with the classes' lists in its constraints."""
    text = open(template).read()

    def alt(names):
        names = sorted(set(names)) or [NONE]
        return "|".join(re.escape(n) for n in names)

    def sub(m):
        var = m.group(2)
        cls = {"mapk": "mapr"}.get(var, var.split("_")[0])
        if cls not in classes:
            return m.group(0)
        return '%s%s =~ "^(%s)$";' % (m.group(1), var, alt(classes[cls]))

    text = re.sub(r'^(identifier )(\w+) =~ "\^\([^"]*\)\$";', sub, text,
                  flags=re.M)
    text = text.replace("flavours = {\n", "flavours = {\n    **%r,\n" % flavours, 1)
    mappers = sorted(set(classes["mapr"] + classes["maph0"] + classes["maph1"]))
    text = text.replace("\nmappers = set()\n", "\nmappers = set(%r)\n" % mappers, 1)
    releasers = sorted(set(classes["unm0"] + classes["unm1"] + classes["unm2"] + classes["unma"]))
    text = re.sub(r"\nreleasers = set\(\[[^]]*\]\)\n",
                  lambda m: "\nreleasers = set(%r)\n" % releasers, text, count=1)
    return text


def candidates(tree, paths, names, cache):
    """C files under PATHs that name one of names (grep -w)."""
    names = sorted(set(names) - cache.setdefault("_searched", set()))
    found = set()
    if names:
        with tempfile.NamedTemporaryFile("w", suffix=".names", delete=False) as f:
            f.write("\n".join(names) + "\n")
            pat = f.name
        try:
            r = subprocess.run(
                ["grep", "-rlwF", "-f", pat, "--include=*.c", "--include=*.h",
                 "--"] + paths, cwd=tree, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True)
        finally:
            os.unlink(pat)
        if r.returncode > 1:
            usage("grep failed in %s: %s" % (tree, r.stderr.strip()))
        found = {os.path.normpath(p) for p in r.stdout.splitlines() if p}
        cache["_searched"].update(names)
    cache.setdefault("_files", set()).update(found)
    return found


def spatch(cocci, files, tree, jobs, timeout, log, extra=()):
    """Run spatch on each file (a group of its own): chunks of files from
    one queue, jobs spatch processes at a time."""
    files = sorted(files)
    if not files:
        return []
    # a few files: one chunk a process (spatch takes a second to start);
    # many: chunks of 20, so that neither process waits for the other
    size = -(-len(files) // jobs) if len(files) < 100 else 20
    queue = [files[i:i + size] for i in range(0, len(files), size)]
    tmp = tempfile.mkdtemp(prefix="kmap-static-")
    lock = threading.Lock()
    lines, failures = [], []

    def worker(w):
        groups = os.path.join(tmp, "groups%d" % w)
        while True:
            with lock:
                if not queue:
                    return
                chunk = queue.pop(0)
            with open(groups, "w") as g:
                g.write("\n\n".join(chunk) + "\n")
            cmd = ["nice", "-n", "10", "spatch", "--sp-file", cocci,
                   "--no-includes", "--include-headers", "--very-quiet",
                   "--no-show-diff", "--timeout", str(timeout),
                   "--file-groups", groups] + list(extra)
            r = subprocess.run(cmd, cwd=tree, stdout=subprocess.PIPE,
                               stderr=log, text=True, errors="replace")
            with lock:
                lines.extend(r.stdout.splitlines())
                if r.returncode != 0:
                    failures.append((chunk, r.returncode))

    try:
        threads = [threading.Thread(target=worker, args=(w,))
                   for w in range(jobs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        shutil.rmtree(tmp)
    if failures and not lines:
        print("kmap-static-check: spatch failed (see its log)", file=sys.stderr)
        sys.exit(1)
    for chunk, rc in failures:
        print("kmap-static-check: spatch exit %d on %s..." % (rc, chunk[0]),
              file=sys.stderr)
    return lines


def classify(seen, flavours):
    """The classes of kmap_lifo.cocci from the facts found of each helper."""
    flavours = dict(flavours)
    classes = {k: list(v) for k, v in BASE.items()}
    for name, facts in seen.items():
        kinds = {(k, n) for k, n, _, _ in facts}
        inners = {i for _, _, i, _ in facts}
        fl = {flavours.get(i) for i in inners} - {None}
        maps = {n for k, n in kinds if k == "map"}
        rels = {n for k, n in kinds if k == "rel"}
        if ("ret", "-") in kinds:
            classes["mapr"].append(name)
        elif maps:
            # mapping into its parameter (after releasing what it held,
            # as a buffer or an iterator does): a mapping helper
            for n in maps:
                if n in ("0", "1"):
                    classes["maph" + n].append(name)
                    if n not in rels:
                        classes["mapo" + n].append(name)
        else:
            if rels:
                classes["unma"].append(name)
            for n in rels:
                if n in ("0", "1", "2"):
                    classes["unm" + n].append(name)
        if len(fl) == 1:
            flavours[name] = fl.pop()
    return classes, flavours


def load_wrappers(path):
    """The helpers of a file --wrappers wrote."""
    seen = {}
    with open(path) as f:
        for line in f:
            kind, name, n, inner, where = line.split()
            seen.setdefault(name, set()).add((kind, n, inner, where))
    # the flavour of a helper comes from what it calls: settle it in
    # rounds, as derive() does
    flavours = dict(FLAVOUR)
    for _ in range(6):
        classes, flavours = classify(seen, flavours)
    return classes, flavours, seen


def derive(tree, paths, jobs, timeout, log, rounds):
    """The helpers: class -> names, and their flavours."""
    classes = {k: list(v) for k, v in BASE.items()}
    flavours = dict(FLAVOUR)
    cache = {}
    seen = {}
    new_names = set(API)
    for _ in range(rounds):
        files = candidates(tree, paths, new_names, cache)
        if not files:
            break
        cocci = os.path.join(tempfile.gettempdir(),
                             "kmap_wrappers.%d.cocci" % os.getpid())
        with open(cocci, "w") as f:
            f.write(render(WRAPPERS, classes, flavours))
        try:
            lines = spatch(cocci, files, tree, jobs, timeout, log)
        finally:
            os.unlink(cocci)
        found = {}
        for line in lines:
            m = WRAPPER.match(line)
            if not m:
                continue
            kind, name, n, inner, where = m.groups()
            if name in API:
                continue
            found.setdefault(name, set()).add((kind, n, inner, where))
        new_names = set()
        for name, facts in found.items():
            if name in seen and seen[name] == facts:
                continue
            seen[name] = facts
            new_names.add(name)
        classes, flavours = classify(seen, flavours)
        if not new_names:
            break
    return classes, flavours, seen


def main():
    ap = argparse.ArgumentParser(add_help=True, usage=__doc__)
    ap.add_argument("tree", nargs="?")
    ap.add_argument("paths", nargs="*")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--wrappers")
    ap.add_argument("--use-wrappers")
    ap.add_argument("--log")
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--cocci", default=LIFO)
    try:
        a = ap.parse_args()
    except SystemExit as e:
        sys.exit(0 if e.code == 0 else 2)
    if not a.tree:
        usage("KERNEL_TREE is not set")
    if not os.path.isdir(a.tree):
        usage("KERNEL_TREE %s is not a directory" % a.tree)
    tree = os.path.abspath(a.tree)
    paths = [os.path.normpath(p) for p in a.paths] or ["."]
    if not a.paths and not os.path.isfile(
            os.path.join(tree, "include", "linux", "highmem.h")):
        usage("%s is not a kernel tree (no include/linux/highmem.h)" % tree)
    for p in paths:
        if os.path.isabs(p) or p.startswith(".."):
            usage("PATH %s must be relative to KERNEL_TREE" % p)
        if not os.path.exists(os.path.join(tree, p)):
            usage("no %s in %s" % (p, tree))
    if a.j < 1 or a.j > 2:
        usage("-j must be 1 or 2")
    if not shutil.which("spatch"):
        usage("spatch not found (apt-get install coccinelle)")
    log = open(a.log, "w") if a.log else subprocess.DEVNULL
    t0 = time.time()
    if a.use_wrappers:
        classes, flavours, seen = load_wrappers(a.use_wrappers)
    else:
        classes, flavours, seen = derive(tree, paths, a.j, a.timeout, log,
                                         a.rounds)
    if a.wrappers:
        with open(a.wrappers, "w") as f:
            for name in sorted(seen):
                for kind, n, inner, where in sorted(seen[name]):
                    f.write("%s %s %s %s %s\n" % (kind, name, n, inner, where))
    names = {n for v in classes.values() for n in v}
    files = candidates(tree, paths, names, {})
    cocci = os.path.join(tempfile.gettempdir(),
                         "kmap_lifo.%d.cocci" % os.getpid())
    with open(cocci, "w") as f:
        f.write(render(a.cocci, classes, flavours))
    try:
        lines = spatch(cocci, files, tree, a.j, a.timeout, log,
                       ["-D", "report"])
    finally:
        os.unlink(cocci)
    findings = {}
    for line in lines:
        m = FINDING.match(line)
        if not m:
            continue
        path = os.path.normpath(m.group("file"))
        if os.path.isabs(path):
            path = os.path.relpath(path, tree)
        key = (path, int(m.group("line")))
        rest = m.group("rest")
        # one finding a line: the loop's message says more than the
        # out-of-order one of the same unmap
        if key not in findings or rank(rest) < rank(findings[key]):
            findings[key] = rest
    for (path, line), rest in sorted(findings.items()):
        print("%s:%d: %s" % (path, line, rest))
    print("%d findings" % len(findings))
    print("kmap-static-check: %d files, %d helpers derived, %.0fs" %
          (len(files), len(seen), time.time() - t0), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
