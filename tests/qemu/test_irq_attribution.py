"""Interrupt attribution on the kit board: with irq-busy-us=300 the PIT handler spends part
of every tick with interrupts on, and samples that fall due there belong to the handler,
`[irq 0x20 pit]` in `acart report --by task` and as a root of the flame graph, not to the
task it interrupted. The board
counts that span against its TSC; the report's share must match it within 3 points.
The board runs with deterministic time (QEMU's -icount): under plain TCG the host decides
when a timer interrupt reaches the guest, which skews where samples land."""
import argparse
import os
import re
import socket
import subprocess
import sys
import tempfile

from acarttest.board import Board

ap = argparse.ArgumentParser()
ap.add_argument("--image", required=True)
ap.add_argument("--acart", required=True)
args = ap.parse_args()


def irq_busy(port):
    """(TSC in the handler's sampleable span, TSC now) from the board's bench service."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(b"stats\n")
        data = b""
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    words = data.decode().split()
    return int(words[words.index("irqbusy") + 1]), int(words[1])


ROW = re.compile(r"^\s*(\d+)\s+([\d.]+)%\s+\d+\s+(.*)$")
with tempfile.TemporaryDirectory() as tmp, \
        Board(args.image, cpus=1, workload="hotspot", append="irq-busy-us=300", icount=3) as b:
    b.wait_for(r"^acart: listening on ", timeout=120)
    folder = os.path.join(tmp, "c")
    busy0, tsc0 = irq_busy(b.bench_port)
    # A sampling period far from any multiple of the 1 ms tick (0.378 ms at the 1 GHz TSC
    # icount gives), so samples sweep every phase of the tick instead of locking to one.
    # Under -icount the guest's time follows the instructions QEMU gets to run, so a
    # loaded host takes fewer samples per wall second: 10 s leaves room for 2000.
    r = subprocess.run([args.acart, "collect", "--target", "127.0.0.1:%d" % b.port,
                        "--duration", "10", "--event", "CPU_CLK_UNHALTED.REF_TSC:sa=377779",
                        "-o", folder], capture_output=True, text=True, timeout=240)
    busy1, tsc1 = irq_busy(b.bench_port)
    assert r.returncode == 0, r.stdout + r.stderr
    board_share = 100.0 * (busy1 - busy0) / (tsc1 - tsc0)
    r = subprocess.run([args.acart, "report", folder, "--by", "task"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    svg = os.path.join(tmp, "flame.svg")
    f = subprocess.run([args.acart, "flamegraph", folder, "--elf", args.image, "-o", svg],
                       capture_output=True, text=True, timeout=120)
    assert f.returncode == 0, f.stdout + f.stderr
    with open(svg) as fh:
        flame = re.findall(r"<title>\[irq 0x20 pit\] \((\d+) samples", fh.read())
rows = {m.group(3): (int(m.group(1)), float(m.group(2)))
        for m in map(ROW.match, r.stdout.splitlines()) if m}
pit = [v for k, v in rows.items() if k.startswith("[irq 0x20 pit]")]
assert pit, "no [irq 0x20 pit] row:\n" + r.stdout
samples, share = pit[0]
total = rows["Total"][0]
assert total >= 2000, "only %d samples:\n%s" % (total, r.stdout)
assert abs(share - board_share) <= 3.0, "report %.2f%% in the PIT handler, board %.2f%%:\n%s" % (
    share, board_share, r.stdout)
# The flame graph stands the same samples on the handler's own root.
assert flame == [str(samples)], "flame graph's [irq 0x20 pit] root: %s, report: %d" % (
    flame, samples)
print("[irq 0x20 pit]: %.2f%% of %d samples, board's own count %.2f%%" % (share, total,
                                                                          board_share))
sys.exit(0)
