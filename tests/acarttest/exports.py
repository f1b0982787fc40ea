"""Reading acart's exports back with the tools they are for, for the export and diff tests
(tests/tools/test_exports.py on synthetic collections, test_board_exports.py on the board):
go tool pprof (Debian golang-go), perf report and perf script (linux-perf), the folded
stacks, the Perfetto JSON against the trace-event format's schema, and `acart diff`."""

import json
import os
import re
import subprocess

from .tooltest import TestFailure, check, run


def _env(workdir):
    env = dict(os.environ)
    env.update(HOME=workdir, PPROF_TMPDIR=workdir, GOCACHE=os.path.join(workdir, "gocache"))
    return env


def _tool(cmd, workdir):
    r = subprocess.run(cmd, capture_output=True, text=True, env=_env(workdir))
    if r.returncode != 0:
        raise TestFailure("%s: exit %d\n%s%s" % (" ".join(cmd), r.returncode, r.stdout, r.stderr))
    return r.stdout


PPROF_TOP = re.compile(r"^\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+[\d.]+%\s+(.*)$")


def pprof_top(path, event, workdir):
    """{function: flat samples} from `go tool pprof -top -noinlines`: the functions acart
    report counts (inlined code counts for the function it was inlined into)."""
    out = _tool(["go", "tool", "pprof", "-top", "-noinlines", "-nodefraction=0",
                 "-nodecount=1000000", "-sample_index=" + event, path], workdir)
    flat = {}
    for line in out.splitlines():
        m = PPROF_TOP.match(line)
        if m and int(m.group(1)):
            flat[m.group(3)] = int(m.group(1))
    return flat


def pprof_traces(path, event, workdir):
    """{(leaf, ..., root): samples} from `go tool pprof -traces`, inlined frames included
    (their " (inline)" mark dropped), the labels left aside."""
    out = _tool(["go", "tool", "pprof", "-traces", "-sample_index=" + event, path], workdir)
    traces, frames, count = {}, None, 0

    def flush():
        if frames and count:
            key = tuple(frames)
            traces[key] = traces.get(key, 0) + count

    for line in out.splitlines():
        if line.startswith("-----------+"):
            flush()
            frames, count = [], 0
            continue
        if frames is None or re.match(r"^\s*[\w.-]+:\s", line):
            continue  # the header, or a label line ("task:  worker")
        m = re.match(r"^\s*(\d+)\s{3}(.*)$", line)
        if m and not frames:
            count = int(m.group(1))
            frames.append(m.group(2).replace(" (inline)", ""))
        elif line.strip() and frames:
            frames.append(line.strip().replace(" (inline)", ""))
    flush()
    return traces


def perf_report(path, workdir):
    """{event: {symbol: percent}} from `perf report --stdio --no-children --sort sym`."""
    out = _tool(["perf", "report", "--stdio", "-i", path, "--no-children", "--sort", "sym",
                 "-g", "none", "--percent-limit", "0"], workdir)
    shares, current = {}, None
    for line in out.splitlines():
        m = re.match(r"^# Samples: \S+\s+of event '(.*)'$", line)
        if m:
            current = shares.setdefault(m.group(1), {})
            continue
        m = re.match(r"^\s+([\d.]+)%\s+\[\.\]\s+(.*?)\s*$", line)
        if m and current is not None:
            current[m.group(2)] = current.get(m.group(2), 0.0) + float(m.group(1))
    return shares


def perf_script(path, workdir):
    """{event: {leaf symbol: samples}} and the samples' call chains: {event: {(leaf, ...,
    root): samples}}, from `perf script`."""
    out = _tool(["perf", "script", "-i", path, "-F", "event,ip,sym"], workdir)
    leaves, chains, event, chain = {}, {}, None, []

    def flush():
        if event is not None and chain:
            leaves.setdefault(event, {})
            leaves[event][chain[0]] = leaves[event].get(chain[0], 0) + 1
            key = tuple(chain)
            chains.setdefault(event, {})
            chains[event][key] = chains[event].get(key, 0) + 1

    for line in out.splitlines():
        m = re.match(r"^\s*(\S+):\s*$", line)
        if m:
            flush()
            event, chain = m.group(1), []
            continue
        m = re.match(r"^\s+[0-9a-f]+\s+(.*)$", line)
        if m and event is not None:
            chain.append(re.sub(r"\+0x[0-9a-f]+$", "", m.group(1).strip()))
    flush()
    return leaves, chains


def read_folded(path):
    """{(root, ..., leaf): samples} of a folded file; checks its syntax."""
    stacks = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            m = re.match(r"^(.+) (\d+)\n$", line)
            check(m, "%s:%d: not 'a;b;c COUNT': %r" % (path, number, line))
            key = tuple(m.group(1).split(";"))
            check(key not in stacks, "%s:%d: stack twice" % (path, number))
            stacks[key] = int(m.group(2))
    return stacks


def folded_functions(stack):
    """The out-of-line functions of a folded stack, root first: inlined frames (_[i]) and
    an interrupt handler's root ([irq ...] or a handler's name) left out."""
    return tuple(f for f in stack if not f.endswith("_[i]"))


def folded_self(stacks):
    """{function: samples taken in it}: each stack's last out-of-line frame."""
    counts = {}
    for stack, n in stacks.items():
        leaf = folded_functions(stack)[-1]
        counts[leaf] = counts.get(leaf, 0) + n
    return counts


# The trace-event format (Chrome's "Trace Event Format" document, as Perfetto's JSON
# importer reads it): what each phase acart writes must carry.
PHASE_FIELDS = {
    "M": {"name": str, "pid": int, "args": dict},
    "X": {"name": str, "pid": int, "tid": int, "ts": (int, float), "dur": (int, float)},
    "i": {"name": str, "pid": int, "tid": int, "ts": (int, float), "s": str},
    "C": {"name": str, "pid": int, "ts": (int, float), "args": dict},
}


def perfetto_problems(path):
    """The JSON file's departures from the trace-event format, and the parsed document."""
    with open(path) as f:
        doc = json.load(f)
    problems = []
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        return ["no traceEvents array"], doc
    for k, e in enumerate(doc["traceEvents"]):
        fields = PHASE_FIELDS.get(e.get("ph"))
        if fields is None:
            problems.append("event %d: phase %r" % (k, e.get("ph")))
            continue
        for name, kind in fields.items():
            if not isinstance(e.get(name), kind) or isinstance(e.get(name), bool):
                problems.append("event %d (%s): %s is %r" % (k, e["ph"], name, e.get(name)))
        if e["ph"] == "X" and e.get("dur", 0) < 0:
            problems.append("event %d: negative duration" % k)
        if e["ph"] == "i" and e.get("s") not in ("t", "p", "g"):
            problems.append("event %d: instant scope %r" % (k, e.get("s")))
        if e["ph"] == "C" and not all(isinstance(v, (int, float)) for v in e["args"].values()):
            problems.append("event %d: counter values %r" % (k, e["args"]))
        if len(problems) > 20:
            break
    return problems, doc


def perfetto_task_samples(doc):
    """{cpu: samples} summed over the task and irq slices, and {cpu: instants}."""
    slices, instants = {}, {}
    for e in doc["traceEvents"]:
        if e["ph"] == "X" and e.get("cat") in ("task", "irq"):
            slices[e["tid"]] = slices.get(e["tid"], 0) + e["args"]["samples"]
        elif e["ph"] == "i" and e.get("cat") == "sample":
            instants[e["tid"]] = instants.get(e["tid"], 0) + 1
    return slices, instants


DIFF_ROW = re.compile(r"^\s*([\d.]+)%\s+([\d.]+)%\s+([+-][\d.]+)\s+\[([+-][\d.]+), ([+-][\d.]+)\]"
                      r"( \*)?\s+(.*)$")


def parse_diff(text):
    """{event: {"functions": {label: row}, "calls": {label: row}}}, a row being (base %,
    new %, change, low, high, significant)."""
    events, current, table = {}, None, None
    for line in text.splitlines():
        m = re.match(r"^Event (\S+): \d+ samples in BASE, \d+ in NEW$", line)
        if m:
            current = events.setdefault(m.group(1), {"functions": {}, "calls": {}})
            continue
        if "Function (self samples)" in line:
            table = "functions"
            continue
        if "Caller -> callee" in line:
            table = "calls"
            continue
        m = DIFF_ROW.match(line)
        if m and current is not None:
            current[table][m.group(7)] = (float(m.group(1)), float(m.group(2)),
                                          float(m.group(3)), float(m.group(4)),
                                          float(m.group(5)), bool(m.group(6)))
    return events


def acart_diff(acart, base, new, *options, expect=0):
    out, err = run([acart, "diff", base, new] + list(options), expect=expect)
    return parse_diff(out), out, err
