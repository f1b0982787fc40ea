"""IPROBE on the qemu-pc board (workload `selfmeasure`, docs/iprobe.md), two parts.

--part selfmeasure: the last CPU measures its control loop every 100 ms period and prints
cycles per iteration; while it owns the counters, `acart collect` is refused with a clear
message (and the board says why). Then `acart fetch` copies selfmeasure.ipr and the test
reads it itself: the image histogram (16-byte buckets) must put at least 95 % of its
samples into the buckets of selfmeasure_filter (range from the image's symbol table), the
routine's own byte histogram must hold those same samples, and the sample buffers' PCs
must agree; `acart report` must name selfmeasure_filter first.

--part interplay: a host collection holds the counters when selfmeasure asks for them:
IprAllocate answers IPR__HOSTSESSION on the console, the collection completes normally,
and once its session ends selfmeasure gets the counters."""
import argparse
import json
import os
import re
import struct
import subprocess
import tempfile

from acarttest.board import Board, image_arch

ap = argparse.ArgumentParser()
ap.add_argument("--image", required=True)
ap.add_argument("--acart", required=True)
ap.add_argument("--part", choices=["selfmeasure", "interplay"], required=True)
args = ap.parse_args()


def symbol_range(image, name):
    out = subprocess.run(["nm", "-S", image], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[3] == name:
            start, size = int(parts[0], 16), int(parts[1], 16)
            return start, start + size
    raise AssertionError("no symbol %s in %s" % (name, image))


def acart(*argv, timeout=120):
    r = subprocess.run([args.acart] + list(argv), capture_output=True, text=True, timeout=timeout)
    print("$ acart", " ".join(argv), "->", r.returncode)
    print(r.stdout[-3000:], r.stderr[-2000:])
    return r


def read_ipr(path):
    """The records of an IPROBE sample file (acart_wire.h)."""
    data = open(path, "rb").read()
    assert data[:12] == b"acart-ipr-v1", "not an IPROBE file"
    num_counters, code_bits = struct.unpack_from("<II", data, 24)
    want_bits = 64 if image_arch(args.image) == "x86_64" else 32
    assert code_bits == want_bits, "the header says %d-bit code, the board runs %d-bit code" % (
        code_bits, want_bits)
    at, hists, buffers = 608, [], []
    while at + 8 <= len(data):
        rtype, nbytes = struct.unpack_from("<II", data, at)
        p = at + 8
        if rtype == 3:
            cpu, htype, index, gran, begin, end, nb, nc = struct.unpack_from("<IIIIQQII", data, p)
            cells = struct.unpack_from("<%dI" % (nb * nc), data, p + 40)
            hists.append(dict(cpu=cpu, type=htype, index=index, gran=gran, begin=begin, end=end,
                              buckets=[sum(cells[b * nc:(b + 1) * nc]) for b in range(nb)]))
        elif rtype == 2:
            cpu, partial, datcol, qdatcol, rbytes, used = struct.unpack_from("<6I", data, p)
            # selfmeasure's items: PC (4 bytes), TSC (8), CPU, counter (4), count (8).
            assert datcol == 0x67 and qdatcol == 0x42 and rbytes >= 28, (datcol, qdatcol, rbytes)
            for r in range(0, used, rbytes):
                pc, tsc, cpu, ctr, count = struct.unpack_from("<IQIIQ", data, p + 24 + r)
                buffers.append((pc, tsc, cpu, ctr, count))
        at += (8 + nbytes + 7) & ~7
    assert at == len(data), "records do not add up to the file"
    return num_counters, hists, buffers


lo, hi = symbol_range(args.image, "selfmeasure_filter")

if args.part == "selfmeasure":
    with Board(args.image, cpus=2, workload="selfmeasure", append="selfmeasure=0,6") as b:
        b.wait_for(r"^acart: listening on ", timeout=120)
        m = b.wait_for(r"^selfmeasure: owner of the counters on cpu (\d+)", timeout=60)
        cpu = int(m.group(1))
        b.wait_for(r"^selfmeasure: period 2: (\d+) iterations, (\d+) TSC cycles", timeout=60)
        periods = re.findall(r"^selfmeasure: period \d+: (\d+) iterations, (\d+) TSC cycles per "
                             r"iteration", b.console(), re.M)
        assert all(int(i) > 0 and int(c) > 0 for i, c in periods), periods
        # The IPROBE owner blocks a host collection, with a clear message.
        out = tempfile.mkdtemp(prefix="acart-selfmeasure-collect-")
        r = acart("collect", "--target", "127.0.0.1:%d" % b.port, "--duration", "1", "-o", out)
        assert r.returncode == 5, r.returncode
        assert "owns the counters through IPROBE" in r.stderr, r.stderr
        b.wait_for(r"^selfmeasure: wrote selfmeasure.ipr", timeout=120)
        m = re.search(r"^selfmeasure: histogram: (\d+) of (\d+) samples", b.console(), re.M)
        print("board:", m.group(0))
        fetched = tempfile.mkdtemp(prefix="acart-fetch-")
        r = acart("fetch", "--target", "127.0.0.1:%d" % b.port, "-o", fetched)
        assert r.returncode == 0, r.returncode
        assert "EXCEPTION" not in b.console(), b.console()
    path = os.path.join(fetched, "selfmeasure.ipr")
    num_counters, hists, records = read_ipr(path)
    pcs = [r[0] for r in records]
    image = [h for h in hists if h["type"] == 1 and h["index"] == 0]
    fine = [h for h in hists if h["type"] == 1 and h["index"] == 1]
    modes = [h for h in hists if h["type"] == 2]
    assert len(image) == 1 and len(fine) == 1 and len(modes) == 1, hists
    image, fine = image[0], fine[0]
    assert image["cpu"] == cpu and image["gran"] == 4 and fine["begin"] == lo
    total = sum(image["buckets"])
    inside = sum(n for k, n in enumerate(image["buckets"])
                 if image["begin"] + (k << 4) < hi and image["begin"] + ((k + 1) << 4) > lo)
    nonzero = [k for k, n in enumerate(image["buckets"]) if n]
    print("image histogram: %d samples, %d in the routine's buckets (%.1f %%), %d buckets hit"
          % (total, inside, 100.0 * inside / total, len(nonzero)))
    assert total >= 1000, total
    assert inside >= 0.95 * total, (inside, total)
    # The byte histogram of the routine holds exactly the samples inside its range.
    exact = sum(fine["buckets"])
    in_range = sum(n for k, n in enumerate(image["buckets"])
                   if lo <= image["begin"] + (k << 4) and image["begin"] + ((k + 1) << 4) <= hi)
    assert in_range <= exact <= inside, (in_range, exact, inside)
    assert exact >= 0.95 * total, (exact, total)
    assert sum(modes[0]["buckets"]) == total
    # Sample buffers: a profile with the same picture.
    in_pcs = sum(1 for pc in pcs if lo <= pc < hi)
    print("sample buffers: %d samples, %d inside the routine" % (len(pcs), in_pcs))
    assert len(pcs) >= 1000 and in_pcs >= 0.95 * len(pcs)
    r = acart("report", fetched, "--elf", args.image, "--top", "5")
    assert r.returncode == 0
    rows = re.findall(r"^  (\S+)\s+(\d+)\s+[\d.]+%$", r.stdout, re.M)
    assert rows and rows[0][0] == "selfmeasure_filter", rows
    assert "Address histogram, cpu %d, index 0" % cpu in r.stdout
    assert "Sample buffers:" in r.stdout
    # The Perfetto timeline of the fetched folder: an instant per record, named by its
    # function, and the interrupting counter's count as a counter track of its CPU.
    timeline = os.path.join(fetched, "timeline.json")
    r = acart("export", "perfetto", fetched, "--elf", args.image, "-o", timeline)
    assert r.returncode == 0, r.returncode
    with open(timeline) as f:
        events = json.load(f)["traceEvents"]
    instants = [e for e in events if e["ph"] == "i" and e.get("cat") == "iprobe"]
    assert len(instants) == len(records), (len(instants), len(records))
    assert sorted(int(e["args"]["ip"], 16) for e in instants) == sorted(pcs)
    named = sum(1 for e in instants if e["name"] == "selfmeasure_filter")
    assert named == in_pcs, (named, in_pcs)
    names = {e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    assert names == {"IPROBE"}, names
    counters = [e for e in events if e["ph"] == "C"]
    # Each count at its record's time (microseconds from the earliest TSC).
    base, hz = min(rec[1] for rec in records), json.load(open(timeline))["otherData"]["tsc_hz"]
    want = sorted(("cpu%d" % rec[2], round((rec[1] - base) * 1e6 / hz, 3), rec[4])
                  for rec in records)
    got = sorted((e["name"].split(" ")[0], e["ts"], e["args"]["count"]) for e in counters)
    assert len(got) == len(want) and all(
        g[0] == w[0] and abs(g[1] - w[1]) < 0.002 and g[2] == w[2] for g, w in zip(got, want)), (
        got[:5], want[:5])
    # Only counter 0, the TSC, has a sampling period (select_events): it takes every sample.
    assert all(rec[3] == 0 for rec in records)
    assert {e["name"] for e in counters} == {"cpu%d TSC" % cpu}, {e["name"] for e in counters}
    print("perfetto: %d instants (%d in selfmeasure_filter), %d counter values"
          % (len(instants), named, len(counters)))
else:
    # selfmeasure asks for the counters 6 s after boot, when the collection below holds them.
    with Board(args.image, cpus=2, workload="selfmeasure", append="selfmeasure=6000,1") as b:
        b.wait_for(r"^acart: listening on ", timeout=120)
        assert "selfmeasure: owner" not in b.console()
        out = tempfile.mkdtemp(prefix="acart-interplay-")
        r = acart("collect", "--target", "127.0.0.1:%d" % b.port, "--duration", "12", "-o", out,
                  timeout=240)
        assert r.returncode == 0, r.returncode
        con = b.console()
        refused = con.find("selfmeasure: IprAllocate: IPR__HOSTSESSION")
        assert refused >= 0, con
        assert "owner of the counters" not in con[:refused], con
        b.wait_for(r"^selfmeasure: owner of the counters", timeout=60)
        b.wait_for(r"^selfmeasure: wrote selfmeasure.ipr", timeout=60)
        assert "EXCEPTION" not in b.console()
print("ok")
