"""The call-stack tests' view of the test workload (tests/tools/workload.c): its addresses
from binutils, and what `acart report --by caller` must print for samples on it and how to
read what it printed (test_callstack.py, test_lbr.py, test_latency.py)."""

import os
import re

from .tooltest import call_sites, check, line_addresses, marked_lines, symbols

# A module the samples may fall in besides the workload: (path, start, size).
OTHER = ("/lib/libother.so", 0x7F000000, 0x10000)


class Workload:
    """Addresses in the test workload, from binutils."""

    def __init__(self, args):
        self.syms = symbols(args.workload)
        self.sites = call_sites(args.workload)
        marks = marked_lines(args.source)
        name = os.path.basename(args.source)
        self.lines = {}
        for marker in ("alpha_loop", "mix_body", "gamma_loop"):
            found = line_addresses(args.workload, name, marks[marker])
            check(found, "no code for the %s line" % marker)
            self.lines[marker] = found[0]

    def ra(self, caller, callee):
        found = self.sites.get((caller, callee))
        check(found, "objdump shows no call from %s to %s" % (caller, callee))
        return found[0]

    def end_of(self, function):
        start, size = self.syms[function]
        return start + size

    def function(self, address):
        """The function (ELF symbol) containing address, or the name of its module."""
        for name, (start, size) in self.syms.items():
            if start <= address < start + size:
                return name
        if OTHER[1] <= address < OTHER[1] + OTHER[2]:
            return "[%s]" % os.path.basename(OTHER[0])
        return "[unknown]"


def caller_rows(w, runs, event):
    """What `report --by caller` must print for event: [(inclusive, %, self, %, label)]."""
    inclusive, self_ = {}, {}
    total = sum(r[5] for r in runs if r[1] == event)
    for _, ev, leaf, _, stack, count in runs:
        if ev != event:
            continue
        leaf_name = w.function(leaf)
        for name in {leaf_name} | {w.function(a - 1) for a in stack}:
            inclusive[name] = inclusive.get(name, 0) + count
        self_[leaf_name] = self_.get(leaf_name, 0) + count
    rows = sorted(inclusive, key=lambda n: (-inclusive[n], -self_.get(n, 0), n))
    pct = lambda n: "%.2f" % (100.0 * n / total)
    return [(inclusive[n], pct(inclusive[n]), self_.get(n, 0), pct(self_.get(n, 0)), n)
            for n in rows], total


CALLER_ROW = re.compile(r"^\s*(\d+)\s+([\d.]+)%\s+(\d+)\s+([\d.]+)%\s+(.*)$")
MORE_ROW = re.compile(r"^\s*-\s+-\s+(\d+)\s+([\d.]+)%\s+\((\d+) more functions?\)$")


def parse_caller_report(text):
    """{event name: {"rows": [(incl, %, self, %, label)], "more": (self, %, n) or None,
    "total": (incl, self)}}"""
    events, current = {}, None
    for line in text.splitlines():
        m = re.match(r"^Event (\S+) \(index \d+\), sample after \d+: \d+ samples$", line)
        if m:
            current = events.setdefault(m.group(1), {"rows": [], "more": None, "total": None})
            continue
        if current is None:
            continue
        m = MORE_ROW.match(line)
        if m:
            current["more"] = (int(m.group(1)), m.group(2), int(m.group(3)))
            continue
        m = CALLER_ROW.match(line)
        if m and m.group(5) == "Total":
            current["total"] = (int(m.group(1)), int(m.group(3)))
        elif m:
            current["rows"].append((int(m.group(1)), m.group(2), int(m.group(3)), m.group(4),
                                    m.group(5)))
    return events
