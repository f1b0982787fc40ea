#!/usr/bin/env python3
"""Mutation checks (`make mutants`): applies each mutation of tests/mutants/mutants.txt in
a scratch copy of the tree, rebuilds what its group's tests need and runs them. A mutant
is killed when the build or a test fails, and survives when everything passes. Writes
bench/results/mutants.txt: one line per mutant, then the totals, and every survivor with
its explanation from tests/mutants/equivalent.txt (a survivor without one is an error:
exit status 1).

Usage: scripts/mutants.py [--scratch DIR] [--only REGEX] [--jobs N]
The scratch copy (default /tmp/acart-mutants) is made once with `git worktree`-free
copying of the tracked files plus .deps, configured once; each mutant then costs an
incremental build of its group's targets. Host unit tests only, except groups "board"
(transfer.c and the timer's samples run only on the board: the i686 build and two QEMU
collections), "selftest" (aca_selftest() on the booted board), "session" (how a session
ends, busy hosts included: qemu_session_end on the board) and "collect" (whether acart
collect calls a cut collection cut: tools_cut and tools_silent_cpus, against a scripted
target). Every pattern must occur exactly once in its file, checked before anything runs:
a pattern the code moved away from is an error, not a mutant skipped."""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# group: (ninja targets, ctest regex)
GROUPS = {
    "pmu": (["test_pmu", "test_sampler_pmu"], "^(pmu_sim|sampler_pmu_sim)$"),
    # The same tests on the 32-bit build of the code (build/sim-i686: tests/sim/CMakeLists.txt).
    "pmu_i686": (["sim_i686"], "^(pmu_sim|sampler_pmu_sim)_i686$"),
    "ring": (["test_ring", "ring_tsan_build", "test_sampler_pmu"],
             "^(unit_ring|unit_ring_tsan|sampler_pmu_sim)$"),
    "ecb": (["test_ecb", "test_collect_ecb", "test_sampler_pmu"],
            "^(wire_ecb|collect_ecb|sampler_pmu_sim)$"),
    "msr": (["test_msr_policy", "test_ecb"], "^(wire_msr_policy|wire_ecb)$"),
    # A 32-bit target's refusal of IA-32e-only MSRs exists only in the 32-bit build.
    "msr_i686": (["sim_i686"], "^(wire_msr_policy|wire_ecb)_i686$"),
    "pt": (["test_pt", "acart_simboard", "acart"], "^(pt_sim|pt_capture)$"),
    "board": (["target", "acart"],
              "^(qemu_collect_(delayed|immediate)|tools_board_backlog)_i686$"),
    "selftest": (["target"], "^qemu_selftest_i686$"),
    "session": (["target", "acart"], "^qemu_session_end_delayed_i686$"),
    # Cut is cut: the host's rule against a scripted target that cuts a channel.
    "collect": (["acart"], "^tools_(cut|silent_cpus)$"),
    # The port's task switches: the target's log and the host's reading and drawing of them.
    "switches": (["test_task_switches", "acart", "acart_test_workload", "acart_synth_collection"],
                 "^(unit_task_switches|tools_exports)$"),
    # acart pt's flow of calls and time: the blocks fed by hand, and real PT traces.
    "ptflow": (["acart", "acart_test_pt_flow"], "^(unit_pt_flow|pt_traces)$"),
    "kit": (["test_kit_platform"], "^kit_platform$"),
    "netstack": (["test_channel_send"], "^netstack_channel_send(_ref)?$"),
    "libc": (["target"], "^interrupt_paths_libc_free_i686$"),
    "tb5": (["tb5_test_zstd", "tb5_test_strings", "tb5_test_roundtrip"],
            "^tb5_(zstd|strings|roundtrip)$"),
}
# Groups whose tests boot QEMU: a mutant that stalls the board must fail by this timeout
# (ctest's --timeout does not apply to tests with a TIMEOUT property, as the QEMU tests
# have, so the whole ctest process group is killed here).
BOARD_TEST_TIMEOUT_S = 300


def read_mutants(path):
    mutants = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            fields = line.split("\t")
            if len(fields) != 4 or fields[0] not in GROUPS:
                sys.exit(f"{path}:{n}: expected group<TAB>file<TAB>pattern<TAB>replacement "
                         f"with a group of {sorted(GROUPS)}")
            group, file, pat, rep = fields
            mutants.append((n, group, file, pat.replace("\\n", "\n"), rep.replace("\\n", "\n")))
    return mutants


def read_equivalent(path):
    """{line number of the mutant: reason}"""
    out = {}
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^(\d+)\s+(.*)$", line.strip())
            if m:
                out[int(m.group(1))] = m.group(2)
    return out


def run(cmd, cwd, timeout):
    """The command in a process group of its own, all of which a timeout kills (QEMU
    included, which a hung test would otherwise leave running)."""
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        return -1, (out or "") + f"\ntimeout after {timeout} s"


def make_scratch(scratch):
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                           check=True).stdout.decode().split("\0")
    for f in files:
        if not f:
            continue
        src, dst = os.path.join(ROOT, f), os.path.join(scratch, f)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if not os.path.exists(dst) or open(src, "rb").read() != open(dst, "rb").read():
            shutil.copy2(src, dst)
    deps = os.path.join(scratch, ".deps")
    if not os.path.exists(deps):
        os.symlink(os.path.join(ROOT, ".deps"), deps)
    build = os.path.join(scratch, "build")
    if not os.path.exists(os.path.join(build, "build.ninja")):
        rc, out = run(["cmake", "-S", ".", "-B", "build", "-G", "Ninja",
                       "-DCMAKE_BUILD_TYPE=RelWithDebInfo"], scratch, 600)
        if rc:
            sys.exit("configuring the scratch copy failed:\n" + out[-3000:])


def test_group(scratch, group, jobs):
    targets, regex = GROUPS[group]
    rc, out = run(["nice", "ninja", "-j", str(jobs), "-C", "build"] + targets, scratch, 1800)
    if rc:
        return "build", out
    board = group in ("board", "selftest", "session")
    rc, out = run(["nice", "ctest", "--test-dir", "build", "-R", regex, "-j", str(jobs),
                   "--output-on-failure", "--timeout", "600"], scratch,
                  BOARD_TEST_TIMEOUT_S if board else 1800)
    if rc == -1:
        return "timeout", out
    return ("test" if rc else None), out


def check_patterns(mutants, root):
    """Every pattern occurs exactly once in its file; else the list is out of date."""
    errors = []
    for n, _group, file, pat, _rep in mutants:
        path = os.path.join(root, file)
        count = open(path, encoding="utf-8").read().count(pat) if os.path.exists(path) else 0
        if count != 1:
            errors.append(f"tests/mutants/mutants.txt:{n}: pattern occurs {count} times in "
                          f"{file}: {pat!r}")
    return errors


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scratch", default="/tmp/acart-mutants")
    ap.add_argument("--only", help="regex over 'group file' of the mutants to run")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--output", default=os.path.join(ROOT, "bench", "results", "mutants.txt"))
    args = ap.parse_args()

    mutants = read_mutants(os.path.join(ROOT, "tests", "mutants", "mutants.txt"))
    equivalent = read_equivalent(os.path.join(ROOT, "tests", "mutants", "equivalent.txt"))
    errors = check_patterns(mutants, ROOT)
    if errors:
        sys.exit("\n".join(errors))
    os.makedirs(args.scratch, exist_ok=True)
    tree = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT,
                          capture_output=True, text=True).stdout.strip()
    make_scratch(args.scratch)

    if args.only:
        mutants = [m for m in mutants if re.search(args.only, f"{m[1]} {m[2]}")]
    # The unmutated tree must pass every group's tests, or no kill means anything.
    for group in sorted({m[1] for m in mutants}):
        why, out = test_group(args.scratch, group, args.jobs)
        if why:
            sys.exit(f"group {group} fails without any mutation ({why}):\n{out[-3000:]}")

    lines, survivors, killed, started = [], [], 0, time.time()
    for n, group, file, pat, rep in mutants:
        path = os.path.join(args.scratch, file)
        original = open(path, encoding="utf-8").read()
        if original.count(pat) != 1:
            sys.exit(f"tests/mutants/mutants.txt:{n}: pattern occurs {original.count(pat)} times "
                     f"in {file}: {pat!r}")
        with open(path, "w", encoding="utf-8") as f:
            f.write(original.replace(pat, rep))
        try:
            why, _ = test_group(args.scratch, group, args.jobs)
        finally:
            with open(path, "w", encoding="utf-8") as f:
                f.write(original)
        short = pat.split("\n")[0].strip()
        if why:
            killed += 1
            verdict = f"killed ({why})"
        else:
            survivors.append(n)
            verdict = "SURVIVED"
        line = f"{n:4d} {group:5s} {file}: {short[:60]!r} -> {verdict}"
        print(line, flush=True)
        lines.append(line)
    # Leave the scratch build as the tree is, for the next run.
    test_group(args.scratch, "pmu", args.jobs)

    unexplained = [n for n in survivors if n not in equivalent]
    ran = {m[0] for m in mutants}
    stale = [n for n in sorted(equivalent) if n in ran and n not in survivors]
    total = killed + len(survivors)
    summary = [f"mutants: {total}, killed {killed}, survived {len(survivors)} "
               f"({len(survivors) - len(unexplained)} explained as equivalent, "
               f"{len(unexplained)} unexplained); {time.time() - started:.0f} s"]
    for n in survivors:
        summary.append(f"  survivor line {n}: {equivalent.get(n, 'UNEXPLAINED')}")
    for n in stale:
        summary.append(f"  line {n} is listed as equivalent but was killed: "
                       "tests/mutants/equivalent.txt is out of date")
    report = ["# scripts/mutants.py (make mutants): tests/mutants/mutants.txt, one mutant per "
              "line (its line number in that file)", f"# tree: {tree}"] + lines + summary
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    if not args.only:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write("\n".join(report) + "\n")
    print("\n".join(summary))
    return 1 if unexplained or stale else 0


if __name__ == "__main__":
    sys.exit(main())
