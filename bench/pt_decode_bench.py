"""What `acart pt` costs on a large cycle-accurate trace, in CPU time and memory.

- **Counting cycles.** On a trace with CYC packets, `pt functions` counts them on the clock
  of a copy with its timing packets blanked, so that libipt's time is the CYC packets' own
  count (tools/pt/pt_cycles.c): a query decoder reads the copy beside the one decode (or,
  where it cannot, the copy is decoded a second time). The same command on the same trace
  with every CYC packet turned into a PAD byte (same offsets, same control flow) only
  decodes. The ratio of their CPU times, measured in turns in one run, is the price of
  exact cycles.
- **Memory.** `pt functions` and `pt flamegraph` keep no record of a closed call (the
  flame graph grows as calls close); `pt calls` keeps one of every call, to print the
  timeline. Their peak RSS is reported.

The trace is written here, packet by packet (Intel SDM vol. 3, 33.4.2), for a loop that
calls a function: every iteration is 5 instructions and two taken TNT bits (the return,
compressed, and the loop branch), each short TNT packet carrying 6 bits after a CYC packet
of 3 cycles, with a PSB+ (TSC, CBR, FUP) every 4 KiB as a real trace has. Every command's
instruction counts, and the cycle total, are checked against what the trace encodes, so
the benchmark fails rather than time a wrong decode. Every command runs under bench_run
(CPU time and peak RSS by wait4), through tb5_import_bench's `timed`.

    PYTHONPATH=tests python3 bench/pt_decode_bench.py --acart ACART --run BENCH_RUN --workdir DIR
        [--mib N] [--rounds N] [--out FILE]

(from the top of the tree; the bench-pt target runs it so)
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
from tb5_import_bench import timed  # bench/, beside this file

HERE = os.path.dirname(os.path.abspath(__file__))

ORG = 0x400000
# main: call f; dec ecx; jnz main.  f: nop; ret.  (then hlt, never reached)
CODE = bytes([0xe8, 0x04, 0x00, 0x00, 0x00, 0xff, 0xc9, 0x75, 0xf7, 0x90, 0xc3, 0xf4])
SYMBOLS = [(ORG, ORG + 9, "main"), (ORG + 9, ORG + 11, "f")]
INSNS_PER_BIT = {"main": 1.5, "f": 1.0}  # per TNT bit: call, dec, jnz / nop, ret per 2 bits

PSB = bytes([0x02, 0x82] * 8)
PSBEND = bytes([0x02, 0x23])
MODE_EXEC_64 = bytes([0x99, 0x01])
CYC_3 = bytes([(3 << 3) | 0x3])
TNT_6_TAKEN = bytes([0xfe])  # stop bit, then six taken bits
PAD = bytes([0x00])
NOM_FREQ, CBR_RATIO = 4, 2  # a core cycle is 2 TSC ticks
CBR = bytes([0x02, 0x03, CBR_RATIO, 0x00])


def tsc_packet(tsc):
    return bytes([0x19]) + tsc.to_bytes(7, "little")


def ip_packet(header, ip):
    """A TIP-family packet with a full 48-bit IP (IPBytes 3)."""
    return bytes([(3 << 5) | header]) + ip.to_bytes(6, "little")


def make_trace(size, cyc=True):
    """(trace bytes of about `size`, TNT bits in it, cycles its CYC packets count). With cyc
    False, each CYC packet is a PAD byte instead."""
    tsc0 = 0x100000
    out = bytearray(PSB + MODE_EXEC_64 + tsc_packet(tsc0) + CBR + PSBEND
                    + ip_packet(0x11, ORG))  # TIP.PGE main
    bits = cycles = 0
    next_psb = 4096
    while len(out) < size:
        if len(out) >= next_psb:
            # PSB+ at an even number of bits: the loop is back at main.
            tsc = tsc0 + cycles * NOM_FREQ // CBR_RATIO
            out += (PSB + MODE_EXEC_64 + tsc_packet(tsc) + CBR + ip_packet(0x1d, ORG)  # FUP
                    + PSBEND)
            next_psb += 4096
        out += (CYC_3 if cyc else PAD) + TNT_6_TAKEN
        bits += 6
        cycles += 3
    out += ip_packet(0x1d, ORG) + bytes([0x01])  # FUP main, TIP.PGD: tracing stops there
    return bytes(out), bits, cycles


def check_functions(out, bits, cycles):
    """The instruction counts of `pt functions`, and with cycles its cycle total."""
    rows = {line.split()[0]: line.split() for line in ptcase.function_lines(out)}
    for name, per_bit in INSNS_PER_BIT.items():
        want = int(bits * per_bit)
        got = int(rows.get(name, ["", "0"])[1])
        if got != want:
            sys.exit("pt functions: %s has %d instructions, the trace encodes %d\n%s"
                     % (name, got, want, out))
    counted = sum(int(r[4]) for r in rows.values() if r[4].isdigit())
    if cycles is not None and counted != cycles:
        sys.exit("pt functions: %d cycles, the CYC packets count %d\n%s" % (counted, cycles, out))


def check_flamegraph(svg_path, bits):
    with open(svg_path) as f:
        svg = f.read()
    want = int(bits * sum(INSNS_PER_BIT.values()))
    if "%d instructions" % want not in svg.replace(",", ""):
        sys.exit("pt flamegraph: %s does not show the %d instructions the trace encodes"
                 % (svg_path, want))


def dso_shares(cmd, workdir):
    """Where one decode's CPU time goes, by object (libipt, acart, libc), from Linux perf's
    cpu-clock samples; a line saying why not if perf cannot run here."""
    if not shutil.which("perf"):
        return "profile: perf not found (Debian linux-perf)"
    data = os.path.join(workdir, "perf.data")
    r = subprocess.run(["perf", "record", "-q", "-e", "cpu-clock:u", "-o", data] + cmd,
                       capture_output=True, text=True)
    if r.returncode != 0:
        return "profile: perf record failed: %s" % (r.stderr.strip().splitlines() or ["?"])[-1]
    r = subprocess.run(["perf", "report", "-i", data, "--stdio", "--sort", "dso"],
                       capture_output=True, text=True)
    shares = []
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0].endswith("%") and not line.startswith("#"):
            shares.append("%s %s" % (parts[1], parts[0]))
    return "profile of one decode (perf record -e cpu-clock:u, by object): " + (
        ", ".join(shares[:4]) or "no samples")


def check_calls(out, bits):
    """`pt calls`' header counts every call: main once, f once per iteration."""
    want = "%d instructions in %d calls" % (bits * sum(INSNS_PER_BIT.values()), 1 + bits // 2)
    if want not in out:
        sys.exit("pt calls: expected '%s'\n%s" % (want, out[:2000]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--acart", required=True)
    ap.add_argument("--run", required=True, help="bench_run")
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--mib", type=int, default=8, help="trace size")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--out", default=os.path.join(HERE, "results", "pt_decode.txt"))
    args = ap.parse_args()

    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir)
    with open(os.path.join(args.workdir, "loop.bin"), "wb") as f:
        f.write(CODE)
    elf = ptcase.build_elf(args.workdir, "loop", "64", ORG, SYMBOLS)
    trace, bits, cycles = make_trace(args.mib << 20)
    settings = {"cpus": "1", "mtc_freq": "0", "tsc_hz": "1000000", "cpuid_15_eax": "0",
                "cpuid_15_ebx": "0", "nom_freq": str(NOM_FREQ)}
    folder = os.path.join(args.workdir, "collection")
    ptcase.write_collection(folder, trace, settings)
    no_cyc = os.path.join(args.workdir, "collection-no-cyc")
    ptcase.write_collection(no_cyc, make_trace(args.mib << 20, cyc=False)[0], settings)
    insns = int(bits * sum(INSNS_PER_BIT.values()))
    svg = os.path.join(args.workdir, "flame.svg")
    runs = [
        ("pt functions, cycles counted",
         [args.acart, "pt", "functions", folder, "--elf", elf],
         lambda out: check_functions(out, bits, cycles)),
        ("pt functions, CYC packets made PAD (one decode)",
         [args.acart, "pt", "functions", no_cyc, "--elf", elf],
         lambda out: check_functions(out, bits, None)),
        ("pt flamegraph (one decode)",
         [args.acart, "pt", "flamegraph", folder, "--elf", elf, "-o", svg],
         lambda out: check_flamegraph(svg, bits)),
        ("pt calls --max-depth 0 (one decode, every call kept)",
         [args.acart, "pt", "calls", folder, "--elf", elf, "--max-depth", "0"],
         lambda out: check_calls(out, bits)),
    ]
    times = [[] for _ in runs]
    rss = [0.0 for _ in runs]
    for _ in range(args.rounds):
        for k, (_, cmd, check) in enumerate(runs):
            _, rss_bytes, t, out = timed(args.run, args.workdir, cmd)
            check(out)
            times[k].append(t)
            rss[k] = max(rss[k], rss_bytes / 2**20)
    med = [statistics.median(t) for t in times]
    lines = [
        "# bench/pt_decode_bench.py: acart pt on a cycle-accurate trace",
        "# %s, %s, %s" % (datetime.datetime.now(datetime.timezone.utc).strftime(
            "%Y-%m-%d %H:%M UTC"), platform.node(), subprocess.run(
            ["git", "-C", HERE, "rev-parse", "--short", "HEAD"], capture_output=True,
            text=True).stdout.strip() or "?"),
        "trace: %.1f MiB, %d instructions, %d TNT bits, %d cycles in CYC packets, PSB+ every"
        " 4 KiB" % (len(trace) / 2**20, insns, bits, cycles),
        "rounds: %d, in turns; CPU seconds (user + system), median; peak RSS, highest"
        % args.rounds,
    ]
    for k, (name, _, _) in enumerate(runs):
        lines.append("%-54s %7.3f s  %5.1f M instructions/s  %7.1f MiB"
                     % (name + ":", med[k], insns / med[k] / 1e6, rss[k]))
    lines.append("counting cycles: %.2f times the CPU time of one decode" % (med[0] / med[1]))
    for k, (name, _, _) in enumerate(runs):
        lines.append("all runs, %s: %s" % (name, " ".join("%.3f" % t for t in times[k])))
    lines.append(dso_shares(runs[1][1], args.workdir))
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
