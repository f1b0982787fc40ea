"""acart report on synthetic collections of the test workload: sample counts, percentages,
event counts and ordering by function, source line (with an inlined function), task, CPU
and module; the same for a position-independent image and for the imported tb5 file.
Addresses come from binutils (nm, objdump's decoded line table) at test time."""

import os

from acarttest.tooltest import check, line_addresses, main, marked_lines, parse_report, run, symbols

EVENTS = [("CPU_CLK_UNHALTED.REF_TSC", 2200000), ("INST_RETIRED.ANY", 1000000)]
OTHER_MODULE = ("/lib/libother.so", 0x7F000000, 0x10000)
UNKNOWN_ADDRESS = 0x10
TASKS = {(1, 1): "idle", (1, 2): "net"}


def make_collection(args, name, image, image_base, runs):
    """runs: (cpu, tid, address, count, event). Returns the folder."""
    folder = os.path.join(args.workdir, name)
    cmd = [args.synth, folder, "--cpus", 2, "--hostname", "reportbox",
           "--module", "/target/%s:%#x:%#x" % (os.path.basename(image), image_base, 0x200000),
           "--module", "%s:%#x:%#x" % OTHER_MODULE]
    for ev, sav in EVENTS:
        cmd += ["--event", "%s:%d" % (ev, sav)]
    for (pid, tid), task in TASKS.items():
        cmd += ["--task", "%d:%d:%s" % (pid, tid, task)]
    for cpu, tid, address, count, event in runs:
        cmd += ["--run", "%d:1:%d:%#x:%d:%d" % (cpu, tid, address, count, event)]
    run(cmd)
    return folder


def expected_rows(runs, label_of):
    """{event name: [(samples, percent text, event count, label)]} sorted as acart sorts."""
    result = {}
    for index, (ev, sav) in enumerate(EVENTS):
        counts = {}
        for cpu, tid, address, count, event in runs:
            if event == index:
                key = label_of(cpu, tid, address)
                counts[key] = counts.get(key, 0) + count
        total = sum(counts.values())
        rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        result[ev] = [(n, "%.2f" % (100.0 * n / total), n * sav, label) for label, n in rows]
    return result


def check_rows(report, expected, what):
    got = parse_report(report)
    check(set(got) == set(expected), "%s: events %s, expected %s" % (what, sorted(got), sorted(expected)))
    for ev in expected:
        check(got[ev] == expected[ev], "%s, event %s:\n got %s\nwant %s" % (what, ev, got[ev], expected[ev]))


def function_runs(syms, base=0):
    a, a_size = syms["alpha"]
    b, b_size = syms["beta"]
    g, _ = syms["gamma_fn"]
    return [
        (0, 1, base + a, 300, 0),
        (1, 2, base + a + a_size // 2, 200, 0),
        (0, 2, base + b + b_size // 3, 300, 0),
        (1, 1, base + g, 200, 0),
        (0, 1, base + g + 4, 40, 1),
        (1, 1, OTHER_MODULE[1] + 0x100, 50, 0),
        (0, 1, UNKNOWN_ADDRESS, 25, 0),
    ]


def function_label(syms, base):
    def label(cpu, tid, address):
        for name, (start, size) in syms.items():
            if name in ("alpha", "beta", "gamma_fn") and start <= address - base < start + size:
                return name
        if OTHER_MODULE[1] <= address < OTHER_MODULE[1] + OTHER_MODULE[2]:
            return "[libother.so]"
        return "[unknown]"
    return label


def test_functions(args):
    syms = symbols(args.workload)
    runs = function_runs(syms)
    folder = make_collection(args, "functions", args.workload, 0x400000, runs)
    out, _ = run([args.acart, "report", folder, "--elf", args.workload])
    check_rows(out, expected_rows(runs, function_label(syms, 0)), "--by function")

    # Every other key, from the same samples.
    module_of = lambda c, t, a: (os.path.basename(args.workload) if 0x400000 <= a < 0x600000
                                 else "libother.so" if a >= OTHER_MODULE[1] else "[unknown]")
    for key, label in [("task", lambda c, t, a: "%s (pid 1, tid %d)" % (TASKS[(1, t)], t)),
                       ("cpu", lambda c, t, a: "cpu %d" % c),
                       ("module", module_of)]:
        out, _ = run([args.acart, "report", folder, "--elf", args.workload, "--by", key])
        check_rows(out, expected_rows(runs, label), "--by " + key)

    # --top folds the smaller rows into one line.
    out, _ = run([args.acart, "report", folder, "--elf", args.workload, "--top", "2",
                  "--event", EVENTS[0][0]])
    rows = parse_report(out)[EVENTS[0][0]]
    check([r[3] for r in rows] == ["alpha", "beta", "(3 more rows)"], "--top 2: %s" % rows)
    check(rows[2][0] == 275, "--top 2: the folded row has %d samples, expected 275" % rows[2][0])

    # The imported tb5 file reports the same.
    tb5 = os.path.join(args.workdir, "functions.tb5")
    run([args.acart, "import", folder, "-o", tb5])
    out_tb5, _ = run([args.acart, "report", tb5, "--elf", args.workload])
    check_rows(out_tb5, expected_rows(runs, function_label(syms, 0)), "tb5 --by function")


def test_pie(args):
    """The position-independent image loaded low and, as a 64-bit target's module can be,
    above 4 GiB: every address keeps its high half through the report."""
    syms = symbols(args.workload_pie)
    for base in (0x10000000, 0x7f5a12340000):
        runs = function_runs(syms, base)
        folder = make_collection(args, "pie-%x" % base, args.workload_pie, base, runs)
        out, _ = run([args.acart, "report", folder, "--elf", args.workload_pie])
        check_rows(out, expected_rows(runs, function_label(syms, base)),
                   "PIE at 0x%x --by function" % base)


def test_lines(args):
    marks = marked_lines(args.source)
    name = os.path.basename(args.source)
    plan = [("alpha_loop", 120, "alpha"), ("mix_body", 90, "mix (inlined into beta)"),
            ("gamma_loop", 60, "gamma_fn")]
    runs, labels = [], {}
    for marker, count, function in plan:
        addresses = line_addresses(args.workload, name, marks[marker])
        check(addresses, "no code for %s:%d (%s) in the line table" % (name, marks[marker], marker))
        for i, address in enumerate(addresses):
            share = count // len(addresses) + (1 if i < count % len(addresses) else 0)
            if share:
                runs.append((i % 2, 1, address, share, 0))
                labels[address] = (marks[marker], function)
    folder = make_collection(args, "lines", args.workload, 0x400000, runs)
    for source in (folder, None):
        if source is None:
            source = os.path.join(args.workdir, "lines.tb5")
            run([args.acart, "import", folder, "-o", source])
        out, _ = run([args.acart, "report", source, "--elf", args.workload, "--by", "line"])
        got = parse_report(out)[EVENTS[0][0]]
        total = sum(c for _, c, _ in plan)
        want = [(count, "%.2f" % (100.0 * count / total), marks[marker], function)
                for marker, count, function in sorted(plan, key=lambda p: -p[1])]
        check(len(got) == len(want), "--by line on %s: rows %s, expected %s" % (source, got, want))
        for (n, pct, _, label), (wn, wpct, wline, wfunction) in zip(got, want):
            location, _, function = label.partition("  ")
            check(location.endswith("/" + name + ":%d" % wline) or location == name + ":%d" % wline,
                  "--by line: %s, expected %s:%d" % (label, name, wline))
            check(function == wfunction, "--by line: %s, expected function %s" % (label, wfunction))
            check((n, pct) == (wn, wpct), "--by line: %s has %d (%s%%), expected %d (%s%%)"
                  % (label, n, pct, wn, wpct))


def test(args):
    test_functions(args)
    test_pie(args)
    test_lines(args)


main(test)
