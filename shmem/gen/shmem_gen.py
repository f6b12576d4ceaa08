#!/usr/bin/env python3
"""Generates the OpenSHMEM layer's typed families from one type table.

shmem_gen.py <types.def> <shmem.h.in> <version> <outdir>

Writes into <outdir>:
  include/shmem.h, include/pshmem.h   installed headers (every declaration)
  shmemi_types_gen.h                  internal: dtype enum, X-macro lists
  shmemi_rename.h                     internal, forced into every library
                                      source: shmem_x -> pshmem_x
  shmemi_gen_rma.c, shmemi_gen_amo.c, shmemi_gen_sync.c, shmemi_gen_coll.c
                                      the typed/sized wrappers
Files are rewritten only when their content changes.
"""
import os
import re
import sys

AMO_STD = "A"
SIZES = [(8, "int8_t"), (16, "int16_t"), (32, "int32_t"), (64, "int64_t"),
         (128, None)]


def read_table(path):
    types = []
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        f = [x.strip() for x in line.split("|")]
        types.append(dict(name=f[0], ctype=f[1], tname=f[2], dart=f[3],
                          cls=set(f[4].split())))
    return types


def of(types, c):
    return [t for t in types if c in t["cls"]]


class Out:
    def __init__(self):
        self.decls = []   # (section, text)
        self.defs = {}    # file -> [text]
        self.names = []

    def fn(self, fname, ret, name, params, body, dep=False, ctx=None):
        """One API function: declaration, definition, alias."""
        d = "%s %s(%s)%s;" % (ret, name, params,
                              " SHMEMI_DEPRECATED" if dep else "")
        self.decls.append(d)
        self.names.append(name)
        self.defs.setdefault(fname, []).append(
            "%s %s(%s)\n{\n%s\n}\nSHMEMI_ALIAS(%s);\n" %
            (ret, name, params, body, name))


def ctx_pair(o, fname, ret, base, params, body, dep=False):
    """Defines shmem_<base> and shmem_ctx_<base>; body uses `ctx`."""
    o.fn(fname, ret, "shmem_ctx_" + base, "shmem_ctx_t ctx, " + params,
         body, dep)
    o.fn(fname, ret, "shmem_" + base, params,
         "  shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;\n" + body, dep)


def gen_rma(o, types):
    f = "rma"
    for t in of(types, "R") + [dict(tname=str(b), ctype=None, size=b // 8)
                               for b, _ in SIZES] + \
            [dict(tname="mem", ctype=None, size=1)]:
        sized = t["ctype"] is None
        tn, ct = t["tname"], t["ctype"] or "void"
        sz = "sizeof(%s)" % ct if not sized else str(t["size"])
        mid = ("%s_" % tn) if not sized else ""
        sfx = tn if sized else ""
        p, g, ip, ig = "put%s" % sfx, "get%s" % sfx, "iput%s" % sfx, \
            "iget%s" % sfx
        if not sized:
            p, g, ip, ig = mid + "put", mid + "get", mid + "iput", mid + "iget"
        for nbi in ("", "_nbi"):
            nb = "1" if nbi else "0"
            if tn == "mem" and True:
                pass
            ctx_pair(o, f, "void", p + nbi,
                     "%s *dest, const %s *source, size_t nelems, int pe" %
                     (ct, ct),
                     "  shmemi_put(ctx, dest, source, nelems * %s, pe, %s, "
                     "\"shmem_%s\");" % (sz, nb, p + nbi)) \
                if tn != "mem" else None
            ctx_pair(o, f, "void", g + nbi,
                     "%s *dest, const %s *source, size_t nelems, int pe" %
                     (ct, ct),
                     "  shmemi_get(ctx, dest, source, nelems * %s, pe, %s, "
                     "\"shmem_%s\");" % (sz, nb, g + nbi)) \
                if tn != "mem" else None
        if tn == "mem":
            continue
        for name, fn in ((ip, "shmemi_iput"), (ig, "shmemi_iget")):
            ctx_pair(o, f, "void", name,
                     "%s *dest, const %s *source, ptrdiff_t dst, "
                     "ptrdiff_t sst, size_t nelems, int pe" % (ct, ct),
                     "  %s(ctx, dest, source, dst, sst, nelems, %s, pe, "
                     "\"shmem_%s\");" % (fn, sz, name))
        # put with signal
        for nbi in ("", "_nbi"):
            nm = (mid + "put_signal" if not sized else "put%s_signal" % tn) \
                + nbi
            ctx_pair(o, f, "void", nm,
                     "%s *dest, const %s *source, size_t nelems, "
                     "uint64_t *sig_addr, uint64_t signal, int sig_op, int pe"
                     % (ct, ct),
                     "  shmemi_put_signal(ctx, dest, source, nelems * %s, "
                     "sig_addr, signal, sig_op, pe, %s, \"shmem_%s\");" %
                     (sz, "1" if nbi else "0", nm))
        if sized:
            continue
        ctx_pair(o, f, "void", mid + "p",
                 "%s *dest, %s value, int pe" % (ct, ct),
                 "  shmemi_put(ctx, dest, &value, sizeof(%s), pe, 0, "
                 "\"shmem_%sp\");" % (ct, mid))
        ctx_pair(o, f, ct, mid + "g", "const %s *source, int pe" % ct,
                 "  %s v;\n  shmemi_get(ctx, &v, source, sizeof(%s), pe, 0, "
                 "\"shmem_%sg\");\n  return v;" % (ct, ct, mid))


AMOS = [
    # name, class, returns, params (after dest), op, value expr, cond
    ("fetch", "X", True, "", "FETCH", None, None),
    ("set", "X", False, ", T value", "SET", "&value", None),
    ("swap", "X", True, ", T value", "SWAP", "&value", None),
    ("compare_swap", "A", True, ", T cond, T value", "CSWAP", "&value",
     "&cond"),
    ("fetch_inc", "A", True, "", "FADD", "&one", None),
    ("inc", "A", False, "", "ADD", "&one", None),
    ("fetch_add", "A", True, ", T value", "FADD", "&value", None),
    ("add", "A", False, ", T value", "ADD", "&value", None),
    ("fetch_and", "B", True, ", T value", "FAND", "&value", None),
    ("and", "B", False, ", T value", "AND", "&value", None),
    ("fetch_or", "B", True, ", T value", "FOR", "&value", None),
    ("or", "B", False, ", T value", "OR", "&value", None),
    ("fetch_xor", "B", True, ", T value", "FXOR", "&value", None),
    ("xor", "B", False, ", T value", "XOR", "&value", None),
]
DEPRECATED_AMOS = [("fadd", "D", "fetch_add"), ("finc", "D", "fetch_inc"),
                   ("add", "D", "add"), ("inc", "D", "inc"),
                   ("cswap", "D", "compare_swap"), ("swap", "E", "swap"),
                   ("fetch", "E", "fetch"), ("set", "E", "set")]


def amo_body(t, a, nbi):
    name, _, ret, params, op, val, cond = a
    ct = t["ctype"]
    lines = []
    if val == "&one":
        lines.append("  %s one = (%s)1;" % (ct, ct))
    dest = "(void *)source" if name == "fetch" else "dest"
    res = "NULL"
    if ret and not nbi:
        lines.append("  %s r;" % ct)
        res = "&r"
    elif ret:
        res = "fetch"
    lines.append("  shmemi_amo(ctx, SHMEMI_AMO_%s, SHMEMI_DT_%s, %s, %s, %s, "
                 "%s, pe, %d, FN);" % (op, t["name"], dest, val or "NULL",
                                      cond or "NULL", res, 1 if nbi else 0))
    if ret and not nbi:
        lines.append("  return r;")
    return "\n".join(lines)


def gen_amo(o, types):
    f = "amo"
    for t in types:
        ct, tn = t["ctype"], t["tname"]
        for a in AMOS:
            name, cls, ret, params, _, _, _ = a
            if cls not in t["cls"] and not (cls == "X" and "A" in t["cls"]
                                            and False):
                continue
            first = ("const T *source" if name == "fetch" else "T *dest")
            pr = (first + params + ", int pe").replace("T ", ct + " ")
            full = "%s_atomic_%s" % (tn, name)
            body = "#define FN \"shmem_%s\"\n%s\n#undef FN" % (
                full, amo_body(t, a, False))
            ctx_pair(o, f, ct if ret else "void", full, pr, body)
            if ret:
                prn = (ct + " *fetch, " + pr)
                fulln = full + "_nbi"
                body = "#define FN \"shmem_%s\"\n%s\n#undef FN" % (
                    fulln, amo_body(t, a, True))
                ctx_pair(o, f, "void", fulln, prn, body)
        for dname, cls, newname in DEPRECATED_AMOS:
            if cls not in t["cls"]:
                continue
            a = [x for x in AMOS if x[0] == newname][0]
            first = ("const T *source" if newname == "fetch" else "T *dest")
            pr = (first + a[3] + ", int pe").replace("T ", ct + " ")
            if dname == "cswap":
                pr = "%s *dest, %s cond, %s value, int pe" % (ct, ct, ct)
            full = "shmem_%s_%s" % (tn, dname)
            body = ("  shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;\n"
                    "#define FN \"%s\"\n%s\n#undef FN" %
                    (full, amo_body(t, a, False)))
            o.fn(f, ct if a[2] else "void", full, pr, body, dep=True)


CMP_ARGS = "int cmp, T cmp_value"


def gen_sync(o, types):
    f = "sync"
    for t in of(types, "W"):
        ct, tn, dt = t["ctype"], t["tname"], "SHMEMI_DT_" + t["name"]
        T = lambda s: s.replace("T ", ct + " ").replace("T *", ct + " *")
        o.fn(f, "void", "shmem_%s_wait_until" % tn,
             T("T *ivar, int cmp, T cmp_value"),
             "  shmemi_wait_until(ivar, %s, cmp, &cmp_value, "
             "\"shmem_%s_wait_until\");" % (dt, tn))
        o.fn(f, "void", "shmem_%s_wait" % tn, T("T *ivar, T cmp_value"),
             "  shmemi_wait_until(ivar, %s, SHMEM_CMP_NE, &cmp_value, "
             "\"shmem_%s_wait\");" % (dt, tn), dep=True)
        o.fn(f, "int", "shmem_%s_test" % tn, T("T *ivar, int cmp, T cmp_value"),
             "  return shmemi_test(ivar, %s, cmp, &cmp_value, "
             "\"shmem_%s_test\");" % (dt, tn))
        for kind in ("all", "any", "some"):
            for vec in ("", "_vector"):
                for wt in ("wait_until", "test"):
                    nm = "shmem_%s_%s_%s%s" % (tn, wt, kind, vec)
                    idx = "size_t *indices, " if kind == "some" else ""
                    val = "T *cmp_values" if vec else "T cmp_value"
                    ret = "size_t"
                    if kind == "all":
                        ret = "void" if wt == "wait_until" else "int"
                    pr = T("T *ivars, size_t nelems, %sconst int *status, "
                           "int cmp, %s" % (idx, val))
                    call = ("shmemi_wait_set(SHMEMI_SET_%s, %d, ivars, nelems,"
                            " %s, status, %s, cmp, %s, %d, \"%s\")" %
                            (kind.upper(), 1 if wt == "wait_until" else 0,
                             "indices" if idx else "NULL", dt,
                             "cmp_values" if vec else "&cmp_value",
                             1 if vec else 0, nm))
                    if ret == "void":
                        body = "  (void)%s;" % call
                    elif ret == "int":
                        body = "  return %s == 1;" % call
                    else:
                        body = "  return %s;" % call
                    o.fn(f, ret, nm, pr, body)


RED_OPS = [("and", "b", "AND"), ("or", "b", "OR"), ("xor", "b", "XOR"),
           ("max", "m", "MAX"), ("min", "m", "MIN"), ("sum", "s", "SUM"),
           ("prod", "s", "PROD")]


def gen_coll(o, types):
    f = "coll"
    for t in of(types, "R"):
        ct, tn = t["ctype"], t["tname"]
        o.fn(f, "int", "shmem_%s_broadcast" % tn,
             "shmem_team_t team, %s *dest, const %s *source, size_t nelems, "
             "int PE_root" % (ct, ct),
             "  return shmemi_team_broadcast(team, dest, source, nelems * "
             "sizeof(%s), PE_root);" % ct)
        for c in ("collect", "fcollect", "alltoall"):
            o.fn(f, "int", "shmem_%s_%s" % (tn, c),
                 "shmem_team_t team, %s *dest, const %s *source, "
                 "size_t nelems" % (ct, ct),
                 "  return shmemi_team_%s(team, dest, source, nelems * "
                 "sizeof(%s));" % (c, ct))
        o.fn(f, "int", "shmem_%s_alltoalls" % tn,
             "shmem_team_t team, %s *dest, const %s *source, ptrdiff_t dst, "
             "ptrdiff_t sst, size_t nelems" % (ct, ct),
             "  return shmemi_team_alltoalls(team, dest, source, dst, sst, "
             "nelems, sizeof(%s));" % ct)
    for t in types:
        ct, tn, dt = t["ctype"], t["tname"], "SHMEMI_DT_" + t["name"]
        for op, cls, OP in RED_OPS:
            ok = cls in t["cls"] or (cls == "s" and "c" in t["cls"])
            if ok:
                o.fn(f, "int", "shmem_%s_%s_reduce" % (tn, op),
                     "shmem_team_t team, %s *dest, const %s *source, "
                     "size_t nreduce" % (ct, ct),
                     "  return shmemi_team_reduce(team, dest, source, nreduce,"
                     " %s, SHMEMI_OP_%s);" % (dt, OP))
            toall = ("t" in t["cls"] and cls == "b") or \
                ("T" in t["cls"] and cls in "ms" and
                 not ("c" in t["cls"] and cls == "m"))
            if toall:
                o.fn(f, "void", "shmem_%s_%s_to_all" % (tn, op),
                     "%s *dest, const %s *source, int nreduce, int PE_start, "
                     "int logPE_stride, int PE_size, %s *pWrk, long *pSync"
                     % (ct, ct, ct),
                     "  shmemi_active_reduce(dest, source, nreduce, PE_start,"
                     " logPE_stride, PE_size, pWrk, pSync, %s, SHMEMI_OP_%s);"
                     % (dt, OP), dep=True)


# ---- C11 generics --------------------------------------------------------
# The C type each fixed-width/size typedef is on LP64 Linux (x86-64,
# aarch64): _Generic associations must be distinct types, so a selection
# has one entry per distinct C type, the first table entry of that type
# with the class (a plain C type name before its typedefs).
CANON = {"int8_t": "signed char", "int16_t": "short", "int32_t": "int",
         "int64_t": "long", "uint8_t": "unsigned char",
         "uint16_t": "unsigned short", "uint32_t": "unsigned int",
         "uint64_t": "unsigned long", "size_t": "unsigned long",
         "ptrdiff_t": "long"}


def sel(types, cls, fmt, quals=("",)):
    ent, seen = [], set()
    ordered = [t for t in types if "g" in t["cls"]] + \
        [t for t in types if "g" not in t["cls"]]
    for t in ordered:
        if cls not in t["cls"] and not (cls == "s" and "c" in t["cls"]):
            continue
        c = CANON.get(t["ctype"], t["ctype"])
        if c in seen:
            continue
        seen.add(c)
        for q in quals:
            ent.append("%s%s *: %s" % (q, c, fmt % t["tname"]))
    return ", ".join(ent)


def generics(types):
    g = []

    def ctxgen(name, cls, fmt, quals=("",)):
        """shmem_<name>(...) with optional leading ctx, dispatch on dest."""
        g.append("#define SHMEMI_G_%s(x) _Generic((x), %s, default: "
                 "shmemi_generic_no_such_type)" %
                 (name, sel(types, cls, "shmem_" + fmt, quals)))
        g.append("#define SHMEMI_GC_%s(x) _Generic((x), %s, default: "
                 "shmemi_generic_no_such_type)" %
                 (name, sel(types, cls, "shmem_ctx_" + fmt, quals)))
        g.append("#define shmem_%s(...) _Generic(SHMEMI_A1(__VA_ARGS__, 0), "
                 "shmem_ctx_t: SHMEMI_GC_%s(SHMEMI_A2(__VA_ARGS__, 0, 0)), "
                 "default: SHMEMI_G_%s(SHMEMI_A1(__VA_ARGS__, 0)))"
                 "(__VA_ARGS__)" % (name, name, name))

    def plain(name, cls, fmt, argsel="SHMEMI_A1(__VA_ARGS__, 0)",
              quals=("",)):
        g.append("#define shmem_%s(...) _Generic(%s, %s, default: "
                 "shmemi_generic_no_such_type)(__VA_ARGS__)" %
                 (name, argsel, sel(types, cls, "shmem_" + fmt, quals)))

    cq = ("", "const ")
    for n in ("put", "put_nbi", "iput", "p", "put_signal", "put_signal_nbi"):
        ctxgen(n, "R", "%s_" + n)
    for n in ("get", "get_nbi", "iget"):
        ctxgen(n, "R", "%s_" + n)
    ctxgen("g", "R", "%s_g", cq)
    for a in AMOS:
        name, cls, ret = a[0], a[1], a[2]
        q = cq if name == "fetch" else ("",)
        ctxgen("atomic_" + name, cls, "%s_atomic_" + name, q)
        if ret:
            # nbi fetching forms: dispatch on the fetch buffer
            ctxgen("atomic_%s_nbi" % name, cls, "%s_atomic_%s_nbi" % ("%s",
                                                                      name))
    for dname, cls, _ in DEPRECATED_AMOS:
        q = cq if dname == "fetch" else ("",)
        plain(dname, cls, "%s_" + dname, quals=q)
    vq = ("", "volatile ")
    plain("wait_until", "W", "%s_wait_until", quals=vq)
    plain("wait", "W", "%s_wait", quals=vq)
    plain("test", "W", "%s_test", quals=vq)
    for kind in ("all", "any", "some"):
        for vec in ("", "_vector"):
            for wt in ("wait_until", "test"):
                n = "%s_%s%s" % (wt, kind, vec)
                plain(n, "W", "%s_" + n, quals=vq)
    a2 = "SHMEMI_A2(__VA_ARGS__, 0, 0)"
    for c in ("broadcast", "collect", "fcollect", "alltoall", "alltoalls"):
        plain(c, "R", "%s_" + c, argsel=a2)
    for op, cls, _ in RED_OPS:
        plain("%s_reduce" % op, cls, "%s_" + op + "_reduce", argsel=a2)
    # shmem_sync(team) is shmem_team_sync; with four arguments the
    # deprecated active-set shmem_sync.
    g.append("#define SHMEMI_PICK5(a, b, c, d, e, ...) e")
    g.append("#define shmem_sync(...) SHMEMI_PICK5(__VA_ARGS__, shmem_sync, "
             "shmem_sync, shmem_sync, shmem_team_sync, 0)(__VA_ARGS__)")
    return "\n".join(g)


def write(path, text):
    if os.path.exists(path) and open(path).read() == text:
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w") as fh:
        fh.write(text)
    os.replace(path + ".tmp", path)


def types_header(types):
    h = ["/* Generated by shmem/gen/shmem_gen.py from types.def; do not edit."
         " */", "#ifndef SHMEMI_TYPES_GEN_H", "#define SHMEMI_TYPES_GEN_H", "",
         "typedef enum {"]
    h += ["  SHMEMI_DT_%s," % t["name"] for t in types]
    h += ["  SHMEMI_DT_COUNT", "} shmemi_dtype_t;", "",
          "typedef enum { SHMEMI_OP_AND, SHMEMI_OP_OR, SHMEMI_OP_XOR, "
          "SHMEMI_OP_MAX, SHMEMI_OP_MIN,", "  SHMEMI_OP_SUM, SHMEMI_OP_PROD } "
          "shmemi_op_t;", ""]

    def xl(macro, lst, dart=False):
        h.append("#define %s(X) \\" % macro)
        for t in lst:
            if dart:
                h.append("  X(%s, %s, %s, %s) \\" % (t["name"], t["ctype"],
                                                     t["tname"], t["dart"]))
            else:
                h.append("  X(%s, %s, %s) \\" % (t["name"], t["ctype"],
                                                 t["tname"]))
        h.append("")

    xl("SHMEMI_FOR_ALL", types)
    xl("SHMEMI_FOR_ALL_DART", types, dart=True)
    xl("SHMEMI_FOR_REDUCE_BITWISE", of(types, "b"))
    xl("SHMEMI_FOR_REDUCE_MINMAX", of(types, "m"))
    xl("SHMEMI_FOR_REDUCE_ARITH", [t for t in types if "s" in t["cls"] or
                                   "c" in t["cls"]])
    xl("SHMEMI_FOR_RMA", of(types, "R"))
    xl("SHMEMI_FOR_AMO", of(types, "X"))
    xl("SHMEMI_FOR_SYNC", of(types, "W"))
    h += ["#endif", ""]
    return "\n".join(h)


def main():
    table, tmpl, version, out = sys.argv[1:5]
    types = read_table(table)
    o = Out()
    gen_rma(o, types)
    gen_amo(o, types)
    gen_sync(o, types)
    gen_coll(o, types)
    text = open(tmpl).read().replace("@DART_VERSION@", version)
    text = text.replace("@TYPED_DECLS@", "\n".join(o.decls))
    text = text.replace("@GENERICS@", generics(types))
    write(os.path.join(out, "include", "shmem.h"), text)
    # every function name declared in the header
    names = sorted(set(re.findall(r"\b(shmem_[a-z0-9_]+)\s*\(",
                                  re.sub(r"#define[^\n]*", "", text))))
    names = [n for n in names if n not in ("shmem_ctx_t", "shmem_team_t")]
    ren = ["/* Generated by shmem/gen/shmem_gen.py; forced into every source"
           " of libdart-shmem:", " * each API function is defined as pshmem_x"
           " (SHMEMI_ALIAS makes shmem_x", " * a weak alias of it). */",
           "#ifndef SHMEMI_RENAME_H", "#define SHMEMI_RENAME_H"]
    ren += ["#define %s p%s" % (n, n) for n in names]
    ren += ["#endif", ""]
    write(os.path.join(out, "shmemi_rename.h"), "\n".join(ren))
    ph = ["/* pshmem.h: the profiling names of the OpenSHMEM API of DART.",
          " * Generated by shmem/gen/shmem_gen.py. Every shmem_x is a weak"
          " alias of pshmem_x. */", "#ifndef DART_PSHMEM_H",
          "#define DART_PSHMEM_H", "#include <shmem.h>", "#ifdef __cplusplus",
          "extern \"C\" {", "#endif"]
    ph += ["__typeof__(%s) p%s;" % (n, n) for n in names]
    ph += ["#ifdef __cplusplus", "}", "#endif", "#endif", ""]
    write(os.path.join(out, "include", "pshmem.h"), "\n".join(ph))
    write(os.path.join(out, "shmemi_types_gen.h"), types_header(types))
    for fname, defs in o.defs.items():
        hdr = "shmemi_coll_gen.h" if fname == "coll" else "shmem_internal.h"
        body = ("/* Generated by shmem/gen/shmem_gen.py; do not edit. */\n"
                "#include \"shmem_internal.h\"\n")
        if fname == "coll":
            body += "#include \"shmem_coll.h\"\n"
        body += "\n" + "\n".join(defs)
        del hdr
        write(os.path.join(out, "shmemi_gen_%s.c" % fname), body)


if __name__ == "__main__":
    main()
