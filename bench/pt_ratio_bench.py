"""What `acart pt functions` and `acart pt calls` cost next to a bare libipt block decode of
the same trace (bench/pt_bare_decode.c): CPU time (user + system, getrusage through
bench_run), end to end, on small and large traces. The goal (issue 27) is at most twice.
CPU time on a shared machine moves by tens of percent between runs of the same binary, and
only ever upwards: each command's lowest time over the rounds is compared (each round's
own ratio is shown beside it), and on the small traces the instructions each command
executes are counted too (valgrind's callgrind), which do not move.

Traces, written here packet by packet as in pt_decode_bench.py (its packet helpers):
- `loop`: a loop calling one function, cycle-accurate (a CYC packet before every TNT
  packet), 64 KiB and 8 MiB, and the 8 MiB one with its CYC packets made PAD bytes; the
  image is an ELF with two functions;
- `pages`: a loop calling 156 functions each on a page of its own, so the code is 157
  pages, given to both decoders as 157 raw page-sized segments (`--raw FILE@ADDR`), 64 KiB
  and 8 MiB, cycle-accurate: the decode goes from segment to segment on every call and
  return;
- the real trace of tests/fixtures/pt (2 KiB, 8 instructions): process start-up only.

Each command is given the trace file itself (no collection folder). The instruction count
acart reports must be what the bare decoder decodes and what the trace encodes, so a wrong
decode fails the benchmark instead of being timed. With Linux perf, one profile of `pt
functions` on the large loop says where acart's time goes, by object and by symbol.

    PYTHONPATH=tests python3 bench/pt_ratio_bench.py --acart ACART --bare PT_BARE_DECODE \\
        --run BENCH_RUN --workdir DIR [--rounds N] [--out FILE]

(the bench-pt-ratio target runs it so; results in bench/results/pt_ratio.txt)
"""

import argparse
import datetime
import os
import platform
import shutil
import statistics
import subprocess
import sys

from acarttest import ptcase
from pt_decode_bench import (CBR, CYC_3, MODE_EXEC_64, NOM_FREQ, PAD, PSB, PSBEND, TNT_6_TAKEN,
                             ip_packet, tsc_packet)
from tb5_import_bench import timed  # bench/, beside this file

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(os.path.dirname(HERE), "tests", "fixtures", "pt", "dynamorio-hello")

ORG = 0x400000
PAGE = 4096
PAGES = 157
SMALL_INSNS = 10_000_000  # a trace of fewer instructions is small
SMALL_REPEAT = 20  # runs a round of each command on a small trace


def loop_code():
    """main: call f; dec ecx; jnz main.  f: nop; ret. 2 TNT bits and 5 instructions a turn."""
    code = bytes([0xe8, 0x04, 0x00, 0x00, 0x00, 0xff, 0xc9, 0x75, 0xf7, 0x90, 0xc3, 0xf4])
    return code, [(ORG, ORG + 9, "main"), (ORG + 9, ORG + 11, "f")], 2, 5


def pages_code():
    """main (page 0): call p1 ... call p156; dec ecx; jnz main. Page k: nop; ret. A turn is
    157 taken TNT bits (156 compressed returns and the loop branch) and 470 instructions."""
    main = bytearray()
    for k in range(1, PAGES):
        rel = ORG + k * PAGE - (ORG + len(main) + 5)
        main += bytes([0xe8]) + rel.to_bytes(4, "little", signed=True)
    main += bytes([0xff, 0xc9])
    main += bytes([0x0f, 0x85]) + (-(len(main) + 6)).to_bytes(4, "little", signed=True)
    main += bytes([0xf4])
    pages = [bytes(main).ljust(PAGE, b"\xf4")]
    pages += [bytes([0x90, 0xc3]).ljust(PAGE, b"\xf4") for _ in range(1, PAGES)]
    return pages, PAGES, (PAGES - 1) + 2 + 2 * (PAGES - 1)


def make_trace(size, bits_per_turn, cyc=True):
    """A trace of about `size` bytes of whole loop turns, all branches taken; a PSB+ (back at
    main) about every 4 KiB. Returns (bytes, turns)."""
    period = bits_per_turn * 6 // __import__("math").gcd(bits_per_turn, 6)  # bits, at main
    out = bytearray(PSB + MODE_EXEC_64 + tsc_packet(0x100000) + CBR + PSBEND
                    + ip_packet(0x11, ORG))
    bits, next_psb = 0, 4096
    while len(out) < size or bits % period:
        if len(out) >= next_psb and bits % period == 0:
            out += PSB + MODE_EXEC_64 + tsc_packet(0x100000 + bits) + CBR + ip_packet(0x1d, ORG)
            out += PSBEND
            next_psb += 4096
        out += (CYC_3 if cyc else PAD) + TNT_6_TAKEN
        bits += 6
    out += ip_packet(0x1d, ORG) + bytes([0x01])
    return bytes(out), bits // bits_per_turn


def total_insns(out):
    """The instruction total of `pt functions` (its first line) or `pt calls` (its header)."""
    first = out.splitlines()[0].split()
    return int(first[2] if first[0] == "cpu" else first[0])


def profile(cmd, workdir):
    """Where one run's CPU time goes: by object, and acart's and libipt's top symbols."""
    if not shutil.which("perf"):
        return ["profile: perf not found (Debian linux-perf)"]
    data = os.path.join(workdir, "perf.data")
    r = subprocess.run(["perf", "record", "-q", "-e", "cpu-clock:u", "-o", data] + cmd,
                       capture_output=True, text=True)
    if r.returncode != 0:
        return ["profile: perf record failed: %s" % (r.stderr.strip().splitlines() or ["?"])[-1]]
    lines = []
    for sort, top in (("dso", 4), ("dso,sym", 10)):
        r = subprocess.run(["perf", "report", "-i", data, "--stdio", "--sort", sort],
                           capture_output=True, text=True)
        rows = [line.strip() for line in r.stdout.splitlines()
                if line.strip() and not line.startswith("#")]
        lines.append("profile by %s: %s" % (sort, "; ".join(" ".join(x.split()) for x in rows[:top])))
    return lines


def instructions(cmd, workdir):
    """Instructions cmd executes in user space, counted by valgrind's callgrind: unlike CPU
    time, the same on a loaded machine as on a quiet one."""
    r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
                       + [str(c) for c in cmd], cwd=workdir, capture_output=True, text=True)
    for line in r.stderr.splitlines():
        if "Collected :" in line:
            return int(line.split()[-1])
    sys.exit("valgrind did not count %s:\n%s" % (cmd, r.stderr[-2000:]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--acart", required=True)
    ap.add_argument("--bare", required=True, help="pt_bare_decode")
    ap.add_argument("--run", required=True, help="bench_run")
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--large-mib", type=int, default=8)
    ap.add_argument("--out", default=os.path.join(HERE, "results", "pt_ratio.txt"))
    args = ap.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir)
    w = args.workdir

    code, symbols, loop_bits, loop_insns = loop_code()
    with open(os.path.join(w, "loop.bin"), "wb") as f:
        f.write(code)
    elf = ptcase.build_elf(w, "loop", "64", ORG, symbols)
    pages, pages_bits, pages_insns = pages_code()
    page_specs = []
    for k, page in enumerate(pages):
        path = os.path.join(w, "page%03d.bin" % k)
        with open(path, "wb") as f:
            f.write(page)
        page_specs.append("%s@0x%x" % (path, ORG + k * PAGE))

    timing = ["--nom-freq", str(NOM_FREQ)]
    cases = []  # (name, trace, acart image args, bare image args, instructions or None)
    for label, size, cyc in (("small, 64 KiB", 64 << 10, True),
                             ("large, %d MiB" % args.large_mib, args.large_mib << 20, True),
                             ("large, %d MiB, no CYC" % args.large_mib, args.large_mib << 20,
                              False)):
        trace, turns = make_trace(size, loop_bits, cyc)
        path = os.path.join(w, "loop-%d-%d.pt" % (size, cyc))
        with open(path, "wb") as f:
            f.write(trace)
        cases.append(("loop, %s" % label, path, ["--elf", elf] + timing,
                      ["%s@0x%x" % (os.path.join(w, "loop.bin"), ORG)], turns * loop_insns))
    for label, size in (("small, 64 KiB", 64 << 10), ("large, %d MiB" % args.large_mib,
                                                       args.large_mib << 20)):
        trace, turns = make_trace(size, pages_bits)
        path = os.path.join(w, "pages-%d.pt" % size)
        with open(path, "wb") as f:
            f.write(trace)
        raws = [x for spec in page_specs for x in ("--raw", spec)]
        cases.append(("157 page segments, %s" % label, path, raws + timing, page_specs,
                      turns * pages_insns))
    fixture_cfg = ["--cpu-model", "6/85/4", "--mtc-freq", "3", "--nom-freq", "37",
                   "--cpuid-0x15.eax", "2", "--cpuid-0x15.ebx", "308"]
    text = os.path.join(w, "hello-text.bin")
    subprocess.run(["objcopy", "-O", "binary", "--only-section=.text",
                    os.path.join(FIXTURE, "hello"), text], check=True)
    cases.append(("real trace (tests/fixtures/pt, 2 KiB)", os.path.join(FIXTURE, "pt.bin"),
                  ["--elf", os.path.join(FIXTURE, "hello")] + fixture_cfg,
                  ["--mtc-freq", "3", "--nom-freq", "37", "--cpuid-0x15", "2,308",
                   "%s@0x401000" % text], 8))

    rows = []
    for name, trace, acart_args, bare_args, want in cases:
        cmds = {
            "bare": [args.bare, trace] + (["--nom-freq", str(NOM_FREQ)]
                                          if "--cpu-model" not in acart_args else []) + bare_args,
            "functions": [args.acart, "pt", "functions", trace] + acart_args,
            "calls": [args.acart, "pt", "calls", trace, "--max-depth", "0"] + acart_args,
        }
        cpu = {k: [] for k in cmds}
        # A small trace's run is milliseconds, near the clock's grain and a scheduler's
        # whim: each round times it SMALL_REPEAT times, one after another, and takes the mean.
        small = want < SMALL_INSNS
        repeat = SMALL_REPEAT if small else 1
        for _ in range(args.rounds):
            for k, cmd in cmds.items():
                total = 0.0
                for _ in range(repeat):
                    _, _, t, out = timed(args.run, w, cmd)
                    got = int(out.split()[0]) if k == "bare" else total_insns(out)
                    if got != want:
                        sys.exit("%s: %s decodes %d instructions, the trace has %d\n%s"
                                 % (name, k, got, want, out[:2000]))
                    total += t
                cpu[k].append(total / repeat)
        # Another tenant's load only ever adds CPU time (caches and a core shared, a
        # frequency lowered), never takes any away: each command's least disturbed round,
        # its lowest time, is the closest to what it costs, and the ratio is of those.
        best = {k: min(v) for k, v in cpu.items()}
        # Beside it, each round's ratio, of runs next to each other in time: their median
        # and spread say how much the load moved.
        paired = {k: sorted(a / b for a, b in zip(cpu[k], cpu["bare"]))
                  for k in ("functions", "calls")}
        # Counted only on the small traces: callgrind runs some 50 times slower.
        counted = None
        if shutil.which("valgrind") and small:
            counted = {k: instructions(cmd, w) for k, cmd in cmds.items()}
            # libipt alone as acart configures it: the floor under acart's own work.
            counted["flags"] = instructions(cmds["bare"][:2] + ["--acart-flags"]
                                            + cmds["bare"][2:], w)
        rows.append((name, want, best, paired, counted))

    lines = [
        "# bench/pt_ratio_bench.py: acart pt functions / pt calls against a bare libipt block"
        " decode (bench/pt_bare_decode.c), same trace file, CPU seconds (user + system)",
        "# run as: ninja -C BUILD bench-pt-ratio (python3 bench/pt_ratio_bench.py --rounds %d"
        " --large-mib %d)" % (args.rounds, args.large_mib),
        "# %s, %s, %s, libipt %s" % (
            datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            platform.node(), subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"],
                                            capture_output=True, text=True).stdout.strip() or "?",
            subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "libipt2"],
                           capture_output=True, text=True).stdout.strip() or "?"),
        "rounds: %d, in turns (on the small traces each command %d times a round, the mean);"
        " times are each command's lowest over the rounds, funcs/ and calls/ the ratios of"
        " those; paired: the median of each round's own ratio (its lowest-highest beside it)."
        " goal: pt functions and pt calls at most 2.0x bare" % (args.rounds, SMALL_REPEAT),
        "%-40s %11s %8s %8s %8s %6s %6s %17s %17s" % (
            "trace", "insns", "bare s", "funcs s", "calls s", "funcs/", "calls/",
            "paired f (range)", "paired c (range)"),
    ]
    worst = 0.0
    for name, insns, best, paired, _ in rows:
        rf, rc = best["functions"] / best["bare"], best["calls"] / best["bare"]
        worst = max(worst, rf, rc)
        lines.append("%-40s %11d %8.3f %8.3f %8.3f %5.2fx %5.2fx %5.2fx (%.2f-%.2f) %5.2fx"
                     " (%.2f-%.2f)"
                     % (name, insns, best["bare"], best["functions"], best["calls"], rf, rc,
                        statistics.median(paired["functions"]), paired["functions"][0],
                        paired["functions"][-1], statistics.median(paired["calls"]),
                        paired["calls"][0], paired["calls"][-1]))
    lines.append("worst ratio (of lowest times): %.2fx" % worst)
    lines.append("instructions executed (valgrind callgrind, whole process; the small traces);"
                 " flags: the bare decode with acart's block decoder flags (--acart-flags)")
    lines.append("%-40s %12s %12s %12s %12s %7s %7s %7s" % (
        "trace", "bare", "flags", "funcs", "calls", "flags/", "funcs/", "calls/"))
    for name, _, _, _, n in rows:
        if n:
            lines.append("%-40s %12d %12d %12d %12d %6.2fx %6.2fx %6.2fx"
                         % (name, n["bare"], n["flags"], n["functions"], n["calls"],
                            n["flags"] / n["bare"], n["functions"] / n["bare"],
                            n["calls"] / n["bare"]))
    lines += profile([args.acart, "pt", "functions", cases[1][1]] + cases[1][2], w)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
