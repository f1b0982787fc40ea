"""Soak: back-to-back collections on the qemu-pc board for a given time, half of it in
delayed and half in immediate transfer (one boot each), each collection with a random
duration and sample rate. Every collection's counts must add up (records received per
CPU = what the board says it delivered, their sum = GET_NUM_SAMPLES, every record whole;
a delayed collection that outgrows the rings drops samples, which the board counts), and after every session the board's "board ready" report (lwIP's
active pcbs, channel slots, heap bytes, receive pbufs, queued segments) must equal the
one it printed at boot.

Writes bench/results/soak.txt (what was run, for how long, and what was seen).
Usage, from the top of the tree (`make soak` runs it so):
    PYTHONPATH=tests python3 bench/soak.py --image IMAGE [--minutes 60] [--cpus 2] [--seed N]"""
import argparse
import datetime
import os
import random
import subprocess
import sys
import time

from acarttest import sep
from acarttest.board import Board

HERE = os.path.dirname(os.path.abspath(__file__))

ap = argparse.ArgumentParser()
ap.add_argument("--image", required=True)
ap.add_argument("--minutes", type=float, default=60.0)
ap.add_argument("--cpus", type=int, default=2)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--max-duration", type=float, default=6.0,
                help="longest collection, seconds (each is uniform in 0.2 .. this)")
ap.add_argument("--modes", default="delayed,immediate")
ap.add_argument("--out", default=os.path.join(HERE, "results", "soak.txt"))
args = ap.parse_args()

KEYS = ("active", "channels", "heap", "pbufs", "segments")
rng = random.Random(args.seed)


def soak(mode, seconds):
    append = "transfer=immediate" if mode == "immediate" else ""
    r = {"mode": mode, "collections": 0, "records": 0, "dropped": 0, "durations": [],
         "failures": [], "peak_time_wait": 0}
    with Board(args.image, cpus=args.cpus, workload="hotspot", append=append) as b:
        b.wait_for(r"^acart: listening on ", timeout=180)
        r["accelerator"] = b.accelerator()
        base = b.wait_ready(0)
        r["baseline"] = base
        seen = 1
        end = time.time() + seconds
        while time.time() < end:
            duration = rng.uniform(0.2, args.max_duration)
            sample_after = rng.choice((2200000, 1100000, 550000))
            try:
                n = sep.full_collection(b.port, seconds=duration,
                                        ecb=sep.ecb_with_sample_after(sample_after),
                                        allow_drops=True, counts=r)
            except Exception as e:  # a failed collection is the result, not a crash
                r["failures"].append("collection %d (%.1f s, sample-after %d): %r"
                                     % (r["collections"] + 1, duration, sample_after, e))
                print("FAILURE %s; console:\n%s" % (r["failures"][-1], b.console()[-3000:]),
                      flush=True)
                break
            ready = b.wait_ready(seen, timeout=60)
            seen = len(b.ready_reports())
            r["collections"] += 1
            r["records"] += n
            r["durations"].append(duration)
            r["peak_time_wait"] = max(r["peak_time_wait"], ready["time_wait"])
            if any(ready[k] != base[k] for k in KEYS):
                r["failures"].append("after collection %d: %s, at boot %s"
                                     % (r["collections"], ready, base))
                print("FAILURE %s" % r["failures"][-1], flush=True)
                break
            if r["collections"] % 20 == 0:
                print("%s: %d collections, %d records" % (mode, r["collections"], r["records"]),
                      flush=True)
        if "EXCEPTION" in b.console():
            r["failures"].append("EXCEPTION on the console")
    return r


started = datetime.datetime.now(datetime.timezone.utc)
tree = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=HERE, capture_output=True,
                      text=True).stdout.strip() or "unknown"
t0 = time.time()
modes = args.modes.split(",")
results = [soak(mode, args.minutes * 60 / len(modes)) for mode in modes]
wall = time.time() - t0

lines = [
    "# Soak: make soak (bench/soak.py), %s UTC, tree %s"
    % (started.strftime("%Y-%m-%d %H:%M"), tree),
    "# command: PYTHONPATH=tests python3 bench/soak.py --image %s --minutes %g --cpus %d --seed %d "
    "--max-duration %g --modes %s" % (os.path.relpath(args.image), args.minutes, args.cpus,
                                      args.seed, args.max_duration, args.modes),
    "# asked for %g minutes (%s, an equal share each); ran %.1f minutes of wall time"
    % (args.minutes, " and ".join(modes), wall / 60),
    "# per collection: counts add up (records per CPU = what the board says it delivered,",
    "# their sum = GET_NUM_SAMPLES, whole records; samples a full ring refused are counted);",
    "# after every session: lwIP active pcbs, channel slots, heap bytes, receive pbufs and",
    "# queued segments equal the board's report at boot.",
]
ok = True
for r in results:
    d = r["durations"]
    lines.append("")
    lines.append("mode %s (%s)" % (r["mode"], r.get("accelerator", "?")))
    lines.append("  collections completed: %d, records received and checked: %d, samples the "
                 "board counted as dropped (ring full): %d"
                 % (r["collections"], r["records"], r["dropped"]))
    if d:
        lines.append("  collection durations: %.1f .. %.1f s, %.1f s in all"
                     % (min(d), max(d), sum(d)))
    lines.append("  lwIP at boot: %s" % ", ".join("%s %d" % (k, r["baseline"][k]) for k in KEYS))
    lines.append("  lwIP after every session: %s"
                 % ("equal to boot" if not r["failures"] else "see failures"))
    lines.append("  most TIME_WAIT pcbs seen at a ready report: %d" % r["peak_time_wait"])
    for f in r["failures"]:
        lines.append("  FAILURE: %s" % f)
    ok = ok and not r["failures"] and r["collections"] > 0
lines.append("")
lines.append("result: %s" % ("PASS" if ok else "FAIL"))
text = "\n".join(lines) + "\n"
os.makedirs(os.path.dirname(args.out), exist_ok=True)
with open(args.out, "w") as f:
    f.write(text)
sys.stdout.write(text)
sys.exit(0 if ok else 1)
