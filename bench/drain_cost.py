"""Drain after STOP, counted in guest instructions (issue 24): what it costs the board to
send one MiB of sample records over the data channels, against one MiB of plain lwIP TCP
(the board's "source" service) on the same board and NIC.

Wall-clock throughput under TCG on a shared machine spreads too widely to trust (pairs of
runs within one boot have ranged from 0.79 to 1.54), so the board runs under QEMU with
deterministic time (-icount shift=3: every guest instruction is 8 ns of the guest's clocks)
on one CPU that spins in the hotspot loop. Whatever the network work takes is taken from
that loop, so over a window of guest time T in which the loop made P passes, against B
passes per guest second with nothing else to do,

    instructions spent on everything else = (T - P / B) x (instructions per guest second)

is a count, whatever the host does. The window of a drain runs from the stats request
before STOP to the one after the last record byte arrived; the window of plain TCP from
the stats request before "source N" to the one after its last byte: the same two stats
requests and one request each, so the fixed costs cancel in the comparison. The ratio
plain / acart of instructions per MiB is acart's drain throughput as a fraction of plain
lwIP TCP's (target: at least 0.9). The wall-clock ratio of the same runs is printed beside
it, for comparison only.

Writes bench/results/drain_cost.txt (--out). Usage, from the top of the tree (`make bench`
runs it so, once per architecture):
    PYTHONPATH=tests python3 bench/drain_cost.py --image IMAGE [--mib 4] [--rounds 3] [--append]"""
import argparse
import os
import struct
import subprocess
import time

from acarttest import sep
from acarttest.board import Board, image_arch

HERE = os.path.dirname(os.path.abspath(__file__))

SHIFT = 3
INSTRUCTIONS_PER_S = 1e9 / (1 << SHIFT)

ap = argparse.ArgumentParser()
ap.add_argument("--image", required=True)
ap.add_argument("--mib", type=int, default=4, help="MiB drained per round")
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--seconds", type=float, default=3.0, help="host seconds of the baseline")
ap.add_argument("--out", default=os.path.join(HERE, "results", "drain_cost.txt"))
ap.add_argument("--append", action="store_true",
                help="add to --out (the second architecture's run) instead of replacing it")
args = ap.parse_args()


def bench_request(port, line):
    s = sep.connect(port)
    s.sendall(line.encode() + b"\n")
    data = bytearray()
    while True:
        chunk = s.recv(1 << 16)
        if not chunk:
            break
        data.extend(chunk)
    s.close()
    return bytes(data)


def stats(port):
    w = bench_request(port, "stats").decode().split()
    p = w.index("passes")
    return {"tsc": int(w[1]), "tsc_hz": int(w[3]), "passes": int(w[p + 1])}


def spent(a, b, base):
    """Guest instructions not spent in the hotspot between stats a and b."""
    t = (b["tsc"] - a["tsc"]) / a["tsc_hz"]
    return (t - (b["passes"] - a["passes"]) / base) * INSTRUCTIONS_PER_S


def fill_and_drain(port, bench_port, sa, records):
    """A delayed collection sampled until the ring holds `records`, then STOP and the drain.
    Returns (bytes drained, instructions of the drain window, wall seconds of the drain)."""
    h = sep.Host(port)
    st, _ = h.handshake()
    assert st == 0, st
    h.open_data_channels()
    statuses = sep.setup_collection(h, ecb=sep.ecb_with_sample_after(sa))
    assert all(v == 0 for v in statuses.values()), statuses
    h.start_readers(idle_timeout=1800)
    assert h.request(sep.OP["START"])[0] == 0
    deadline = time.time() + 900
    while time.time() < deadline:
        st, body = h.request(sep.OP["GET_NUM_SAMPLES"], want=8)
        assert st == 0, st
        if struct.unpack_from("<Q", body, 0)[0] >= records:
            break
        time.sleep(0.5)
    a = stats(bench_port)
    m0 = time.monotonic()
    assert h.request(sep.OP["STOP"])[0] == 0
    h.join_readers()
    wall = time.monotonic() - m0
    b = stats(bench_port)
    drained = sum(len(v) for (t, _), v in h.received.items() if t == 0)
    h.request(sep.OP["TERMINATE"])
    h.close()
    return drained, (a, b), wall


def plain(bench_port, nbytes):
    a = stats(bench_port)
    m0 = time.monotonic()
    got = bench_request(bench_port, "source %d" % nbytes)
    wall = time.monotonic() - m0
    b = stats(bench_port)
    assert len(got) == nbytes, (len(got), nbytes)
    return (a, b), wall


lines = []


def out(s):
    print(s, flush=True)
    lines.append(s)


arch = image_arch(args.image)
nbytes = args.mib << 20
records = nbytes // 48 + 1
with Board(args.image, cpus=1, workload="hotspot", icount=SHIFT,
           append="ring-kib=%d" % (2 * args.mib * 1024)) as b:
    b.wait_for(r"^acart: listening on ", timeout=120)
    bp = b.bench_port
    s0 = stats(bp)
    tsc_hz = s0["tsc_hz"]
    time.sleep(args.seconds)
    s1 = stats(bp)
    base = (s1["passes"] - s0["passes"]) / ((s1["tsc"] - s0["tsc"]) / tsc_hz)
    commit = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    out("# bench/drain_cost.py, %s, commit %s" % (time.strftime("%Y-%m-%d %H:%M:%S"), commit))
    out("board: %s, 1 cpu, hotspot, -icount shift=%d (%.0f M guest instructions per guest "
        "second); %.1f passes per guest second with nothing else to do" % (
            arch, SHIFT, INSTRUCTIONS_PER_S / 1e6, base))
    ratios, wall_ratios = [], []
    for r in range(args.rounds):
        drained, (a, bb), drain_wall = fill_and_drain(b.port, bp, tsc_hz // 20000, records)
        assert drained >= nbytes, "only %d bytes drained" % drained
        acart_per_mib = spent(a, bb, base) / (drained / (1 << 20))
        (pa, pb), plain_wall = plain(bp, nbytes)
        plain_per_mib = spent(pa, pb, base) / args.mib
        ratios.append(plain_per_mib / acart_per_mib)
        wall_ratios.append((nbytes / plain_wall) / (drained / drain_wall))
        out("round %d: acart drain %d bytes: %.0f guest instructions per MiB (%.2f s wall); "
            "plain lwIP TCP %d bytes: %.0f per MiB (%.2f s wall); instruction ratio %.3f, "
            "wall-clock ratio %.3f" % (r + 1, drained, acart_per_mib, drain_wall, nbytes,
                                      plain_per_mib, plain_wall, ratios[-1],
                                      1 / wall_ratios[-1]))
    med = sorted(ratios)[len(ratios) // 2]
    wmed = 1 / sorted(wall_ratios)[len(wall_ratios) // 2]
    out("drain throughput vs plain lwIP TCP, by guest instructions: %.3f (median of %s; "
        "target: at least 0.9); by wall clock: %.3f (median of %s, for comparison only)" % (
            med, ", ".join("%.3f" % x for x in ratios), wmed,
            ", ".join("%.3f" % (1 / x) for x in wall_ratios)))

os.makedirs(os.path.dirname(args.out), exist_ok=True)
with open(args.out, "a" if args.append else "w") as f:
    f.write("\n".join(lines) + "\n")
print("wrote", args.out)
