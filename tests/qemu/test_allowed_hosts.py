"""Who may connect (aca_config.allowed_hosts, issue 26). Under QEMU's user network every
connection reaches the board from 10.0.2.2, so the board boots twice: first allowing
subnets without 10.0.2.2, then one with it.

Refused: the connection is reset as it is accepted, before the board reads the first
message the host sent (the console never says "host connected"); `acart collect` fails;
the console names the address once, however often the host retried (acart collect
retries a refused connection for 10 s), so a scan cannot flood it. Allowed: a full
collection whose counts add up."""
import argparse
import json
import os
import re
import socket
import time

from acarttest import sep
from acarttest.board import Board, acart_collect

ap = argparse.ArgumentParser()
ap.add_argument("--image", required=True)
ap.add_argument("--acart", required=True)
args = ap.parse_args()

REFUSED = r"^acart: reset a connection from 10\.0\.2\.2:\d+: not in allowed_hosts"

with Board(args.image, cpus=1, workload="hotspot",
           append="allow=10.0.3.0/24,192.168.7.1/32") as b:
    b.wait_for(r"^acart: listening on ", timeout=120)
    assert re.search(r"^acart: hosts allowed to connect: 10\.0\.3\.0/24$", b.console(), re.M)
    assert re.search(r"^acart: hosts allowed to connect: 192\.168\.7\.1/32$", b.console(), re.M)

    # A host that sends its first message at once: closed with no answer.
    s = socket.create_connection(("127.0.0.1", b.port), timeout=10)
    try:
        s.sendall(sep.FIRST.pack(sep.FIRST.size, sep.PROTO, 0, 0, 0))
        reply = s.recv(4096)
    except (ConnectionResetError, BrokenPipeError):
        reply = b""
    s.close()
    assert reply == b"", "a host outside allowed_hosts got an answer: %r" % reply
    b.wait_for(REFUSED, timeout=30)

    r = acart_collect(args.acart, b.port)
    print(r.stderr.strip())
    assert r.returncode != 0, "acart collect from a host not allowed exited 0"
    time.sleep(1)
    con = b.console()
    lines = re.findall(REFUSED, con, re.M)
    assert len(lines) == 1, "refusals logged %d times, not once:\n%s" % (len(lines), con)
    assert not re.search(r"^acart: host connected", con, re.M), \
        "the board read a refused host's first message:\n%s" % con
    print("refused: reset before its handshake was read, logged once")

with Board(args.image, cpus=1, workload="hotspot", append="allow=10.0.2.0/24") as b:
    b.wait_for(r"^acart: listening on ", timeout=120)
    r = acart_collect(args.acart, b.port)
    print(r.stderr.strip()[-2000:])
    assert r.returncode == 0, "acart collect from an allowed host exited %d" % r.returncode
    session = json.load(open(os.path.join(r.folder, "session.json")))
    per_cpu = session["samples"]["per_cpu"]
    n = os.path.getsize(os.path.join(r.folder, "cpu0.bin")) // 48
    assert n > 0 and n == per_cpu[0] and session["samples"]["dropped_per_cpu"] == [0], \
        (n, per_cpu, session["samples"])
    assert not re.search(REFUSED, b.console(), re.M)
    print("allowed: a full collection of %d records" % n)
