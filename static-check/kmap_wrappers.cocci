// SPDX-License-Identifier: GPL-2.0-only
/// List the helpers that map or release a kmap_local/kmap_atomic mapping
/// for their caller, for kmap_lifo.cocci:
///  ret F - F returns the address of a mapping it made (or got from a
///          helper of this kind) and did not release on that path;
///  map F N - F maps into a structure reached from its parameter N (the
///          address kept in a field of it, a helper of this kind called
///          on it, or a local buffer of such a helper copied into it),
///          and does not release it again;
///  rel F N - F releases the mapping its parameter N is (or holds in a
///          field, or passes to a helper of this kind).
/// The lists it reads (the identifier constraints) are the API's own;
/// static-check/kmap-static-check.py runs it again with what it found,
/// so that the helpers of helpers are found too.
///
// Confidence: Moderate
// Options: --no-includes --include-headers

virtual report

@initialize:python@
@@
def out(kind, f, n, inner, p):
    print("WRAPPER %s %s %s %s %s:%s" % (kind, f, n, inner, p[0].file, p[0].line))

// ---- ret: the address is returned --------------------------------------

@ret_direct exists@
identifier f;
identifier mapr =~ "^(kmap_local_page|kmap_local_folio|kmap_local_page_prot|kmap_local_pfn|kmap_local_page_try_from_panic|kmap_atomic|kmap_atomic_prot|kmap_atomic_pfn)$";
expression E;
type T;
position p;
@@
f@p(...) { ... when any
(
 return mapr(...);
|
 return mapr(...) + E;
|
 return (T)mapr(...);
|
 return (T)mapr(...) + E;
)
}

@script:python@
f << ret_direct.f;
m << ret_direct.mapr;
p << ret_direct.p;
@@
out("ret", f, "-", m, p)

@ret_var disable neg_if exists@
identifier f;
identifier mapr =~ "^(kmap_local_page|kmap_local_folio|kmap_local_page_prot|kmap_local_pfn|kmap_local_page_try_from_panic|kmap_atomic|kmap_atomic_prot|kmap_atomic_pfn)$";
identifier unm0 =~ "^(kunmap_local|__kunmap_local|kunmap_atomic|__kunmap_atomic)$";
identifier unm1 =~ "^(folio_release_kmap)$";
identifier unm0_k =~ "^(kunmap_local|__kunmap_local|kunmap_atomic|__kunmap_atomic)$";
identifier unm1_k =~ "^(folio_release_kmap)$";
local idexpression L, A;
expression E, E1, E2, E3, E4, E5;
type T;
statement S;
position p;
@@
f@p(...) { ... when any
(
 L = mapr(...);
 if (\(IS_ERR(L)\|!L\|L == NULL\|IS_ERR_OR_NULL(L)\|unlikely(IS_ERR(L))\)) S
|
 L = mapr(...)
|
 L = (T)mapr(...)
|
 L = mapr(...) + E1
)
... when != \(unm0(L, ...)\|unm1(E2, L, ...)\)
    when != L = E3
(
 return L;
|
 return L + E;
|
 return (T)L;
|
 A = \(L\|L + E\|(T)L\|(T)L + E\|(T)(L + E)\);
 ... when != A = E4
     when != \(unm0_k(L, ...)\|unm1_k(E5, L, ...)\|unm0_k(A, ...)\|unm1_k(E5, A, ...)\)
 return A;
)
...
}

@script:python@
f << ret_var.f;
m << ret_var.mapr;
p << ret_var.p;
@@
out("ret", f, "-", m, p)

@ret_decl disable neg_if exists@
identifier f, L;
identifier mapr =~ "^(kmap_local_page|kmap_local_folio|kmap_local_page_prot|kmap_local_pfn|kmap_local_page_try_from_panic|kmap_atomic|kmap_atomic_prot|kmap_atomic_pfn)$";
identifier unm0 =~ "^(kunmap_local|__kunmap_local|kunmap_atomic|__kunmap_atomic)$";
identifier unm1 =~ "^(folio_release_kmap)$";
identifier unm0_k =~ "^(kunmap_local|__kunmap_local|kunmap_atomic|__kunmap_atomic)$";
identifier unm1_k =~ "^(folio_release_kmap)$";
local idexpression A;
expression E, E1, E2, E3, E4, E5;
type T, T1;
statement S;
position p;
@@
f@p(...) { ... when any
(
 T1 L = mapr(...);
 if (\(IS_ERR(L)\|!L\|L == NULL\|IS_ERR_OR_NULL(L)\|unlikely(IS_ERR(L))\)) S
|
 T1 L = mapr(...);
|
 T1 L = (T)mapr(...);
|
 T1 L = mapr(...) + E1;
)
... when != \(unm0(L, ...)\|unm1(E2, L, ...)\)
    when != L = E3
(
 return L;
|
 return L + E;
|
 return (T)L;
|
 A = \(L\|L + E\|(T)L\|(T)L + E\|(T)(L + E)\);
 ... when != A = E4
     when != \(unm0_k(L, ...)\|unm1_k(E5, L, ...)\|unm0_k(A, ...)\|unm1_k(E5, A, ...)\)
 return A;
)
...
}

@script:python@
f << ret_decl.f;
m << ret_decl.mapr;
p << ret_decl.p;
@@
out("ret", f, "-", m, p)

// ---- map N: the mapping is kept in *parameter N -------------------------

@map_param exists@
identifier f, P, fld;
identifier mapr =~ "^(kmap_local_page|kmap_local_folio|kmap_local_page_prot|kmap_local_pfn|kmap_local_page_try_from_panic|kmap_atomic|kmap_atomic_prot|kmap_atomic_pfn)$";
identifier maph0 =~ "^(sg_miter_next|scatterwalk_map)$";
identifier maph1 =~ "^(kmapstack_none_)$";
identifier unm0 =~ "^(kunmap_local|__kunmap_local|kunmap_atomic|__kunmap_atomic|sg_miter_stop|scatterwalk_unmap)$";
identifier unm1 =~ "^(folio_release_kmap)$";
parameter list[n] ps;
expression E, E1;
type T, T1;
position p;
@@
f@p(ps, T1 P, ...) { ... when any
(
 P->fld = mapr(...)
|
 P->fld = (T)mapr(...)
|
 P->fld = mapr(...) + E
|
 maph0(P, ...)
|
 maph1(E, P, ...)
|
 maph0(&P->fld, ...)
|
 maph1(E, &P->fld, ...)
)
... when != \(unm0(P->fld, ...)\|unm1(E1, P->fld, ...)\|unm0(P, ...)\|unm1(E1, P, ...)\)
}

@script:python@
f << map_param.f;
n << map_param.n;
p << map_param.p;
@@
out("map", f, n, "-", p)

@map_param_copy exists@
identifier f, P;
identifier maph0 =~ "^(sg_miter_next|scatterwalk_map)$";
local idexpression L;
parameter list[n] ps;
type T1;
position p;
@@
f@p(ps, T1 P, ...) { ... when any
 maph0(&L, ...)
 ... when any
 *P = L
 ... when any
}

@script:python@
f << map_param_copy.f;
n << map_param_copy.n;
p << map_param_copy.p;
@@
out("map", f, n, "-", p)

// ---- rel N: parameter N's mapping is released ---------------------------

@rel_param exists@
identifier f, P, fld;
identifier unm0 =~ "^(kunmap_local|__kunmap_local|kunmap_atomic|__kunmap_atomic|sg_miter_stop|scatterwalk_unmap)$";
identifier unm1 =~ "^(folio_release_kmap)$";
parameter list[n] ps;
expression E;
type T1;
position p;
@@
f@p(ps, T1 P, ...) { ... when any
(
 unm0(P, ...)
|
 unm0(P->fld, ...)
|
 unm0(&P->fld, ...)
|
 unm1(E, P, ...)
|
 unm1(E, P->fld, ...)
)
... when any
}

@script:python@
f << rel_param.f;
n << rel_param.n;
u0 << rel_param.unm0;
p << rel_param.p;
@@
out("rel", f, n, u0, p)

@script:python@
f << rel_param.f;
n << rel_param.n;
u1 << rel_param.unm1;
p << rel_param.p;
@@
out("rel", f, n, u1, p)

// ---- any: the function maps something (not a pure release helper) -----

@any_map exists@
identifier f;
identifier mapr =~ "^(kmap_local_page|kmap_local_folio|kmap_local_page_prot|kmap_local_pfn|kmap_local_page_try_from_panic|kmap_atomic|kmap_atomic_prot|kmap_atomic_pfn)$";
identifier maph0 =~ "^(sg_miter_next|scatterwalk_map)$";
identifier maph1 =~ "^(kmapstack_none_)$";
position p;
@@
f@p(...) { <+... \(mapr(...)\|maph0(...)\|maph1(...)\) ...+> }

@script:python@
f << any_map.f;
p << any_map.p;
@@
out("maps", f, "-", "-", p)
