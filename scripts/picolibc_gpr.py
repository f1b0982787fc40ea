#!/usr/bin/env python3
"""Builds the libc.a of picolibc's general-registers-only form (scripts/setup-deps) from a
meson build directory configured with -mgeneral-regs-only: every object of picolibc's
libc.a except libm's, compiled, and kept when

  1. it compiles (x86_64 code that passes or returns floating point does not),
  2. its disassembly has no x87/MMX/SSE/AVX instruction (scripts/general_regs_only.py),
  3. it calls no soft-float helper (__adddf3, __ltdf2, __fixdfsi...: with the FPU off
     GCC turns floating-point arithmetic into calls libgcc on x86 does not have), and
  4. nothing it needs from picolibc is in an object left out by 1-3 or in libm, so that
     the archive links whole (strtod needs __atod_engine, which does floating point;
     printf's %f variant needs __dtoa_engine...). Symbols picolibc leaves to the
     environment (stdout, _exit, read, write, sbrk's __heap_start...) are not its own.

picolibc's own symbols are those of its ordinary libc.a for the same architecture
(--full), which scripts/setup-deps builds first. Writes the archive to --out, and to
--report what was left out and why, one object a line.

Usage: picolibc_gpr.py --build DIR --full LIBC.a --nm NM --objdump OBJDUMP --ar AR
                       --out LIBC.a --report FILE"""
import argparse
import os
import re
import subprocess
import sys

import general_regs_only  # beside this script: Python puts the script's folder on the path

# libgcc's soft-float routines: an operation, then its operand and result modes (sf, df,
# xf, tf, hf, bf floating, sc... complex, si, di, ti integer), at least one floating.
SOFT_FLOAT_RE = re.compile(r"__(?:add|sub|mul|div|neg|extend|trunc|fixuns|fix|floatun|float|"
                           r"cmp|unord|eq|ne|ge|lt|le|gt|powi)((?:sf|df|xf|tf|hf|bf|sc|dc|xc|"
                           r"tc|si|di|ti)+)\d?")
FLOAT_MODES = {"sf", "df", "xf", "tf", "hf", "bf", "sc", "dc", "xc", "tc"}


def soft_float_helper(symbol):
    m = SOFT_FLOAT_RE.fullmatch(symbol)
    if not m:
        return False
    modes = m.group(1)
    return any(modes[i:i + 2] in FLOAT_MODES for i in range(0, len(modes), 2))


def symbols(nm, *paths):
    """{path: (defined globals, undefined)} of objects, one nm for all; of an archive,
    its members' together."""
    out = subprocess.run([nm, *paths], capture_output=True, text=True, check=True).stdout
    result = {p: (set(), set()) for p in paths}
    defined, undefined = result[paths[0]]
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 1 and parts[0].endswith(":") and parts[0][:-1] in result:
            defined, undefined = result[parts[0][:-1]]
        elif len(parts) == 2 and parts[0] in "Uw":
            undefined.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDRBCWVGSi":
            defined.add(parts[2])
    return result


def libc_objects(build):
    """The objects newlib/libc.a is made of, as ninja names them (relative to build)."""
    out = subprocess.run(["ninja", "-C", build, "-t", "query", "newlib/libc.a"],
                         capture_output=True, text=True, check=True).stdout
    inputs = out.split("outputs:")[0]
    return [w for w in inputs.split() if w.endswith(".o")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    for opt in ("build", "full", "nm", "objdump", "ar", "out", "report"):
        ap.add_argument("--" + opt, required=True)
    args = ap.parse_args()

    objects = libc_objects(args.build)
    if len(objects) < 300:
        sys.exit(f"picolibc_gpr: only {len(objects)} objects in newlib/libc.a: wrong build?")
    left_out = {}
    wanted = []
    for obj in objects:
        if os.path.basename(obj).startswith("libm_"):
            left_out[obj] = "libm"
        else:
            wanted.append(obj)
    # Those that do not compile without the FPU fail here; -k 0 builds all the others.
    with open(args.report + ".ninja.log", "w", encoding="utf-8") as log:
        subprocess.run(["ninja", "-C", args.build, "-k", "0", *wanted], stdout=log,
                       stderr=subprocess.STDOUT, check=False)

    built = {o: os.path.join(args.build, o) for o in wanted}
    for obj, path in built.items():
        if not os.path.exists(path):
            left_out[obj] = "does not compile with -mgeneral-regs-only"
    built = {o: p for o, p in built.items() if o not in left_out}
    fpu = general_regs_only.scan(args.objdump, *built.values())
    syms = symbols(args.nm, *built.values())
    defs = {o: syms[p][0] for o, p in built.items()}
    undefs = {o: syms[p][1] for o, p in built.items()}
    for obj, path in built.items():
        found = fpu[path][1]
        helpers = sorted(s for s in undefs[obj] if soft_float_helper(s))
        if found:
            left_out[obj] = f"{found[0][4]} instruction: {found[0][3]}"
        elif helpers:
            left_out[obj] = "soft-float helper " + ", ".join(helpers)

    picolibc = symbols(args.nm, args.full)[args.full][0]
    changed = True
    while changed:
        changed = False
        kept = [o for o in wanted if o not in left_out]
        have = set().union(*(defs[o] for o in kept))
        for obj in kept:
            missing = sorted(s for s in undefs[obj] if s in picolibc and s not in have)
            if missing:
                left_out[obj] = "needs " + ", ".join(missing) + " (left out)"
                changed = True

    kept = [o for o in wanted if o not in left_out]
    names = [os.path.basename(o) for o in kept]
    if len(set(names)) != len(names):
        sys.exit("picolibc_gpr: two objects of one name: the archive would keep one")
    if os.path.exists(args.out):
        os.remove(args.out)
    subprocess.run([args.ar, "qcs", args.out, *(os.path.join(args.build, o) for o in kept)],
                   check=True)
    with open(args.report, "w", encoding="utf-8") as f:
        f.write(f"# {len(kept)} of {len(objects)} objects of picolibc's libc.a kept; "
                "left out:\n")
        for obj in sorted(left_out, key=os.path.basename):
            f.write(f"{os.path.basename(obj)}: {left_out[obj]}\n")
    print(f"picolibc_gpr: {len(kept)} of {len(objects)} objects kept "
          f"({sum(1 for r in left_out.values() if r == 'libm')} of libm left out, "
          f"{sum(1 for r in left_out.values() if r != 'libm')} others; see {args.report})")


if __name__ == "__main__":
    main()
