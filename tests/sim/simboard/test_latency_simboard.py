"""Load-latency PEBS end to end on the simulated board (acart_simboard --loads: four
simulated CPUs retiring, every millisecond, loads of four kinds with known addresses,
latencies and data sources, tests/sim/simboard/simboard.c's LOADS): `acart collect --event
MEM_TRANS_RETIRED.LOAD_LATENCY_GT_32:precise` programs MSR_PEBS_LD_LAT and the load-latency
facility (IA32_PEBS_ENABLE's LL_EN bit on the legacy-PEBS Skylake, the adaptive memory group
on the Tiger Lake), the target writes each PEBS record's address, data source and latency
into its sample, and `acart report --latency` gives a histogram per data source that matches
what the CPUs retired: the L1 hits below the threshold are absent, every other kind has its
share of the loads within 3 points, its exact latency (bucket and average) and its STLB
misses, and each loading instruction its own row.

  test_latency_simboard.py --acart ACART --simboard SIMBOARD --workdir DIR"""
import re
import sys

from acarttest import latency
from acarttest.ptcase import board_test_args, check, run
from acarttest.simboard import Board, collect

SAMPLE_AFTER = 1009
BUCKETS = ["<8", "<16", "<32", "<64", "<128", "<256", "<512", "<1024", ">=1024"]
# source encoding -> (name on Skylake-class models, instruction address)
SOURCES = {0x03: ("L2 hit", 0x100240), 0x04: ("L3 hit, no snoop", 0x100280),
           0x0a: ("local DRAM, shared", 0x1002c0)}


def bucket(latency):
    b, edge = 0, 8
    while b < len(BUCKETS) - 1 and latency >= edge:
        b, edge = b + 1, edge * 2
    return b


def truth(board_log):
    """{source (bits 3:0): (latency, loads retired while counting, STLB miss)} summed over
    the CPUs."""
    kinds = {}
    lines = [l for l in board_log.splitlines() if l.startswith("simboard: loads cpu")]
    check(len(lines) == 4, "the board printed no load truth:\n%s" % board_log[-2000:])
    for line in lines:
        for source, latency, n in re.findall(r"source=0x([0-9a-f]+) latency=(\d+) n=(\d+)", line):
            source = int(source, 16)
            old = kinds.get(source & 0xf, (int(latency), 0, bool(source & 0x10)))
            kinds[source & 0xf] = (int(latency), old[1] + int(n), old[2])
    return kinds


def report_rows(out):
    """Source rows: name -> (loads, share, avg, stlb, buckets); function rows likewise, the
    percentages and averages as numbers."""
    sources, functions = latency.report_rows(out)
    sources = {k: (n, float(share.rstrip("%")), float(avg), float(stlb.rstrip("%")), buckets)
               for k, (n, share, avg, stlb, buckets) in sources.items()}
    functions = {k: (n, float(avg), stlb) for k, (n, avg, stlb) in functions.items()}
    return sources, functions


def one_model(args, model):
    with Board(args, "latency-" + model, "--loads", "--model", model) as board:
        folder, out, _ = collect(args, board, "latency-" + model, "--duration", "2", "--event",
                                 "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_32:sa=%d:precise" % SAMPLE_AFTER)
    kinds = truth(board.text())
    counted = {s: v for s, v in kinds.items() if v[0] > 32}
    total = sum(v[1] for v in counted.values())
    check(set(counted) == set(SOURCES) and total > 50 * SAMPLE_AFTER,
          "%s: load truth %s" % (model, kinds))

    out, _ = run([args.acart, "report", folder, "--latency"])
    sources, functions = report_rows(out)
    check(set(sources) == {v[0] for v in SOURCES.values()},
          "%s: data sources %s (the L1 hits are below the threshold):\n%s"
          % (model, sorted(sources), out))
    loads = sum(r[0] for r in sources.values())
    # Every overflow of the counter is one sample: the loads counted / sample-after, give or
    # take the partial period each CPU ends with.
    check(abs(loads - total / SAMPLE_AFTER) <= 0.01 * total / SAMPLE_AFTER + 4,
          "%s: %d samples with a load for %d loads counted" % (model, loads, total))
    check(("of %d samples measured a load" % loads) in out, out)
    for source, (name, ip) in SOURCES.items():
        latency, n, stlb_miss = counted[source]
        got, share, avg, stlb, hist = sources[name]
        want_share = 100.0 * n / total
        check(abs(share - want_share) <= 3.0,
              "%s: %s share %.2f%%, truth %.2f%%" % (model, name, share, want_share))
        check(avg == float(latency) and hist[bucket(latency)] == got and sum(hist) == got,
              "%s: %s latency %s %s, truth %d cycles" % (model, name, avg, hist, latency))
        check(stlb == (100.0 if stlb_miss else 0.0),
              "%s: %s STLB misses %s%%" % (model, name, stlb))
        row = functions.get("[demo.elf] 0x%x" % ip)
        check(row is not None and row[0] == got and row[1] == float(latency) and row[2] == latency,
              "%s: function row of 0x%x: %s\n%s" % (model, ip, row, out))
    return {name: sources[name][1] for name, _ in SOURCES.values()}


def main():
    args = board_test_args()
    # Without :precise the facility would stay off: refused, with what to add.
    with Board(args, "latency-imprecise") as board:
        _, _, err = collect(args, board, "latency-imprecise", "--duration", "1", "--event",
                            "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_32", expect=2)
    check("add :precise" in err, err)
    shares = {model: one_model(args, model) for model in ("skylake", "tigerlake")}
    print("PASS: load-latency shares by data source %s" % shares)
    return 0


if __name__ == "__main__":
    sys.exit(main())
