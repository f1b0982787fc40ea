"""The minimal build (docs/porting.md, "The memory budget") answers a host that asks for a
part it was built without as a target without that part does, and says so: counting mode
is refused in INIT_DRIVER with "not built in" on the console (collect exits 5), and
`--callstack=dwarf` finds no stack copies offered (collect exits 5 before START). The
board stays free: a plain time-based collection works after both."""
import argparse
import re
import time

from acarttest.board import Board, acart_collect

ap = argparse.ArgumentParser()
ap.add_argument("--image", required=True)
ap.add_argument("--acart", required=True)
args = ap.parse_args()


def session_ended(b, count):
    deadline = time.time() + 60
    while len(re.findall(r"^acart: session ended", b.console(), re.M)) < count:
        assert time.time() < deadline, "the session never ended:\n" + b.console()
        time.sleep(0.1)


with Board(args.image, cpus=1, workload="idle") as b:
    b.wait_for(r"^acart: listening on ", timeout=120)
    r = acart_collect(args.acart, b.port, "--count", "INST_RETIRED.ANY,CPU_CLK_UNHALTED.THREAD",
                      "--interval", "100")
    print(r.stdout, r.stderr)
    assert r.returncode == 5, "exit %d" % r.returncode
    assert "counting mode: the target refused it" in r.stderr, r.stderr
    b.wait_for(r"^acart: counting mode refused: not built in \(libacart.a has "
               r"ACA_WITH_COUNTING 0\)", timeout=30)
    session_ended(b, 1)

    r = acart_collect(args.acart, b.port, "--callstack=dwarf")
    print(r.stdout, r.stderr)
    assert r.returncode == 5, "exit %d" % r.returncode
    assert "the target does not copy stacks into samples" in r.stderr, r.stderr
    session_ended(b, 2)

    r = acart_collect(args.acart, b.port)
    assert r.returncode == 0, r.stderr
    assert "EXCEPTION" not in b.console(), b.console()
print("minimal build: counting mode and stack copies refused as not built in; sampling works")
