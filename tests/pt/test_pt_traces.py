"""acart pt on real PT packet streams: each tests/pt/traces/*.ptt is compiled by libipt's
pttc, decoded by `acart pt trace`, `pt calls` and `pt functions`, and every result is
compared with the expectations the .ptt file writes down from what its assembly executes
(acarttest/ptcase.py explains the blocks). The `pt calls` excerpt of docs/features.md is checked
against demo.ptt's. Usage:
  test_pt_traces.py --acart ACART --pttc PTTC --traces DIR --workdir DIR
                    [--readme docs/features.md] [NAME...]"""

import argparse
import difflib
import glob
import os
import re
import subprocess
import sys

from acarttest.ptcase import (Case, TestFailure, call_lines, check, function_lines, run, time_lines,
                              trace_lines, variant_text)


def compare(case, what, got, want):
    check(want, "%s: the acart-%s block is empty" % (case.name, what))
    if got != want:
        diff = "\n".join(difflib.unified_diff(want, got, "expected", "acart", lineterm=""))
        raise TestFailure("%s: %s differs from what the assembly executes:\n%s"
                          % (case.name, what, diff))


def check_blocks(case, out, want):
    """The block decoder's blocks, each FIRST..LAST with its count of instructions, cover
    the expected instructions in order, with the same events between them."""
    got = []
    for line in out.splitlines()[1:]:
        if line.startswith("["):
            got += trace_lines(line)
            continue
        span, count = line.split()[1:3]
        first, last = span.split("..")
        n = int(count)
        at = len(got)
        expected = want[at:at + n]
        check(len(expected) == n and expected[0] == first and expected[-1] == last,
              "%s: block %s..%s of %d instructions is not instructions %d to %d of the trace"
              % (case.name, first, last, n, at, at + n - 1))
        got += expected
    compare(case, "blocks", got, want)


def check_counted(case, cmd):
    """Cycles are counted within the one decode where they can be (tools/pt/pt_cycles.c):
    the decode of the counted copy, which it stands for (ACART_PT_COUNTED=copy), must give
    every number and warning alike."""
    out = [subprocess.run([str(c) for c in cmd], capture_output=True, text=True,
                          env=dict(os.environ, ACART_PT_COUNTED=mode))
           for mode in ("", "copy")]
    check(out[0].returncode == out[1].returncode == 0
          and (out[0].stdout, out[0].stderr) == (out[1].stdout, out[1].stderr),
          "%s: pt functions counts cycles otherwise in one decode than by decoding the counted"
          " copy:\n%s%s\n---\n%s%s" % (case.name, out[0].stdout, out[0].stderr, out[1].stdout,
                                          out[1].stderr))


# Traces with a block whose path acart cannot follow, and so decodes again with blocks that
# end at calls: code no instruction decoder takes; a loop of direct calls, where libipt
# follows it for 65535 instructions in one block (in callloop's cycle-accurate variant, in
# the decode of the counted copy; in callloop itself the decode's loop watch ends it first).
PATHS_NOT_FOLLOWED = {"paths_unread", "paths_unread_cyc", "callloop_cyc"}


def check_paths(case, cmd):
    """Blocks run through direct calls and acart follows their paths (tools/pt/pt_path.h):
    every number and warning must be what blocks that end at every call give
    (ACART_PT_PATHS=off), and the paths must have been followed (ACART_PT_PATHS=report)
    but in the traces that cannot be."""
    out = [subprocess.run([str(c) for c in cmd], capture_output=True, text=True,
                          env=dict(os.environ, ACART_PT_PATHS=mode))
           for mode in ("report", "off")]
    report = [l for l in out[0].stderr.splitlines() if l.startswith("acart: blocks ")]
    out[0].stderr = "".join(l + "\n" for l in out[0].stderr.splitlines()
                            if not l.startswith("acart: blocks "))
    followed = case.name not in PATHS_NOT_FOLLOWED
    check(report == ["acart: blocks " + ("ran through calls" if followed else "ended at calls")],
          "%s: %s: ACART_PT_PATHS=report says %s" % (case.name, " ".join(str(c) for c in cmd[1:3]),
                                                     report))
    check(out[0].returncode == out[1].returncode
          and (out[0].stdout, out[0].stderr) == (out[1].stdout, out[1].stderr),
          "%s: %s differs where blocks end at calls:\n%s%s\n---\n%s%s"
          % (case.name, " ".join(str(c) for c in cmd[1:3]), out[0].stdout, out[0].stderr,
             out[1].stdout, out[1].stderr))


# The packets a CYC packet is put before in check_cyc_variant: those after which libipt's
# clock is read (branches, events), outside PSB+.
CYC_BEFORE = re.compile(r"^\s*;\s*@pt\s+(\w+:\s*)?(tnt|tnt64|tip|fup|tip\.pgd|tip\.pge|ovf|cbr|mode"
                        r"\.tsx|ptw|exstop|mwait|pwre|pwrx|stop)\(")


def check_cyc_variant(args, ptt):
    """The trace made cycle-accurate: a CYC packet before every branch and event packet, of
    cycles that move libipt's TSC estimate by a tick or more and by less (so that both ways
    of counting in tools/pt/pt_cycles.c run), counted alike either way (check_counted)."""
    with open(ptt) as f:
        lines = re.sub(r"\bbase=\S+", "", variant_text(ptt, f.read())).splitlines()
    out, in_psb, k = [], False, 0
    for line in lines:
        if re.match(r"^\s*;\s*@pt\s+(\w+:\s*)?psb\(", line):
            in_psb = True
        if not in_psb and CYC_BEFORE.match(line):
            out.append("; @pt cyc(%d)" % (3, 1, 200, 17, 2)[k % 5])
            k += 1
        if re.match(r"^\s*;\s*@pt\s+(\w+:\s*)?psbend\(", line):
            in_psb = False
        out.append(line)
    name = os.path.splitext(os.path.basename(ptt))[0] + "_cyc"
    os.makedirs(os.path.join(args.workdir, "cyc"), exist_ok=True)
    path = os.path.join(args.workdir, "cyc", name + ".ptt")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    case = Case(path, args.pttc, os.path.join(args.workdir, "cyc"))
    cmd = [args.acart, "pt", "functions", "--top", "0", case.collection, "--elf", case.elf,
           "--cpu", "0"]
    check_counted(case, cmd)
    check_paths(case, cmd)


def run_case(args, ptt):
    case = Case(ptt, args.pttc, args.workdir)
    base = [args.acart, "pt"]
    target = [case.collection, "--elf", case.elf, "--cpu", "0"]
    checked = []
    trace, _ = run(base + ["trace"] + target)
    for what, lines in (("trace", trace_lines(trace)[1:]), ("time", time_lines(trace))):
        if case.exp(what):
            compare(case, what, lines, case.exp(what))
            checked.append(what)
    if case.exp("trace"):
        blocks, _ = run(base + ["trace", "--blocks"] + target)
        check_blocks(case, blocks, case.exp("trace"))
        checked.append("blocks")
    if case.exp("calls"):
        calls, _ = run(base + ["calls"] + target)
        compare(case, "calls", call_lines(calls), case.exp("calls"))
        check_paths(case, base + ["calls"] + target)
        checked.append("calls")
    if case.exp("functions"):
        functions, warnings = run(base + ["functions", "--top", "0"] + target)
        want = case.exp("functions")
        # A block of FUNCTION INSNS INCL CALLS CYCLES leaves the microseconds unchecked.
        fields = len(want[0].split())
        compare(case, "functions", function_lines(functions, fields), want)
        checked.append("functions")
        if case.exp("warnings"):
            compare(case, "warnings", warnings.splitlines(), case.exp("warnings"))
            checked.append("warnings")
        check_counted(case, base + ["functions", "--top", "0"] + target)
        check_paths(case, base + ["functions", "--top", "0"] + target)
    check(checked, "%s: no expectations to check" % case.name)
    return case, checked


def check_readme(args, case):
    """The `pt calls` excerpt of docs/features.md is what acart prints for demo.ptt."""
    with open(args.readme) as f:
        text = f.read()
    m = re.search(r"This is `pt calls` on `tests/pt/traces/demo.ptt`.*?```\n(.*?)```", text, re.S)
    check(m, "README: no pt calls excerpt of demo.ptt")
    out, _ = run([args.acart, "pt", "calls", case.collection, "--elf", case.elf])
    check(out == m.group(1), "README's pt calls excerpt is not acart's output:\n" + out)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--acart", required=True)
    p.add_argument("--pttc", required=True)
    p.add_argument("--traces", required=True)
    p.add_argument("--workdir", required=True)
    p.add_argument("--readme", help="docs/features.md, whose pt calls excerpt is demo.ptt's")
    p.add_argument("names", nargs="*")
    args = p.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    ptts = sorted(glob.glob(os.path.join(args.traces, "*.ptt")))
    if args.names:
        ptts = [x for x in ptts if os.path.splitext(os.path.basename(x))[0] in args.names]
    check(ptts, "no .ptt files")
    check(os.access(args.pttc, os.X_OK),
          "%s: no pttc; scripts/setup-deps (make deps) builds it" % args.pttc)
    failures = 0
    for ptt in ptts:
        try:
            case, checked = run_case(args, ptt)
            check_cyc_variant(args, ptt)
            checked.append("cycles")
            if case.name == "demo" and args.readme:
                check_readme(args, case)
                checked.append("README")
            print("ok   %-20s %s" % (case.name, ", ".join(checked)))
        except TestFailure as e:
            failures += 1
            print("FAIL %s" % e)
    if failures:
        print("%d of %d traces failed" % (failures, len(ptts)))
        return 1
    print("PASS: %d traces" % len(ptts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
