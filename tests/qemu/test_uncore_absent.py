"""The uncore on the QEMU board, which has none (TCG offers no PMU, and the uncore is not
virtualised): the board says so once on its console, its target status leaves the uncore
bit clear, and `acart collect --uncore` fails with exit status 5 after the board refused
INIT_UNC with UNSUPPORTED_UNCORE_ARCH_TYPE and a console line naming the reason, leaving the
board free for the next host (a plain collection right after succeeds)."""
import argparse
import re

from acarttest.board import Board, acart_collect

ap = argparse.ArgumentParser()
ap.add_argument("--image", required=True)
ap.add_argument("--acart", required=True)
args = ap.parse_args()

REASON = "no usable core PMU, so no uncore either"
with Board(args.image, cpus=2, workload="idle") as b:
    b.wait_for(r"^acart: listening on ", timeout=120)
    con = b.console()
    said = re.findall(r"^acart: no uncore \((.*)\): uncore requests are refused$", con, re.M)
    assert said == [REASON], con
    r = acart_collect(args.acart, b.port, "--uncore", "UNC_IMC_DRAM_DATA_READS")
    print(r.stdout, r.stderr)
    assert r.returncode == 5, "acart collect --uncore exited %d" % r.returncode
    assert ("--uncore: 127.0.0.1:%d has no uncore acart can count (INIT_UNC answered 167, "
            "UNSUPPORTED_UNCORE_ARCH_TYPE" % b.port) in r.stderr, r.stderr
    b.wait_for(r"^acart: INIT_UNC refused: " + re.escape(REASON) + "$", timeout=30)
    b.wait_for(r"^acart: session ended", timeout=60)
    r = acart_collect(args.acart, b.port)
    assert r.returncode == 0, r.stderr
    con = b.console()
    assert "EXCEPTION" not in con, con
print("no uncore: said once on the console, INIT_UNC refused with the reason, exit 5")
