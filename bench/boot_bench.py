"""Boot time to "network up" (wall clock from starting the runner to the agent listening,
and the board's own count from its first instruction), and TCP echo throughput, for 1, 2
and 4 CPUs. Writes bench/results/boot.txt. Usage, from the top of the tree (`make bench`
runs it so):
    PYTHONPATH=tests python3 bench/boot_bench.py --image IMAGE"""
import argparse
import os
import re
import socket
import threading
import time

from acarttest.board import Board

HERE = os.path.dirname(os.path.abspath(__file__))

ap = argparse.ArgumentParser()
ap.add_argument("--image", required=True)
ap.add_argument("--out", default=os.path.join(HERE, "results", "boot.txt"))
ap.add_argument("--mib", type=int, default=16)
args = ap.parse_args()

lines = []


def out(s):
    print(s)
    lines.append(s)


def echo_mbs(port, nbytes):
    data = os.urandom(nbytes)
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    got = bytearray()

    def reader():
        while len(got) < nbytes:
            chunk = s.recv(1 << 16)
            if not chunk:
                break
            got.extend(chunk)
    t0 = time.time()
    th = threading.Thread(target=reader)
    th.start()
    s.sendall(data)
    th.join()
    dt = time.time() - t0
    s.close()
    assert bytes(got) == data
    return nbytes / dt / 1e6


for cpus in (1, 2, 4):
    t0 = time.time()
    with Board(args.image, cpus=cpus, workload="idle") as b:
        b.wait_for(r"^echo: listening on ", timeout=120)
        wall = time.time() - t0
        ms = int(re.search(r"^net: up at \S+ after (\d+) ms$", b.console(), re.M).group(1))
        mbs = echo_mbs(b.echo_port, args.mib << 20)
        out("%d cpus (%s): network up %.2f s after starting QEMU, %d ms after the board's "
            "first instruction; echo %d MiB: %.2f MB/s each way" % (
                cpus, b.accelerator().split(" ")[0], wall, ms, args.mib, mbs))

os.makedirs(os.path.dirname(args.out), exist_ok=True)
with open(args.out, "w") as f:
    f.write("# bench/boot_bench.py, %s\n" % time.strftime("%Y-%m-%d %H:%M:%S"))
    f.write("\n".join(lines) + "\n")
