#!/usr/bin/env python3
"""Checks CSV files against VTune's rules for external data (shared/seeds/004): the file
name "[user-defined]-hostname-<hostname>.csv", one table per file with a header row,
comma separators, and the interval or discrete column layout with its timestamp suffix.

    python3 tests/acarttest/check_vtune_csv.py [--hostname NAME] FILE...

Prints each problem and exits 1 if there is any. As a module (acarttest.check_vtune_csv):
problems(path, hostname)."""

import os
import re
import sys

CLOCKS = "QPC|CLOCK_MONOTONIC_RAW|RDTSC|UTC"
NAME = re.compile(r"^(?P<what>.*)-hostname-(?P<host>.+)\.csv$")
START = re.compile(r"^start_tsc\.(%s)$" % CLOCKS)
TSC = re.compile(r"^tsc\.(%s)$" % CLOCKS)
COUNTER = re.compile(r"^.+\.(COUNT|INST)$")
UTC_VALUE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?$")


def is_integer(text):
    return re.match(r"^\d+$", text) is not None


def is_number(text):
    return re.match(r"^-?\d+(\.\d+)?([eE][-+]?\d+)?$", text) is not None


def timestamp_ok(clock, text):
    return UTC_VALUE.match(text) is not None if clock == "UTC" else is_integer(text)


def optional_ids(columns):
    """The trailing pid/tid columns must be pid, tid, or pid then tid."""
    return columns in ([], ["pid"], ["tid"], ["pid", "tid"])


def check_rows(rows, width, problems, where):
    for number, row in enumerate(rows, 2):
        if len(row) != width:
            problems.append("%s line %d: %d fields, the header has %d" % (where, number, len(row), width))
    return [r for r in rows if len(r) == width]


def check_ids(header, row, problems, where):
    for column in ("pid", "tid"):
        if column in header:
            value = row[header.index(column)]
            if value and not is_integer(value):
                problems.append("%s: %s %r is not an integer" % (where, column, value))


def check_interval(header, rows, problems, where):
    clock = START.match(header[1]).group(1)
    if header[2] != "end_tsc":
        problems.append("%s: third column is %r, must be end_tsc" % (where, header[2]))
    if not optional_ids(header[3:]):
        problems.append("%s: columns after end_tsc must be pid, tid or both, not %s" % (where, header[3:]))
    for number, row in enumerate(rows, 2):
        at = "%s line %d" % (where, number)
        if not row[0]:
            problems.append("%s: empty name" % at)
        if not timestamp_ok(clock, row[1]) or not timestamp_ok(clock, row[2]):
            problems.append("%s: timestamps %r, %r are not %s values" % (at, row[1], row[2], clock))
        elif clock != "UTC" and int(row[2]) < int(row[1]):
            problems.append("%s: interval ends (%s) before it starts (%s)" % (at, row[2], row[1]))
        check_ids(header, row, problems, at)


def check_discrete(header, rows, problems, where):
    clock = TSC.match(header[0]).group(1)
    tail = [c for c in header[1:] if c in ("pid", "tid")]
    counters = header[1:len(header) - len(tail)]
    if not counters or not all(COUNTER.match(c) for c in counters):
        problems.append("%s: counter columns must end in .COUNT or .INST: %s" % (where, counters))
    if not optional_ids(tail) or header[len(header) - len(tail):] != tail:
        problems.append("%s: pid/tid must come last, pid before tid" % where)
    previous = None
    for number, row in enumerate(rows, 2):
        at = "%s line %d" % (where, number)
        if not timestamp_ok(clock, row[0]):
            problems.append("%s: timestamp %r is not a %s value" % (at, row[0], clock))
        for column, value in zip(counters, row[1:]):
            if not is_number(value):
                problems.append("%s: %s value %r is not a number" % (at, column, value))
        check_ids(header, row, problems, at)
        if previous and clock != "UTC" and all(is_integer(v) for v in row[:1] + previous[:1]):
            if int(row[0]) < int(previous[0]):
                problems.append("%s: timestamp goes backwards" % at)
            for i, column in enumerate(counters, 1):
                if column.endswith(".COUNT") and is_number(row[i]) and is_number(previous[i]) \
                        and float(row[i]) < float(previous[i]):
                    problems.append("%s: cumulative %s decreases" % (at, column))
        previous = row


def problems(path, hostname=None):
    """The list of rule violations of one CSV file."""
    found = []
    base = os.path.basename(path)
    m = NAME.match(base)
    if not m:
        found.append("%s: name is not [user-defined]-hostname-<hostname>.csv" % base)
    elif hostname is not None and m.group("host") != hostname:
        found.append("%s: hostname %r, expected %r" % (base, m.group("host"), hostname))
    with open(path, newline="") as f:
        text = f.read()
    if not text.endswith("\n"):
        found.append("%s: last line has no line break" % base)
    lines = text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")
    if not lines or not lines[0]:
        return found + ["%s: no header row" % base]
    if any(not line for line in lines):
        found.append("%s: blank line: a file holds exactly one table" % base)
    if any('"' in line for line in lines):
        found.append("%s: quotes: the format has none" % base)
    header = lines[0].split(",")
    rows = check_rows([line.split(",") for line in lines[1:] if line], len(header), found, base)
    if len(header) >= 3 and header[0] == "name" and START.match(header[1]):
        check_interval(header, rows, found, base)
    elif header and TSC.match(header[0]):
        check_discrete(header, rows, found, base)
    else:
        found.append("%s: header %s is neither an interval nor a discrete table" % (base, header))
    return found


def main(argv):
    hostname, files = None, []
    i = 0
    while i < len(argv):
        if argv[i] == "--hostname":
            hostname = argv[i + 1]
            i += 2
        else:
            files.append(argv[i])
            i += 1
    found = [p for f in files for p in problems(f, hostname)]
    for p in found:
        print(p)
    return 1 if found or not files else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
