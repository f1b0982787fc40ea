"""Events by name on the QEMU board, which has no PMU (TCG: CPUID.0AH:EAX is 0) and samples
on a timer: `acart collect --event` with a perfmon name, and `--metrics tma1`, fail with
the no-PMU reason and exit status 5 before anything is configured, leaving the board free;
`--lbr` fails likewise (no LBR acart reads); a built-in event's name still sets the
timer's rate (a collection right after succeeds)."""
import argparse
import re
import time

from acarttest.board import Board, acart_collect

ap = argparse.ArgumentParser()
ap.add_argument("--image", required=True)
ap.add_argument("--acart", required=True)
args = ap.parse_args()


def wait_sessions_ended(board, n, timeout=60):
    """Until the console says n sessions ended: the board is free for the next host."""
    deadline = time.time() + timeout
    while len(re.findall(r"^acart: session ended", board.console(), re.M)) < n:
        assert time.time() < deadline, "session %d never ended:\n%s" % (n, board.console())
        time.sleep(0.1)


with Board(args.image, cpus=2, workload="idle") as b:
    b.wait_for(r"^acart: listening on ", timeout=120)
    assert re.search(r"samples are time-based", b.console()), b.console()
    sessions = 0
    for extra in (["--event", "BR_MISP_RETIRED.ALL_BRANCHES,INST_RETIRED.ANY"],
                  ["--metrics", "tma1"]):
        r = acart_collect(args.acart, b.port, *extra)
        print(r.stdout, r.stderr)
        assert r.returncode == 5, "%s: exit %d" % (extra, r.returncode)
        assert "the target has no usable PMU and samples on a timer" in r.stderr, r.stderr
        sessions += 1
        wait_sessions_ended(b, sessions)
    # LBRs: the CPU QEMU reports has none acart reads; refused before anything is set up.
    r = acart_collect(args.acart, b.port, "--lbr")
    print(r.stdout, r.stderr)
    assert r.returncode == 5, "--lbr: exit %d" % r.returncode
    assert "has no LBR acart can read" in r.stderr, r.stderr
    sessions += 1
    wait_sessions_ended(b, sessions)
    r = acart_collect(args.acart, b.port, "--event", "INST_RETIRED.ANY:sa=2000000")
    assert r.returncode == 0, r.stderr
    assert "EXCEPTION" not in b.console(), b.console()
print("no PMU: perfmon names, --metrics and --lbr refused with the reason, exit 5; "
      "built-ins work")
