"""acart report and acart export perfetto on IPROBE sample files (docs/iprobe.md, "Sample files"), written here byte by
byte from the layout of runtime/wire/acart_wire.h: a file whose sample buffers collected
no PC (IprCreateSampleBuffers with IPR_DATA_TSC only, then IprWriteSampleBuffers) is
reported, not looped over, and says it has no PCs to profile; a file whose buffers hold PCs
in the workload's functions is profiled by function. A damaged buffer is an input error.
The Perfetto timeline places 4-byte time stamps across their wraps and draws the counts;
a folder whose records have no time stamp is refused with the reason. An image of the
other mode than the one a file's header gives is refused by both, naming the two."""

import json
import os
import struct
import subprocess

from acarttest.tooltest import check, main, symbols

DATA_PC, DATA_TSC, DATA_CPU, DATA_CTR, DATA_COUNT = 0x1, 0x2, 0x4, 0x20, 0x40
REC_USER, REC_SBUFFER, REC_HIST = 1, 2, 3


def header(events, code_bits=64):
    """struct acart_ipr_file_header: magic, tsc_hz, num_counters, code_bits (the writer's
    mode; 64 as the workload's), 16 events and 16 names of 32 bytes."""
    ev = [e for e, _ in events] + [0xFFFFFFFF] * (16 - len(events))
    names = [n.encode() for _, n in events] + [b""] * (16 - len(events))
    return (struct.pack("<16sQII", b"acart-ipr-v1", 2_000_000_000, len(events), code_bits)
            + struct.pack("<16I", *ev) + b"".join(struct.pack("<32s", n) for n in names))


def record(rtype, payload):
    """struct acart_ipr_record and its payload, padded to the next multiple of 8."""
    body = struct.pack("<II", rtype, len(payload)) + payload
    return body + b"\0" * (-len(body) % 8)


def sbuffer(datcol, qdatcol, record_bytes, records, cpu=0, partial=1):
    """struct acart_ipr_sbuffer, then the records."""
    data = b"".join(records)
    return record(REC_SBUFFER, struct.pack("<6I", cpu, partial, datcol, qdatcol, record_bytes,
                                           len(data)) + data)


def histogram(begin, gran, cells, num_counters):
    """struct acart_ipr_hist of an address histogram on CPU 0, index 0, then its cells."""
    buckets = len(cells) // num_counters
    end = begin + (buckets << gran) - 1
    return record(REC_HIST, struct.pack("<4IQQII", 0, 1, 0, gran, begin, end, buckets,
                                        num_counters) + struct.pack("<%dI" % len(cells), *cells))


def report(args, folder):
    """acart report FOLDER --elf WORKLOAD: (exit status, stdout, stderr), or a failure when it
    does not end (before the fix it looped for ever on a buffer it skipped)."""
    cmd = [args.acart, "report", folder, "--elf", args.workload]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        check(False, "%s did not end within 20 s" % " ".join(cmd))
    return r.returncode, r.stdout, r.stderr


def test(args):
    tsc_only = os.path.join(args.workdir, "tsc_only")
    os.makedirs(tsc_only)
    # Two buffers of TSC-only records (8 bytes each, as qdatcol), an empty one with no
    # record size, then the program's own bytes after them: the report must reach those.
    with open(os.path.join(tsc_only, "timing.ipr"), "wb") as f:
        f.write(header([(0x10000, "TSC")])
                + sbuffer(DATA_TSC, DATA_TSC, 8, [struct.pack("<Q", 1000 + i) for i in range(3)])
                + sbuffer(DATA_TSC, DATA_TSC, 8, [struct.pack("<Q", 2000)], cpu=1)
                + sbuffer(0, 0, 0, [])
                + record(REC_USER, b"0123456789"))
    status, out, err = report(args, tsc_only)
    check(status == 0, "report of PC-less buffers: exit %d\n%s%s" % (status, out, err))
    check("3 sample buffers collected no PC (data items 0x2): they have no PCs to profile" in out,
          "the report does not say the buffers have no PCs:\n" + out)
    check("10 bytes of the program's own data" in out,
          "the records after the PC-less buffers were not read:\n" + out)
    check("Sample buffers:" not in out, "a profile from buffers without PCs:\n" + out)

    # PCs (8 bytes) and CPUs (4 bytes): 12-byte records; three in beta, one in gamma_fn;
    # before them a histogram of two 16-byte buckets from beta (2 counters: 5 samples).
    sym = symbols(args.workload)
    beta, gamma = sym["beta"][0], sym["gamma_fn"][0]
    pcs = os.path.join(args.workdir, "pcs")
    os.makedirs(pcs)
    recs = [struct.pack("<QI", pc, 0) for pc in (beta, beta + 1, beta + 2, gamma)]
    with open(os.path.join(pcs, "profile.ipr"), "wb") as f:
        f.write(header([(0x10000, "TSC"), (0xC0, "INST_RETIRED.ANY")])
                + histogram(beta, 4, [0, 2, 1, 2], 2)
                + sbuffer(DATA_PC | DATA_CPU, DATA_PC, 12, recs[:2], partial=0)
                + sbuffer(DATA_TSC, DATA_TSC, 8, [struct.pack("<Q", 5)])
                + sbuffer(DATA_PC | DATA_CPU, DATA_PC, 12, recs[2:]))
    status, out, err = report(args, pcs)
    check(status == 0, "report of PC buffers: exit %d\n%s%s" % (status, out, err))
    check(", 16-byte buckets, 5 samples" in out, "the histogram is missing:\n" + out)
    check("Sample buffers: 2 buffers, 4 samples" in out, "wrong buffer totals:\n" + out)
    rows = {}
    for line in out.split("Sample buffers:")[1].splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] in ("beta", "gamma_fn"):
            rows[parts[0]] = (int(parts[1]), parts[2])
    check(rows == {"beta": (3, "75.0%"), "gamma_fn": (1, "25.0%")},
          "wrong profile %r:\n%s" % (rows, out))
    check("1 sample buffers collected no PC (data items 0x2)" in out,
          "the PC-less buffer among PC buffers is not mentioned:\n" + out)

    # Records smaller than their data items (PC and CPU need 8 bytes) are damage (exit 3),
    # also after a good buffer has started the profile (under the sanitizer build: nothing
    # of it leaks).
    damaged = os.path.join(args.workdir, "damaged")
    os.makedirs(damaged)
    with open(os.path.join(damaged, "bad.ipr"), "wb") as f:
        f.write(header([(0x10000, "TSC")])
                + sbuffer(DATA_PC | DATA_CPU, DATA_PC, 12, recs[:1])
                + sbuffer(DATA_PC | DATA_CPU, 0, 2, [b"\1\2", b"\3\4"]))
    status, out, err = report(args, damaged)
    check(status == 3 and "records cannot hold their data items" in err,
          "a damaged buffer was not refused: exit %d\n%s%s" % (status, out, err))

    check_perfetto(args)
    check_modes(args, recs)


def check_modes(args, recs):
    """Files of 32-bit code (their header says so) with the workload's ELF64 image: report
    and export perfetto refuse it (exit 3) naming the file and both modes, as for a
    collection; a file of before the mode was recorded (0) is read; any other is damage."""
    for bits, status, phrase in [
            (32, 3, "is an ELF64 image, but the IPROBE sample file %s is of 32-bit code "
                    "(IA-32) (its header says so): give the image the target ran"),
            (0, 0, None),
            (7, 3, "%s: code mode of 7 bits in the header: 32 or 64")]:
        folder = os.path.join(args.workdir, "mode%d" % bits)
        os.makedirs(folder)
        path = os.path.join(folder, "p.ipr")
        with open(path, "wb") as f:
            f.write(header([(0x10000, "TSC")], code_bits=bits)
                    + sbuffer(DATA_PC | DATA_CPU, DATA_PC, 12, recs[:1]))
        got, out, err = report(args, folder)
        check(got == status, "report of a file of %d-bit code: exit %d, expected %d\n%s%s"
              % (bits, got, status, out, err))
        if phrase:
            check(phrase % path in err, "report: the message does not say %r:\n%s"
                  % (phrase % path, err))
            check("Sample buffers:" not in out, "a report despite the mismatch:\n" + out)
        if bits == 32:
            r = subprocess.run([args.acart, "export", "perfetto", folder, "--elf", args.workload,
                                "-o", os.path.join(args.workdir, "mode.json")],
                               capture_output=True, text=True, timeout=20)
            check(r.returncode == 3 and phrase % path in r.stderr,
                  "export perfetto of a file of 32-bit code with an ELF64 image: exit %d\n%s"
                  % (r.returncode, r.stderr))


def check_perfetto(args):
    """Records of PC, a 4-byte TSC (its low half, wrapping between the second and the third)
    and the count of counter 1 in 8 bytes, on CPU 2: instants at times that keep growing
    across the wrap, and the counts on track "cpu2 INST_RETIRED.ANY"."""
    folder = os.path.join(args.workdir, "timeline")
    os.makedirs(folder)
    beta = symbols(args.workload)["beta"][0]
    tscs = [0xFFFF0000, 0xFFFFF000, 0x00000800, 0x00010000]
    counts = [1000, 2000, 3000, 4000]
    recs = [struct.pack("<IIIQ", beta, t, 1, c) for t, c in zip(tscs, counts)]
    with open(os.path.join(folder, "a.ipr"), "wb") as f:
        f.write(header([(0x10000, "TSC"), (0xC0, "INST_RETIRED.ANY")])
                + sbuffer(DATA_PC | DATA_TSC | DATA_CTR | DATA_COUNT, DATA_COUNT, 20, recs,
                          cpu=2))
    out = os.path.join(args.workdir, "timeline.json")
    r = subprocess.run([args.acart, "export", "perfetto", folder, "--elf", args.workload, "-o",
                        out], capture_output=True, text=True, timeout=20)
    check(r.returncode == 0, "export perfetto: exit %d\n%s" % (r.returncode, r.stderr))
    with open(out) as f:
        events = json.load(f)["traceEvents"]
    # 2 GHz (header): 2000 ticks a microsecond; the third record is 0x1800 ticks after the
    # second once its wrap is undone.
    want_ts = [round((t + (1 << 32 if i >= 2 else 0) - tscs[0]) / 2000.0, 3)
               for i, t in enumerate(tscs)]
    instants = [(e["name"], e["tid"], e["ts"]) for e in events if e["ph"] == "i"]
    check(instants == [("beta", 2, ts) for ts in want_ts], "instants %s, expected at %s"
          % (instants, want_ts))
    counters = [(e["name"], e["ts"], e["args"]["count"]) for e in events if e["ph"] == "C"]
    check(counters == [("cpu2 INST_RETIRED.ANY", ts, c) for ts, c in zip(want_ts, counts)],
          "counters %s" % counters)

    timeless = os.path.join(args.workdir, "timeless")
    os.makedirs(timeless)
    with open(os.path.join(timeless, "b.ipr"), "wb") as f:
        f.write(header([(0x10000, "TSC")]) + sbuffer(DATA_PC, 0, 4, [struct.pack("<I", beta)]))
    r = subprocess.run([args.acart, "export", "perfetto", timeless, "-o", out],
                       capture_output=True, text=True, timeout=20)
    check(r.returncode == 3 and "no sample-buffer records with a time stamp" in r.stderr,
          "records without time: exit %d\n%s" % (r.returncode, r.stderr))


main(test)
