"""Frame-pointer call stacks from the board: with OS call stacks asked for, every sample of
the hotspot workload carries the callers of acart_demo_hotspot, innermost first: a return
address inside run_hotspot, then one in the function that started the workload (board_main
on cpu 0, ap_entry on the others). Without the request, the same bytes stay zero."""
import argparse
import struct
import subprocess
import time

from acarttest import sep
from acarttest.board import Board

ap = argparse.ArgumentParser()
ap.add_argument("--image", required=True)
args = ap.parse_args()

DEPTH = 8


def symbols(image):
    out = subprocess.run(["nm", "-S", "--defined-only", image], check=True, capture_output=True,
                         text=True).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tT":
            syms[parts[3]] = (int(parts[0], 16), int(parts[0], 16) + int(parts[1], 16))
    return syms


def function_of(syms, addr):
    for name, (lo, hi) in syms.items():
        if lo <= addr < hi:
            return name
    return None


def collect(port, depth, ask=True):
    h = sep.Host(port)
    st, _ = h.handshake()
    assert st == 0, st
    h.open_data_channels()
    statuses = sep.setup_collection(h, callstack_depth=depth, ask_callstacks=ask)
    assert all(v == 0 for v in statuses.values()), statuses
    h.start_readers()
    assert h.request(sep.OP["START"])[0] == 0
    time.sleep(2)
    assert h.request(sep.OP["STOP"])[0] == 0
    h.join_readers()
    h.request(sep.OP["TERMINATE"])
    h.close()
    return {did: bytes(v) for (t, did), v in h.received.items() if t == 0}


syms = symbols(args.image)
hot = syms["acart_demo_hotspot"]
record = 48 + 8 * DEPTH
with Board(args.image, cpus=2, workload="hotspot") as b:
    b.wait_for(r"^acart: listening on ", timeout=120)
    per_cpu = collect(b.port, DEPTH)
    plain = collect(b.port, DEPTH, ask=False)

checked = 0
for cpu, data in per_cpu.items():
    assert data and len(data) % record == 0, (cpu, len(data))
    starter = "board_main" if cpu == 0 else "ap_entry"
    good = 0
    n = len(data) // record
    for i in range(n):
        rec = data[i * record:(i + 1) * record]
        ip, = struct.unpack_from("<Q", rec, 8)
        stack = [a for a in struct.unpack_from("<%dQ" % DEPTH, rec, 48)]
        if not hot[0] <= ip < hot[1]:
            continue
        names = [function_of(syms, a - 1) for a in stack if a]
        if names[:2] == ["run_hotspot", starter]:
            good += 1
        checked += 1
    assert good >= 0.95 * n, "cpu %d: %d of %d samples with the expected stack" % (cpu, good, n)
    print("cpu %d: %d of %d samples in the hotspot with stack run_hotspot <- %s" % (
        cpu, good, n, starter))
for cpu, data in plain.items():
    assert len(data) % record == 0 and len(data) > 0, (cpu, len(data))
    for i in range(len(data) // record):
        assert data[i * record + 48:(i + 1) * record] == bytes(8 * DEPTH), \
            "cpu %d: call stack bytes written although not asked for" % cpu
print("call stacks ok (%d samples checked)" % checked)
