"""Pushes 4 MiB through the board's TCP echo and compares every byte."""
import argparse
import os
import socket
import threading
import time

from acarttest.board import Board

ap = argparse.ArgumentParser()
ap.add_argument("--image", required=True)
ap.add_argument("--mib", type=int, default=4)
args = ap.parse_args()

data = os.urandom(args.mib * 1024 * 1024)
with Board(args.image, cpus=2, workload="hotspot") as b:
    b.wait_for(r"^echo: listening on .*:9322$", timeout=120)
    s = socket.create_connection(("127.0.0.1", b.echo_port), timeout=60)
    got = bytearray()

    def reader():
        while len(got) < len(data):
            chunk = s.recv(1 << 16)
            if not chunk:
                break
            got.extend(chunk)

    t0 = time.time()
    th = threading.Thread(target=reader)
    th.start()
    s.sendall(data)
    th.join(120)
    dt = time.time() - t0
    s.close()
    assert len(got) == len(data), "echoed %d of %d bytes" % (len(got), len(data))
    first_bad = next((i for i in range(len(data)) if got[i] != data[i]), None)
    assert first_bad is None, "echo differs at byte %d" % first_bad
    print("echoed %d bytes intact, %.2f MB/s each way" % (len(data), len(data) / dt / 1e6))
