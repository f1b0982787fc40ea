"""Shared pieces of the acart tool tests: running programs, reading symbols and line tables
with binutils (independent of the elfutils code under test), parsing `acart report`."""

import argparse
import os
import re
import shutil
import subprocess
import sys


class TestFailure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise TestFailure(message)


def arguments():
    p = argparse.ArgumentParser()
    p.add_argument("--acart", required=True)
    p.add_argument("--synth", required=True)
    p.add_argument("--workload", required=True)
    p.add_argument("--workload-pie", required=True)
    p.add_argument("--source", required=True, help="workload.c")
    p.add_argument("--workdir", required=True)
    p.add_argument("--chromium", default="chromium")
    args = p.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir)
    return args


def run(cmd, expect=0, cwd=None):
    """Runs cmd; checks its exit status; returns (stdout, stderr)."""
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, cwd=cwd)
    if r.returncode != expect:
        raise TestFailure(
            "%s: exit %d, expected %d\nstdout:\n%s\nstderr:\n%s"
            % (" ".join(str(c) for c in cmd), r.returncode, expect, r.stdout, r.stderr))
    return r.stdout, r.stderr


def symbols(elf):
    """{name: (address, size)} of the defined function symbols, from binutils nm."""
    out, _ = run(["nm", "--defined-only", "-S", elf])
    table = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tT":
            table[parts[3]] = (int(parts[0], 16), int(parts[1], 16))
    return table


def marked_lines(source):
    """{marker: line number} for the `LINE:marker` comments of the workload's source."""
    lines = {}
    with open(source) as f:
        for number, text in enumerate(f, 1):
            m = re.search(r"LINE:(\w+)", text)
            if m:
                lines[m.group(1)] = number
    return lines


def line_addresses(elf, file_name, line):
    """Addresses whose line-table row is file_name:line, from binutils' decoded line table.
    Only addresses starting a non-empty range of that line are returned (an address listed
    by several rows belongs to the last one)."""
    out, _ = run(["objdump", "--dwarf=decodedline", elf])
    rows = []
    for text in out.splitlines():
        m = re.match(r"^(\S+)\s+(\d+)\s+(0x[0-9a-f]+)", text)
        if m:
            rows.append((os.path.basename(m.group(1)), int(m.group(2)), int(m.group(3), 16)))
    found = []
    for i, (name, number, address) in enumerate(rows):
        if name != file_name or number != line:
            continue
        nxt = rows[i + 1][2] if i + 1 < len(rows) else None
        if nxt is not None and nxt > address:
            found.append(address)
    return found


ROW = re.compile(r"^\s*(\d+)\s+([\d.]+)%\s+(\d+)\s+(.*)$")


def parse_report(text):
    """{event name: [(samples, percent text, event count, label), ...]} in printed order,
    without the Total row."""
    events, current = {}, None
    for line in text.splitlines():
        m = re.match(r"^Event (\S+) \(index \d+\), sample after (\d+): (\d+) samples$", line)
        if m:
            current = events.setdefault(m.group(1), [])
            continue
        m = ROW.match(line)
        if m and current is not None and m.group(4) != "Total":
            current.append((int(m.group(1)), m.group(2), int(m.group(3)), m.group(4)))
    return events


def main(test):
    """Runs test(args) and turns a TestFailure into a readable exit status 1."""
    args = arguments()
    try:
        test(args)
    except TestFailure as e:
        print("FAIL: %s" % e, file=sys.stderr)
        sys.exit(1)
    print("PASS")
