"""Benchmark of the host tools on large collections (issue 12, P4). Writes
bench/results/tb5_import.txt:

- speed: a synthetic 10 M-sample collection through `acart import` (writing and binding the
  tb5 file) and `acart report` (of the tb5 file and of the folder), with this tree's acart
  and with the acart of a baseline commit (default: the previous one) built from `git
  archive` in the work folder, the two taking turns in each of --rounds rounds; each step's
  best round counts. The figure is the ratio of the two within this run; absolute times
  on a shared machine also count waiting for a core, so CPU time is given too;
- size: the tb5 file against the raw records (the collection's cpu<N>.bin);
- memory: peak RSS of every step against the raw data, and of `acart report` (folder and
  tb5 file) and `acart import` at 10 M and at --large-samples (100 M) samples, which must be
  about equal: reports run in constant memory.

Every command is started by bench_run, which reports its wall time, peak RSS (getrusage
ru_maxrss via wait4) and CPU time.

    tb5_import_bench.py --acart ACART --synth SYNTH --run BENCH_RUN --elf IMAGE --workdir DIR
                        [--samples N] [--large-samples N] [--cpus N] [--rounds N]
                        [--baseline-rev REV] [--out FILE]
"""

import argparse
import datetime
import os
import platform
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
MIB = 1024.0 * 1024.0


def timed(bench_run, workdir, cmd):
    """Runs cmd under bench_run; returns (seconds, peak RSS in bytes, CPU seconds, stdout)."""
    result = os.path.join(workdir, "timing.txt")
    r = subprocess.run([bench_run, result] + [str(c) for c in cmd], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("%s failed:\n%s" % (" ".join(map(str, cmd)), r.stderr))
    with open(result) as f:
        seconds, kib, cpu = f.read().split()
    return float(seconds), int(kib) * 1024, float(cpu), r.stdout


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


def git(*args):
    return subprocess.run(["git", "-C", TOP] + list(args), capture_output=True, text=True,
                          check=True).stdout.strip()


def build_baseline(rev, workdir):
    """The acart of commit rev, built from its own sources with this tree's .deps."""
    src = os.path.join(workdir, "baseline-src")
    build = os.path.join(workdir, "baseline-build")
    os.makedirs(src)
    archive = subprocess.Popen(["git", "-C", TOP, "archive", rev], stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", src], stdin=archive.stdout, check=True)
    if archive.wait() != 0:
        sys.exit("git archive %s failed" % rev)
    quiet = {"stdout": subprocess.DEVNULL, "check": True}
    subprocess.run(["cmake", "-S", src, "-B", build, "-G", "Ninja",
                    "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                    "-DACART_DEPS_DIR=%s" % os.path.join(TOP, ".deps")], **quiet)
    subprocess.run(["ninja", "-C", build, "acart"], **quiet)
    return os.path.join(build, "tools", "acart")


def synth(tool, folder, elf, samples, cpus):
    lo, hi = text_range(elf)
    subprocess.run([tool, folder, "--cpus", str(cpus),
                    "--module", "/target/%s:%#x:%#x" % (os.path.basename(elf), lo & ~0xFFF, 0x100000),
                    "--task", "1:1:t1", "--task", "1:2:t2",
                    "--random", "%d:%#x:%#x:12345" % (samples, lo, hi)],
                   check=True, stdout=subprocess.DEVNULL)
    return sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder)
               if f.startswith("cpu") and f.endswith(".bin"))


class Best:
    """The best (shortest) wall time of a step over the rounds, with that round's figures."""

    def __init__(self):
        self.steps = {}

    def add(self, name, seconds, rss, cpu):
        old = self.steps.get(name)
        if old is None or seconds < old[0]:
            self.steps[name] = (seconds, rss, cpu)

    def __getitem__(self, name):
        return self.steps[name]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--acart", required=True)
    ap.add_argument("--synth", required=True)
    ap.add_argument("--run", required=True, help="bench_run")
    ap.add_argument("--elf", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--samples", type=int, default=10_000_000)
    ap.add_argument("--large-samples", type=int, default=100_000_000)
    ap.add_argument("--cpus", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--baseline-rev", default="HEAD~1",
                    help="commit whose acart is the baseline ('' for none)")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "tb5_import.txt"))
    args = ap.parse_args()

    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir)
    run = lambda acart, *a: timed(args.run, args.workdir, [acart] + list(a))
    impls = [("this commit", args.acart)]
    baseline = ""
    if args.baseline_rev:
        baseline = git("rev-parse", "--short", args.baseline_rev)
        impls.append(("baseline %s" % baseline, build_baseline(args.baseline_rev, args.workdir)))

    folder = os.path.join(args.workdir, "collection")
    raw = synth(args.synth, folder, args.elf, args.samples, args.cpus)
    best = {name: Best() for name, _ in impls}
    outputs = {}
    tb5_size = {}
    for _ in range(args.rounds):
        for name, acart in impls:
            tb5 = os.path.join(args.workdir, "collection.tb5")
            s, rss, cpu, _ = run(acart, "import", "-q", folder, "-o", tb5)
            best[name].add("import", s, rss, cpu)
            tb5_size[name] = os.path.getsize(tb5)
            s, rss, cpu, out = run(acart, "report", tb5, "--elf", args.elf)
            best[name].add("report tb5", s, rss, cpu)
            outputs[(name, "tb5")] = out.split("\n", 1)[1]  # after the Source: line
            s, rss, cpu, out = run(acart, "report", folder, "--elf", args.elf)
            best[name].add("report folder", s, rss, cpu)
            outputs[(name, "folder")] = out.split("\n", 1)[1]
            os.remove(tb5)
    if len(set(outputs.values())) != 1:
        sys.exit("the reports differ (folder against tb5 file, or against the baseline)")

    # Constant memory: the same steps over a collection --large-samples big.
    big = os.path.join(args.workdir, "large")
    shutil.rmtree(folder)
    big_raw = synth(args.synth, big, args.elf, args.large_samples, args.cpus)
    big_tb5 = os.path.join(args.workdir, "large.tb5")
    large = Best()
    large.add("import", *run(args.acart, "import", "-q", big, "-o", big_tb5)[:3])
    big_tb5_size = os.path.getsize(big_tb5)
    large.add("report tb5", *run(args.acart, "report", big_tb5, "--elf", args.elf)[:3])
    large.add("report folder", *run(args.acart, "report", big, "--elf", args.elf)[:3])

    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = " (with uncommitted changes)" if git("status", "--porcelain", "--untracked-files=no") else ""
    lines = [
        "acart host tools: import, bind and report of a synthetic collection (issue 12 P4)",
        "date %s, commit %s%s" % (datetime.date.today().isoformat(), commit, dirty),
        "host %s, %d CPUs, %s" % (cpu_model(), os.cpu_count(), platform.platform()),
        "input %d samples on %d CPUs (48-byte records): %.1f MiB raw" % (args.samples, args.cpus,
                                                                         raw / MIB),
        "each step: the best wall time of %d rounds, the two builds taking turns; CPU = user + "
        "system" % args.rounds,
        "",
        "%-17s %-15s %9s %9s %12s %10s %8s" % ("build", "step", "wall s", "CPU s", "samples/s",
                                               "RSS MiB", "RSS/raw"),
    ]
    for name, _ in impls:
        for step in ("import", "report tb5", "report folder"):
            s, rss, cpu = best[name][step]
            lines.append("%-17s %-15s %9.2f %9.2f %12.0f %10.1f %8.3f"
                         % (name, step, s, cpu, args.samples / s, rss / MIB, rss / raw))
    lines.append("")
    lines.append("Speed: import + bind + report of the tb5 file, end to end (target 5 M samples/s):")
    e2e = {}
    for name, _ in impls:
        s = best[name]["import"][0] + best[name]["report tb5"][0]
        cpu = best[name]["import"][2] + best[name]["report tb5"][2]
        e2e[name] = (s, cpu)
        lines.append("  %-17s %6.2f s wall, %10.0f samples/s; %6.2f s CPU, %10.0f samples/s of CPU"
                     % (name, s, args.samples / s, cpu, args.samples / cpu))
    if baseline:
        mine, theirs = e2e["this commit"], e2e["baseline %s" % baseline]
        lines.append("  ratio against baseline %s: %.2fx faster (wall), %.2fx (CPU)"
                     % (baseline, theirs[0] / mine[0], theirs[1] / mine[1]))
    lines.append("")
    lines.append("Size: tb5 file against the raw records (target at most 0.35):")
    for name, _ in impls:
        lines.append("  %-17s %8.1f MiB, %.3f of %.1f MiB" % (name, tb5_size[name] / MIB,
                                                            tb5_size[name] / raw, raw / MIB))
    lines.append("")
    lines.append("Memory: peak RSS of this commit at %d M and %d M samples (%.1f and %.1f MiB raw):"
                 % (args.samples // 1_000_000, args.large_samples // 1_000_000, raw / MIB,
                    big_raw / MIB))
    for step in ("import", "report tb5", "report folder"):
        small_rss, big_rss = best["this commit"][step][1], large[step][1]
        lines.append("  %-15s %7.1f MiB  %7.1f MiB  (x%.2f for x%d samples; %.1f s at %d M)"
                     % (step, small_rss / MIB, big_rss / MIB, big_rss / small_rss,
                        args.large_samples // args.samples, large[step][0],
                        args.large_samples // 1_000_000))
    lines.append("  tb5 file at %d M samples: %.1f MiB, %.3f of the raw records"
                 % (args.large_samples // 1_000_000, big_tb5_size / MIB, big_tb5_size / big_raw))
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write(text)
    sys.stdout.write(text)
    shutil.rmtree(args.workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
