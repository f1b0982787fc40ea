"""The minimal build's footprint (docs/porting.md, "The memory budget"): bench/footprint.py
measures the minimal libacart.a the superbuild made, its code is within the budget's 48 KiB
and its static data besides the sample rings within 64 KiB, and bench/results/footprint.txt
(written by `make bench`) reports a minimal build made with the same options."""
import argparse
import re
import subprocess
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--footprint", required=True, help="bench/footprint.py")
ap.add_argument("--minimal-lib", required=True)
ap.add_argument("--results", required=True, help="bench/results/footprint.txt")
ap.add_argument("--out", required=True)
args = ap.parse_args()

subprocess.run([sys.executable, args.footprint, "--minimal-lib", args.minimal_lib,
                "--out", args.out], check=True, capture_output=True)
now = open(args.out).read()
print(now)
LINE = (r"^minimal build: code ([\d.]+) KiB \(target: at most 48 KiB: [^)]*\), static data "
        r"besides the rings ([\d.]+) KiB \(target: at most 64 KiB: [^)]*\)$")
m = re.search(LINE, now, re.M)
assert m, "no minimal-build line in bench/footprint.py's output"
code, data = float(m.group(1)), float(m.group(2))
assert code <= 48, "the minimal build has %.1f KiB of code" % code
assert data <= 64, "the minimal build has %.1f KiB of static data besides the rings" % data

results = open(args.results).read()
assert re.search(LINE, results, re.M), \
    "bench/results/footprint.txt has no minimal build (run make bench)"
opts = re.search(r"^# the minimal build \(agent and time/PMU sampling only\): (.*)$", now, re.M)
assert opts and opts.group(0) in results, \
    "bench/results/footprint.txt reports a minimal build with other options than the " \
    "superbuild's: %s" % (opts.group(1) if opts else "?")
print("minimal build: code %.1f KiB, static data besides the rings %.1f KiB; reported in %s"
      % (code, data, args.results))
