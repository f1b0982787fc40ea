"""acart report on IPROBE sample files (docs/iprobe.md, "Sample files"), written here byte by
byte from the layout of runtime/wire/acart_wire.h: a file whose sample buffers collected
no PC (IprCreateSampleBuffers with IPR_DATA_TSC only, then IprWriteSampleBuffers) is
reported, not looped over, and says it has no PCs to profile; a file whose buffers hold PCs
in the workload's functions is profiled by function. A damaged buffer is an input error."""

import os
import struct
import subprocess

from acarttest.tooltest import check, main, symbols

DATA_PC, DATA_TSC, DATA_CPU = 0x1, 0x2, 0x4
REC_USER, REC_SBUFFER, REC_HIST = 1, 2, 3


def header(events):
    """struct acart_ipr_file_header: magic, tsc_hz, num_counters, reserved, 16 events and
    16 names of 32 bytes."""
    ev = [e for e, _ in events] + [0xFFFFFFFF] * (16 - len(events))
    names = [n.encode() for _, n in events] + [b""] * (16 - len(events))
    return (struct.pack("<16sQII", b"acart-ipr-v1", 2_000_000_000, len(events), 0)
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
    check(status == 3 and "smaller than their data items" in err,
          "a damaged buffer was not refused: exit %d\n%s%s" % (status, out, err))


main(test)
