"""Counting mode on the QEMU board, which has no PMU (TCG: CPUID.0AH:EAX is 0): `acart
collect --count` asks for it in INIT_DRIVER, the board refuses it and says why on its
console, collect fails with that reason and exit status 5, and the board is free for a
sampling collection right after."""
import argparse
import re
import time

from acarttest.board import Board, acart_collect

ap = argparse.ArgumentParser()
ap.add_argument("--image", required=True)
ap.add_argument("--acart", required=True)
args = ap.parse_args()


with Board(args.image, cpus=2, workload="idle") as b:
    b.wait_for(r"^acart: listening on ", timeout=120)
    assert re.search(r"samples are time-based", b.console()), b.console()
    r = acart_collect(args.acart, b.port, "--count", "INST_RETIRED.ANY,CPU_CLK_UNHALTED.THREAD",
                      "--interval", "100")
    print(r.stdout, r.stderr)
    assert r.returncode == 5, "exit %d" % r.returncode
    assert "counting mode: the target refused it" in r.stderr, r.stderr
    assert "no usable PMU and samples on a timer" in r.stderr, r.stderr
    b.wait_for(r"^acart: counting mode refused: it reads the PMU's counters, and this CPU has "
               r"no usable PMU", timeout=30)
    deadline = time.time() + 60
    while not re.search(r"^acart: session ended", b.console(), re.M):
        assert time.time() < deadline, "the session never ended:\n" + b.console()
        time.sleep(0.1)
    r = acart_collect(args.acart, b.port, "--event", "INST_RETIRED.ANY:sa=2000000")
    assert r.returncode == 0, r.stderr
    assert "EXCEPTION" not in b.console(), b.console()
print("no PMU: counting mode refused on the console and by collect (exit 5); sampling works")
