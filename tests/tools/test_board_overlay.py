"""Module lifetimes on a real collection: the qemu-pc board runs its overlay workload (CPU 1
loads overlay-a.bin, runs it, unloads it, then overlay-b.bin at the same address, and so
on), `acart collect` records 3 s. The samples per module that report --by module gives
from the folder and from the imported tb5 file, and that binding gives in tb5 print, must
equal what this test computes itself from module.bin's load and unload records and the
samples' addresses, pids and TSCs; both overlays must have samples, and report --by
function names overlay code by its module."""

import argparse
import os
import re
import shutil
import struct
import subprocess
import sys

from acarttest.board import Board
from acarttest.tooltest import TestFailure, check, parse_report, run

EVENT = "CPU_CLK_UNHALTED.REF_TSC"
OVERLAYS = ("overlay-a.bin", "overlay-b.bin")


def lifetimes_of(folder):
    """[name, lo, hi, pid, load, unload or None] from module.bin (docs/sep-protocol.md 6):
    an unload ends the latest open load of the same pid, address and path before it."""
    with open(os.path.join(folder, "module.bin"), "rb") as f:
        data = f.read()
    lifetimes, at = [], 0
    while at < len(data):
        rec_len, seg_bits = struct.unpack_from("<HH", data, at)
        length, load_addr, pid = struct.unpack_from("<QQI", data, at + 16)
        unload_tsc, = struct.unpack_from("<Q", data, at + 40)
        path_len, = struct.unpack_from("<H", data, at + 52)
        tsc, = struct.unpack_from("<Q", data, at + 64)
        path = data[at + 80:at + 80 + path_len - 1].decode()
        check(rec_len >= 80 + path_len, "module record at %d: length %d" % (at, rec_len))
        at += rec_len
        if seg_bits & 4:
            open_ones = [l for l in lifetimes if l[0] == path and l[1] == load_addr and
                         l[3] == pid and l[5] is None and l[4] <= unload_tsc]
            check(open_ones, "unload of %s without its load" % path)
            max(open_ones, key=lambda l: l[4])[5] = unload_tsc
        else:
            lifetimes.append([path, load_addr, load_addr + length, pid, tsc, None])
    return lifetimes


def samples_of(folder):
    """(ip, pid, tsc) of every 48-byte record."""
    samples = []
    for name in sorted(os.listdir(folder)):
        if not re.match(r"^cpu\d+\.bin$", name):
            continue
        with open(os.path.join(folder, name), "rb") as f:
            data = f.read()
        for at in range(0, len(data), 48):
            ip, = struct.unpack_from("<Q", data, at + 8)
            pid, bits = struct.unpack_from("<II", data, at + 32)
            tsc, = struct.unpack_from("<Q", data, at + 40)
            samples.append((ip if bits & (1 << 29) else ip & 0xFFFFFFFF, pid, tsc))
    return samples


def expected_modules(lifetimes, samples):
    """{module base name or [unknown]: samples}: the module whose range, pid (0: every
    process) and lifetime hold the sample, the latest load winning."""
    counts = {}
    for ip, pid, tsc in samples:
        best = None
        for l in lifetimes:
            if (l[1] <= ip < l[2] and l[3] in (0, pid) and l[4] <= tsc and
                    (l[5] is None or tsc < l[5]) and (best is None or (l[4], l[1]) > (best[4], best[1]))):
                best = l
        name = os.path.basename(best[0]) if best else "[unknown]"
        counts[name] = counts.get(name, 0) + 1
    return counts


def report_modules(args, source):
    out, _ = run([args.acart, "report", source, "--by", "module", "--top", 0])
    return dict((label, n) for n, _, _, label in parse_report(out)[EVENT])


def test(args):
    folder = os.path.join(args.workdir, "overlay")
    with Board(args.image, cpus=2, workload="overlay") as b:
        b.wait_for(r"^acart: listening on ", timeout=120)
        r = subprocess.run([args.acart, "collect", "--target", "127.0.0.1:%d" % b.port,
                            "--duration", "3", "-o", folder],
                           capture_output=True, text=True, timeout=240)
        check(r.returncode == 0, "acart collect exited %d:\n%s%s" % (r.returncode, r.stdout, r.stderr))

    lifetimes = lifetimes_of(folder)
    check(sum(1 for l in lifetimes if os.path.basename(l[0]) in OVERLAYS) >= 10,
          "fewer than 10 overlay lifetimes in 3 s: %s" % lifetimes)
    want = expected_modules(lifetimes, samples_of(folder))
    for name in OVERLAYS:
        check(want.get(name, 0) > 50, "%s has %d samples by module.bin" % (name, want.get(name, 0)))

    got = report_modules(args, folder)
    check(got == want, "report --by module on the folder: %s, expected %s" % (got, want))
    tb5 = os.path.join(args.workdir, "overlay.tb5")
    run([args.acart, "import", folder, "-o", tb5])
    got = report_modules(args, tb5)
    check(got == want, "report --by module on the tb5 file: %s, expected %s" % (got, want))
    printed, _ = run([args.acart, "tb5", "print", tb5, "--max", 1])
    bound = {}
    for n, name in re.findall(r"^\s+(\d+)\s+(?:#\d+ )?(\S.*)$",
                              printed.split("samples per module:")[1].split("[")[0], re.M):
        name = "[unknown]" if name == "(no module)" else name
        bound[name] = bound.get(name, 0) + int(n)
    check(bound == want, "tb5 print, samples per module: %s, expected %s" % (bound, want))

    out, _ = run([args.acart, "report", folder, "--elf", args.image, "--top", 0])
    functions = dict((label, n) for n, _, _, label in parse_report(out)[EVENT])
    for name in OVERLAYS:
        check(functions.get("[%s]" % name) == want[name], "report --by function: [%s] has %s "
              "samples, expected %d" % (name, functions.get("[%s]" % name), want[name]))


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
