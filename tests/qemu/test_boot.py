"""Boots the board with N CPUs: every CPU reports online, the network comes up."""
import argparse
import re
import sys

from acarttest.board import Board

ap = argparse.ArgumentParser()
ap.add_argument("--image", required=True)
ap.add_argument("--cpus", type=int, required=True)
ap.add_argument("--accel", default="auto")
ap.add_argument("--dhcp", action="store_true", help="address from QEMU's DHCP server")
args = ap.parse_args()

with Board(args.image, cpus=args.cpus, accel=args.accel, append="dhcp" if args.dhcp else "") as b:
    b.wait_for(r"^echo: listening on \d+\.\d+\.\d+\.\d+:9322$", timeout=120)
    con = b.console()
    online = re.findall(r"^cpu (\d+) online \(apic id (\d+)\)$", con, re.M)
    indexes = sorted(int(i) for i, _ in online)
    assert indexes == list(range(args.cpus)), "cpus online %s, wanted 0..%d\n%s" % (
        indexes, args.cpus - 1, con)
    apic_ids = [a for _, a in online]
    assert len(set(apic_ids)) == len(apic_ids), "duplicate APIC IDs: %s" % apic_ids
    assert ("smp: %d cpus online" % args.cpus) in con
    m = re.search(r"^net: up at (\S+) after (\d+) ms$", con, re.M)
    assert m, con
    if args.dhcp:
        assert re.search(r"^net: e1000 .* DHCP$", con, re.M), con
        assert m.group(1).startswith("10.0.2."), m.group(1)
    print("booted %d cpus, network up at %s after %s ms" % (args.cpus, m.group(1), m.group(2)))
sys.exit(0)
