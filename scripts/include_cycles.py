#!/usr/bin/env python3
"""Include cycles among the C files of the repository: file A includes B's header and B
(directly or through others) includes A's. Prints each cycle that touches the given
paths; by default only cycles between files of different folders, with --all also those
inside one folder. Exit status 1 when it printed one, 0 when there is none.

Usage: scripts/include_cycles.py [--all] [--root DIR] [PATH...]   (default PATH: the root)

How it sees the files (stdlib only, no compiler):
 - A unit is a .c file with its own header. A file's own header is the header of its name
   beside it (x.c, x.h); a .c file without one takes the header it includes first when
   that header has no .c of its own name and declares something the file defines (the
   own-header-first convention). Several files may share one such header (tb5/src's
   tb5_internal.h): the header and those files are then one unit. A header that is no
   file's own is a unit of its own (an interface: commands.h, tbrw.h), and so is every
   header of an include/ folder (acart_platform.h, which the kit and each board implement).
 - Unit A depends on unit B when a file of A includes a file of B. #include "x.h" is found
   beside the including file, then in the include directories that the CMake files name,
   then by base name where only one file of the repository has it.
 - An own header that also declares functions or variables that a file of another unit
   defines is that file's header too: whoever includes it depends on that unit as well
   (profile.h declaring collection_open makes profile depend on collection.c).
 - A cycle is a set of two or more units that depend on each other (a strongly connected
   component); it is printed with one shortest loop through it and what makes each step.
"""
import argparse
import os
import re
import sys
from collections import deque

SKIP_DIRS = {".git", ".deps", "node_modules", "__pycache__"}
C_KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "typedef", "struct", "union",
              "enum", "static", "extern", "const", "volatile", "inline", "unsigned", "signed",
              "int", "char", "void", "long", "short", "float", "double", "_Static_assert",
              "__attribute__", "_Noreturn", "do", "else", "case", "default", "goto"}
INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)


def is_test(f):
    return "tests" in f.split(os.sep)


def source_files(root):
    """Every .c and .h under root, as paths relative to it, build trees left out."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        keep = []
        for d in dirnames:
            full = os.path.join(dirpath, d)
            if d in SKIP_DIRS or d.startswith("build") or os.path.islink(full):
                continue
            if os.path.exists(os.path.join(full, "CMakeCache.txt")):
                continue
            keep.append(d)
        dirnames[:] = sorted(keep)
        for f in sorted(filenames):
            if f.endswith((".c", ".h")):
                out.append(os.path.normpath(os.path.join(rel, f)))
    return out


def cmake_include_dirs(root):
    """Folders (relative to root) that a CMake file names as include directories."""
    dirs = []
    call = re.compile(r"\b(target_include_directories|include_directories|set)\s*\(", re.I)
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith("build")
                       and not os.path.exists(os.path.join(dirpath, d, "CMakeCache.txt"))]
        for f in filenames:
            if f != "CMakeLists.txt" and not f.endswith(".cmake"):
                continue
            path = os.path.join(dirpath, f)
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = re.sub(r"#[^\n]*", "", fh.read())
            for m in call.finditer(text):
                depth, i = 1, m.end()
                while i < len(text) and depth:
                    depth += {"(": 1, ")": -1}.get(text[i], 0)
                    i += 1
                args = text[m.end():i - 1].split()
                if m.group(1).lower() == "set" and (not args or "INCLUDE" not in args[0].upper()):
                    continue
                for arg in args:
                    arg = arg.strip('"')
                    for var in ("CMAKE_CURRENT_SOURCE_DIR", "CMAKE_CURRENT_LIST_DIR"):
                        arg = arg.replace("${%s}" % var, dirpath)
                    arg = arg.replace("${CMAKE_SOURCE_DIR}", root)
                    tails = [arg]
                    m2 = re.match(r"^\$\{[^}]*\}/(.*)$", arg)
                    if m2:  # ${some_dir}/rest: below the CMake file's folder or the root
                        tails = [os.path.join(dirpath, m2.group(1)), os.path.join(root, m2.group(1))]
                    elif "$" in arg:
                        continue
                    for t in tails:
                        full = os.path.normpath(t if os.path.isabs(t) else os.path.join(dirpath, t))
                        if os.path.isdir(full) and full.startswith(os.path.normpath(root)):
                            rel = os.path.relpath(full, root)
                            if rel not in dirs:
                                dirs.append(rel)
                            break
    return dirs


def strip_code(text):
    """The text without comments, string and character literals and preprocessor lines."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)
    text = re.sub(r"'(\\.|[^'\\\n])*'", "''", text)
    text = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", " ", text, flags=re.M)
    return text


def drop_attributes(s):
    """s without __attribute__((...)) groups."""
    while True:
        i = s.find("__attribute__")
        if i < 0:
            return s
        j = s.find("(", i)
        if j < 0:
            return s[:i]
        depth, k = 0, j
        while k < len(s):
            depth += {"(": 1, ")": -1}.get(s[k], 0)
            k += 1
            if depth == 0:
                break
        s = s[:i] + " " + s[k:]


def top_level_statements(text):
    """(statement, terminator) for every statement outside braces: terminator ';' or '{'."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "{":
            if depth == 0:
                out.append((text[start:i], "{"))
            depth += 1
        elif ch == "}":
            depth = max(depth - 1, 0)
            if depth == 0:
                start = i + 1
        elif ch == ";" and depth == 0:
            out.append((text[start:i], ";"))
            start = i + 1
    return out


def declared_name(stmt):
    """The function or variable a top-level statement declares or defines, or None."""
    s = drop_attributes(" ".join(stmt.split()))
    if not s or re.match(r"^(typedef|static|_Static_assert)\b", s):
        return None
    if "(" in s.split("=")[0]:
        head = s[:s.index("(")]
        if s[s.index("(") + 1:].lstrip().startswith("*"):  # int (*fn)(...): a pointer
            m = re.match(r"\s*\*\s*(\w+)", s[s.index("(") + 1:])
            return m.group(1) if m else None
        m = re.search(r"(\w+)\s*$", head)
        if not m or m.group(1) in C_KEYWORDS or head.strip() == m.group(1):
            return None  # a call or a macro use, not a declaration
        return m.group(1)
    s = s.split("=")[0].strip()
    s = re.sub(r"\[[^\]]*\]", "", s).strip()
    words = re.findall(r"\w+", s)
    if len(words) < 2 or words[0] in ("struct", "union", "enum") and len(words) == 2:
        return None
    return words[-1] if words[-1] not in C_KEYWORDS else None


def symbols(path):
    """(declared, defined): names a header declares, names a .c file defines (not static)."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        text = strip_code(fh.read())
    declared, defined = set(), set()
    for stmt, end in top_level_statements(text):
        name = declared_name(stmt)
        if not name:
            continue
        is_extern = re.match(r"^\s*extern\b", stmt) is not None
        if path.endswith(".h") and end == ";":
            declared.add(name)
        elif path.endswith(".c") and not is_extern:
            if end == "{" or (end == ";" and "(" not in stmt):
                defined.add(name)
    return declared, defined


class Graph:
    def __init__(self, root):
        self.root = root
        self.files = source_files(root)
        self.fileset = set(self.files)
        self.by_base = {}
        for f in self.files:
            self.by_base.setdefault(os.path.basename(f), []).append(f)
        self.include_dirs = cmake_include_dirs(root)
        self.includes = {f: self._includes(f) for f in self.files}
        self._reach = {}
        syms = {f: symbols(os.path.join(root, f)) for f in self.files}
        self.declared = {f: syms[f][0] for f in self.files if f.endswith(".h")}
        self.defined = {f: syms[f][1] for f in self.files if f.endswith(".c")}
        self._units()
        self._edges()

    def resolve(self, including, name):
        """The file #include "name" in including means: beside it, else in an include
        directory or anywhere by base name, the nearest to the including file winning."""
        here = os.path.normpath(os.path.join(os.path.dirname(including), name))
        if here in self.fileset:
            return here
        found = []
        for d in self.include_dirs:
            p = os.path.normpath(os.path.join(d, name))
            if p in self.fileset and p not in found:
                found.append(p)
        tail = os.sep + os.path.normpath(name)
        for p in self.by_base.get(os.path.basename(name), []):
            if (os.sep + p).endswith(tail) and p not in found:
                found.append(p)
        if not found:
            return None
        parts = os.path.dirname(including).split(os.sep)

        def shared(p):
            n = 0
            for a, b in zip(parts, os.path.dirname(p).split(os.sep)):
                if a != b:
                    break
                n += 1
            return n
        return max(found, key=shared)  # max keeps the first of equals: include order

    def _includes(self, f):
        with open(os.path.join(self.root, f), encoding="utf-8", errors="replace") as fh:
            names = INCLUDE_RE.findall(fh.read())
        out = []
        for n in names:
            r = self.resolve(f, n)
            if r and r != f:
                out.append((n, r))
        return out

    def _units(self):
        stem = lambda f: os.path.splitext(f)[0]
        has_c = {stem(f) for f in self.files if f.endswith(".c")}
        self.unit = {}
        for f in self.files:
            self.unit[f] = stem(f)
        self.own_header = {}  # header -> the unit it is the own header of
        for f in self.files:
            if f.endswith(".h") and stem(f) in has_c:
                self.own_header[f] = stem(f)
        # A header with no .c of its name that a .c file includes itself and defines
        # declarations of is that file's own header (a folder's shared header such as
        # tb5_internal.h): the header and the files that implement it are one unit.
        parent = {}

        def find(u):
            while parent.get(u, u) != u:
                u = parent[u]
            return u

        # A public header (an include/ folder: acart_platform.h, tbrw.h) is an interface
        # that others implement, never one implementer's own header: the kit, each board
        # and the simulated board all define what acart_platform.h declares.
        def public(h):
            return "include" in h.split(os.sep)[:-1]

        for f in self.files:
            if not f.endswith(".c") or stem(f) + ".h" in self.fileset:
                continue
            for _, h in self.includes[f]:
                # A test's stand-in for a header's functions (the simulated board's MSR
                # access) makes it no implementer of that header.
                if h.endswith(".h") and stem(h) not in has_c and not public(h) and \
                        (not is_test(f) or is_test(h)) and \
                        self.declared.get(h, set()) & self.defined[f]:
                    a, b = find(stem(f)), find(stem(h))
                    if a != b:
                        parent[a] = b
                    self.own_header[h] = stem(h)
        for f in self.files:
            self.unit[f] = find(self.unit[f])
        for h in self.own_header:
            self.own_header[h] = self.unit[h]

    def reaches(self, f):
        """Every file f includes, directly or through others."""
        if f not in self._reach:
            seen, todo = set(), [f]
            while todo:
                for _, t in self.includes[todo.pop()]:
                    if t not in seen:
                        seen.add(t)
                        todo.append(t)
            self._reach[f] = seen
        return self._reach[f]

    def _edges(self):
        self.edges = {}  # unit -> {unit: reason}

        def add(a, b, why):
            if a != b:
                self.edges.setdefault(a, {}).setdefault(b, why)

        definers = {}
        for f, names in self.defined.items():
            for n in names:
                definers.setdefault(n, []).append(f)
        for f in self.files:
            self.edges.setdefault(self.unit[f], {})
            for name, target in self.includes[f]:
                add(self.unit[f], self.unit[target], f'{f} includes "{name}" ({target})')
        # A definition counts where the defining file sees the declaration (it includes
        # the header), and a test's stand-in for a function counts only for a test header.
        for h, u in self.own_header.items():
            for n in sorted(self.declared.get(h, ())):
                for c in definers.get(n, ()):
                    if h in self.reaches(c) and (not is_test(c) or is_test(h)):
                        add(u, self.unit[c], f"{h} declares {n}, defined in {c}")

    def components(self):
        """Strongly connected components with two or more units (Tarjan, iterative)."""
        index, low, on, stack, comps, counter = {}, {}, set(), [], [], [0]
        for start in sorted(self.edges):
            if start in index:
                continue
            work = [(start, iter(sorted(self.edges.get(start, {}))))]
            index[start] = low[start] = counter[0]
            counter[0] += 1
            stack.append(start)
            on.add(start)
            while work:
                v, it = work[-1]
                advanced = False
                for w in it:
                    if w not in index:
                        index[w] = low[w] = counter[0]
                        counter[0] += 1
                        stack.append(w)
                        on.add(w)
                        work.append((w, iter(sorted(self.edges.get(w, {})))))
                        advanced = True
                        break
                    if w in on:
                        low[v] = min(low[v], index[w])
                if advanced:
                    continue
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        comps.append(sorted(comp))
        return comps

    def loop(self, comp):
        """A shortest loop through comp's first unit, inside comp."""
        inside, start = set(comp), comp[0]
        prev, queue = {start: None}, deque([start])
        while queue:
            v = queue.popleft()
            for w in sorted(self.edges.get(v, {})):
                if w not in inside:
                    continue
                if w == start:
                    path = [v]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    return list(reversed(path)) + [start]
                if w not in prev:
                    prev[w] = v
                    queue.append(w)
        return comp + [start]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", help="files or folders whose cycles to print")
    ap.add_argument("--all", action="store_true",
                    help="also cycles among files of one folder")
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                    help="the repository (default: this script's)")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    paths = [os.path.normpath(os.path.relpath(os.path.abspath(p), root)) for p in args.paths] or ["."]
    g = Graph(root)

    def under(unit):
        return any(p == "." or unit == p or unit.startswith(p.rstrip(os.sep) + os.sep) or
                   os.path.splitext(p)[0] == unit for p in paths)

    found = 0
    for comp in g.components():
        if not any(under(u) for u in comp):
            continue
        folders = sorted({os.path.dirname(u) for u in comp})
        if len(folders) < 2 and not args.all:
            continue
        found += 1
        loop = g.loop(comp)
        print(f"cycle {found}: " + " -> ".join(loop))
        for a, b in zip(loop, loop[1:]):
            print(f"  {g.edges[a][b]}")
        if len(comp) > len(loop) - 1:
            print(f"  (all {len(comp)} units of this cycle: {', '.join(comp)})")
        for u in loop[:-1]:
            own = sorted(f for f in g.files if g.unit[f] == u and os.path.splitext(f)[0] != u)
            if own:
                print(f"  ({u} is one unit with {', '.join(own)}: they implement its header)")
    where = " ".join(paths)
    what = "include cycles" if args.all else "include cycles between folders"
    if found:
        print(f"{found} {what} in {where}")
        return 1
    print(f"no {what} in {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
