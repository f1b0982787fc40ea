"""A delayed-transfer drain of a backlog larger than one channel send: the qemu-pc board
(2 CPUs, hotspot workload, rings of 8 MiB) samples ten times faster than the default for
3 s and holds every record until STOP, so each CPU's ring holds more than the 64 KiB
(1365 records) a single send can carry and the drain must split it to the room the
connection has. `acart collect` must receive every record the board reports, with
nothing dropped; a run in which no CPU held that many records proves nothing and fails.
(The hotspot collections of qemu_collect_* take fewer than 1365 records per CPU, which a
drain that never splits its sends would still pass.)"""
import argparse
import json
import os
import shutil
import subprocess
import sys

from acarttest.board import Board

RECORD = 48
ONE_SEND = 0xFFFF // RECORD  # CHANNEL_SEND_MAX in records
SAMPLE_AFTER = 220000  # the default REF_TSC interval is 2200000


def fail(message):
    print("FAIL: %s" % message, file=sys.stderr)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--acart", required=True)
    ap.add_argument("--image", required=True)
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir)
    folder = os.path.join(args.workdir, "backlog")
    with Board(args.image, cpus=2, workload="hotspot", append="ring-kib=8192") as b:
        b.wait_for(r"^acart: listening on ", timeout=120)
        r = subprocess.run([args.acart, "collect", "--target", "127.0.0.1:%d" % b.port,
                            "--duration", "3", "--transfer", "delayed", "--event",
                            "CPU_CLK_UNHALTED.REF_TSC:sa=%d" % SAMPLE_AFTER, "-o", folder],
                           capture_output=True, text=True, timeout=240)
        print(r.stdout, r.stderr)
        if r.returncode != 0:
            fail("acart collect exited %d:\n%s%s" % (r.returncode, r.stdout, r.stderr))
    session = json.load(open(os.path.join(folder, "session.json")))
    per_cpu = session["samples"]["per_cpu"]
    dropped = session["samples"]["dropped_per_cpu"]
    for cpu, n in enumerate(per_cpu):
        size = os.path.getsize(os.path.join(folder, "cpu%d.bin" % cpu))
        if size != n * RECORD:
            fail("cpu%d.bin: %d bytes for the %d records the board reports" % (cpu, size, n))
    if any(dropped):
        fail("the board dropped %r: its rings were too small for the test" % dropped)
    if max(per_cpu) <= ONE_SEND:
        fail("no CPU held more than %d records (%r): the drain never had to split a send; "
             "sample faster" % (ONE_SEND, per_cpu))
    print("PASS: %r records per CPU drained after STOP (one send carries %d)"
          % (per_cpu, ONE_SEND))


main()
