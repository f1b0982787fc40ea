"""Intel PT on the QEMU board, which has none (TCG offers no CPUID.07H:EBX[25]): the board
says so once on its console, its target status says so (the VERSION string the host reads
in the handshake, which acart collect keeps as session.json's target.os.version), and
`acart collect --pt` fails with the board's reason and exit status 5, leaving the board
free for the next host (a plain collection right after succeeds)."""
import argparse
import json
import os
import re

from acarttest.board import Board, acart_collect

ap = argparse.ArgumentParser()
ap.add_argument("--image", required=True)
ap.add_argument("--acart", required=True)
args = ap.parse_args()

with Board(args.image, cpus=2, workload="idle") as b:
    b.wait_for(r"^acart: listening on ", timeout=120)
    con = b.console()
    said = re.findall(r"^acart: no Intel PT \((.*)\): PT requests are refused$", con, re.M)
    assert len(said) == 1 and "CPUID.07H:EBX[25] is clear" in said[0], con
    r = acart_collect(args.acart, b.port, "--pt")
    print(r.stdout, r.stderr)
    assert r.returncode == 5, "acart collect --pt exited %d" % r.returncode
    assert ("--pt: 127.0.0.1:%d has no Intel PT: CPUID.07H:EBX[25] is clear" % b.port) in r.stderr
    b.wait_for(r"^acart: session ended", timeout=60)
    r = acart_collect(args.acart, b.port)
    assert r.returncode == 0, r.stderr
    with open(os.path.join(r.folder, "session.json")) as f:
        version = json.load(f)["target"]["os"]["version"]
    assert version.endswith(", no Intel PT"), "the target status says %r" % version
    con = b.console()
    assert "EXCEPTION" not in con, con
print("no Intel PT: said once on the console and in the target status (%r), --pt refused "
      "with the reason, exit 5" % version)
