"""Code loaded at run time: the `overlay` workload loads overlay-a.bin, unloads it, loads
overlay-b.bin at the same address, and so on (CPU 1). The module channel must carry a load
record and an unload record for every lifetime that touched the collection, in order,
with TSCs that bracket the samples taken at that address, so that every such sample lies
in exactly one lifetime of the right module."""
import argparse
import re
import struct
import time

from acarttest import sep
from acarttest.board import Board

ap = argparse.ArgumentParser()
ap.add_argument("--image", required=True)
args = ap.parse_args()

def lifetimes_of(mod, lo, hi):
    """[name, load_tsc, unload_tsc or None] of every module record at the overlay's address."""
    lifetimes = []
    at = 0
    while at < len(mod):
        rec_len, seg_bits = struct.unpack_from("<HH", mod, at)
        length, load = struct.unpack_from("<QQ", mod, at + 16)
        unload_tsc, = struct.unpack_from("<Q", mod, at + 40)
        path_len, = struct.unpack_from("<H", mod, at + 52)
        tsc, = struct.unpack_from("<Q", mod, at + 64)
        name = mod[at + 80:at + 80 + path_len - 1].decode()
        at += rec_len
        if load != lo:
            continue
        assert length == hi - lo, (name, length)
        if seg_bits & 4:
            open_ones = [l for l in lifetimes if l[0] == name and l[2] is None]
            assert open_ones, "unload of %s without a load before it" % name
            assert unload_tsc == tsc and unload_tsc >= open_ones[-1][1], (name, unload_tsc)
            open_ones[-1][2] = unload_tsc
        else:
            assert unload_tsc == 2**64 - 1, (name, hex(unload_tsc))
            lifetimes.append([name, tsc, None])
    return lifetimes


with Board(args.image, cpus=2, workload="overlay") as b:
    b.wait_for(r"^acart: listening on ", timeout=120)
    m = re.search(r"^Overlay: 0x([0-9a-f]+)-0x([0-9a-f]+)$", b.console(), re.M)
    lo, hi = int(m.group(1), 16), int(m.group(2), 16)
    # About 20 lifetimes in 2 s of 100 ms loads on an idle machine. A loaded host slows
    # the virtual CPU, so a collection with too few to see them alternate is taken again,
    # longer (a new session on the same board).
    for seconds in (2, 6, 15):
        h = sep.Host(b.port)
        assert h.handshake()[0] == 0
        h.open_data_channels()
        statuses = sep.setup_collection(h)
        assert all(v == 0 for v in statuses.values()), statuses
        h.start_readers()
        assert h.request(sep.OP["START"])[0] == 0
        time.sleep(seconds)
        assert h.request(sep.OP["STOP"])[0] == 0
        h.join_readers()
        h.request(sep.OP["TERMINATE"])
        h.close()
        lifetimes = lifetimes_of(bytes(h.received[(1, 0)]), lo, hi)
        if len(lifetimes) >= 4:
            break

names = {l[0] for l in lifetimes}
assert names == {"overlay-a.bin", "overlay-b.bin"}, lifetimes
assert len(lifetimes) >= 4, "%d overlay lifetimes in %d s of 100 ms loads" % (len(lifetimes),
                                                                              seconds)
ordered = sorted(lifetimes, key=lambda l: l[1])
for prev, nxt in zip(ordered, ordered[1:]):
    assert prev[2] is not None and prev[2] <= nxt[1], "overlapping lifetimes %s %s" % (prev, nxt)
    assert prev[0] != nxt[0], "overlays did not alternate"

data = bytes(h.received[(0, 1)])
in_overlay = 0
for i in range(len(data) // 48):
    ip, = struct.unpack_from("<Q", data, 48 * i + 8)
    tsc, = struct.unpack_from("<Q", data, 48 * i + 40)
    if lo <= ip < hi:
        owners = [l for l in lifetimes if l[1] <= tsc and (l[2] is None or tsc < l[2])]
        assert len(owners) == 1, "sample at 0x%x tsc %d in %d lifetimes" % (ip, tsc, len(owners))
        in_overlay += 1
total1 = len(data) // 48
assert in_overlay >= 0.8 * total1, "only %d of %d cpu 1 samples in the overlay" % (in_overlay, total1)
print("%d overlay lifetimes; %d of %d cpu 1 samples in the overlay, each in exactly one" % (
    len(lifetimes), in_overlay, total1))
