"""Benchmark of the host tools on a large collection: generates a synthetic 10 M-sample
collection folder, then times `acart import` (writing and binding the tb5 file) and
`acart report` (on the folder and on the tb5 file), each started by bench_run, which
reports its wall time and peak RSS (getrusage ru_maxrss via wait4). Writes
bench/results/tb5_import.txt.

    tb5_import_bench.py --acart ACART --synth SYNTH --run BENCH_RUN --elf IMAGE --workdir DIR
                        [--samples N] [--cpus N] [--out FILE]
"""

import argparse
import datetime
import os
import platform
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def timed(bench_run, workdir, cmd):
    """Runs cmd under bench_run; returns (seconds, peak RSS in bytes, stdout)."""
    result = os.path.join(workdir, "timing.txt")
    r = subprocess.run([bench_run, result] + [str(c) for c in cmd], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("%s failed:\n%s" % (" ".join(map(str, cmd)), r.stderr))
    with open(result) as f:
        seconds, kib = f.read().split()
    return float(seconds), int(kib) * 1024, r.stdout


def text_range(elf):
    """[lowest, highest) address of the benchmark's functions, from nm."""
    out = subprocess.run(["nm", "--defined-only", "-S", elf], capture_output=True, text=True,
                         check=True).stdout
    spans = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[3] in ("alpha", "beta", "gamma_fn"):
            start = int(parts[0], 16)
            spans.append((start, start + int(parts[1], 16)))
    return min(s for s, _ in spans), max(e for _, e in spans)


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--acart", required=True)
    ap.add_argument("--synth", required=True)
    ap.add_argument("--run", required=True, help="bench_run")
    ap.add_argument("--elf", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--samples", type=int, default=10_000_000)
    ap.add_argument("--cpus", type=int, default=4)
    ap.add_argument("--out", default=os.path.join(HERE, "results", "tb5_import.txt"))
    args = ap.parse_args()

    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir)
    folder = os.path.join(args.workdir, "collection")
    tb5 = os.path.join(args.workdir, "collection.tb5")
    lo, hi = text_range(args.elf)
    subprocess.run([args.synth, folder, "--cpus", str(args.cpus),
                    "--module", "/target/%s:%#x:%#x" % (os.path.basename(args.elf), lo & ~0xFFF, 0x100000),
                    "--task", "1:1:t1", "--task", "1:2:t2",
                    "--random", "%d:%#x:%#x:12345" % (args.samples, lo, hi)], check=True)
    raw = sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder)
              if f.startswith("cpu") and f.endswith(".bin"))

    acart = lambda *a: timed(args.run, args.workdir, [args.acart] + list(a))
    import_s, import_rss, _ = acart("import", "-q", folder, "-o", tb5)
    tb5_size = os.path.getsize(tb5)
    report_dir_s, report_dir_rss, out_dir = acart("report", folder, "--elf", args.elf)
    report_tb5_s, report_tb5_rss, out_tb5 = acart("report", tb5, "--elf", args.elf)
    body = lambda text: text.split("\n", 1)[1]  # everything after the Source: line
    if body(out_dir) != body(out_tb5):
        sys.exit("the reports of the folder and of the tb5 file differ")

    mib = 1024.0 * 1024.0
    rows = [
        ("acart import (write + bind)", import_s, import_rss),
        ("acart report folder --elf", report_dir_s, report_dir_rss),
        ("acart report tb5 --elf", report_tb5_s, report_tb5_rss),
    ]
    commit = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "unknown"
    lines = [
        "acart host tools: import, bind and report of a synthetic collection",
        "date %s, commit %s" % (datetime.date.today().isoformat(), commit),
        "host %s, %d CPUs, %s" % (cpu_model(), os.cpu_count(), platform.platform()),
        "input %d samples on %d CPUs (48-byte records): %.1f MiB raw; tb5 file %.1f MiB"
        % (args.samples, args.cpus, raw / mib, tb5_size / mib),
        "",
        "%-30s %10s %14s %12s %14s" % ("step", "seconds", "samples/s", "peak RSS MiB", "RSS / raw size"),
    ]
    for name, seconds, rss in rows:
        lines.append("%-30s %10.2f %14.0f %12.1f %14.3f"
                     % (name, seconds, args.samples / seconds, rss / mib, rss / raw))
    lines += ["", "import + bind + report (tb5): %.2f s, %.0f samples/s end to end"
              % (import_s + report_tb5_s, args.samples / (import_s + report_tb5_s))]
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write(text)
    sys.stdout.write(text)
    shutil.rmtree(args.workdir, ignore_errors=True)


main()
