"""The analysis commands on a real collection: the qemu-pc board runs its hotspot workload,
`acart collect` records 3 s, and then report (by function, line, task), import, export csv
and flamegraph must all agree with what the board did: nearly every sample in
acart_demo_hotspot (its address range from the image's symbol table), its source line in
workloads.c, the board's task names, a valid VTune CSV set and a well-formed SVG.
A second collection with --callstack: report --by caller puts nearly every sample under
run_hotspot and its starters (board_main on CPU 0, ap_entry on the other), and the flame
graph stands acart_demo_hotspot on run_hotspot on each starter."""

import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

from acarttest import check_vtune_csv
from acarttest.board import Board
from acarttest.tooltest import (TestFailure, check, frame_tree, parse_report, run, svg_frames,
                                symbols)

HOTSPOT = "acart_demo_hotspot"


def collect(args, collections):
    """collections: [(folder, extra collect arguments)], recorded one after the other."""
    with Board(args.image, cpus=2, workload="hotspot") as b:
        b.wait_for(r"^acart: listening on ", timeout=120)
        for folder, extra in collections:
            r = subprocess.run([args.acart, "collect", "--target", "127.0.0.1:%d" % b.port,
                                "--duration", "3", "-o", folder] + extra,
                               capture_output=True, text=True, timeout=240)
            check(r.returncode == 0,
                  "acart collect %s exited %d:\n%s%s" % (extra, r.returncode, r.stdout, r.stderr))


def samples_in(folder, start, end):
    """Samples of the collection folder whose address lies in [start, end), read straight
    from the 48-byte records (address at offset 8; eip is its low half in the eip form)."""
    n = 0
    for name in os.listdir(folder):
        if not (name.startswith("cpu") and name.endswith(".bin")):
            continue
        with open(os.path.join(folder, name), "rb") as f:
            data = f.read()
        for at in range(0, len(data), 48):
            ip, = struct.unpack_from("<Q", data, at + 8)
            bits, = struct.unpack_from("<I", data, at + 36)
            if not bits & (1 << 29):
                ip &= 0xFFFFFFFF
            n += start <= ip < end
    return n


def cpu_samples(folder, record_size):
    """Records per CPU, counted from the collection's cpuN.bin files."""
    counts = {}
    for name in os.listdir(folder):
        m = re.match(r"^cpu(\d+)\.bin$", name)
        if m:
            counts[int(m.group(1))] = os.path.getsize(os.path.join(folder, name)) // record_size
    return counts


CALLER_ROW = re.compile(r"^\s*(\d+)\s+[\d.]+%\s+(\d+)\s+[\d.]+%\s+(.*)$")


def test_callstacks(args, folder):
    with open(os.path.join(folder, "session.json")) as f:
        descriptors = json.load(f)["descriptors"]
    check(descriptors == [{"id": 0, "sample_size": 176, "callstack_offset": 48,
                           "callstack_size": 128}], "descriptors: %s" % descriptors)

    out, err = run([args.acart, "report", folder, "--elf", args.image, "--by", "caller"])
    check("warning" not in err, "report --by caller warns:\n" + err)
    rows = {}
    for line in out.splitlines():
        m = CALLER_ROW.match(line)
        if m:
            rows[m.group(3)] = (int(m.group(1)), int(m.group(2)))
    total = rows.get("Total", (0, 0))[0]
    check(total > 100, "only %d samples in 3 s:\n%s" % (total, out))
    m = re.search(r"^Call stacks: (\d+) of (\d+) samples have callers", out, re.M)
    check(m and int(m.group(1)) >= 0.95 * int(m.group(2)), "samples with callers:\n" + out)
    for name, inclusive, self_ in ((HOTSPOT, 0.95, 0.95), ("run_hotspot", 0.95, 0)):
        got = rows.get(name, (0, 0))
        check(got[0] >= inclusive * total and got[1] >= self_ * total and
              (self_ or got[1] <= 0.05 * total),
              "%s: %s inclusive/self of %d samples, expected at least %d%% inclusive and %s "
              "self:\n%s" % (name, got, total, inclusive * 100,
                             "%d%%" % (self_ * 100) if self_ else "almost no", out))
    # Each starter runs on one CPU (board_main on CPU 0, ap_entry on CPU 1): its share is
    # that CPU's share of the samples, however the loaded host scheduled the two vCPUs.
    per_cpu = cpu_samples(folder, 176)
    for name, cpu in (("board_main", 0), ("ap_entry", 1)):
        got = rows.get(name, (0, 0))
        check(0.95 * per_cpu[cpu] <= got[0] <= per_cpu[cpu] and got[1] <= 0.05 * total,
              "%s: %s inclusive/self, expected about the %d samples of cpu %d:\n%s"
              % (name, got, per_cpu[cpu], cpu, out))

    svg = os.path.join(args.workdir, "callstack.svg")
    run([args.acart, "flamegraph", folder, "--elf", args.image, "-o", svg])
    tree = frame_tree(svg_frames(svg))
    for starter, cpu in (("board_main", 0), ("ap_entry", 1)):
        stacked = sum(n for path, n in tree.items()
                      if path[-3:] == (starter, "run_hotspot", HOTSPOT))
        check(stacked >= 0.95 * per_cpu[cpu], "%d of cpu %d's %d samples drawn as %s > "
              "run_hotspot > %s: %s" % (stacked, cpu, per_cpu[cpu], starter, HOTSPOT,
                                        sorted(tree)))


def test(args):
    folder = os.path.join(args.workdir, "collection")
    stacks = os.path.join(args.workdir, "callstacks")
    collect(args, [(folder, []), (stacks, ["--callstack"])])
    test_callstacks(args, stacks)
    start, size = symbols(args.image)[HOTSPOT]

    out, err = run([args.acart, "report", folder, "--elf", args.image])
    check("warning" not in err, "report warns:\n" + err)
    rows = parse_report(out)["CPU_CLK_UNHALTED.REF_TSC"]
    total = sum(r[0] for r in rows)
    check(total > 100, "only %d samples in 3 s" % total)
    check(rows[0][3] == HOTSPOT and rows[0][0] >= 0.95 * total,
          "the top function is not %s with 95 %% of the samples: %s" % (HOTSPOT, rows[:3]))
    check(all(r[2] == r[0] * 2200000 for r in rows), "event counts are not samples x 2200000")
    inside = samples_in(folder, start, start + size)
    check(rows[0][0] == inside, "%s has %d samples in the report, %d records lie in its range"
          % (HOTSPOT, rows[0][0], inside))

    out, _ = run([args.acart, "report", folder, "--elf", args.image, "--by", "line"])
    top = parse_report(out)["CPU_CLK_UNHALTED.REF_TSC"][0][3]
    check("workloads.c:" in top and top.endswith(HOTSPOT), "top source line: %s" % top)

    out, _ = run([args.acart, "report", folder, "--by", "task"])
    tasks = [r[3] for r in parse_report(out)["CPU_CLK_UNHALTED.REF_TSC"]]
    check(any(t.startswith("hotspot") for t in tasks), "no hotspot task among %s" % tasks)

    tb5 = os.path.join(args.workdir, "collection.tb5")
    run([args.acart, "import", folder, "-o", tb5])
    a, _ = run([args.acart, "report", folder, "--elf", args.image, "--by", "line"])
    b, _ = run([args.acart, "report", tb5, "--elf", args.image, "--by", "line"])
    check(a.split("\n", 1)[1] == b.split("\n", 1)[1], "the tb5 file reports differently:\n%s\n%s" % (a, b))

    csv = os.path.join(args.workdir, "csv")
    run([args.acart, "export", "csv", folder, "-o", csv])
    files = os.listdir(csv)
    check(len(files) == 3, "CSV files: %s" % files)
    for name in files:
        problems = check_vtune_csv.problems(os.path.join(csv, name))
        check(not problems, "\n".join(problems))

    svg = os.path.join(args.workdir, "flame.svg")
    run([args.acart, "flamegraph", folder, "--elf", args.image, "-o", svg])
    titles = [t.text for t in ET.parse(svg).getroot().iter("{http://www.w3.org/2000/svg}title")]
    check(any(t.startswith(HOTSPOT + " (") for t in titles), "no %s frame in the flame graph" % HOTSPOT)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--acart", required=True)
    ap.add_argument("--image", required=True)
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir)
    try:
        test(args)
    except TestFailure as e:
        print("FAIL: %s" % e, file=sys.stderr)
        sys.exit(1)
    print("PASS")


main()
