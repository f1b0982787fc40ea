"""Module lifetimes: code loaded and unloaded at run time at one address. overlay-a.bin and
overlay-b.bin take turns at the same address (a, b, a, b), patch.bin covers the upper part
for a while, the image is there throughout; samples fall inside each window, exactly on
the load and unload TSCs, and between windows. The module records come in an order a
writer may send them (the image first, lifetimes out of time order, two loads of a before
their unloads). Each sample must go to the module whose range, process (pid 0 is seen by
every process) and lifetime [load, unload) contain it, the latest load winning, and
between windows to no module. Checked by counting: report --by module from the folder
and from the imported tb5 file, tb5 print's binding (each sample, and per module record
each lifetime's samples), and with the image inside the workload's own code, report --by
function and the flame graph name overlay code by its module, the rest by the ELF.

The expected attribution is computed here from the schedule, not from the records."""

import os
import re

from acarttest.tooltest import TestFailure, check, main, parse_report, run, svg_frames, symbols

T0, STEP = 1000000, 1000
IMAGE_BASE, IMAGE_LEN = 0x400000, 0x200000
OTHER = ("/lib/libother.so", 0x7F000000, 0x10000)  # an old-style record: no times at all
OVERLAY_LEN = 0x2C
EVENT = ("CPU_CLK_UNHALTED.REF_TSC", 2000000)

# Lifetimes: (name, offset from the overlay address, length).
LIFETIMES = {"a1": ("overlay-a.bin", 0, OVERLAY_LEN), "b1": ("overlay-b.bin", 0, OVERLAY_LEN),
             "a2": ("overlay-a.bin", 0, OVERLAY_LEN), "b2": ("overlay-b.bin", 0, OVERLAY_LEN),
             "p": ("patch.bin", 0x18, OVERLAY_LEN - 0x18)}
OVERLAY_PID = 1
# CPU 0 (pid 1) in time order: runs of samples at an offset from the overlay address (or
# in the image), and loads and unloads, which happen at the TSC of the next sample.
IMAGE = "image"
SCHEDULE = [
    ("run", 0x4, 10),  # before any overlay
    ("load", "a1"), ("run", 0x4, 20), ("run", IMAGE, 6), ("run", 0x10, 10), ("unload", "a1"),
    ("run", 0x4, 5),  # between windows
    ("load", "b1"), ("run", 0x8, 9),
    ("load", "p"), ("run", 0x20, 16), ("run", 0x8, 4),  # patch over b's upper part
    ("unload", "b1"), ("run", 0x8, 7), ("run", 0x20, 3),  # between b's windows, patch above
    ("unload", "p"),
    ("load", "a2"), ("run", 0x4, 15), ("unload", "a2"),
    ("load", "b2"), ("run", 0x4, 12), ("run", IMAGE, 4),  # b2 at a2's unload TSC, to the end
]
# CPU 1, pid 2 (no overlays of its own), over the same time: (offset or IMAGE or OTHER, count).
CPU1 = [(0x4, 30), (IMAGE, 8), ("other", 5)]
# The order of the records in module.bin.
RECORDS = [("load", "b2"), ("load", "p"), ("load", "a1"), ("load", "a2"), ("unload", "a1"),
           ("unload", "a2"), ("unload", "p"), ("load", "b1"), ("unload", "b1")]


def plan(overlay_at, image_name, image_at):
    """Samples [(cpu, pid, address, tsc)] and lifetimes {key: (name, lo, hi, pid, load,
    unload or None)} of the schedule; image samples at image_at."""
    samples, lifetimes, k = [], {}, 0
    address = lambda where: (image_at if where == IMAGE else
                             OTHER[1] + 0x40 if where == "other" else overlay_at + where)
    for step in SCHEDULE:
        if step[0] == "run":
            for _ in range(step[2]):
                samples.append((0, OVERLAY_PID, address(step[1]), T0 + k * STEP))
                k += 1
        elif step[0] == "load":
            name, offset, length = LIFETIMES[step[1]]
            lo = overlay_at + offset
            lifetimes[step[1]] = [name, lo, lo + length, OVERLAY_PID, T0 + k * STEP, None]
        else:
            lifetimes[step[1]][5] = T0 + k * STEP
    k = 0
    for where, count in CPU1:
        for _ in range(count):
            samples.append((1, 2, address(where), T0 + 1 + k * STEP))
            k += 1
    lifetimes["image"] = [image_name, IMAGE_BASE, IMAGE_BASE + IMAGE_LEN, 0, 0, None]
    lifetimes["other"] = [os.path.basename(OTHER[0]), OTHER[1], OTHER[1] + OTHER[2], 0, 0, None]
    return samples, lifetimes


def owner(lifetimes, pid, address, tsc):
    """The key of the lifetime holding address for pid at tsc: the latest load, then the
    highest load address; None when nothing is loaded there then."""
    best = None
    for key, (name, lo, hi, mpid, load, unload) in lifetimes.items():
        if (lo <= address < hi and mpid in (0, pid) and load <= tsc and
                (unload is None or tsc < unload)):
            if best is None or (load, lo) > (lifetimes[best][4], lifetimes[best][1]):
                best = key
    return best


def make_collection(args, name, overlay_at):
    """The collection of the plan, the image being the test workload."""
    image_name = os.path.basename(args.workload)
    samples, lifetimes = plan(overlay_at, image_name, symbols(args.workload)["beta"][0] + 4)
    folder = os.path.join(args.workdir, name)
    cmd = [args.synth, folder, "--cpus", 2, "--tsc-start", T0, "--tsc-step", STEP,
           "--event", "%s:%d" % EVENT,
           "--module", "/target/%s:%#x:%#x:0:0" % (image_name, IMAGE_BASE, IMAGE_LEN),
           "--module", "%s:%#x:%#x" % OTHER]
    for kind, key in RECORDS:
        mname, lo, hi, pid, load, unload = lifetimes[key]
        tsc = load if kind == "load" else unload
        cmd += ["--module" if kind == "load" else "--unload",
                "/overlays/%s:%#x:%#x:%d:%d" % (mname, lo, hi - lo, pid, tsc)]
    runs = []  # consecutive samples of a CPU at one address are one --run
    for cpu, pid, address, tsc in samples:
        if runs and runs[-1][:3] == [cpu, pid, address]:
            runs[-1][3] += 1
        else:
            runs.append([cpu, pid, address, 1])
    for cpu, pid, address, count in runs:
        cmd += ["--run", "%d:%d:%d:%#x:%d" % (cpu, pid, cpu + 1, address, count)]
    run(cmd)
    return folder, samples, lifetimes


def expected_rows(labels):
    counts = {}
    for label in labels:
        counts[label] = counts.get(label, 0) + 1
    total = len(labels)
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return [(n, "%.2f" % (100.0 * n / total), n * EVENT[1], label) for label, n in rows]


def check_report(args, source, by, want, what, elf=None):
    cmd = [args.acart, "report", source, "--by", by, "--top", 0]
    if elf:
        cmd += ["--elf", elf]
    out, _ = run(cmd)
    got = parse_report(out).get(EVENT[0])
    check(got == want, "%s: report --by %s\n got %s\nwant %s" % (what, by, got, want))


def module_labels(samples, lifetimes):
    labels = []
    for cpu, pid, address, tsc in samples:
        key = owner(lifetimes, pid, address, tsc)
        labels.append(lifetimes[key][0] if key else "[unknown]")
    return labels


def check_tb5_print(args, tb5, samples, lifetimes):
    """Binding in the tb5 file: each module record is one lifetime with its load and unload
    TSC; each sample is bound to its lifetime's record; the per-record counts agree."""
    printed, _ = run([args.acart, "tb5", "print", tb5])
    records = {}  # module index -> lifetime key
    for m in re.finditer(r"^\s+#(\d+) pid (\d+) \[(0x[0-9a-f]+), (0x[0-9a-f]+)\) load (\d+) "
                         r"unload (-?\d+) flags (0x[0-9a-f]+) cs 0x[0-9a-f]+ (\S+) \(", printed, re.M):
        index, pid, lo, hi, load, unload, flags, name = m.groups()
        unload = int(unload)
        found = [k for k, l in lifetimes.items()
                 if (l[0], l[1], l[2], l[3], l[4], l[5]) ==
                 (name, int(lo, 16), int(hi, 16), int(pid), int(load), None if unload == -1 else unload)]
        check(len(found) == 1, "module record %s matches %s of the lifetimes: %s" % (m.group(0), found, lifetimes))
        flags = int(flags, 16)
        check(flags & 0x10000 and flags & 0x8000 and not flags & 0x4000,
              "module record #%s: flags %#x, expected TSC_USED and LOADED" % (index, flags))
        check(bool(flags & 0x800) == (int(pid) == 0), "module record #%s: GLOBAL_LOAD %#x for pid %s"
              % (index, flags, pid))
        records[int(index)] = found[0]
    check(sorted(records.values()) == sorted(lifetimes), "module records %s, lifetimes %s"
          % (sorted(records.values()), sorted(lifetimes)))
    bound = re.findall(r"^\s+#\d+ ip (0x[0-9a-f]+) .* tsc (\d+) -> (.+)$", printed, re.M)
    # import writes CPU by CPU, each in its own order: the plan's order.
    check(len(bound) == len(samples), "tb5 print shows %d samples, expected %d" % (len(bound), len(samples)))
    for (ip, tsc, name), (cpu, pid, address, want_tsc) in zip(bound, samples):
        key = owner(lifetimes, pid, address, want_tsc)
        want = lifetimes[key][0] if key else "(no module)"
        check((int(ip, 16), int(tsc), name) == (address, want_tsc, want),
              "bound sample ip %s tsc %s -> %s, expected %#x tsc %d -> %s"
              % (ip, tsc, name, address, want_tsc, want))
    per_record = dict((int(i) if i else None, int(n)) for n, i in re.findall(
        r"^\s+(\d+)\s+(?:#(\d+) \S+|\(no module\))$", printed.split("samples per module:")[1], re.M))
    want = {}
    for cpu, pid, address, tsc in samples:
        key = owner(lifetimes, pid, address, tsc)
        index = next(i for i, k in records.items() if k == key) if key else None
        want[index] = want.get(index, 0) + 1
    check(per_record == want, "samples per module record: %s, expected %s" % (per_record, want))


def test_overlay_outside_image(args):
    """The overlays outside the image: between windows nothing holds their address."""
    image_name = os.path.basename(args.workload)
    folder, samples, lifetimes = make_collection(args, "outside", 0x900000)
    labels = module_labels(samples, lifetimes)
    for name in ("overlay-a.bin", "overlay-b.bin", "patch.bin", "[unknown]", image_name):
        check(name in labels, "the plan gives %s no samples" % name)
    want = expected_rows(labels)
    check_report(args, folder, "module", want, "folder")
    # Code outside the image is named by the module holding it then.
    check_report(args, folder, "function", expected_rows(
        [l if l == "[unknown]" else "[%s]" % l for l in labels]), "folder, no image")

    tb5 = os.path.join(args.workdir, "outside.tb5")
    run([args.acart, "import", folder, "-o", tb5])
    check_report(args, tb5, "module", want, "tb5")
    check_tb5_print(args, tb5, samples, lifetimes)


def test_overlay_in_image(args):
    """The overlays in a buffer inside the image's code: while loaded they hold the
    address, between windows the image does; report --by function and the flame graph
    name overlay code by its module and the image's by the ELF's functions."""
    syms = symbols(args.workload)
    alpha, alpha_size = syms["alpha"]
    check(alpha_size >= OVERLAY_LEN, "alpha is %d bytes, the overlay %d" % (alpha_size, OVERLAY_LEN))
    folder, samples, lifetimes = make_collection(args, "inside", alpha)
    modules = module_labels(samples, lifetimes)
    check("[unknown]" not in modules[:-sum(c for _, c in CPU1)],
          "the image should hold every CPU 0 sample between windows")
    check_report(args, folder, "module", expected_rows(modules), "folder, in the image")

    def function(sample, module):
        cpu, pid, address, tsc = sample
        if module in ("overlay-a.bin", "overlay-b.bin", "patch.bin", "libother.so"):
            return "[%s]" % module
        for name, (start, size) in syms.items():
            if start <= address < start + size:
                return name
        raise TestFailure("no function at %#x" % address)
    functions = [function(s, m) for s, m in zip(samples, modules)]
    check("alpha" in functions, "the plan gives alpha no samples between windows")
    want = expected_rows(functions)
    check_report(args, folder, "function", want, "folder", elf=args.workload)
    tb5 = os.path.join(args.workdir, "inside.tb5")
    run([args.acart, "import", folder, "-o", tb5])
    check_report(args, tb5, "function", want, "tb5", elf=args.workload)
    check_tb5_print(args, tb5, samples, lifetimes)

    svg = os.path.join(args.workdir, "inside.svg")
    run([args.acart, "flamegraph", folder, "--elf", args.workload, "-o", svg])
    titles = [f["title"] for f in svg_frames(svg)]
    for n, _, _, label in want:
        title = "%s (%d samples, %.2f%%)" % (label, n, 100.0 * n / len(samples))
        check(title in titles, "no flame graph frame %r among %s" % (title, titles))


def test(args):
    test_overlay_outside_image(args)
    test_overlay_in_image(args)


main(test)
