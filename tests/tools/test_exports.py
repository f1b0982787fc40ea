"""acart export pprof|perf|folded|perfetto and acart diff on synthetic collections of the
test workload with call stacks (as `acart collect --callstack` writes them), read back by
the tools each format is for:
- folded: exactly the stacks of the samples, root first, with the inlined mix as mix_[i]
  and the interrupt handler's sample on its handler's root; the leaves' counts are
  report's;
- pprof: `go tool pprof -top -noinlines` gives report's samples per function for every
  event, `-traces` the stacks of the samples (the inlined frame included);
- perf: `perf report` gives report's percentages, `perf script` report's samples per
  function and the call chains of the samples;
- perfetto: the trace-event format, a thread per CPU whose task slices add up to its
  samples, an instant per sample, a counter per CPU and event;
- the tb5 file of the collection exports the same functions;
- diff: a collection against its copy changes nothing; against one whose shares moved,
  the moved functions are significant with the right sign, the others not, and
  --fail-if exits 6 or 0 as its rule says; different events are refused (exit 3);
- task switches (task-switches.csv, as collect writes a port's switches): perfetto draws
  a switch thread per CPU whose slices hold the CPU's samples after its first switch, a
  CPU whose log filled up ends in an instant saying so, and a switch file that disagrees
  with session.json (a count, the order, a line) fails with exit 3 naming it;
- bad input: a damaged collection fails every export and diff with exit 3, a message
  naming the file, and no output file (nor temporary file) left behind; an output in a
  missing folder exits 4."""

import json
import os
import shutil
import struct

from acarttest import exports
from acarttest.callstack import OTHER, Workload
from acarttest.tooltest import check, main, parse_report, run

EVENTS = [("CPU_CLK_UNHALTED.REF_TSC", 2200000), ("INST_RETIRED.ANY", 1000000)]
REF = EVENTS[0][0]
IRQ_PID, IRQ_TID = 0x7FFFFF00, 0x7FFF0020


def plan(w, alpha=400, gamma=150):
    """[(cpu, pid, tid, event, leaf, return addresses innermost first, count)]."""
    to_middle = [w.ra("outer", "middle"), w.ra("main", "outer")]
    return [
        (0, 1, 1, 0, w.lines["alpha_loop"], [w.ra("middle", "alpha")] + to_middle, alpha),
        (1, 1, 2, 0, w.lines["mix_body"], [w.ra("middle", "beta")] + to_middle, 250),
        (0, 1, 1, 0, w.lines["gamma_loop"], [w.ra("outer", "gamma_fn"), w.ra("main", "outer")],
         gamma),
        (1, 1, 2, 0, OTHER[1] + 0x40, [], 20),
        (0, IRQ_PID, IRQ_TID, 0, w.syms["gamma_fn"][0], [], 30),
        (1, 1, 2, 1, w.lines["alpha_loop"], [w.ra("main", "alpha")], 33),
    ]


def make(args, name, runs, events=EVENTS):
    folder = os.path.join(args.workdir, name)
    cmd = [args.synth, folder, "--cpus", 2, "--hostname", "exportbox", "--callstack", 16,
           "--module", "/target/%s:0x400000:0x200000" % os.path.basename(args.workload),
           "--module", "%s:%#x:%#x" % OTHER, "--task", "1:1:worker-a", "--task", "1:2:worker-b"]
    for ev, sav in events:
        cmd += ["--event", "%s:%d" % (ev, sav)]
    for cpu, pid, tid, event, leaf, stack, count in runs:
        spec = "%d:%d:%d:%#x:%d:%d" % (cpu, pid, tid, leaf, count, event)
        if stack:
            spec += ":" + ",".join("%#x" % a for a in stack)
        cmd += ["--run", spec]
    run(cmd)
    return folder


def report_counts(args, source):
    out, _ = run([args.acart, "report", source, "--elf", args.workload, "--top", "0"])
    return {ev: {r[3]: r[0] for r in rows} for ev, rows in parse_report(out).items()}, out


def expected_stacks(w, runs, event):
    """{(root, ..., leaf): samples} of the folded export of event."""
    want = {}
    for cpu, pid, tid, ev, leaf, stack, count in runs:
        if ev != event:
            continue
        frames = ["[irq 0x20]"] if pid == IRQ_PID else []
        frames += [w.function(a - 1) for a in reversed(stack)] + [w.function(leaf)]
        if leaf == w.lines["mix_body"]:
            frames.append("mix_[i]")
        want[tuple(frames)] = want.get(tuple(frames), 0) + count
    return want


def export(args, fmt, source, name, expect=0):
    path = os.path.join(args.workdir, name)
    _, err = run([args.acart, "export", fmt, source, "--elf", args.workload, "-o", path],
                 expect=expect)
    return path, err


def test_exports(args, w, runs, folder):
    counts, report = report_counts(args, folder)
    total = sum(counts[REF].values())

    folded, _ = export(args, "folded", folder, "a.folded")
    got = exports.read_folded(folded)
    want = expected_stacks(w, runs, 0)
    check(got == want, "folded stacks:\n got %s\nwant %s" % (got, want))
    check(exports.folded_self(got) == counts[REF],
          "folded leaves %s, report %s" % (exports.folded_self(got), counts[REF]))

    pprof, _ = export(args, "pprof", folder, "a.pb.gz")
    for ev, _ in EVENTS:
        top = exports.pprof_top(pprof, ev, args.workdir)
        check(top == counts[ev], "pprof -top %s: %s, report %s" % (ev, top, counts[ev]))
    traces = exports.pprof_traces(pprof, REF, args.workdir)
    want_traces = {}
    for stack, n in want.items():
        key = tuple(reversed([f[:-4] if f.endswith("_[i]") else f for f in stack
                              if not f.startswith("[irq")]))
        want_traces[key] = want_traces.get(key, 0) + n
    check(traces == want_traces, "pprof -traces:\n got %s\nwant %s" % (traces, want_traces))

    perf, _ = export(args, "perf", folder, "a.perf")
    shares = exports.perf_report(perf, args.workdir)
    for ev, _ in EVENTS:
        ev_total = sum(counts[ev].values())
        for name, n in counts[ev].items():
            if name.startswith("["):
                continue  # perf names code outside the image its own way
            pct = 100.0 * n / ev_total
            check(abs(shares[ev].get(name, -1) - pct) < 0.006,
                  "perf report %s %s: %s%%, report %.2f%%" % (ev, name, shares[ev].get(name), pct))
    leaves, chains = exports.perf_script(perf, args.workdir)
    for name, n in counts[REF].items():
        if not name.startswith("["):
            check(leaves[REF].get(name) == n, "perf script %s: %s samples, report %d"
                  % (name, leaves[REF].get(name), n))
    for stack, n in want_traces.items():
        named = tuple(f for f in stack if f != "mix")  # perf does not show inlined frames
        if all(not f.startswith("[") for f in named):
            check(chains[REF].get(named) == n, "perf script chain %s: %s, want %d"
                  % (named, chains[REF].get(named), n))

    timeline, _ = export(args, "perfetto", folder, "a.json")
    problems, doc = exports.perfetto_problems(timeline)
    check(not problems, "perfetto JSON:\n" + "\n".join(problems))
    slices, instants = exports.perfetto_task_samples(doc)
    per_cpu = {}
    for cpu, _, _, _, _, _, n in runs:
        per_cpu[cpu] = per_cpu.get(cpu, 0) + n
    check(slices == per_cpu and instants == per_cpu,
          "perfetto: task slices %s, instants %s, samples %s" % (slices, instants, per_cpu))
    irq = [e for e in doc["traceEvents"] if e["ph"] == "X" and e["cat"] == "irq"]
    check(irq and irq[0]["name"] == "[irq 0x20]", "perfetto: irq slices %s" % irq)
    counters = {e["name"] for e in doc["traceEvents"] if e["ph"] == "C"}
    check({"cpu0 " + REF, "cpu1 " + REF, "cpu1 INST_RETIRED.ANY"} <= counters,
          "perfetto counters: %s" % sorted(counters))

    tb5 = os.path.join(args.workdir, "a.tb5")
    run([args.acart, "import", folder, "-o", tb5])
    tb5_folded, _ = export(args, "folded", tb5, "tb5.folded")
    check(exports.folded_self(exports.read_folded(tb5_folded)) == counts[REF],
          "the tb5 file's folded leaves differ from the folder's")
    return total, tb5


def test_diff(args, w, folder, tb5):
    same = os.path.join(args.workdir, "same")
    shutil.copytree(folder, same)
    d, out, _ = exports.acart_diff(args.acart, folder, same, "--elf", args.workload,
                                   "--fail-if", "changed>0")
    rows = d[REF]["functions"]
    check(set(rows) == {"alpha", "beta", "gamma_fn", "[libother.so]"} and
          not any(r[5] for r in rows.values()), "diff of a copy:\n" + out)
    check(d[REF]["calls"].get("middle -> alpha", (0,))[0] > 40, "no call rows:\n" + out)
    exports.acart_diff(args.acart, tb5, folder, "--elf", args.workload, "--fail-if", "changed>0")

    moved = make(args, "moved", plan(w, alpha=100, gamma=600))
    d, out, _ = exports.acart_diff(args.acart, folder, moved, "--elf", args.workload)
    rows = d[REF]["functions"]
    check(rows["alpha"][5] and rows["alpha"][2] < 0 and rows["gamma_fn"][5] and
          rows["gamma_fn"][2] > 0, "alpha fell and gamma_fn grew:\n" + out)
    check(list(rows)[:2] == ["gamma_fn", "alpha"] or list(rows)[:2] == ["alpha", "gamma_fn"],
          "the significant rows are not first:\n" + out)
    check(d[REF]["calls"]["middle -> alpha"][5] and d[REF]["calls"]["middle -> alpha"][2] < 0,
          "the call middle -> alpha fell:\n" + out)
    _, out, _ = exports.acart_diff(args.acart, folder, moved, "--elf", args.workload,
                                   "--fail-if", "grew>5", expect=6)
    check("fail-if grew>5: %s: gamma_fn" % REF in out, "fail-if line:\n" + out)
    exports.acart_diff(args.acart, folder, moved, "--elf", args.workload,
                       "--fail-if", "grew>60", "--fail-if", "beta:shrank>20")
    exports.acart_diff(args.acart, folder, moved, "--elf", args.workload,
                       "--fail-if", "alpha:shrank>10", expect=6)
    run([args.acart, "diff", folder, moved, "--fail-if", "alpha:grew"], expect=2)

    other = make(args, "other-events", plan(w), events=[EVENTS[0], ("CPU_CLK_UNHALTED.THREAD", 2000003)])
    _, err = run([args.acart, "diff", folder, other], expect=3)
    check("different events" in err and "INST_RETIRED.ANY" in err, "different events:\n" + err)


def test_bad_input(args, folder):
    broken = os.path.join(args.workdir, "broken")
    shutil.copytree(folder, broken)
    cpu0 = os.path.join(broken, "cpu0.bin")
    with open(cpu0, "r+b") as f:
        f.truncate(os.path.getsize(cpu0) - 5)
    out_dir = os.path.join(args.workdir, "bad-out")
    os.makedirs(out_dir)
    for fmt in ("pprof", "perf", "folded", "perfetto"):
        path = os.path.join(out_dir, "out." + fmt)
        _, err = run([args.acart, "export", fmt, broken, "--elf", args.workload, "-o", path],
                     expect=3)
        check("cpu0.bin" in err, "export %s of a damaged collection: %s" % (fmt, err))
        missing = os.path.join(args.workdir, "no-such-folder", "out")
        run([args.acart, "export", fmt, folder, "--elf", args.workload, "-o", missing], expect=4)
    check(os.listdir(out_dir) == [], "left behind: %s" % os.listdir(out_dir))
    _, err = run([args.acart, "diff", folder, broken], expect=3)
    check("cpu0.bin" in err, "diff with a damaged collection: " + err)


def sample_tscs(folder, cpu):
    session = json.load(open(os.path.join(folder, "session.json")))
    size = session["descriptors"][0]["sample_size"]
    data = open(os.path.join(folder, "cpu%d.bin" % cpu), "rb").read()
    return sorted(struct.unpack_from("<Q", data, at + 40)[0] for at in range(0, len(data), size))


def with_switches(args, folder, name, rows, kept, lost, text=None):
    """A copy of folder with rows (cpu, tsc, pid, tid) as its task switches."""
    copy = os.path.join(args.workdir, name)
    shutil.copytree(folder, copy)
    path = os.path.join(copy, "session.json")
    session = json.load(open(path))
    session["samples"]["task_switches"] = {"kept": kept, "lost": lost}
    json.dump(session, open(path, "w"))
    if text is None:
        text = "cpu,tsc,pid,tid\n" + "".join("%d,%d,%d,%d\n" % r for r in rows)
    open(os.path.join(copy, "task-switches.csv"), "w").write(text)
    return copy


def test_switches(args, folder):
    tscs = {cpu: sample_tscs(folder, cpu) for cpu in (0, 1)}
    # CPU 0 switches at its 10th, 40th and 70th sample's TSC; CPU 1 once, at its 5th, and its
    # log is full after that one.
    rows = [(0, tscs[0][k], 1, 100 + k) for k in (10, 40, 70)] + [(1, tscs[1][5], 1, 7)]
    good = with_switches(args, folder, "switched", rows, [3, 1], [0, 4])
    timeline, _ = export(args, "perfetto", good, "switched.json")
    problems, doc = exports.perfetto_problems(timeline)
    check(not problems, "perfetto JSON:\n" + "\n".join(problems))
    slices = [e for e in doc["traceEvents"] if e["ph"] == "X" and e.get("cat") == "switch"]
    got = [(e["tid"], e["args"]["tid"], e["args"]["samples"]) for e in slices]
    want = [(1000, 110, 30), (1000, 140, 30), (1000, 170, len(tscs[0]) - 70)]
    check(got == want, "switch slices %s, want %s" % (got, want))
    full = [e for e in doc["traceEvents"] if e["ph"] == "i" and e.get("cat") == "switch"]
    check(len(full) == 1 and full[0]["tid"] == 1001 and "4 switches not kept" in full[0]["name"],
          "the full log's instant: %s" % full)
    bad_dir = os.path.join(args.workdir, "switch-out")
    os.makedirs(bad_dir)
    for name, kept, text, says in (
            ("switch-count", [4, 1], None, "CPU 0 has 3 switches, session.json says 4"),
            ("switch-more", [2, 1], None, "more switches than session.json's 3"),
            ("switch-order", [3, 1], "cpu,tsc,pid,tid\n" + "".join(
                "%d,%d,%d,%d\n" % r for r in [rows[1], rows[0], rows[2], rows[3]]), "out of order"),
            ("switch-line", [3, 1], "cpu,tsc,pid,tid\n0,12,1\n", "line 2")):
        bad = with_switches(args, folder, name, rows, kept, [0, 0], text)
        _, err = run([args.acart, "export", "perfetto", bad, "-o",
                      os.path.join(bad_dir, name + ".json")], expect=3)
        check("task-switches.csv" in err and says in err, "%s: %s" % (name, err))
    check(os.listdir(bad_dir) == [], "left behind: %s" % os.listdir(bad_dir))


def test(args):
    w = Workload(args)
    runs = plan(w)
    folder = make(args, "a", runs)
    _, tb5 = test_exports(args, w, runs, folder)
    test_diff(args, w, folder, tb5)
    test_switches(args, folder)
    test_bad_input(args, folder)


main(test)
