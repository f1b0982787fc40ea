"""Call stacks on a synthetic collection of the test workload (records as `acart collect
--callstack` writes them): the return addresses are those of real calls in the workload,
found at test time with objdump, plus one at the very end of a function (where a call that
ends a function returns), which names the caller only when looked up as ra - 1.

- `acart flamegraph` draws every stack root to leaf (main, outer, middle, alpha ...): the
  tree rebuilt from the frames Chromium renders (each frame standing inside the one below
  it) must be exactly the tree of the samples, with an inlined function above its leaf
  and no source lines.
- `acart report --by caller` gives each function's inclusive samples (once per sample,
  recursion included) and self samples, per event; `--by function` still gives the self
  samples in its own format.
- Without stacks (the imported tb5 file, a target that leaves them zero) both fall back
  to what they do without call stacks."""

import os
import re

from acarttest.callstack import OTHER, Workload, caller_rows, parse_caller_report
from acarttest.tooltest import check, frame_tree, main, marked_lines, parse_report, render_svg, run

EVENTS = [("CPU_CLK_UNHALTED.REF_TSC", 2200000), ("INST_RETIRED.ANY", 1000000)]
IMAGE_BASE, IMAGE_SIZE = 0x400000, 0x200000
DEPTH = 16


def plan(w):
    """(cpu, event, leaf address, leaf frames above its function, return addresses
    innermost first, count)."""
    alpha, mix, gamma = w.lines["alpha_loop"], w.lines["mix_body"], w.lines["gamma_loop"]
    to_middle = [w.ra("outer", "middle"), w.ra("main", "outer")]
    walk = w.ra("walk", "walk")
    return [
        (0, 0, alpha, [], [w.ra("middle", "alpha")] + to_middle, 400),
        (1, 0, mix, ["mix"], [w.ra("middle", "beta")] + to_middle, 250),
        (0, 0, gamma, [], [w.ra("outer", "gamma_fn"), w.ra("main", "outer")], 150),
        (1, 0, w.syms["middle"][0], [], to_middle, 100),
        (0, 0, alpha, [], [w.ra("main", "alpha")], 70),
        # main -> walk -> walk -> walk -> walk -> alpha: walk counts once per sample.
        (1, 0, alpha, [], [w.ra("walk", "alpha"), walk, walk, walk, w.ra("main", "walk")], 60),
        # Returning to the first byte after middle: it is still middle calling.
        (0, 0, alpha, [], [w.end_of("middle")] + to_middle, 45),
        (1, 0, w.syms["main"][0], [], [], 30),
        (0, 0, OTHER[1] + 0x40, [], [w.ra("middle", "alpha")] + to_middle, 20),
        (1, 1, alpha, [], [w.ra("middle", "alpha")] + to_middle, 33),
        (0, 1, gamma, [], [w.ra("outer", "gamma_fn"), w.ra("main", "outer")], 17),
    ]


def make_collection(args, name, runs, depth=DEPTH):
    folder = os.path.join(args.workdir, name)
    cmd = [args.synth, folder, "--cpus", 2, "--hostname", "stackbox", "--callstack", depth,
           "--module", "/target/%s:%#x:%#x" % (os.path.basename(args.workload), IMAGE_BASE,
                                                IMAGE_SIZE),
           "--module", "%s:%#x:%#x" % OTHER]
    for ev, sav in EVENTS:
        cmd += ["--event", "%s:%d" % (ev, sav)]
    for cpu, event, leaf, _, stack, count in runs:
        spec = "%d:1:1:%#x:%d:%d" % (cpu, leaf, count, event)
        if stack:
            spec += ":" + ",".join("%#x" % a for a in stack)
        cmd += ["--run", spec]
    run(cmd)
    return folder


def test_report(args, w, runs, folder):
    out, _ = run([args.acart, "report", folder, "--elf", args.workload, "--by", "caller"])
    got = parse_caller_report(out)
    check(set(got) == {ev for ev, _ in EVENTS}, "--by caller: events %s" % sorted(got))
    for index, (ev, _) in enumerate(EVENTS):
        want, total = caller_rows(w, runs, index)
        check(got[ev]["rows"] == want,
              "--by caller, event %s:\n got %s\nwant %s" % (ev, got[ev]["rows"], want))
        check(got[ev]["total"] == (total, total) and got[ev]["more"] is None,
              "--by caller, event %s: total %s, more %s" % (ev, got[ev]["total"], got[ev]["more"]))
    with_callers = sum(r[5] for r in runs if r[4])
    deepest = max(len(r[4]) for r in runs)
    header = "Call stacks: %d of %d samples have callers, up to %d deep" % (
        with_callers, sum(r[5] for r in runs), deepest)
    check(header in out, "--by caller: no line %r in\n%s" % (header, out))

    # --top: the rest is one row with its self samples only (inclusive samples overlap).
    ev = EVENTS[0][0]
    out, _ = run([args.acart, "report", folder, "--elf", args.workload, "--by", "caller",
                  "--top", "3", "--event", ev])
    want, total = caller_rows(w, runs, 0)
    got = parse_caller_report(out)[ev]
    rest = sum(r[2] for r in want[3:])
    check(got["rows"] == want[:3], "--top 3: %s, expected %s" % (got["rows"], want[:3]))
    check(got["more"] == (rest, "%.2f" % (100.0 * rest / total), len(want) - 3),
          "--top 3: the rest is %s, expected %d self samples in %d functions"
          % (got["more"], rest, len(want) - 3))

    # --by function keeps its own format: the self samples, with event counts.
    out, _ = run([args.acart, "report", folder, "--elf", args.workload])
    got = parse_report(out)
    for index, (ev, sav) in enumerate(EVENTS):
        want, _ = caller_rows(w, runs, index)
        selfs = sorted([(s, p, s * sav, n) for _, _, s, p, n in want if s],
                       key=lambda r: (-r[0], r[3]))
        check(got[ev] == selfs, "--by function, event %s:\n got %s\nwant %s" % (ev, got[ev], selfs))


def expected_tree(w, runs, event, with_stacks=True):
    tree = {}
    for _, ev, leaf, inlined, stack, count in runs:
        if ev != event:
            continue
        path = ["all"]
        if with_stacks:
            path += [w.function(a - 1) for a in reversed(stack)]
        path += [w.function(leaf)] + inlined
        for i in range(1, len(path) + 1):
            tree[tuple(path[:i])] = tree.get(tuple(path[:i]), 0) + count
    return tree


def check_tree(got, want, what):
    missing = sorted(set(want) - set(got))
    extra = sorted(set(got) - set(want))
    wrong = sorted(p for p in set(got) & set(want) if got[p] != want[p])
    check(not missing and not extra and not wrong,
          "%s: frames missing %s, unexpected %s, wrong counts %s"
          % (what, missing, extra, [(p, got[p], want[p]) for p in wrong]))


def test_flamegraph(args, w, runs, folder):
    svg = os.path.join(args.workdir, "stacks.svg")
    _, err = run([args.acart, "flamegraph", folder, "--elf", args.workload, "-o", svg])
    check("warning" not in err, "flamegraph warns: %s" % err)
    result = render_svg(args, svg)
    frames = result["frames"]
    check_tree(frame_tree(frames), expected_tree(w, runs, 0), "flamegraph with call stacks")
    check(not [f for f in frames if re.search(r"\.c:\d+ \(", f["title"])],
          "source lines drawn with call stacks: %s" % [f["title"] for f in frames])
    drawn = {t["text"]: t["width"] for t in result["texts"]}
    for name in ("main", "outer", "middle", "alpha", "walk", "gamma_fn"):
        check(drawn.get(name, 0) > 0, "%r is not rendered as text (texts: %s)" % (name, sorted(drawn)))
    with_callers = sum(r[5] for r in runs if r[1] == 0 and r[4])
    subtitle = "%d samples of %s (%d with call stacks)" % (
        sum(r[5] for r in runs if r[1] == 0), folder, with_callers)
    check(any(subtitle in text for text in drawn),
          "no subtitle %r among the texts %s" % (subtitle, sorted(drawn)))

    # The other event, by name.
    svg1 = os.path.join(args.workdir, "stacks-event1.svg")
    run([args.acart, "flamegraph", folder, "--elf", args.workload, "-o", svg1,
         "--event", EVENTS[1][0]])
    check_tree(frame_tree(render_svg(args, svg1)["frames"]), expected_tree(w, runs, 1),
               "flamegraph of event 1")


def test_without_stacks(args, w, runs, folder):
    # tb5 files keep no call stacks: what a collection without them gives, line frames too.
    tb5 = os.path.join(args.workdir, "stacks.tb5")
    run([args.acart, "import", folder, "-o", tb5])
    out, _ = run([args.acart, "report", tb5, "--elf", args.workload, "--by", "caller"])
    check("Call stacks: none (tb5 files do not keep them)" in out, "tb5 --by caller:\n" + out)
    for index, (ev, _) in enumerate(EVENTS):
        rows = parse_caller_report(out)[ev]["rows"]
        check(rows and all(r[0] == r[2] for r in rows), "tb5 --by caller, %s: %s" % (ev, rows))
    svg = os.path.join(args.workdir, "tb5.svg")
    run([args.acart, "flamegraph", tb5, "--elf", args.workload, "-o", svg])
    tree = frame_tree(render_svg(args, svg)["frames"])
    lines = {p[:-1] + (os.path.basename(p[-1]),): n for p, n in tree.items()
             if re.search(r"\.c:\d+$", p[-1])}
    check_tree({p: n for p, n in tree.items() if not re.search(r"\.c:\d+$", p[-1])},
               expected_tree(w, runs, 0, with_stacks=False), "flamegraph of the tb5 file")
    marks, name = marked_lines(args.source), os.path.basename(args.source)
    for path, marker in ((("all", "alpha"), "alpha_loop"), (("all", "beta", "mix"), "mix_body"),
                         (("all", "gamma_fn"), "gamma_loop")):
        want = sum(r[5] for r in runs if r[1] == 0 and r[2] == w.lines[marker])
        line = path + ("%s:%d" % (name, marks[marker]),)
        check(lines.get(line) == want, "tb5 flamegraph: %s has %s samples, expected %d (lines: %s)"
              % (line, lines.get(line), want, lines))

    # Room for stacks that the target left empty: a warning, each sample on its function.
    empty = [(cpu, ev, leaf, inl, [], n) for cpu, ev, leaf, inl, _, n in runs]
    folder = make_collection(args, "empty-stacks", empty)
    svg = os.path.join(args.workdir, "empty.svg")
    _, err = run([args.acart, "flamegraph", folder, "--elf", args.workload, "-o", svg])
    check("warning" in err and "every one is empty" in err, "no warning for empty stacks: %r" % err)
    check_tree(frame_tree(render_svg(args, svg)["frames"]), expected_tree(w, empty, 0),
               "flamegraph with empty call stacks")


def test(args):
    w = Workload(args)
    runs = plan(w)
    # The end of middle must not be middle, or the ra - 1 case tests nothing.
    check(w.function(w.end_of("middle")) != "middle", "end_of(middle) is inside middle")
    folder = make_collection(args, "stacks", runs)
    test_report(args, w, runs, folder)
    test_flamegraph(args, w, runs, folder)
    test_without_stacks(args, w, runs, folder)


if __name__ == "__main__":  # test_lbr.py imports the helpers
    main(test)
