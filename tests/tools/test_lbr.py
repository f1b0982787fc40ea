"""LBR stacks on synthetic collections of the test workload (records as `acart collect
--lbr` writes them: the raw LBR registers after the 48 bytes, model-specific ones in a
ring whose top-of-stack moves from record to record).

- `acart report --by branch` counts every LBR entry of every sample once for its edge,
  with the mispredict rate where the format records it (4, 5, architectural) and the
  average cycles where it records them (5, architectural), most frequent first.
- In call-stack mode (`--lbr=call-stack`) the stack is the chain of open calls, innermost
  first: `report --by caller` gives the same inclusive and self samples as the same stacks
  collected as frame-pointer call stacks would, and the flame graph stands on them.
- Without LBRs, --by branch is a usage error that says what to collect."""

import os
import re

from acarttest.callstack import Workload, caller_rows, parse_caller_report
from acarttest.tooltest import check, main, run

IMAGE_BASE, IMAGE_SIZE = 0x400000, 0x200000
EDGE = re.compile(r"^\s*(\d+)\s+([\d.]+)%\s+(\S+)\s+(\S+)\s+(\S+) -> (\S+)$")


def synth(args, w, name, lbr, runs):
    """runs: (leaf, [(from, to, mispredicted, cycles), ...] newest first, count)."""
    folder = os.path.join(args.workdir, name)
    cmd = [args.synth, folder, "--lbr", lbr,
           "--module", "/target/%s:%#x:%#x" % (os.path.basename(args.workload), IMAGE_BASE,
                                                IMAGE_SIZE)]
    for leaf, branches, count in runs:
        if branches:
            cmd += ["--branches", ",".join(
                "%#x>%#x%s%s" % (f, t, "/m" if m else "", "/c%d" % c if c else "")
                for f, t, m, c in branches)]
        cmd += ["--run", "0:1:1:%#x:%d" % (leaf, count)]
    run(cmd)
    return folder


def label(w, address):
    for name, (start, size) in w.syms.items():
        if start <= address < start + size:
            return "%s+%#x" % (name, address - start)
    raise AssertionError("no symbol at %#x" % address)


def expected_edges(w, runs, has_mispred, has_cycles):
    edges = {}
    for _, branches, count in runs:
        for f, t, m, c in branches:
            e = edges.setdefault((f, t), [0, 0, 0])
            e[0] += count
            e[1] += count * m
            e[2] += count * c
    total = sum(e[0] for e in edges.values())
    rows = []
    for (f, t), (n, mis, cyc) in sorted(edges.items(), key=lambda x: (-x[1][0], x[0])):
        rows.append((n, "%.2f" % (100.0 * n / total),
                     "%.1f%%" % (100.0 * mis / n) if has_mispred else "-",
                     "%.1f" % (cyc / n) if has_cycles else "-", label(w, f), label(w, t)))
    return rows


def test_branches(args, w):
    a, m, o = w.syms["alpha"][0], w.syms["middle"][0], w.syms["outer"][0]
    runs = [
        (a + 2, [(m + 4, a, 0, 7), (a + 8, a + 2, 1, 3)], 100),
        (a + 2, [(a + 8, a + 2, 0, 5), (o + 6, m, 1, 11), (m + 4, a, 0, 9)], 50),
        (m + 1, [(o + 6, m, 1, 13)], 20),
        (a, [], 5),  # a sample whose stack is empty
    ]
    for lbr, mis, cyc in (("5", True, True), ("4", True, False), ("63", True, True)):
        folder = synth(args, w, "branches-%s" % lbr, lbr, runs)
        out, _ = run([args.acart, "report", folder, "--elf", args.workload, "--by", "branch"])
        got = [tuple([int(x.group(1))] + list(x.groups()[1:])) for x in map(EDGE.match,
               out.splitlines()) if x]
        want = expected_edges(w, runs, mis, cyc)
        check(got == want, "--lbr %s, --by branch:\n got %s\nwant %s\n%s" % (lbr, got, want, out))
        head = "170 of 175 samples carry branches, %d branch records, %d edges" % (
            sum(len(b) * n for _, b, n in runs), len(want))
        check(head in out, "--lbr %s: no %r in\n%s" % (lbr, head, out))
        # --top 1: the rest is one line.
        out, _ = run([args.acart, "report", folder, "--elf", args.workload, "--by", "branch",
                      "--top", "1"])
        check("(%d more edges)" % (len(want) - 1) in out, "--top 1:\n%s" % out)

    plain = os.path.join(args.workdir, "plain")
    run([args.synth, plain, "--run", "0:1:1:%#x:3" % a])
    _, err = run([args.acart, "report", plain, "--by", "branch"], expect=2)
    check("acart collect --lbr" in err, "--by branch without LBRs: %s" % err)


def test_call_stacks(args, w):
    """The stacks of test_callstack's plan, recorded by the LBRs in call-stack mode: each
    entry's FROM is the call instruction (5 bytes before the return address), its TO the
    callee."""
    to_middle = [w.ra("outer", "middle"), w.ra("main", "outer")]
    alpha, mix, gamma = w.lines["alpha_loop"], w.lines["mix_body"], w.lines["gamma_loop"]
    plan = [
        (alpha, [w.ra("middle", "alpha")] + to_middle, 400),
        (mix, [w.ra("middle", "beta")] + to_middle, 250),
        (gamma, [w.ra("outer", "gamma_fn"), w.ra("main", "outer")], 150),
        (w.syms["main"][0], [], 30),
    ]
    callee_of = {w.ra("middle", "alpha"): "alpha", w.ra("middle", "beta"): "beta",
                 w.ra("outer", "middle"): "middle", w.ra("main", "outer"): "outer",
                 w.ra("outer", "gamma_fn"): "gamma_fn"}
    runs = [(leaf, [(ra - 5, w.syms[callee_of[ra]][0], 0, 0) for ra in stack], n)
            for leaf, stack, n in plan]
    folder = synth(args, w, "call-stack", "5:call-stack", runs)
    out, _ = run([args.acart, "report", folder, "--elf", args.workload, "--by", "caller"])
    got = parse_caller_report(out)["CPU_CLK_UNHALTED.REF_TSC"]
    as_callstack = [(0, 0, leaf, [], stack, n) for leaf, stack, n in plan]
    want, total = caller_rows(w, as_callstack, 0)
    check(got["rows"] == want, "--by caller on LBR call stacks:\n got %s\nwant %s" % (
        got["rows"], want))
    check("Call stacks: 800 of 830 samples have callers, up to 3 deep" in out, out)

    svg = os.path.join(args.workdir, "lbr.svg")
    run([args.acart, "flamegraph", folder, "--elf", args.workload, "-o", svg])
    with open(svg) as f:
        text = f.read()
    for name in ("main", "outer", "middle", "alpha", "gamma_fn"):
        check(re.search(r"<title>%s\b" % name, text), "flamegraph: no frame %s" % name)


def test(args):
    w = Workload(args)
    test_branches(args, w)
    test_call_stacks(args, w)


if __name__ == "__main__":
    main(test)
