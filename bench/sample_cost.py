"""The cost of one sample, counted in guest instructions (issue 12, P1).

The board runs under QEMU with deterministic time (-icount shift=3: every guest
instruction is 8 ns of the guest's clocks, so the TSC, the PIT and the LAPIC timer all
advance with instructions, not with the host). Its one CPU runs the hotspot loop, so over a
window of guest time

    instructions lost per interrupt = (1 - passes_with / passes_without) x (instructions per
                                      second) / (interrupts per second on that CPU)

is a count, whatever else the shared host is doing. One CPU: under -icount the virtual
CPUs share one instruction clock, so only a lone CPU owns every instruction of a guest
second. Its PIT tick and the two stats requests of each window cost the same in every
window, so they cancel out. Measured for: a bare LAPIC timer
whose handler only counts and acknowledges (the board's bench timer: interrupt entry and
exit), acart's time-based sample, acart's sample with a 16-deep call stack (the
hotspot's stack is 3 deep, so the walk stops at its real end), and with stack copies for
CFI unwinding (--callstack=dwarf: the default 2 KiB and the most, 8 KiB; the hotspot's
stack is shorter than either on i686, so the copy stops at the stack's top, and the rest
of the area is zeroed: the same stores), each at two rates: the
slope between them is the cost of one sample, apart from what an open session costs per
second. acart's own cost is the difference to the bare timer.

Writes bench/results/sample_cost.txt. Usage, from the top of the tree (`make bench` runs it
so):
    PYTHONPATH=tests python3 bench/sample_cost.py --image IMAGE --acart ACART"""
import argparse
import json
import os
import subprocess
import tempfile
import time

from acarttest import sep
from acarttest.board import Board, image_arch

HERE = os.path.dirname(os.path.abspath(__file__))

SHIFT = 3
INSTRUCTIONS_PER_S = 1e9 / (1 << SHIFT)
RATE_HZ = 1000

ap = argparse.ArgumentParser()
ap.add_argument("--image", required=True)
ap.add_argument("--acart", required=True)
ap.add_argument("--seconds", type=float, default=3.0, help="host seconds per window")
ap.add_argument("--out", default=os.path.join(HERE, "results", "sample_cost.txt"))
ap.add_argument("--append", action="store_true",
                help="add to --out (the second architecture's run) instead of replacing it")
args = ap.parse_args()


def bench_request(port, line):
    s = sep.connect(port, timeout=60)  # a loaded host may keep the board's answer that long
    s.sendall(line.encode() + b"\n")
    data = bytearray()
    while True:
        chunk = s.recv(1 << 16)
        if not chunk:
            break
        data.extend(chunk)
    s.close()
    return data.decode()


def stats(port):
    w = bench_request(port, "stats").split()
    n = int(w[w.index("cpus") + 1])
    p, t = w.index("passes"), w.index("timer")
    return {"tsc": int(w[1]), "tsc_hz": int(w[3]),
            "passes": [int(x) for x in w[p + 1:p + 1 + n]],
            "timer": [int(x) for x in w[t + 1:t + 1 + n]]}


def window(port):
    """CPU 0's hotspot passes and bench-timer interrupts per second of guest time."""
    a = stats(port)
    time.sleep(args.seconds)
    b = stats(port)
    secs = (b["tsc"] - a["tsc"]) / a["tsc_hz"]
    return ((b["passes"][0] - a["passes"][0]) / secs, (b["timer"][0] - a["timer"][0]) / secs,
            secs)


lines = []


def out(s):
    print(s)
    lines.append(s)


with tempfile.TemporaryDirectory() as tmp, \
        Board(args.image, cpus=1, workload="hotspot", icount=SHIFT) as b:
    b.wait_for(r"^acart: listening on ", timeout=120)
    bp = b.bench_port
    tsc_hz = stats(bp)["tsc_hz"]
    out("board: %s, 1 cpu, hotspot, -icount shift=%d (%.0f M guest instructions per guest "
        "second), TSC %.3f GHz" % (image_arch(args.image), SHIFT, INSTRUCTIONS_PER_S / 1e6,
                                   tsc_hz / 1e9))

    base, _, secs = window(bp)
    out("no sampling: %.1f passes per guest second (%.2f s of guest time); %.0f instructions "
        "a pass" % (base, secs, INSTRUCTIONS_PER_S / base))

    def cost(passes, rate):
        return (1 - passes / base) * INSTRUCTIONS_PER_S / rate

    bench_request(bp, "timer %d" % RATE_HZ)
    bare, ticks, secs = window(bp)
    bench_request(bp, "timer 0")
    bare_cost = cost(bare, ticks)
    out("bare LAPIC timer at %d Hz: %.1f passes/s, %.0f interrupts/s: %.0f instructions per "
        "interrupt (entry, count, EOI, exit)" % (RATE_HZ, bare, ticks, bare_cost))

    def collecting(extra, hz):
        """CPU passes per guest second while acart samples at hz (time-based)."""
        folder = os.path.join(tmp, "c%d_%d" % (hz, len(extra)))
        sa = tsc_hz // hz
        proc = subprocess.Popen([args.acart, "collect", "--target", "127.0.0.1:%d" % b.port,
                                 "--duration", str(args.seconds + 8), "--event",
                                 "CPU_CLK_UNHALTED.REF_TSC:sa=%d" % sa, "-o", folder] + extra,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(2)  # past the set-up, into the collection
        passes, _, _ = window(bp)
        # The window must lie inside the collection: STOP's drain sends every record, at a
        # cost per byte that a window reaching it would count as the samples' (bigger
        # records, more of it). A loaded host slows the stats requests, hence the margin.
        assert proc.poll() is None, "the collection ended inside the window: retry"
        o, e = proc.communicate(timeout=600)
        assert proc.returncode == 0, o + e
        # A dropped sample skips the record's work, so a full ring would make a rate look
        # cheaper than it is: every rate here must keep all its samples.
        dropped = sum(json.load(open(os.path.join(folder, "session.json")))
                      ["samples"]["dropped_per_cpu"])
        assert dropped == 0, "%s at %d Hz: %d samples dropped: lower the rates" % (
            extra, hz, dropped)
        return passes

    # A session costs something per second besides its samples (the agent's poll in the
    # net tick): two rates separate the two, the slope being the cost of one sample. Stack
    # copies make records of up to 8.4 KiB: their rates are lower, so that the ring
    # (delayed transfer holds every record until STOP) takes all of them however many
    # guest seconds the collection's host seconds give (a fast host gives more: at a
    # tenth of the rate, x86_64's 2 KiB copies once filled the 16 MiB ring).
    slowdowns = []
    modes = (("acart sample", [], RATE_HZ),
             ("acart sample, --callstack=16", ["--callstack=16"], RATE_HZ),
             ("acart sample, --callstack=dwarf (2048 bytes)", ["--callstack=dwarf"], RATE_HZ // 20),
             ("acart sample, --callstack=dwarf,8192", ["--callstack=dwarf,8192"], RATE_HZ // 80))
    for name, extra, low in modes:
        high = 4 * low
        p_low, p_high = collecting(extra, low), collecting(extra, high)
        lost_low = (1 - p_low / base) * INSTRUCTIONS_PER_S
        lost_high = (1 - p_high / base) * INSTRUCTIONS_PER_S
        per_sample = (lost_high - lost_low) / (high - low)
        per_second = lost_low - per_sample * low
        if low == RATE_HZ:
            slowdowns.append((name, p_low))
        out("%s: %.1f passes/s at %d Hz, %.1f at %d Hz: %.0f instructions per sample (%.0f "
            "more than the bare timer), plus %.0f instructions per second of an open session"
            % (name, p_low, low, p_high, high, per_sample, per_sample - bare_cost, per_second))

    # The hotspot's slowdown at RATE_HZ: acart's (its samples and the open session's poll)
    # against bare timer interrupts at the same rate with an empty handler.
    bare_pct = 100 * (1 - bare / base)
    for name, p_low in slowdowns:
        pct = 100 * (1 - p_low / base)
        out("slowdown at %d Hz per cpu, %s: %.3f %% (bare timer %.3f %%): acart's excess %.3f "
            "percentage points (target: at most 0.5)" % (RATE_HZ, name, pct, bare_pct,
                                                        pct - bare_pct))

    again, _, _ = window(bp)
    out("no sampling again: %.1f passes/s (%.4f of the first: the floor of this method)" % (
        again, again / base))

os.makedirs(os.path.dirname(args.out), exist_ok=True)
with open(args.out, "a" if args.append else "w") as f:
    commit = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    f.write("# bench/sample_cost.py, %s, commit %s\n" % (time.strftime("%Y-%m-%d %H:%M:%S"),
                                                       commit))
    f.write("\n".join(lines) + "\n")
print("wrote", args.out)
