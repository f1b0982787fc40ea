"""`acart collect` against the hotspot board (4 CPUs) for 5 s, in one transfer mode.

Checks, from the files the collector wrote: at least 95 % of samples inside
acart_demo_hotspot (its range from the image's symbol table; with --workload idle, where
every CPU halts between ticks, this check is left out), samples from every CPU,
a module record covering the image's code, and per-CPU / total counts equal to what the
target reported (GET_SAMPLE_DROP_INFO, GET_NUM_SAMPLES) with nothing dropped."""
import argparse
import json
import os
import re
import struct
import subprocess
import tempfile

from acarttest.board import Board, CODE_MODE, image_arch

ap = argparse.ArgumentParser()
ap.add_argument("--image", required=True)
ap.add_argument("--acart", required=True)
ap.add_argument("--transfer", choices=["delayed", "immediate"], required=True)
ap.add_argument("--cpus", type=int, default=4)
ap.add_argument("--duration", type=int, default=5)
ap.add_argument("--workload", choices=["hotspot", "idle"], default="hotspot")
ap.add_argument("--append", default="", help="more board command-line words")
ap.add_argument("--timeout", type=int, default=30,
                help="acart collect --timeout: 64 TCG vCPUs on a loaded machine answer slowly")
ap.add_argument("--console-has", action="append", default=[], metavar="REGEX",
                help="a line the board's console must show by the end (a board variant's "
                     "own report)")
args = ap.parse_args()


def symbol_range(image, name):
    out = subprocess.run(["nm", "-S", image], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[3] == name:
            start, size = int(parts[0], 16), int(parts[1], 16)
            return start, start + size
    raise AssertionError("no symbol %s in %s" % (name, image))


hot_lo, hot_hi = symbol_range(args.image, "acart_demo_hotspot")
append = ("transfer=immediate " if args.transfer == "immediate" else "") + args.append
with Board(args.image, cpus=args.cpus, workload=args.workload, append=append.strip()) as b:
    b.wait_for(r"^acart: listening on ", timeout=300)
    assert re.search(r"^acart: %d cpus, " % args.cpus, b.console(), re.M), \
        "the runtime does not use all %d CPUs:\n%s" % (args.cpus, b.console())
    m = re.search(r"^Module: (\S+) 0x([0-9a-f]+)-0x([0-9a-f]+)$", b.console(), re.M)
    image_name, code_lo, code_hi = m.group(1), int(m.group(2), 16), int(m.group(3), 16)
    out = tempfile.mkdtemp(prefix="acart-collect-")
    r = subprocess.run([args.acart, "collect", "--target", "127.0.0.1:%d" % b.port,
                        "--duration", str(args.duration), "--transfer", args.transfer,
                        "--timeout", str(args.timeout),
                        "-o", out], capture_output=True, text=True, timeout=600)
    print(r.stdout[-2000:], r.stderr[-2000:])
    assert r.returncode == 0, "acart collect exited %d" % r.returncode
    con = b.console()
    assert "EXCEPTION" not in con, con
    for rx in args.console_has:
        assert re.search(rx, con, re.M), "the console never showed %r:\n%s" % (rx, con)

session = json.load(open(os.path.join(out, "session.json")))
per_cpu = session["samples"]["per_cpu"]
dropped = session["samples"]["dropped_per_cpu"]
total_reported = session["samples"]["total"]
# The board answers acart's GET_DROP_REASONS: one count per reason and CPU, all zero here.
reasons = session["samples"]["drop_reasons"]
assert sorted(reasons) == ["collision", "malformed", "no_counter", "ring_full", "stuck_pmi",
                           "stuck_resets"], reasons
assert all(r == [0] * args.cpus for r in reasons.values()), reasons

total = inside = 0
arch = image_arch(args.image)
code_mode = CODE_MODE[arch]
for cpu in range(args.cpus):
    data = open(os.path.join(out, "cpu%d.bin" % cpu), "rb").read()
    assert len(data) % 48 == 0, "cpu%d.bin holds a partial record (%d bytes)" % (cpu, len(data))
    n = len(data) // 48
    assert n > 0, "no samples from cpu %d" % cpu
    assert n == per_cpu[cpu], "cpu %d: %d records received, target reported %d" % (
        cpu, n, per_cpu[cpu])
    assert dropped[cpu] == 0, "cpu %d dropped %d" % (cpu, dropped[cpu])
    for i in range(n):
        ip, = struct.unpack_from("<Q", data, 48 * i + 8)
        cpu_field, = struct.unpack_from("<H", data, 48 * i + 26)
        assert cpu_field & 0xfff == cpu, "record of cpu %d on channel %d" % (cpu_field & 0xfff, cpu)
        # The code mode (bits 14:13) says the image's: 64-bit samples from a long-mode board.
        assert (cpu_field >> 13) & 3 == code_mode, "sample in code mode %d, want %d (%s)" % (
            (cpu_field >> 13) & 3, code_mode, arch)
        inside += hot_lo <= ip < hot_hi
    total += n
assert total == total_reported, "received %d records, GET_NUM_SAMPLES %d" % (total, total_reported)
share = inside / total
if args.workload == "hotspot":
    assert share >= 0.95, "only %.1f %% of samples in acart_demo_hotspot" % (100 * share)

mod = open(os.path.join(out, "module.bin"), "rb").read()
covered = False
at = 0
while at < len(mod):
    rec_len, seg_bits = struct.unpack_from("<HH", mod, at)
    assert rec_len >= 80, "module record of length %d" % rec_len
    assert seg_bits & 3 == code_mode, "module record in code mode %d, want %d" % (seg_bits & 3,
                                                                              code_mode)
    length, load = struct.unpack_from("<QQ", mod, at + 16)
    path_len, = struct.unpack_from("<H", mod, at + 52)
    path = mod[at + 80: at + 80 + path_len - 1].decode()
    if path == image_name and load <= code_lo and load + length >= code_hi:
        covered = True
    at += rec_len
assert covered, "no module record for %s covering 0x%x-0x%x" % (image_name, code_lo, code_hi)
print("%s: %d samples from %d cpus, %.1f %% in acart_demo_hotspot, module record ok" % (
    args.transfer, total, args.cpus, 100 * share))
