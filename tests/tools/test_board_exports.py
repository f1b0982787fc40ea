"""acart export pprof|perf|folded|perfetto and acart diff on real collections from the
qemu-pc board (QEMU, its hotspot and overlay workloads, call stacks on), read back by the
tools each format is for:
- go tool pprof -top -noinlines gives acart report's samples per function, -traces the
  stacks of the folded export; perf report its percentages and perf script its samples
  per function; the folded export's leaves are report's counts; the Perfetto JSON is in
  the trace-event format and its task slices add up to each CPU's samples;
- diff of two collections of the hotspot workload (2 s and 1 s): no change beyond noise,
  --fail-if acart_demo_hotspot:changed>5 passes; hotspot against the overlay workload (CPU 1 runs code
  loaded at run time, overlay-a.bin and overlay-b.bin, instead of the hotspot):
  acart_demo_hotspot fell and the overlays grew, significantly, to CPU 1's share of the
  samples, and --fail-if exits 6 or 0 as its rule says.
One boot per workload, the collections reused by every check, to keep the run short."""

import argparse
import os
import shutil
import subprocess
import sys

from acarttest import exports
from acarttest.board import Board
from acarttest.tooltest import TestFailure, check, parse_report, run

HOTSPOT = "acart_demo_hotspot"
REF = "CPU_CLK_UNHALTED.REF_TSC"


def collect(args, workload, collections):
    with Board(args.image, cpus=2, workload=workload) as b:
        b.wait_for(r"^acart: listening on ", timeout=120)
        for folder, seconds in collections:
            r = subprocess.run([args.acart, "collect", "--target", "127.0.0.1:%d" % b.port,
                                "--duration", str(seconds), "--callstack", "-o", folder],
                               capture_output=True, text=True, timeout=240)
            check(r.returncode == 0, "acart collect (%s) exited %d:\n%s%s"
                  % (workload, r.returncode, r.stdout, r.stderr))


def test_exports(args, folder):
    out, _ = run([args.acart, "report", folder, "--elf", args.image, "--top", "0"])
    counts = {r[3]: r[0] for r in parse_report(out)[REF]}
    total = sum(counts.values())
    check(total > 100 and counts.get(HOTSPOT, 0) > 0.9 * total,
          "the hotspot collection:\n" + out)

    def export(fmt, name):
        path = os.path.join(args.workdir, name)
        run([args.acart, "export", fmt, folder, "--elf", args.image, "-o", path])
        return path

    folded = exports.read_folded(export("folded", "hot.folded"))
    check(exports.folded_self(folded) == counts,
          "folded leaves %s, report %s" % (exports.folded_self(folded), counts))
    check(any(len(exports.folded_functions(s)) >= 3 and s[-1] == HOTSPOT for s in folded),
          "no call stack under %s in the folded export: %s" % (HOTSPOT, sorted(folded)[:5]))

    pprof = export("pprof", "hot.pb.gz")
    top = exports.pprof_top(pprof, REF, args.workdir)
    check(top == counts, "pprof -top -noinlines %s, report %s" % (top, counts))
    traces = exports.pprof_traces(pprof, REF, args.workdir)
    # An interrupt handler's root is a folded frame only; pprof has it as a label.
    irq_roots = {s[0] for s in folded if s[0].startswith("[irq") or s[0].startswith("irq")}
    want = {}
    for stack, n in folded.items():
        frames = [f[:-4] if f.endswith("_[i]") else f for f in stack]
        if stack[0] in irq_roots and len(stack) > 1:
            frames = frames[1:]
        key = tuple(reversed(frames))
        want[key] = want.get(key, 0) + n
    check(traces == want, "pprof -traces differ from the folded stacks:\n got %s\nwant %s"
          % (sorted(traces.items())[:8], sorted(want.items())[:8]))

    perf = export("perf", "hot.perf")
    shares = exports.perf_report(perf, args.workdir)[REF]
    leaves, _ = exports.perf_script(perf, args.workdir)
    for name, n in counts.items():
        if name.startswith("["):
            continue
        pct = 100.0 * n / total
        check(abs(shares.get(name, -1) - pct) < 0.006 and leaves[REF].get(name) == n,
              "perf: %s %s%% and %s samples, report %.2f%% and %d"
              % (name, shares.get(name), leaves[REF].get(name), pct, n))

    problems, doc = exports.perfetto_problems(export("perfetto", "hot.json"))
    check(not problems, "perfetto JSON:\n" + "\n".join(problems))
    slices, instants = exports.perfetto_task_samples(doc)
    check(slices == instants and sum(slices.values()) == total and len(slices) == 2,
          "perfetto: task slices %s, instants %s, %d samples" % (slices, instants, total))


def test_diff(args, hot, hot_short, overlay):
    # The functions' shares only: which CPU got how much of the host differs from run to
    # run under TCG, and with it the callers (board_main on CPU 0, ap_entry on CPU 1), a
    # real difference between the runs that the caller -> callee rows rightly flag.
    d, out, _ = exports.acart_diff(args.acart, hot, hot_short, "--elf", args.image,
                                   "--fail-if", "%s:changed>5" % HOTSPOT)
    row = d[REF]["functions"].get(HOTSPOT)
    check(row and not row[5], "%s changed between two hotspot runs:\n%s" % (HOTSPOT, out))

    d, out, _ = exports.acart_diff(args.acart, hot, overlay, "--elf", args.image,
                                   "--fail-if", "grew>99")
    rows = d[REF]["functions"]
    check(rows[HOTSPOT][5] and rows[HOTSPOT][2] < 0, "%s did not fall:\n%s" % (HOTSPOT, out))
    # The overlays take turns on a period of the board's clock; on a loaded host a short
    # collection may see only one of them, so each that ran must have grown.
    seen = [n for n in ("[overlay-a.bin]", "[overlay-b.bin]") if n in rows]
    check(seen, "no overlay in the diff:\n%s" % out)
    for name in seen:
        check(rows[name][5] and rows[name][2] > 0, "%s did not grow:\n%s" % (name, out))
    # The known shares: the overlays run on CPU 1 only, so they take CPU 1's share of the
    # samples, however the loaded host shared its time between the two vCPUs.
    per_cpu = {n: os.path.getsize(os.path.join(overlay, "cpu%d.bin" % n)) for n in (0, 1)}
    cpu1 = 100.0 * per_cpu[1] / (per_cpu[0] + per_cpu[1])
    overlays = sum(rows[n][1] for n in seen)
    check(abs(overlays - cpu1) < 3 and abs(rows[HOTSPOT][1] - (100 - cpu1)) < 3,
          "overlays %.2f%% and %s %.2f%%, CPU 1 had %.2f%% of the samples:\n%s"
          % (overlays, HOTSPOT, rows[HOTSPOT][1], cpu1, out))
    # The gate on either side of what was measured: the hotspot shrank by more than
    # `beyond` points with confidence, and not by more than `within`.
    beyond, within = int(-rows[HOTSPOT][4]) - 1, int(-rows[HOTSPOT][3]) + 1
    if beyond >= 0:
        _, out, _ = exports.acart_diff(args.acart, hot, overlay, "--elf", args.image,
                                       "--fail-if", "%s:shrank>%d" % (HOTSPOT, beyond), expect=6)
        check("fail-if %s:shrank>%d" % (HOTSPOT, beyond) in out, "no fail-if line:\n" + out)
    exports.acart_diff(args.acart, hot, overlay, "--elf", args.image,
                       "--fail-if", "%s:shrank>%d" % (HOTSPOT, within))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--acart", required=True)
    ap.add_argument("--image", required=True)
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir)
    hot, hot_short, overlay = (os.path.join(args.workdir, n) for n in ("hot", "hot1", "overlay"))
    try:
        collect(args, "hotspot", [(hot, 2), (hot_short, 1)])
        collect(args, "overlay", [(overlay, 2)])
        test_exports(args, hot)
        test_diff(args, hot, hot_short, overlay)
    except TestFailure as e:
        print("FAIL: %s" % e, file=sys.stderr)
        sys.exit(1)
    print("PASS")


main()
