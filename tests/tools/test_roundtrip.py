"""acart import -> acart tb5 print: the tb5 file verifies, is bound, and holds every sample
of the collection folder with the same address, CPU, pid, tid, event and TSC, in the same
counts per CPU, per event and per module as the folder (and as session.json reports), for
both forms of sample record on the wire (iip/ipsr as the board sends, eip/eflags/csd).
Then tb5 dump -> tb5 rewrite gives a file that prints the same records and reports the
same as the folder."""

import os
import re
import struct

from acarttest.tooltest import check, main, run

CPUS = 3
TSC_START, TSC_STEP = 7000, 50
MODULES = [("/target/image.elf", 0x100000, 0x40000), ("/target/net.bin", 0x200000, 0x1000)]
EVENTS = [("CPU_CLK_UNHALTED.REF_TSC", 2200000), ("BR_INST_RETIRED.ALL_BRANCHES", 400000)]
# (cpu, pid, tid, address, count, event)
RUNS = [(0, 1, 1, 0x100010, 40, 0), (0, 1, 2, 0x13FFF0, 25, 1), (1, 1, 3, 0x200004, 30, 0),
        (1, 2, 4, 0x100010, 10, 0), (2, 1, 1, 0x300000, 7, 0), (2, 1, 2, 0x100000, 13, 1),
        (0, 1, 1, 0x200FFF, 5, 0)]

RECORD = re.compile(r"^\s+#(\d+) ip (0x[0-9a-f]+) cs 0x[0-9a-f]+ cpu (\d+) pid (\d+) tid (\d+) "
                    r"event (\d+) tsc (\d+) -> (.+)$")


def module_name(address):
    for path, load, length in MODULES:
        if load <= address < load + length:
            return os.path.basename(path)
    return "(no module)"


def expected_records():
    """The records in the order import writes them: CPU by CPU, each in its own order."""
    records, per_cpu = [], {}
    for cpu in range(CPUS):
        k = 0
        for rcpu, pid, tid, address, count, event in RUNS:
            if rcpu != cpu:
                continue
            for _ in range(count):
                records.append((address, cpu, pid, tid, event, TSC_START + cpu + k * TSC_STEP,
                                module_name(address)))
                k += 1
        per_cpu[cpu] = k
    return records, per_cpu


def printed_records(text, what):
    m = re.search(r"^\s+data: (\d+) record\(s\) of (\d+) bytes$", text, re.M)
    check(m, "%s: no data line in tb5 print:\n%s" % (what, text[:3000]))
    records = []
    for line in text.splitlines():
        r = RECORD.match(line)
        if r:
            check(int(r.group(1)) == len(records), "%s: record #%s out of order" % (what, r.group(1)))
            records.append((int(r.group(2), 16), int(r.group(3)), int(r.group(4)), int(r.group(5)),
                            int(r.group(6)), int(r.group(7)), r.group(8)))
    check(int(m.group(1)) == len(records), "%s: %s records announced, %d printed"
          % (what, m.group(1), len(records)))
    check(m.group(2) == "40", "%s: records of %s bytes, expected 40 (PC record + TSC)" % (what, m.group(2)))
    return records


def check_raw_records(path, want, form, mode):
    """The stream-0 records of a tb5 dump, byte by byte: a 32-bit sample is written in the
    eip/eflags/csd form (TBRW guide 6.11) whatever its form on the wire, followed by its
    TSC: eip u32, eflags u32, csd u64, cs u16, cpuAndOS u16 (cpu 11:0, codeMode 14:13),
    tid u32, pid u32, bitFields2 u32 (eventIndex 27:20, IA64PC bit 29), tsc u64. A 64-bit
    sample in the iip/ipsr form with IA64PC set: iip u64, ipsr u64, then the same."""
    with open(path, "rb") as f:
        data = f.read()
    check(len(data) == 40 * len(want), "%s: %d bytes for %d records" % (path, len(data), len(want)))
    if mode == 64:
        for i, w in enumerate(want):
            iip, ipsr, cs, cpu_os, tid, pid, bits, tsc = struct.unpack_from("<QQHHIIIQ", data, 40 * i)
            got = (iip, cpu_os & 0xFFF, pid, tid, (bits >> 20) & 0xFF, tsc)
            check(got == w[:6], "raw record #%d: %s, expected %s" % (i, got, w[:6]))
            check(ipsr == 0x246 and cs == 8, "raw record #%d: ipsr %#x cs %#x" % (i, ipsr, cs))
            check((cpu_os >> 13) & 3 == 3, "raw record #%d: code mode %d, expected 64-bit (3)"
                  % (i, (cpu_os >> 13) & 3))
            check(bits & (1 << 29), "raw record #%d: IA64PC clear for a 64-bit sample" % i)
        return
    csd = 0x00CF9B000000FFFF if form == "eip" else 0
    for i, w in enumerate(want):
        eip, eflags, got_csd, cs, cpu_os, tid, pid, bits, tsc = struct.unpack_from("<IIQHHIIIQ", data, 40 * i)
        got = (eip, cpu_os & 0xFFF, pid, tid, (bits >> 20) & 0xFF, tsc)
        check(got == w[:6], "raw record #%d: %s, expected %s" % (i, got, w[:6]))
        check(eflags == 0x246 and got_csd == csd and cs == 8, "raw record #%d: eflags %#x csd %#x cs %#x"
              % (i, eflags, got_csd, cs))
        check((cpu_os >> 13) & 3 == 2, "raw record #%d: code mode %d, expected 32-bit (2)" % (i, (cpu_os >> 13) & 3))
        check(not bits & (1 << 29), "raw record #%d: IA64PC set for a 32-bit sample" % i)


def tally(records, field):
    counts = {}
    for r in records:
        counts[r[field]] = counts.get(r[field], 0) + 1
    return counts


def test_form(args, form, mode):
    folder = os.path.join(args.workdir, "%s-%d" % (form, mode))
    cmd = [args.synth, folder, "--cpus", CPUS, "--tsc-start", TSC_START, "--tsc-step", TSC_STEP,
           "--form", form, "--code-mode", str(mode)]
    for name, sav in EVENTS:
        cmd += ["--event", "%s:%d" % (name, sav)]
    for path, load, length in MODULES:
        cmd += ["--module", "%s:%#x:%#x" % (path, load, length)]
    for cpu, pid, tid, address, count, event in RUNS:
        cmd += ["--run", "%d:%d:%d:%#x:%d:%d" % (cpu, pid, tid, address, count, event)]
    run(cmd)
    want, want_per_cpu = expected_records()
    for cpu, n in want_per_cpu.items():
        size = os.path.getsize(os.path.join(folder, "cpu%d.bin" % cpu))
        check(size == 48 * n, "cpu%d.bin has %d bytes, expected %d records" % (cpu, size, n))

    tb5 = os.path.join(args.workdir, "%s-%d.tb5" % (form, mode))
    out, _ = run([args.acart, "import", folder, "-o", tb5])
    check("%d samples from %d CPUs" % (len(want), CPUS) in out, "import summary: %s" % out)

    printed, _ = run([args.acart, "tb5", "print", tb5])
    check(re.search(r"^tb5 file .*: verified$", printed, re.M), "tb5 print does not verify the file")
    check("bound in the file" in printed, "the imported stream is not bound")
    got = printed_records(printed, "import")
    check(len(got) == len(want), "tb5 print shows %d samples, the folder has %d" % (len(got), len(want)))
    for field, what in ((1, "CPU"), (4, "event"), (6, "module")):
        check(tally(got, field) == tally(want, field), "samples per %s: %s, expected %s"
              % (what, tally(got, field), tally(want, field)))
    for i, (g, w) in enumerate(zip(got, want)):
        check(g == w, "record #%d: %s, expected %s" % (i, g, w))
    per_module = dict((name, int(n)) for n, name in
                      re.findall(r"^\s+(\d+)\s+(?:#\d+ )?(\S.*)$",
                                 printed.split("samples per module:")[1].split("[")[0], re.M))
    check(per_module == tally(want, 6), "samples per module: %s, expected %s" % (per_module, tally(want, 6)))
    for name, sav in EVENTS:
        check(re.search(r"%s .*sav %d EBS" % (re.escape(name), sav), printed), "event %s not printed" % name)

    # dump -> rewrite: the same records, and the same report as the folder.
    dump = os.path.join(args.workdir, "%s-%d.dump" % (form, mode))
    again = os.path.join(args.workdir, "%s-%d-rewritten.tb5" % (form, mode))
    run([args.acart, "tb5", "dump", tb5, dump])
    check_raw_records(dump + ".stream0.dat", want, form, mode)
    run([args.acart, "tb5", "rewrite", dump, again])
    printed, _ = run([args.acart, "tb5", "print", again])
    check(printed_records(printed, "rewrite") == want, "the rewritten file holds other records")
    for by in ("cpu", "module", "task"):
        a, _ = run([args.acart, "report", folder, "--by", by])
        b, _ = run([args.acart, "report", again, "--by", by])
        check(a.split("\n", 1)[1] == b.split("\n", 1)[1],
              "report --by %s differs between the folder and the rewritten tb5:\n%s\n%s" % (by, a, b))


def test(args):
    # The board's two modes: 32-bit code in either wire form, 64-bit code in the iip form.
    for form, mode in (("iip", 32), ("eip", 32), ("iip", 64)):
        test_form(args, form, mode)


main(test)
