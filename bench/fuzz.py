"""The fuzzing campaign (`make fuzz`): every libFuzzer target of tests/fuzz, built by
clang under ASan and UBSan, runs a number of executions from its committed seed corpus;
the executions each actually did, its time, the coverage it reached and whether it found
anything are written to bench/results/fuzz.txt (rewritten after each target, so an
interrupted campaign still records what it did; rows of targets it does not run, and the
notes below the rows, are kept; `kill -USR1` on a fuzzer ends its run early
and gracefully, recorded as such). Any crash, leak, timeout or out-of-memory
input is kept under BUILD/fuzz/findings/<target>/ and fails the campaign.

Usage: fuzz.py [--build BUILD] [--runs N] [--runs-for TARGET=N]... [--parallel K]
               [--targets a,b,...]"""
import argparse
import datetime
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
TARGETS = ["ecb", "tb5", "collection", "collect", "control", "pt"]
# libFuzzer's per-input limit is wall time: on a shared machine a niced fuzzer can be
# starved for seconds (a 10 s limit fired on an input that runs in 6 ms), so the limit is
# generous, and so is the time past which libFuzzer keeps an input as a "slow unit" (an
# 11 s one ran in 77 ms alone); a real hang still ends the run.
TIMEOUT_S = 60
# Extra seed folders beside tests/fuzz/corpus/<target>.
EXTRA_SEEDS = {"ecb": [os.path.join(TOP, "tests", "fixtures", "aca")]}

ap = argparse.ArgumentParser()
ap.add_argument("--build", default=os.path.join(TOP, "build"))
ap.add_argument("--runs", type=int, default=10_000_000, help="executions per target")
ap.add_argument("--runs-for", action="append", default=[], metavar="TARGET=N")
ap.add_argument("--seconds-for", action="append", default=[], metavar="TARGET=S",
                help="stop TARGET after S seconds even if it has not done its executions")
ap.add_argument("--parallel", type=int, default=1, help="targets run at once (at most 2)")
ap.add_argument("--targets", default=",".join(TARGETS))
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--out", default=os.path.join(HERE, "results", "fuzz.txt"))
args = ap.parse_args()
PARALLEL = max(1, min(args.parallel, 2))
runs_for = {}
for item in args.runs_for:
    name, _, n = item.partition("=")
    runs_for[name] = int(n.replace("_", ""))
seconds_for = {}
for item in args.seconds_for:
    name, _, n = item.partition("=")
    seconds_for[name] = int(n)
fuzz_dir = os.path.join(os.path.abspath(args.build), "fuzz")
targets = [t for t in args.targets.split(",")
           if os.path.exists(os.path.join(fuzz_dir, "fuzz_" + t))]
results = {}
started = datetime.datetime.now(datetime.timezone.utc)


def earlier_rows():
    """Rows of targets this run leaves alone, and the notes written below the rows by hand,
    from the results file as it is now (another campaign may be writing it too)."""
    kept, notes = {}, []
    if os.path.exists(args.out):
        past_header = False
        for line in open(args.out):
            parts = line.split()
            if line.startswith("  ") and parts and parts[0] in TARGETS and parts[0] not in targets:
                kept[parts[0]] = line.rstrip("\n")
            elif line.startswith("# target"):
                past_header = True
            elif past_header and line.startswith("#"):
                notes.append(line.rstrip("\n"))
    return kept, notes


def write_results():
    kept, notes = earlier_rows()
    lines = ["# make fuzz (bench/fuzz.py): libFuzzer (clang %s) under ASan+UBSan, leaks checked;"
             " executions are what each run did" % clang_version(),
             "# rows come from several campaigns: each names its commit, start, seed and targets"
             " run at once",
             "# %-11s %12s %12s %9s %9s %7s %9s  %s"
             % ("target", "asked", "executions", "seconds", "exec/s", "cov", "corpus", "result")]
    for t in TARGETS:
        if t in kept:
            lines.append(kept[t] + "  (other run)" * ("other run" not in kept[t] and "[" not in kept[t]))
            continue
        if t not in targets:
            continue
        r = results.get(t)
        if not r:
            lines.append("  %-11s %12d %12s %9s %9s %7s %9s  %s"
                         % (t, runs_of(t), "-", "-", "-", "-", "-", "not run"))
            continue
        lines.append("  %-11s %12d %12d %9.0f %9.0f %7s %9s  %s"
                     % (t, r["asked"], r["execs"], r["seconds"],
                        r["execs"] / r["seconds"] if r["seconds"] else 0, r["cov"], r["corpus"],
                        r["result"]))
    lines += notes
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")


def commit():
    out = subprocess.run(["git", "-C", TOP, "rev-parse", "--short", "HEAD"], capture_output=True,
                         text=True).stdout.strip()
    return out or "?"


def clang_version():
    try:
        out = subprocess.run(["clang", "--version"], capture_output=True, text=True).stdout
        m = re.search(r"version (\S+)", out)
        return m.group(1) if m else "?"
    except OSError:
        return "?"


def runs_of(t):
    return runs_for.get(t, args.runs)


def run_target(t):
    work = os.path.join(fuzz_dir, "campaign", t)
    findings = os.path.join(fuzz_dir, "findings", t)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.makedirs(findings, exist_ok=True)
    seeds = [os.path.join(TOP, "tests", "fuzz", "corpus", t)]
    seeds += [os.path.normpath(s) for s in EXTRA_SEEDS.get(t, []) if os.path.isdir(s)]
    cmd = ["nice", os.path.join(fuzz_dir, "fuzz_" + t), "-runs=%d" % runs_of(t),
           "-seed=%d" % args.seed, "-timeout=%d" % TIMEOUT_S,
           "-report_slow_units=%d" % TIMEOUT_S, "-rss_limit_mb=2048", "-max_len=65536",
           "-print_final_stats=1", "-max_total_time=%d" % seconds_for.get(t, 0), "-artifact_prefix=%s/" % findings, work] + seeds
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=1",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
    log_path = os.path.join(fuzz_dir, "campaign", t + ".log")
    t0 = time.monotonic()
    with open(log_path, "w") as log:
        rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, env=env).returncode
    seconds = time.monotonic() - t0
    text = open(log_path, errors="replace").read()
    execs = re.findall(r"stat::number_of_executed_units:\s*(\d+)", text)
    covs = re.findall(r"cov: (\d+)", text)
    corpus = re.findall(r"corp: (\d+/\S+)", text)
    found = sorted(os.listdir(findings))
    if rc == 0 and not found:
        result = "0 crashes"
        if int(execs[-1] if execs else 0) < runs_of(t):
            # libFuzzer ends early on -max_total_time, or gracefully on SIGUSR1.
            why = ("--seconds-for %s=%d" % (t, seconds_for[t]) if t in seconds_for
                   else "SIGUSR1" if "exiting as requested" in text else "an unknown cause")
            result += " (stopped by %s)" % why
    else:
        result = \
            "FAILED (exit %d; findings: %s; log %s)" % (rc, ", ".join(found) or "none", log_path)
    # Rows of several campaigns share the file: each says its own tree and start.
    result += " [%s, %s, seed %d, %d at once]" % (COMMIT, started.strftime("%Y-%m-%d %H:%M UTC"),
                                                  args.seed, PARALLEL)
    results[t] = {"asked": runs_of(t), "execs": int(execs[-1]) if execs else 0,
                  "seconds": seconds, "cov": covs[-1] if covs else "-",
                  "corpus": corpus[-1] if corpus else "-", "result": result}
    write_results()
    print("%s: %s executions in %.0f s: %s" % (t, results[t]["execs"], seconds, result),
          flush=True)
    return rc == 0 and not found


COMMIT = commit()  # the tree the campaign started from, whatever lands meanwhile
write_results()
with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
    # list() first: all() would stop at the first failed target, and closing map's
    # iterator cancels every target not yet started.
    ok = all(list(pool.map(run_target, targets)))
sys.exit(0 if ok else 1)
