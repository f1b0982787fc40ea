#!/usr/bin/env python3
"""Proves from the built objects (i686 or x86_64) that nothing reachable from an interrupt entry point
calls outside acart: no libc (a port's memcpy or memset may use SSE, whose state the
interrupt does not save), no libgcc helper.

The call graph comes from `objdump -dr` of the given archives and objects: an edge for
every call or jump to another function, and for every relocation that names a function
(calls to other objects, tail calls, and functions whose address is taken and called
through a pointer later, such as a PMI handler's per-overflow callback). Functions called
only through a pointer whose address a relocation does not name (a static function of
the same object) are listed as entry points themselves.

The entry points are in interrupt_entry_points.txt next to this script, one symbol per
line: edit that one file when the handlers move. An entry marked "(i686 only)" in its
comment exists only in the 32-bit build (the NMI and #DF tasks) and is skipped with
--arch x86_64.

The forbidden symbols are exactly those libc.a and libgcc.a define (from `nm`), so a
reference to a port's own function (aca_port_*) is fine and any libc function, named or
not, is caught.

Usage: interrupt_paths.py --objdump OBJDUMP --nm NM --forbid LIB.a [--forbid ...]
                          [--arch i686|x86_64] OBJECT_OR_ARCHIVE...
Exit status 0 when no path reaches a forbidden symbol, 1 with every path found, 2 when
an entry point is missing from the objects (the list needs updating)."""
import argparse
import os
import re
import subprocess
import sys

FUNC_RE = re.compile(r"^[0-9a-f]+ <([^>]+)>:$")
BRANCH_RE = re.compile(r"^\s*([0-9a-f]+):\s.*\b(call|jmp|j[a-z]+)\s+[0-9a-f]+ <([^>+]+)(\+0x[0-9a-f]+)?>")
RELOC_RE = re.compile(r"^\s*([0-9a-f]+): (R_386_[A-Z0-9_]+|R_X86_64_[A-Z0-9_]+)\s+(\S+)$")
FILE_RE = re.compile(r"^(\S+):\s+file format")


def forbidden_symbols(nm, libraries):
    names = set()
    for lib in libraries:
        out = subprocess.run([nm, "--defined-only", "-g", lib], capture_output=True, text=True,
                             check=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TtWiV":
                names.add(parts[2])
    return names


def call_graph(objdump, objects):
    """{function: set(referenced symbols)}; static functions of the same name in two
    objects share one node (a conservative union)."""
    graph = {}
    current = None
    pending = None  # (address, function, target) of a branch whose relocation may follow
    for obj in objects:
        out = subprocess.run([objdump, "-dr", "--no-show-raw-insn", obj], capture_output=True,
                             text=True, check=True).stdout
        for line in out.splitlines():
            if FILE_RE.match(line):
                current = None
                continue
            m = FUNC_RE.match(line)
            if m:
                current = m.group(1)
                graph.setdefault(current, set())
                continue
            if current is None:
                continue
            m = RELOC_RE.match(line)
            if m:
                # A relocation inside the branch just read (its rel32 at +1 for a call or
                # jmp, +2 for a jcc) names its target: the address objdump printed for it
                # is the placeholder's, which lands on the next function's first byte when
                # no padding separates the two.
                if pending and pending[0] < int(m.group(1), 16) <= pending[0] + 2:
                    pending = None
                sym = m.group(3).split("+")[0].split("-")[0]
                if not sym.startswith("."):
                    graph[current].add(sym)
                continue
            if pending:
                graph[pending[1]].add(pending[2])
                pending = None
            m = BRANCH_RE.match(line)
            # An unrelocated branch to the start of another function: a call or tail call
            # within the object. With an offset it is a jump inside a function, or a
            # placeholder that the relocation on the next line names (above).
            if m and not m.group(4) and m.group(3) != current:
                pending = (int(m.group(1), 16), current, m.group(3))
        if pending:
            graph[pending[1]].add(pending[2])
            pending = None
    return graph


def find_paths(graph, entries, forbidden):
    """Every (entry, path) where path ends at a forbidden symbol; breadth first, so each
    offending symbol is shown with a shortest path."""
    found = []
    for entry in entries:
        parent = {entry: None}
        queue = [entry]
        while queue:
            fn = queue.pop(0)
            for callee in sorted(graph.get(fn, ())):
                if callee in parent:
                    continue
                parent[callee] = fn
                if callee in forbidden:
                    path = [callee]
                    while parent[path[-1]] is not None:
                        path.append(parent[path[-1]])
                    found.append((entry, list(reversed(path))))
                elif callee in graph:
                    queue.append(callee)
    return found


def read_entries(path, arch):
    entries = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            name, _, comment = line.partition("#")
            name = name.strip()
            if name and not (arch != "i686" and "(i686 only)" in comment):
                entries.append(name)
    return entries


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    ap.add_argument("--objdump", required=True)
    ap.add_argument("--nm", required=True)
    ap.add_argument("--forbid", action="append", required=True, help="library whose symbols "
                    "no interrupt path may reference")
    ap.add_argument("--entries", default=os.path.join(os.path.dirname(__file__),
                                                      "interrupt_entry_points.txt"))
    ap.add_argument("--arch", choices=("i686", "x86_64"), default="i686")
    ap.add_argument("objects", nargs="+")
    args = ap.parse_args()

    entries = read_entries(args.entries, args.arch)
    forbidden = forbidden_symbols(args.nm, args.forbid)
    if len(forbidden) < 100:
        print(f"interrupt_paths: only {len(forbidden)} symbols in {args.forbid}: wrong library?")
        return 2
    graph = call_graph(args.objdump, args.objects)
    missing = [e for e in entries if e not in graph]
    if missing:
        print("interrupt_paths: entry points not in the objects (update "
              f"{args.entries}): {', '.join(missing)}")
        return 2
    found = find_paths(graph, entries, forbidden)
    reachable = set()
    for entry in entries:
        stack = [entry]
        while stack:
            fn = stack.pop()
            if fn in reachable:
                continue
            reachable.add(fn)
            stack.extend(c for c in graph.get(fn, ()) if c in graph)
    for entry, path in found:
        print(f"interrupt_paths: {entry} reaches {path[-1]}: {' -> '.join(path)}")
    print(f"interrupt_paths: {len(entries)} entry points, {len(reachable)} reachable functions, "
          f"{len(forbidden)} forbidden symbols, {len(found)} path(s) outside acart")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
