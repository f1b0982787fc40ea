"""acart pt on a PT trace recorded on real hardware (tests/fixtures/pt/dynamorio-hello:
DynamoRIO's drpt2trace test, `perf record -e intel_pt//u` of a static "hello"), checked
against the decode by Intel's own ptxed (libipt 2.0.5) that comes with it: the same
instructions, the same events, the same time stamp on each (TSC, TMA, MTC and CYC with the
sideband the fixture's README gives); and `pt functions` gives _start the cycles of the CYC
packets Intel's ptdump shows where it ran. Usage:
  test_pt_real.py --acart ACART --fixture DIR --workdir DIR"""

import argparse
import json
import os
import re
import shutil
import sys

from acarttest.ptcase import TestFailure, check, run


def ptxed_lines(path):
    """ptxed --time --event:time output as 'TSC IP' and 'TSC [event]' lines."""
    lines = []
    with open(path) as f:
        for line in f:
            m = re.match(r"\[([0-9a-f]+)  (.*)\]$", line.strip())
            if m:
                lines.append("%x [%s]" % (int(m.group(1), 16), m.group(2)))
                continue
            m = re.match(r"([0-9a-f]{16})  ([0-9a-f]{16})  ", line)
            if m:
                lines.append("%x %x" % (int(m.group(1), 16), int(m.group(2), 16)))
    return lines


def ptdump_cycles(path):
    """From Intel's ptdump of the trace: (the cycles of all its CYC packets, those of the CYC
    packets from each TIP.PGE to its TIP.PGD where code ran). Nothing ran where a FUP
    before the TIP.PGD names the TIP.PGE's own IP (disabled where it was enabled)."""
    total, ran, stretch, enabled_at, fup = 0, 0, None, None, None
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 2:
                continue
            if parts[1] == "cyc":
                total += int(parts[2], 16)
                if stretch is not None:
                    stretch += int(parts[2], 16)
            elif parts[1] == "tip.pge":
                stretch, enabled_at, fup = 0, parts[-1], None
            elif parts[1] == "fup" and stretch is not None:
                fup = parts[-1]
            elif parts[1] == "tip.pgd" and stretch is not None:
                if fup != enabled_at:
                    ran += stretch
                stretch = None
    return total, ran


def acart_lines(out):
    lines = []
    for line in out.splitlines():
        m = re.match(r"\[([0-9a-f]+)  (.*)\]$", line)
        if m:
            what = m.group(2).split(", ")[0]
            lines.append("%x [%s]" % (int(m.group(1), 16), what))
            continue
        m = re.match(r"([0-9a-f]{16})  ([0-9a-f]{16})  ", line)
        if m:
            lines.append("%x %x" % (int(m.group(1), 16), int(m.group(2), 16)))
    return lines


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--acart", required=True)
    p.add_argument("--fixture", required=True)
    p.add_argument("--workdir", required=True)
    args = p.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    folder = os.path.join(args.workdir, "collection")
    os.makedirs(folder)
    with open(os.path.join(args.fixture, "pt.bin"), "rb") as f:
        trace = f.read()
    with open(os.path.join(folder, "pt-cpu0.bin"), "wb") as f:
        f.write(trace)
    open(os.path.join(folder, "cpu0.bin"), "wb").close()
    # The configuration of the fixture's README: Skylake-SP 6/85/4, MTC every 2^3 crystal
    # clocks, TSC/crystal 308/2, nominal ratio 37 (a 3.7 GHz TSC); user-only, cycle-accurate
    # (TraceEn, CYCEn, User, ToPA, MTCEn, TSCEn, BranchEn).
    session = {
        "format": "acart-session", "version": 1,
        "target": {"hostname": "dynamorio", "tsc_hz": 3700000000, "num_cpus": 1,
                   "cpu_signature": {"family": 6, "model": 85, "stepping": 4}},
        "transfer": "delayed", "duration_s": 0.0,
        "events": [{"index": 0, "name": "CPU_CLK_UNHALTED.REF_TSC", "sample_after": 1}],
        "samples": {"total": 0, "per_cpu": [0], "dropped_per_cpu": [0]},
        "pt": {"version": 1, "mode": "full", "rtit_ctl": "0x%x" % (0x270b | 3 << 14),
               "cpuid_15_eax": 2, "cpuid_15_ebx": 308, "mtc_freq": 3, "nom_freq": 37,
               "per_cpu": [{"cpu": 0, "bytes": len(trace)}]},
    }
    with open(os.path.join(folder, "session.json"), "w") as f:
        json.dump(session, f)
    elf = os.path.join(args.fixture, "hello")
    try:
        out, _ = run([args.acart, "pt", "trace", folder, "--elf", elf])
        got = acart_lines(out)
        want = ptxed_lines(os.path.join(args.fixture, "expected-time.ptxed.txt"))
        check(len([x for x in want if "[" not in x]) == 8, "the reference has 8 instructions")
        check(got == want, "acart pt trace differs from ptxed:\nacart: %s\nptxed: %s"
              % ("\n       ".join(got), "\n       ".join(want)))
        out, _ = run([args.acart, "pt", "functions", folder, "--elf", elf])
        row = [line.split() for line in out.splitlines() if line.endswith(" _start")]
        check(row and row[0][0] == "8" and row[0][3] == "1",
              "pt functions: _start should have its 8 instructions in 1 call:\n" + out)
        # Cycle-accurate: _start's cycles are the CYC packets' counts where it ran, and the
        # first line sums all of the trace's.
        total, ran = ptdump_cycles(os.path.join(args.fixture, "expected.ptdump.txt"))
        check(row[0][4] == str(ran) and "; %d core cycles in CYC packets, %d of them in "
              "functions" % (total, ran) in out.splitlines()[0],
              "pt functions: _start should have the %d cycles of the CYC packets where it ran, "
              "of %d in the trace:\n%s" % (ran, total, out))
        out, _ = run([args.acart, "pt", "calls", folder, "--elf", elf])
        check("0 gaps" in out.splitlines()[0], "pt calls reports gaps:\n" + out)
    except TestFailure as e:
        print("FAIL %s" % e)
        return 1
    print("PASS: %d instructions and events as ptxed decodes them" % len(want))
    return 0


if __name__ == "__main__":
    sys.exit(main())
