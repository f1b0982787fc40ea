#!/usr/bin/env python3
"""Fails on any instruction that touches x87, MMX, SSE or AVX state in the given object
files, archives or linked images (i686 or x86_64), from their disassembly.

An RTOS that saves only the general registers at a task switch or an interrupt (FreeRTOS's
IA32_flat port and many others) is corrupted by code that uses any other register file:
acart's libraries, the general-registers-only picolibc (scripts/setup-deps) and the
rtos-pc image that links both must have none of it. Compiling with -mgeneral-regs-only
keeps the compiler from emitting such code; this proves it of what was built, including
hand-written assembly and inline asm, which the flag does not cover.

What counts, in objdump's AT&T syntax:
  - an operand that names %xmm, %ymm, %zmm, %mm, %st or an AVX-512 mask register %k0-7;
  - an x87 instruction (every mnemonic that starts with "f": fld, fnstcw, fxsave, femms...);
  - the state instructions that name no such register: ldmxcsr, stmxcsr, emms, the
    xsave/xrstor family, vzeroupper, vzeroall.
Instructions that are SSE by CPUID but touch no SSE state (prefetchnta, the fences,
movnti, clflush) are fine.

With --self-check CC the script first proves it can fail: it compiles a small function
with CC -O2 -msse2 (SSE arithmetic) and one with long double (x87), and exits 2 unless
it finds both; then it checks the given files.

--allow FUNCTION=MNEMONIC accepts that instruction in that function only (the x86 kit's
cpu_enable_sse, which turns the FPU on for a path-A board, runs fninit); it is reported.

Usage: general_regs_only.py --objdump OBJDUMP [--self-check CC] [--allow FUNC=MNEMONIC]
                            FILE...
Exit status 0 when no file has such an instruction, 1 with each one listed (at most
--show per file), 2 when the check itself is broken (no instructions, self-check)."""
import argparse
import os
import re
import subprocess
import sys
import tempfile

LINE_RE = re.compile(r"^\s*([0-9a-f]+):\t(.*)$")
FUNC_RE = re.compile(r"^[0-9a-f]+ <([^>]+)>:$")
MEMBER_RE = re.compile(r"^In archive (.+):$|^(\S+):\s+file format")
REG_RE = re.compile(r"%(?:[xyz]mm\d+|mm[0-7]|st\b|st\(\d\)|k[0-7]\b)")
PREFIXES = {"lock", "rep", "repz", "repe", "repnz", "repne", "data16", "data32", "addr16",
            "addr32", "cs", "ds", "es", "fs", "gs", "ss", "notrack", "bnd", "xacquire",
            "xrelease"}
STATE_MNEMONICS = {"ldmxcsr", "stmxcsr", "vldmxcsr", "vstmxcsr", "emms", "vzeroupper",
                   "vzeroall"}
XSAVE_RE = re.compile(r"^x(save|rstor)")


def forbidden(text):
    """Why the instruction `text` (mnemonic and operands) uses a register file other than
    the general one, or None."""
    words = text.split()
    while words and (words[0] in PREFIXES or words[0].startswith("rex")):
        words = words[1:]
    if not words:
        return None
    mnemonic = words[0]
    if mnemonic.startswith("(bad)"):
        return None
    if mnemonic.startswith("f"):
        return "x87"
    if mnemonic in STATE_MNEMONICS or XSAVE_RE.match(mnemonic):
        return "SSE/AVX state"
    m = REG_RE.search(" ".join(words[1:]))
    if m:
        return "register " + m.group(0)
    return None


def scan(objdump, *paths):
    """{path: (instructions, [(member, function, address, instruction, why)])}, one
    objdump for all the paths; an archive's findings name its member."""
    out = subprocess.run([objdump, "-d", "--no-show-raw-insn", *paths], capture_output=True,
                         text=True, check=True).stdout
    result = {p: (0, []) for p in paths}
    path, member, function = paths[0], os.path.basename(paths[0]), "?"
    for line in out.splitlines():
        m = MEMBER_RE.match(line)
        if m:
            name = m.group(2) or m.group(1)
            if name in result:
                path = name
            member = os.path.basename(name)
            continue
        m = FUNC_RE.match(line)
        if m:
            function = m.group(1)
            continue
        m = LINE_RE.match(line)
        if not m:
            continue
        count, found = result[path]
        why = forbidden(m.group(2))
        if why:
            found.append((member, function, m.group(1), m.group(2).strip(), why))
        result[path] = (count + 1, found)
    return result


def self_check(objdump, cc):
    """Compiles code that must use SSE and code that must use x87; True when both are
    caught."""
    samples = {
        "sse": ("double scale(double a, double b) { return a * b + 1.0; }\n", ["-msse2"]),
        "x87": ("long double scale(long double a) { return a * a; }\n", []),
    }
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for name, (code, flags) in samples.items():
            src, obj = os.path.join(tmp, name + ".c"), os.path.join(tmp, name + ".o")
            with open(src, "w", encoding="utf-8") as f:
                f.write(code)
            subprocess.run([cc, "-O2", *flags, "-c", src, "-o", obj], check=True)
            _, found = scan(objdump, obj)[obj]
            print(f"general_regs_only: self-check: {name} object, {len(found)} "
                  f"instruction(s) found{' (as it must)' if found else ': NOT CAUGHT'}")
            ok = ok and bool(found)
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    ap.add_argument("--objdump", required=True)
    ap.add_argument("--self-check", metavar="CC", help="first prove the check fails on "
                    "objects compiled with SSE and with x87 by this compiler")
    ap.add_argument("--allow", action="append", default=[], metavar="FUNCTION=MNEMONIC",
                    help="accept this instruction in this function")
    ap.add_argument("--show", type=int, default=10, help="instructions shown per file")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()

    if args.self_check and not self_check(args.objdump, args.self_check):
        return 2
    status = 0
    allowed = {tuple(a.split("=", 1)) for a in args.allow}
    for path, (count, found) in scan(args.objdump, *args.files).items():
        for member, function, addr, insn, _ in found:
            if (function, insn.split()[0]) in allowed:
                print(f"general_regs_only: {path}: allowed: {member} {function}+{addr}: {insn}")
        found = [f for f in found if (f[1], f[3].split()[0]) not in allowed]
        if count == 0:
            print(f"general_regs_only: {path}: no instructions disassembled")
            status = max(status, 2)
            continue
        if found:
            print(f"general_regs_only: {path}: {len(found)} of {count} instructions use "
                  "x87/MMX/SSE/AVX state:")
            for member, function, addr, insn, why in found[:args.show]:
                print(f"  {member} {function}+{addr}: {insn}  ({why})")
            status = max(status, 1)
        else:
            print(f"general_regs_only: {path}: {count} instructions, general registers only")
    return status


if __name__ == "__main__":
    sys.exit(main())
