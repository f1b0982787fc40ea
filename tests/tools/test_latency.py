"""`acart report --latency` on synthetic collections of the test workload (records as
`acart collect --event MEM_TRANS_RETIRED.LOAD_LATENCY_GT_N:precise` writes them: the
48 bytes, then the 40-byte memory information of docs/sep-protocol.md 6.4).

- Loads count once per sample in the row of their data source (bits 3:0 of the encoding),
  named as the target's model decodes it (Linux's ds.c tables: Sandy Bridge to Broadwell,
  Nehalem's snoop entries, Skylake's L4/PMEM and remote ones), with their share, average
  latency, STLB share (bit 4; none on Nehalem, whose records have no TLB information) and a
  histogram whose buckets hold exactly their loads; an unknown model's encodings are shown
  as numbers.
- Each function has its loads, average and largest latency, named through the image.
- Samples without a load (an event that is not a load-latency one) are counted but have
  no row; a collection without the memory area is a usage error that says what to
  collect.
- `export csv` writes each load's latency at its sample's TSC (latency-cpuN)."""

import os

from acarttest.callstack import Workload
from acarttest.latency import report_rows
from acarttest.tooltest import check, main, run

IMAGE_BASE, IMAGE_SIZE = 0x400000, 0x200000
BUCKETS = ["<8", "<16", "<32", "<64", "<128", "<256", "<512", "<1024", ">=1024"]


def bucket(latency):
    b, edge = 0, 8
    while b < len(BUCKETS) - 1 and latency >= edge:
        b, edge = b + 1, edge * 2
    return b


def synth(args, w, name, model, runs, latency=True):
    """runs: (function, (address, latency, source) or None, count)."""
    folder = os.path.join(args.workdir, name)
    cmd = [args.synth, folder, "--model", str(model),
           "--module", "/target/%s:%#x:%#x" % (os.path.basename(args.workload), IMAGE_BASE,
                                                IMAGE_SIZE)]
    if latency:
        cmd.append("--latency")
    for function, load, count in runs:
        if load:
            cmd += ["--load", "%#x:%d:%#x" % load]
        cmd += ["--run", "0:1:1:%#x:%d" % (w.syms[function][0] + 4, count)]
    run(cmd)
    return folder


def check_model(args, w, model, names, no_tlb=False):
    runs = [("alpha", (0x9000, 40, 0x03), 30),   # L2
            ("alpha", (0x9040, 60, 0x13), 10),   # L2, STLB miss
            ("middle", (0xa000, 5, 0x06), 20),   # L3 snoop (decoded per model)
            ("outer", (0xb000, 700, 0x08), 40),  # Skylake: L4/PMEM; else remote cache
            ("gamma_fn", None, 25)]              # no load: another event's sample
    folder = synth(args, w, "latency-%d" % model, model, runs)
    out, _ = run([args.acart, "report", folder, "--elf", args.workload, "--latency"])
    sources, functions = report_rows(out)
    check("Load latency: 100 of 125 samples measured a load" in out, out)
    want = {}
    for _, load, count in runs:
        if not load:
            continue
        n, cycles, stlb, hist = want.get(names[load[2] & 0xf], (0, 0, 0, {}))
        hist[bucket(load[1])] = hist.get(bucket(load[1]), 0) + count
        want[names[load[2] & 0xf]] = (n + count, cycles + count * load[1],
                                     stlb + count * bool(load[2] & 0x10), hist)
    want = {name: (n, cycles / n, "-" if no_tlb else "%.1f%%" % (100.0 * stlb / n), hist)
            for name, (n, cycles, stlb, hist) in want.items()}
    check(set(sources) == set(want), "model %d: sources %s\n%s" % (model, sorted(sources), out))
    for name, (n, avg, stlb, hist) in want.items():
        got = sources[name]
        check(got[0] == n and got[1] == "%.2f%%" % n and got[2] == "%.1f" % avg and
              got[3] == stlb and got[4] == [hist.get(b, 0) for b in range(len(BUCKETS))],
              "model %d, %s: %s, want %s" % (model, name, got, (n, avg, stlb, hist)))
    check(functions == {"alpha": (40, "45.0", 60), "outer": (40, "700.0", 700),
                        "middle": (20, "5.0", 5)}, "model %d functions %s\n%s" % (
                            model, functions, out))
    return out


def test(args):
    w = Workload(args)
    snb = {0x3: "L2 hit", 0x6: "L3 hit, snoop hit", 0x8: "remote cache, snoop hit"}
    check_model(args, w, 0x3c, snb)  # Haswell: the Sandy Bridge table
    check_model(args, w, 0x55, {**snb, 0x8: "L4 or PMEM hit, snoop hit"})  # Skylake-X
    out = check_model(args, w, 0x1a, {**snb, 0x6: "L3 hit, snoop HITM"}, no_tlb=True)
    check("as nehalem encodes them" in out, out)
    out = check_model(args, w, 0x96, {0x3: "encoding 0x3", 0x6: "encoding 0x6",
                                      0x8: "encoding 0x8"})  # Tremont: no table
    check("not decoded" in out, out)

    # export csv: each load-latency sample's latency at its TSC, the other samples left out.
    folder = os.path.join(args.workdir, "latency-85")
    outdir = os.path.join(args.workdir, "csv")
    run([args.acart, "export", "csv", folder, "-o", outdir])
    with open(os.path.join(outdir, "latency-cpu0-hostname-synthbox.csv")) as f:
        rows = f.read().splitlines()
    check(rows[0] == "tsc.RDTSC,LOAD_LATENCY_cpu0.COUNT", rows[0])
    want = [40] * 30 + [60] * 10 + [5] * 20 + [700] * 40
    got = [int(r.split(",")[1]) for r in rows[1:]]
    tscs = [int(r.split(",")[0]) for r in rows[1:]]
    check(got == want and tscs == sorted(tscs) and len(set(tscs)) == len(tscs),
          "latency csv %s" % rows[:5])

    folder = synth(args, w, "no-latency", 0x55, [("alpha", None, 5)], latency=False)
    _, err = run([args.acart, "report", folder, "--latency"], expect=2)
    check("LOAD_LATENCY" in err and "precise" in err, err)


if __name__ == "__main__":
    main(test)
