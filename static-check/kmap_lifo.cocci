// SPDX-License-Identifier: GPL-2.0-only
/// Find kmap_local_*() and kmap_atomic() mappings released out of order.
///
/// Local and atomic kmaps form a per-CPU (per-task) stack: a mapping must be
/// released with the unmap of its flavour, and only when it is the most
/// recent mapping still held (kmap_local_page() kernel-doc).  Reported:
///  - an unmap of a mapping while a newer one is still held on some path;
///  - mappings made in a loop and released by a loop in the same order;
///  - a kmap_atomic() mapping released by kunmap_local() or the reverse;
///  - a mapping still held when the function returns, not handed to the
///    caller.
/// Besides the API itself, the helpers named below that map or release
/// (a mapped address returned, or kept in a structure passed by pointer)
/// are followed; a driver may replace these lists with ones derived from
/// the tree (static-check/kmap_wrappers.cocci).
///
// Confidence: Moderate
// Comments: the path of each finding may be infeasible (a mapping call
//  that failed, two conditions that exclude each other); mappings of
//  lowmem pages are only taken out of order with
//  CONFIG_DEBUG_KMAP_LOCAL_FORCE_MAP.
// Options: --no-includes --include-headers

virtual report
virtual org

@initialize:python@
@@
import re

def fn(p):
    return p[0].current_element

def emit(p, msg):
    if "report" in virtuals:
        coccilib.report.print_report(p[0], "%s: %s" % (fn(p), msg))
    else:
        coccilib.org.print_todo(p[0], "%s: %s" % (fn(p), msg))

virtuals = set()

# The flavour of each mapping and unmapping function: "atomic" or "local".
flavours = {
    "kmap_local_page": "local", "kmap_local_folio": "local",
    "kmap_local_page_prot": "local", "kmap_local_pfn": "local",
    "kmap_local_page_try_from_panic": "local",
    "kmap_atomic": "atomic", "kmap_atomic_prot": "atomic",
    "kmap_atomic_pfn": "atomic",
    "kunmap_local": "local", "__kunmap_local": "local",
    "folio_release_kmap": "local",
    "kunmap_atomic": "atomic", "__kunmap_atomic": "atomic",
}

def result_name(p1):
    """The variable the mapping call at p1 assigns, if any."""
    text = source_lines(p1, p1)
    m = text and re.match(r"\s*(?:[\w\s\*]*?\s\**)?(\w+)\s*=[^=]", text[0])
    return m.group(1) if m else None

def after_success_block(names, p1, p2):
    """p2 follows the block of a test for the success of the mapping call
    at p1 (if (!IS_ERR(r)) { ... } or if (r) { ... }): it is reached
    from the branch of the failure, unless the block falls through, which is
    not told apart here."""
    text = source_lines(p1, p2)
    for i, t in enumerate(text[1:], 1):
        for n in names:
            w = re.escape(n)
            if re.search(r"\bif\s*\(\s*(?:!\s*IS_ERR(?:_OR_NULL)?\(\s*%s\s*\)|%s)\s*\)" % (w, w), t):
                depth, end = 0, None
                for j in range(i, len(text)):
                    depth += text[j].count("{") - text[j].count("}")
                    if depth <= 0 and (j > i or "{" not in text[i]):
                        end = j if "{" in text[i] else i + 1
                        break
                if end is not None and end < len(text) - 1:
                    return True
    return False

# The functions that map: those of the API and the helpers a driver derived.
mappers = set()

def mapped_through(x, p1, p2):
    """A mapping helper was given the structure x is a field of (x is
    &s.f or &p->f, the helper got &s or p) between p1 and p2."""
    m = re.match(r"^&?([\w]+)(?:\.|->)", x)
    if not m or not mappers:
        return False
    root = m.group(1)
    arg = r"(?:[(,]\s*&?%s\s*[,)])" % re.escape(root)
    for t in source_lines(p1, p2)[1:-1]:
        for name in re.findall(r"\b(\w+)\s*\(", t):
            if name in mappers and re.search(arg, t):
                return True
    return False

def function_text(p):
    """The lines of the function around position p, and the line of its
    name (from the line at column 0 that names it to the next "}" at
    column 0)."""
    try:
        with open(p[0].file, errors="replace") as f:
            lines = f.readlines()
    except OSError:
        return [], ""
    n = int(p[0].line) - 1
    name = re.escape(fn(p))
    start = n
    while start > 0 and not re.match(r"^[A-Za-z_].*\b%s\s*\(" % name, lines[start]):
        start -= 1
    end = n
    while end < len(lines) - 1 and not lines[end].startswith("}"):
        end += 1
    head = "".join(lines[start:start + 4])
    return lines[start:end + 1], head

def uncast(e):
    """e without spaces, casts and outer parentheses."""
    e = e.replace(" ", "")
    while True:
        m = re.match(r"^\((?:const)?(?:unsigned|signed)?(?:struct|union)?\w*\**\)(.*)$", e)
        if m and m.group(1):
            e = m.group(1)
            continue
        if e.startswith("(") and e.endswith(")") and e.count("(") == 1:
            e = e[1:-1]
            continue
        return e

# The functions that release: those of the API and the derived helpers.
releasers = set(["kunmap_local", "kunmap_atomic", "folio_release_kmap"])

def released_under_condition(l, p1, p2):
    """On the way to p2 the mapping is released under an if of its own
    (if (!mapped_by_kmap) kunmap_local(l)): the path that skips it is
    most likely one where l was mapped otherwise (a correlated condition
    that a path-insensitive match does not follow)."""
    text = source_lines(p1, p2)
    w = re.escape(l.replace(" ", "").lstrip("&"))
    prev = ""
    for t in text[1:-1]:
        u = t.replace(" ", "")
        for name in re.findall(r"\b(\w+)\s*\(", t):
            if name in releasers and re.search(r"[(,]&?%s[,)]" % w, u):
                # an if of one statement: the release is all it does
                if (re.match(r"\s*(}\s*)?(else\s+)?if\b", prev) and
                        not prev.rstrip().endswith("{")) or \
                   re.match(r"\s*(}\s*)?(else\s+)?if\b", t):
                    return True
        if t.strip():
            prev = t
    return False

# (file, line of H, line of the release) of the paths of rule lifo_p
confirmed = set()

def is_parameter(x, p):
    """x (or the structure it is a field of) is a parameter of the
    function at p."""
    body, head = function_text(p)
    root = re.match(r"^&?(\w+)", x)
    if not head or not root:
        return True
    sig = head.split("{")[0]
    return re.search(r"[(,\s\*]%s\s*[,)]" % re.escape(root.group(1)), sig) is not None

def same_mapping(h, x, p1):
    """h and x are names of one mapping: the mapping statement names both
    (a = b = kmap(...)), or one is set to the other in the function
    (p = &s->miter)."""
    first = source_lines(p1, p1)
    if first and re.search(r"\b\w+\s*=\s*\w+\s*=[^=]", first[0]):
        return True
    if first and re.search(r"\b%s\s*=\s*[\w\s\(\)\*]*=" % re.escape(x), first[0]):
        return True
    body, head = function_text(p1)
    text = "".join(body).replace(" ", "").replace("\t", "")
    for a, b in ((h, x), (x, h)):
        # a = b; or a declaration T *a = &b; (not *a = b;, a copy into
        # what a points to)
        if re.search(r"(?:(?<![\w*.>])|(?<=\w\*))%s=&?%s[;,)]" % (re.escape(a), re.escape(b.lstrip("&"))), text):
            return True
    return False

def same_array(h, x):
    """Two elements of one array: left to the loop rule."""
    ah, ax = re.match(r"^(\w+)\x5b", h), re.match(r"^(\w+)\x5b", x)
    return bool(ah and ax and ah.group(1) == ax.group(1))

def lifo(h, x, p1, p2):
    h, x = uncast(h), uncast(x)
    names = {n for n in (result_name(p1),) if n}
    if after_success_block(names, p1, p2):
        return
    xs = x.replace(" ", "")
    if mapped_through(xs, p1, p2):
        return
    if released_under_condition(h, p1, p2):
        return
    if same_array(h, xs):
        return
    # a parameter holds the mapping of the caller, older than any made here;
    # anything else must be mapped on a path that reaches H held
    if not is_parameter(xs, p2) and \
       (p1[0].file, p1[0].line, p2[0].line) not in confirmed:
        return
    # a = b = kmap(...): a and b are one mapping; so are an alias made
    # anywhere in the function (p = &s->miter) and its original
    if same_mapping(h, xs, p1):
        return
    # &s and &s.f: a helper mapped into s what is released through s.f
    rh = re.match(r"^&?(\w+)", h.replace(" ", ""))
    rx = re.match(r"^&?(\w+)", xs)
    if rh and rx and rh.group(1) == rx.group(1) and ("." in xs + h or "->" in xs + h):
        return
    if h.replace(" ", "") != x.replace(" ", "") and fn(p1) == fn(p2):
        emit(p2, "releases %s while %s, mapped later (line %s), is still "
             "held: not the most recent mapping" % (x, h, p1[0].line))

def source_lines(p1, p2):
    try:
        with open(p1[0].file, errors="replace") as f:
            lines = f.readlines()
    except OSError:
        return []
    return lines[int(p1[0].line) - 1:int(p2[0].line)]

def failure_tested(l, p1, p2):
    """The result of the mapping call at p1 is returned at p2, or it (or
    l) is tested for success on the way (if (!IS_ERR(r)) ...): the path
    may be that of the failure.  A test for failure just after the call is
    matched by the rules *_err instead."""
    text = source_lines(p1, p2)
    if not text:
        return False
    m = re.match(r"\s*(?:[\w\s\*]*?\s\**)?(\w+)\s*=[^=]", text[0])
    names = {l.replace("&", "").strip()}
    if m:
        names.add(m.group(1))
    ret = text[-1]
    for n in names:
        w = r"\b%s\b" % re.escape(n)
        if re.search(r"\breturn\b.*" + w, ret):
            return True
        for t in text[1:]:
            if re.search(r"!\s*IS_ERR(?:_OR_NULL)?\(\s*" + w + r"\s*\)", t) or \
               re.search(r"\bif\s*\(\s*" + w + r"\s*\)", t):
                return True
    return False

def in_failure_branch(l, p1, p2):
    """The return at p2 is the branch of a test for the failure of the
    mapping at p1 (if (IS_ERR(r)) return ...;, declarations included)."""
    names = {l.replace(" ", "").lstrip("&")}
    r = result_name(p1)
    if r:
        names.add(r)
    try:
        with open(p2[0].file, errors="replace") as f:
            lines = f.readlines()
        n = int(p2[0].line)
    except (OSError, ValueError):
        return False
    for t in lines[max(0, n - 3):n]:
        for w in names:
            w = re.escape(w)
            if re.search(r"\bif\s*\(\s*(?:unlikely\()?\s*(?:IS_ERR(?:_OR_NULL)?\(\s*%s\s*\)|!\s*%s\b|%s\s*==\s*NULL)" % (w, w, w), t):
                return True
    return False

def returned_alias(l, p1, p2):
    """The return at p2 returns a variable set from the mapping on the
    way (next = next_entry(de); return next;): handed to the caller."""
    text = source_lines(p1, p2)
    if not text:
        return False
    m = re.search(r"\breturn\s+\(?\s*(\w+)", text[-1])
    if not m:
        return False
    r, w = re.escape(m.group(1)), re.escape(l.replace(" ", "").lstrip("&"))
    # r = l, r = (T *)l + n, or r = f(..., l, ...): not r = l[0], l->x
    copy = r"\b%s\s*=\s*(?:\([\w\s\*]+\)\s*)?\(?\s*%s\s*(?:[-+;)]|$)" % (r, w)
    call = r"\b%s\s*=\s*\w+\s*\((?:.*,)?\s*%s\s*[,)]" % (r, w)
    return any(re.search(copy, t) or re.search(call, t) for t in text[:-1])

def held(l, p1, p2):
    if fn(p1) == fn(p2) and not failure_tested(l, p1, p2) and \
       not released_under_condition(l, p1, p2) and \
       not in_failure_branch(l, p1, p2) and \
       not returned_alias(l, p1, p2) and \
       not same_mapping(l, l, p1):
        emit(p2, "returns with the mapping of %s (line %s) still held "
             "and not handed to the caller" % (l, p1[0].line))

def check_flavour(h, m, u, p1, p2):
    fm, fu = flavours.get(m), flavours.get(u)
    if fm and fu and fm != fu and fn(p1) == fn(p2):
        emit(p2, "%s, mapped by %s() at line %s, released by %s(): "
             "the other flavour" % (h, m, p1[0].line, u))

@script:python depends on report@
@@
virtuals.add("report")

@script:python depends on org@
@@
virtuals.add("org")

// ---------------------------------------------------------------------
// Where a mapping call is followed by the test of its failure, the paths
// into that test's branch hold no mapping: the rules *_err start after the
// test, the others do not start at these calls.

@errchk@
identifier mapr =~ "^(kmap_local_page|kmap_local_folio|kmap_local_page_prot|kmap_local_pfn|kmap_local_page_try_from_panic|kmap_atomic|kmap_atomic_prot|kmap_atomic_pfn)$";
identifier maph0 =~ "^(sg_miter_next|scatterwalk_map)$";
identifier maph1 =~ "^(kmapstack_none_)$";
expression H, R, E1;
statement S;
position p;
@@

(
 H = mapr@p(...);
 if (\(IS_ERR(H)\|!H\|H == NULL\|IS_ERR_OR_NULL(H)\|unlikely(IS_ERR(H))\|unlikely(!H)\)) S
|
 R = maph0@p(H, ...);
 if (\(IS_ERR(R)\|!R\|R == NULL\|IS_ERR_OR_NULL(R)\|unlikely(IS_ERR(R))\|unlikely(!R)\|R < 0\|unlikely(R < 0)\)) S
|
 R = maph1@p(E1, H, ...);
 if (\(IS_ERR(R)\|!R\|R == NULL\|IS_ERR_OR_NULL(R)\|unlikely(IS_ERR(R))\|unlikely(!R)\|R < 0\|unlikely(R < 0)\)) S
)

// ---------------------------------------------------------------------
// Out of order: X is released while H, mapped later, is still held (or X
// is not mapped in this function at all: it is the caller's mapping, older
// than any made here).

// X held when H is mapped: X mapped (or a mapped buffer copied into
// *X) on the way, and not released before H.  A release of an X that is
// not a parameter is reported only where this rule finds such a path.

@lifo_p depends on report || org exists@
identifier fld14;
identifier mapr =~ "^(kmap_local_page|kmap_local_folio|kmap_local_page_prot|kmap_local_pfn|kmap_local_page_try_from_panic|kmap_atomic|kmap_atomic_prot|kmap_atomic_pfn)$";
identifier maph0 =~ "^(sg_miter_next|scatterwalk_map)$";
identifier maph1 =~ "^(kmapstack_none_)$";
identifier unm0 =~ "^(kunmap_local|__kunmap_local|kunmap_atomic|__kunmap_atomic|sg_miter_stop|scatterwalk_unmap)$";
identifier unm1 =~ "^(folio_release_kmap)$";
identifier unm2 =~ "^(kmapstack_none_)$";
identifier unm0_k =~ "^(kunmap_local|__kunmap_local|kunmap_atomic|__kunmap_atomic|sg_miter_stop|scatterwalk_unmap)$";
identifier unm1_k =~ "^(folio_release_kmap)$";
identifier unm2_k =~ "^(kmapstack_none_)$";
identifier maph0_r =~ "^(sg_miter_next|scatterwalk_map)$";
identifier maph1_r =~ "^(kmapstack_none_)$";
identifier mapr_x =~ "^(kmap_local_page|kmap_local_folio|kmap_local_page_prot|kmap_local_pfn|kmap_local_page_try_from_panic|kmap_atomic|kmap_atomic_prot|kmap_atomic_pfn)$";
identifier maph0_x =~ "^(sg_miter_next|scatterwalk_map)$";
identifier maph1_x =~ "^(kmapstack_none_)$";
identifier mapr_p =~ "^(kmap_local_page|kmap_local_folio|kmap_local_page_prot|kmap_local_pfn|kmap_local_page_try_from_panic|kmap_atomic|kmap_atomic_prot|kmap_atomic_pfn)$";
identifier maph0_p =~ "^(sg_miter_next|scatterwalk_map)$";
identifier maph1_p =~ "^(kmapstack_none_)$";
identifier unm0_q =~ "^(kunmap_local|__kunmap_local|kunmap_atomic|__kunmap_atomic|sg_miter_stop|scatterwalk_unmap)$";
identifier unm1_q =~ "^(folio_release_kmap)$";
identifier unm2_q =~ "^(kmapstack_none_)$";
expression H, X, E, E1, E3, E4, E5, E6, E7, E8, E9, E10, E11, E12, E13, E15, E16, E17, E18;
type T, T2, T3;
position p0, p1, p2;
@@

(
 X = mapr_p@p0(...)
|
 X = mapr_p@p0(...) + E15
|
 X = (T3)mapr_p@p0(...)
|
 maph0_p@p0(X, ...)
|
 maph1_p@p0(E15, X, ...)
|
 *X = E16
)
... when != \(unm0_q(X, ...)\|unm1_q(E17, X, ...)\|unm2_q(E17, E18, X, ...)\)
(
 H = mapr@p1(...)
|
 H = mapr@p1(...) + E1
|
 H = (T)mapr@p1(...)
|
 H = (T)mapr@p1(...) + E1
|
 maph0@p1(H, ...)
|
 maph1@p1(E1, H, ...)
)
... when != \(unm0_k(H, ...)\|unm1_k(E3, H, ...)\|unm2_k(E3, E4, H, ...)\|unm0_k(H + E4, ...)\|unm1_k(E5, H + E6, ...)\)
    when != H = E7
    when != \(maph0_r(H, ...)\|maph1_r(E8, H, ...)\)
    when != E9 = \(H\|H + E10\|(T2)H\|(T2)H + E10\|(T2)(H + E10)\|&H[E10]\|&H->fld14\)
    when != \(X = mapr_x(...)\|X = mapr_x(...) + E11\|X = (T2)mapr_x(...)\|maph0_x(X, ...)\|maph1_x(E12, X, ...)\)
\(unm0@p2(X, ...)\|unm1@p2(E, X, ...)\|unm2@p2(E, E13, X, ...)\)

@script:python@
p1 << lifo_p.p1;
p2 << lifo_p.p2;
@@
confirmed.add((p1[0].file, p1[0].line, p2[0].line))

@lifo_e depends on report || org exists@
identifier fld14;
identifier mapr =~ "^(kmap_local_page|kmap_local_folio|kmap_local_page_prot|kmap_local_pfn|kmap_local_page_try_from_panic|kmap_atomic|kmap_atomic_prot|kmap_atomic_pfn)$";
identifier maph0 =~ "^(sg_miter_next|scatterwalk_map)$";
identifier maph1 =~ "^(kmapstack_none_)$";
identifier unm0 =~ "^(kunmap_local|__kunmap_local|kunmap_atomic|__kunmap_atomic|sg_miter_stop|scatterwalk_unmap)$";
identifier unm1 =~ "^(folio_release_kmap)$";
identifier unm2 =~ "^(kmapstack_none_)$";
identifier unm0_k =~ "^(kunmap_local|__kunmap_local|kunmap_atomic|__kunmap_atomic|sg_miter_stop|scatterwalk_unmap)$";
identifier unm1_k =~ "^(folio_release_kmap)$";
identifier unm2_k =~ "^(kmapstack_none_)$";
identifier maph0_r =~ "^(sg_miter_next|scatterwalk_map)$";
identifier maph1_r =~ "^(kmapstack_none_)$";
identifier mapr_x =~ "^(kmap_local_page|kmap_local_folio|kmap_local_page_prot|kmap_local_pfn|kmap_local_page_try_from_panic|kmap_atomic|kmap_atomic_prot|kmap_atomic_pfn)$";
identifier maph0_x =~ "^(sg_miter_next|scatterwalk_map)$";
identifier maph1_x =~ "^(kmapstack_none_)$";
expression H, X, E, E1, E3, E4, E5, E6, E7, E8, E9, E10, E11, E12, E13;
type T, T2;
position p1 != {errchk.p}, p2;
@@

(
 H = mapr@p1(...)
|
 H = mapr@p1(...) + E1
|
 H = (T)mapr@p1(...)
|
 H = (T)mapr@p1(...) + E1
|
 maph0@p1(H, ...)
|
 maph1@p1(E1, H, ...)
)
... when != \(unm0_k(H, ...)\|unm1_k(E3, H, ...)\|unm2_k(E3, E4, H, ...)\|unm0_k(H + E4, ...)\|unm1_k(E5, H + E6, ...)\)
    when != H = E7
    when != \(maph0_r(H, ...)\|maph1_r(E8, H, ...)\)
    when != E9 = \(H\|H + E10\|(T2)H\|(T2)H + E10\|(T2)(H + E10)\|&H[E10]\|&H->fld14\)
    when != \(X = mapr_x(...)\|X = mapr_x(...) + E11\|X = (T2)mapr_x(...)\|maph0_x(X, ...)\|maph1_x(E12, X, ...)\)
\(unm0@p2(X, ...)\|unm1@p2(E, X, ...)\|unm2@p2(E, E13, X, ...)\)

@script:python@
h << lifo_e.H;
x << lifo_e.X;
p1 << lifo_e.p1;
p2 << lifo_e.p2;
@@
lifo(h, x, p1, p2)

@lifo_e_err depends on report || org exists@
identifier fld14;
identifier mapr =~ "^(kmap_local_page|kmap_local_folio|kmap_local_page_prot|kmap_local_pfn|kmap_local_page_try_from_panic|kmap_atomic|kmap_atomic_prot|kmap_atomic_pfn)$";
identifier maph0 =~ "^(sg_miter_next|scatterwalk_map)$";
identifier maph1 =~ "^(kmapstack_none_)$";
identifier unm0 =~ "^(kunmap_local|__kunmap_local|kunmap_atomic|__kunmap_atomic|sg_miter_stop|scatterwalk_unmap)$";
identifier unm1 =~ "^(folio_release_kmap)$";
identifier unm2 =~ "^(kmapstack_none_)$";
identifier unm0_k =~ "^(kunmap_local|__kunmap_local|kunmap_atomic|__kunmap_atomic|sg_miter_stop|scatterwalk_unmap)$";
identifier unm1_k =~ "^(folio_release_kmap)$";
identifier unm2_k =~ "^(kmapstack_none_)$";
identifier maph0_r =~ "^(sg_miter_next|scatterwalk_map)$";
identifier maph1_r =~ "^(kmapstack_none_)$";
identifier mapr_x =~ "^(kmap_local_page|kmap_local_folio|kmap_local_page_prot|kmap_local_pfn|kmap_local_page_try_from_panic|kmap_atomic|kmap_atomic_prot|kmap_atomic_pfn)$";
identifier maph0_x =~ "^(sg_miter_next|scatterwalk_map)$";
identifier maph1_x =~ "^(kmapstack_none_)$";
expression H, X, E, E1, R, E3, E4, E5, E6, E7, E8, E9, E10, E11, E12, E13;
type T2;
statement S;
position p1, p2;
@@

(
 H = mapr@p1(...);
 if (\(IS_ERR(H)\|!H\|H == NULL\|IS_ERR_OR_NULL(H)\|unlikely(IS_ERR(H))\|unlikely(!H)\)) S
|
 R = maph0@p1(H, ...);
 if (\(IS_ERR(R)\|!R\|R == NULL\|IS_ERR_OR_NULL(R)\|unlikely(IS_ERR(R))\|unlikely(!R)\|R < 0\|unlikely(R < 0)\)) S
|
 R = maph1@p1(E1, H, ...);
 if (\(IS_ERR(R)\|!R\|R == NULL\|IS_ERR_OR_NULL(R)\|unlikely(IS_ERR(R))\|unlikely(!R)\|R < 0\|unlikely(R < 0)\)) S
)
... when != \(unm0_k(H, ...)\|unm1_k(E3, H, ...)\|unm2_k(E3, E4, H, ...)\|unm0_k(H + E4, ...)\|unm1_k(E5, H + E6, ...)\)
    when != H = E7
    when != \(maph0_r(H, ...)\|maph1_r(E8, H, ...)\)
    when != E9 = \(H\|H + E10\|(T2)H\|(T2)H + E10\|(T2)(H + E10)\|&H[E10]\|&H->fld14\)
    when != \(X = mapr_x(...)\|X = mapr_x(...) + E11\|X = (T2)mapr_x(...)\|maph0_x(X, ...)\|maph1_x(E12, X, ...)\)
\(unm0@p2(X, ...)\|unm1@p2(E, X, ...)\|unm2@p2(E, E13, X, ...)\)

@script:python@
h << lifo_e_err.H;
x << lifo_e_err.X;
p1 << lifo_e_err.p1;
p2 << lifo_e_err.p2;
@@
lifo(h, x, p1, p2)
// ---------------------------------------------------------------------
// A loop maps A[0..n) and a later loop releases them from A[0] up: the
// first one released is the oldest.

@loop depends on report || org exists@
identifier mapr =~ "^(kmap_local_page|kmap_local_folio|kmap_local_page_prot|kmap_local_pfn|kmap_local_page_try_from_panic|kmap_atomic|kmap_atomic_prot|kmap_atomic_pfn)$";
identifier unm0 =~ "^(kunmap_local|__kunmap_local|kunmap_atomic|__kunmap_atomic|sg_miter_stop|scatterwalk_unmap)$";
identifier unm1 =~ "^(folio_release_kmap)$";
expression A, I, J, N, M, E0, E1, E;
position p1, p2;
@@

for (I = E0; I < N; \(I++\|++I\|I += 1\))
{
 <+... A[I] = mapr@p1(...) ...+>
}
...
for (J = E1; J < M; \(J++\|++J\|J += 1\))
{
 <+... \(unm0@p2(A[J], ...)\|unm1@p2(E, A[J], ...)\) ...+>
}

@script:python@
a << loop.A;
p1 << loop.p1;
p2 << loop.p2;
@@
if fn(p1) == fn(p2):
    emit(p2, "releases the mappings of %s[] in the order the loop at line %s made them: the oldest first" % (a, p1[0].line))

// ---------------------------------------------------------------------
// The wrong flavour: kmap_atomic() released by kunmap_local() and the
// reverse.  (Coccinelle's isomorphisms match "T x = e;" with "x = e".)

@flavour_e depends on report || org exists@
identifier mapk =~ "^(kmap_local_page|kmap_local_folio|kmap_local_page_prot|kmap_local_pfn|kmap_local_page_try_from_panic|kmap_atomic|kmap_atomic_prot|kmap_atomic_pfn)$";
identifier unm0 =~ "^(kunmap_local|__kunmap_local|kunmap_atomic|__kunmap_atomic)$";
identifier unm1 =~ "^(folio_release_kmap)$";
identifier unm0_k =~ "^(kunmap_local|__kunmap_local|kunmap_atomic|__kunmap_atomic)$";
identifier unm1_k =~ "^(folio_release_kmap)$";
expression H, E, E1, E3, E4;
type T;
position p1, p2;
@@

(
 H = mapk@p1(...)
|
 H = (T)mapk@p1(...)
|
 H = mapk@p1(...) + E1
)
... when != H = E3
    when != \(unm0_k(H, ...)\|unm1_k(E4, H, ...)\)
\(unm0@p2(H, ...)\|unm1@p2(E, H, ...)\)

@script:python@
h << flavour_e.H;
m << flavour_e.mapk;
u0 << flavour_e.unm0;
p1 << flavour_e.p1;
p2 << flavour_e.p2;
@@
check_flavour(h, m, u0, p1, p2)

@script:python@
h << flavour_e.H;
m << flavour_e.mapk;
u1 << flavour_e.unm1;
p1 << flavour_e.p1;
p2 << flavour_e.p2;
@@
check_flavour(h, m, u1, p1, p2)

// ---------------------------------------------------------------------
// Held at return: a mapping in a local variable (or in a local buffer of
// a mapping helper) is neither released nor handed on when the function
// returns.  A copy of the address (an assignment of it, of its buffer's
// address, a return of it) counts as handing it on.

@held_e depends on report || org exists@
identifier mapr =~ "^(kmap_local_page|kmap_local_folio|kmap_local_page_prot|kmap_local_pfn|kmap_local_page_try_from_panic|kmap_atomic|kmap_atomic_prot|kmap_atomic_pfn)$";
identifier mapo0 =~ "^(scatterwalk_map)$";
identifier mapo1 =~ "^(kmapstack_none_)$";
identifier unma_k =~ "^(kunmap_local|__kunmap_local|kunmap_atomic|__kunmap_atomic|sg_miter_stop|scatterwalk_unmap|folio_release_kmap)$";
identifier maph0_r =~ "^(sg_miter_next|scatterwalk_map)$";
identifier maph1_r =~ "^(kmapstack_none_)$";
identifier fld9;
local idexpression L;
expression E1, E3, E4, E5, E6, E7;
type T, T2;
position p1 != {errchk.p}, p2;
@@

(
 L = mapr@p1(...)
|
 L = mapr@p1(...) + E1
|
 L = (T)mapr@p1(...)
|
 L = (T)mapr@p1(...) + E1
|
 mapo0@p1(&L, ...)
|
 mapo1@p1(E1, &L, ...)
)
... when != unma_k(..., <+...L...+>, ...)
    when != L = E4
    when != E5 = \(L\|L + E7\|(T2)L\|(T2)L + E7\|(T2)(L + E7)\|&L[E7]\|&L\|<+...&L...+>\|L.fld9\|&L->fld9\)
    when != \(maph0_r(&L, ...)\|maph1_r(E6, &L, ...)\)
    when != return <+...L...+>;
(
 return <+...L...+>;
|
 return@p2 ...;
)

@script:python@
l << held_e.L;
p1 << held_e.p1;
p2 << held_e.p2;
@@
held(l, p1, p2)

@held_r_err depends on report || org exists@
identifier mapr =~ "^(kmap_local_page|kmap_local_folio|kmap_local_page_prot|kmap_local_pfn|kmap_local_page_try_from_panic|kmap_atomic|kmap_atomic_prot|kmap_atomic_pfn)$";
identifier mapo0 =~ "^(scatterwalk_map)$";
identifier mapo1 =~ "^(kmapstack_none_)$";
identifier unma_k =~ "^(kunmap_local|__kunmap_local|kunmap_atomic|__kunmap_atomic|sg_miter_stop|scatterwalk_unmap|folio_release_kmap)$";
identifier maph0_r =~ "^(sg_miter_next|scatterwalk_map)$";
identifier maph1_r =~ "^(kmapstack_none_)$";
identifier fld9;
local idexpression L;
expression E3, E4, E5, E6, E7;
type T2;
statement S;
position p1, p2;
@@

 L = mapr@p1(...);
 if (\(IS_ERR(L)\|!L\|L == NULL\|IS_ERR_OR_NULL(L)\|unlikely(IS_ERR(L))\|unlikely(!L)\)) S
... when != unma_k(..., <+...L...+>, ...)
    when != L = E4
    when != E5 = \(L\|L + E7\|(T2)L\|(T2)L + E7\|(T2)(L + E7)\|&L[E7]\|&L\|<+...&L...+>\|L.fld9\|&L->fld9\)
    when != \(maph0_r(&L, ...)\|maph1_r(E6, &L, ...)\)
    when != return <+...L...+>;
(
 return <+...L...+>;
|
 return@p2 ...;
)

@script:python@
l << held_r_err.L;
p1 << held_r_err.p1;
p2 << held_r_err.p2;
@@
held(l, p1, p2)

@held_h_err depends on report || org exists@
identifier mapr =~ "^(kmap_local_page|kmap_local_folio|kmap_local_page_prot|kmap_local_pfn|kmap_local_page_try_from_panic|kmap_atomic|kmap_atomic_prot|kmap_atomic_pfn)$";
identifier mapo0 =~ "^(scatterwalk_map)$";
identifier mapo1 =~ "^(kmapstack_none_)$";
identifier unma_k =~ "^(kunmap_local|__kunmap_local|kunmap_atomic|__kunmap_atomic|sg_miter_stop|scatterwalk_unmap|folio_release_kmap)$";
identifier maph0_r =~ "^(sg_miter_next|scatterwalk_map)$";
identifier maph1_r =~ "^(kmapstack_none_)$";
identifier fld9;
local idexpression L;
expression E1, E3, E4, E5, E6, E7, R;
type T2;
statement S;
position p1, p2;
@@

(
 R = mapo0@p1(&L, ...);
 if (\(IS_ERR(R)\|!R\|R == NULL\|IS_ERR_OR_NULL(R)\|unlikely(IS_ERR(R))\|unlikely(!R)\|R < 0\|unlikely(R < 0)\)) S
|
 R = mapo1@p1(E1, &L, ...);
 if (\(IS_ERR(R)\|!R\|R == NULL\|IS_ERR_OR_NULL(R)\|unlikely(IS_ERR(R))\|unlikely(!R)\|R < 0\|unlikely(R < 0)\)) S
)
... when != unma_k(..., <+...L...+>, ...)
    when != L = E4
    when != E5 = \(L\|L + E7\|(T2)L\|(T2)L + E7\|(T2)(L + E7)\|&L[E7]\|&L\|<+...&L...+>\|L.fld9\|&L->fld9\)
    when != \(maph0_r(&L, ...)\|maph1_r(E6, &L, ...)\)
    when != return <+...L...+>;
(
 return <+...L...+>;
|
 return@p2 ...;
)

@script:python@
l << held_h_err.L;
p1 << held_h_err.p1;
p2 << held_h_err.p2;
@@
held(l, p1, p2)
