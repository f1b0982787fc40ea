"""Footprint of libacart.a (issue 12 P5): code and static data per component, from the
section sizes of each object in the archive (`size -A`), as the target builds make them:
one section per --lib (the i686 and the x86_64 library side by side). Code is .text plus read-only data (.rodata*); static data is .data plus .bss, with
the buffers a port sizes at build time (the sample rings, the PEBS DS areas, the IPROBE
pool and file store, the Intel PT pool) shown apart, as they are the rings' kind of RAM.

Components: the SEP agent and sampler (everything not below), IPROBE (ipr_*.c,
pmu_owner.c), Intel PT (runtime and arch/x86: pt*.c, cmd_pt.c) and the CPU's PMU code from
arch/x86 (pmu*,
pmi*, pebs, lbr, msr_*, topology, tsc). A program that never calls IPROBE or PT links none
of their objects' code only once they are split into libraries of their own; today every
image that links aca_start() pulls them in, and the figures say so.

The minimal build of the memory budget (docs/porting.md; --minimal-lib, the superbuild's
build/target-minimal: one CPU, no IPROBE, PT, uncore, PEBS, LBR, stack copies or counting
mode) is reported against its targets:
at most 48 KiB of code and 64 KiB of static data besides the sample rings (the PEBS DS
area counted in). --check fails when it misses them.

Writes bench/results/footprint.txt. Usage:
    footprint.py --lib build/target/runtime/libacart.a [--lib build/target-x86_64/...]
                 [--minimal-lib build/target-minimal/runtime/libacart.a] [--check]"""
import argparse
import os
import re
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser()
ap.add_argument("--lib", default=[], action="append")
ap.add_argument("--minimal-lib", help="the minimal build's libacart.a (build/target-minimal)")
ap.add_argument("--check", action="store_true",
                help="exit 1 when the minimal build misses its targets")
ap.add_argument("--out", default=os.path.join(HERE, "results", "footprint.txt"))
args = ap.parse_args()
MINIMAL_CODE_KIB, MINIMAL_DATA_KIB = 48, 64

# Buffers a port sizes at build time (acart_opts.h), in sections of their own.
BUFFERS = {".bss.acart_rings": "sample rings (ACA_RING_POOL_BYTES)",
           ".bss.acart_pt": "Intel PT pool (ACA_PT_POOL_BYTES)",
           ".bss.acart_ipr": "IPROBE pool (ACA_IPR_POOL_BYTES)",
           ".bss.acart_ipr_files": "IPROBE sample files (ACA_IPR_FILE_BYTES)",
           ".bss.acart_pebs": "PEBS DS areas (per CPU)",
           ".bss.acart_task_switches": "task switch logs (ACA_TASK_SWITCHES_PER_CPU)"}
CPU_CODE = re.compile(r"^(pmu|pmu_models|pmi|pebs|lbr|msr_fixup|msr_safe|topology|tsc)"
                      r"\.(c|S)\.obj$")
PT_CODE = re.compile(r"^(pt|pt_cpu|pt_output|pt_session|cmd_pt)\.c\.obj$")


def component(obj):
    if obj.startswith("ipr_") or obj.startswith("pmu_owner."):
        return "IPROBE"
    if PT_CODE.match(obj):
        return "Intel PT"
    if CPU_CODE.match(obj):
        return "CPU code (arch/x86: PMU, PEBS, LBR)"
    return "SEP agent, sampler, rings, transfer"


def archive_arch(path):
    """i686 or x86_64: the ELF class of the archive's first member."""
    data = open(path, "rb").read(1 << 16)
    at = data.find(b"\x7fELF")
    return {1: "i686", 2: "x86_64"}.get(data[at + 4] if at >= 0 else 0, "unknown")


def build_options(lib):
    """The memory-budget options of the build the library comes from (its CMakeCache.txt)."""
    cache = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(lib))), "CMakeCache.txt")
    opts = {}
    if os.path.exists(cache):
        for line in open(cache):
            m = re.match(r"^(ACART_MAX_CPUS|ACART_WITH_\w+|ACART_OPTS):\w+=(.*)$", line.strip())
            if m:
                opts[m.group(1)] = m.group(2)
    return " ".join("%s=%s" % kv for kv in sorted(opts.items()) if kv[1] != "")


def largest(lib, buffers):
    """The largest static objects, for where the data goes (the buffers excluded)."""
    syms = subprocess.run(["nm", "-S", "--size-sort", lib], check=True, capture_output=True,
                          text=True).stdout
    big = []
    for line in syms.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "bBdD":
            big.append((int(parts[1], 16), parts[3]))
    return [(size, name) for size, name in sorted(big, reverse=True)
            if size not in buffers.values()][:10]


lines = []
minimal_ok = True
commit = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"],
                        capture_output=True, text=True).stdout.strip()
libs = [(lib, False) for lib in args.lib] + ([(args.minimal_lib, True)] if args.minimal_lib else [])
for lib, minimal in libs:
    text = subprocess.run(["size", "-A", lib], check=True, capture_output=True,
                          text=True).stdout
    code, data, buffers = {}, {}, {}
    obj = None
    for line in text.splitlines():
        m = re.match(r"^(\S+)\s+\(ex .*\):$", line)
        if m:
            obj = m.group(1)
            continue
        parts = line.split()
        if obj is None or len(parts) != 3 or not parts[1].isdigit():
            continue
        name, size = parts[0], int(parts[1])
        comp = component(obj)
        if name in BUFFERS:
            buffers[name] = buffers.get(name, 0) + size
        elif name.startswith(".text") or name.startswith(".rodata"):
            code[comp] = code.get(comp, 0) + size
        elif name.startswith(".data") or name.startswith(".bss"):
            data[comp] = data.get(comp, 0) + size

    lines.append("# bench/footprint.py, %s, commit %s: %s (%s, -O2; the control plane -Os)" % (
        time.strftime("%Y-%m-%d %H:%M:%S"), commit, os.path.relpath(lib), archive_arch(lib)))
    if minimal:
        lines.append("# the minimal build (agent and time/PMU sampling only): %s"
                     % build_options(lib))
    lines.append("%-44s %10s %12s" % ("component", "code KiB", "data KiB"))
    for comp in sorted(set(code) | set(data), key=lambda c: -code.get(c, 0)):
        lines.append("%-44s %10.1f %12.1f" % (comp, code.get(comp, 0) / 1024,
                                              data.get(comp, 0) / 1024))
    total_code, total_data = sum(code.values()), sum(data.values())
    lines.append("%-44s %10.1f %12.1f" % ("libacart.a", total_code / 1024, total_data / 1024))
    if minimal:
        besides_rings = total_data + sum(v for k, v in buffers.items() if k != ".bss.acart_rings")
        code_ok = total_code <= MINIMAL_CODE_KIB * 1024
        data_ok = besides_rings <= MINIMAL_DATA_KIB * 1024
        minimal_ok = code_ok and data_ok
        lines.append("minimal build: code %.1f KiB (target: at most %d KiB: %s), static data "
                     "besides the rings %.1f KiB (target: at most %d KiB: %s)" % (
                         total_code / 1024, MINIMAL_CODE_KIB, "met" if code_ok else "NOT met",
                         besides_rings / 1024, MINIMAL_DATA_KIB, "met" if data_ok else "NOT met"))
        for name, size in sorted(buffers.items(), key=lambda kv: -kv[1]):
            lines.append("  buffer %-22s %10.1f KiB  %s" % (name, size / 1024, BUFFERS[name]))
        lines.append("largest static objects: " + ", ".join(
            "%s %.1f KiB" % (name, size / 1024) for size, name in largest(lib, buffers)))
        lines.append("")
        continue
    core = "SEP agent, sampler, rings, transfer"
    lines.append("code: %.1f KiB in all, %.1f KiB without IPROBE and PT"
                 % (total_code / 1024, (code.get(core, 0) + code.get(
                     "CPU code (arch/x86: PMU, PEBS, LBR)", 0)) / 1024))
    lines.append("static data besides the rings and the buffers below: %.1f KiB"
                 % (total_data / 1024))
    for name, size in sorted(buffers.items(), key=lambda kv: -kv[1]):
        lines.append("  buffer %-22s %10.1f KiB  %s" % (name, size / 1024, BUFFERS[name]))

    lines.append("largest static objects: " + ", ".join(
        "%s %.1f KiB" % (name, size / 1024) for size, name in largest(lib, buffers)))

    lines.append("")
print("\n".join(lines))
os.makedirs(os.path.dirname(args.out), exist_ok=True)
with open(args.out, "w") as f:
    f.write("\n".join(lines) + "\n")
print("wrote", args.out)
if args.check and not minimal_ok:
    raise SystemExit("the minimal build misses its targets")
