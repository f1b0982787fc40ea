"""The libc functions docs/porting.md says the package calls, against the libraries: for
each library of the table between <!-- libc-calls-begin --> and <!-- libc-calls-end -->
(a row per function: the function, the library's file name, where it is called from),
the functions listed are exactly the symbols the installed library leaves undefined that
picolibc's libc.a defines (a stale row fails too). Each must also be in the
general-registers-only picolibc (scripts/setup-deps), so that it serves the package.
Usage: check_libc.py NM PICOLIBC_LIBC GPR_LIBC PORTING_MD LIBRARY..."""
import os
import re
import subprocess
import sys


def symbols(nm, archive, *flags):
    out = subprocess.run([nm, *flags, archive], capture_output=True, text=True,
                         check=True).stdout
    return {line.split()[-1] for line in out.splitlines()
            if len(line.split()) >= 2 and not line.endswith(":")}


def documented(doc):
    """{library file name: set(functions)} from the table."""
    text = open(doc, encoding="utf-8").read()
    m = re.search(r"<!-- libc-calls-begin -->(.*?)<!-- libc-calls-end -->", text, re.S)
    if not m:
        sys.exit("check_libc: %s has no libc-calls table" % doc)
    listed = {}
    for row in m.group(1).splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        for lib in re.findall(r"`([A-Za-z0-9_]+\.a)`", cells[1]):
            listed.setdefault(lib, set()).add(cells[0].strip("`"))
    return listed


def main():
    nm, picolibc, gpr, doc, *libraries = sys.argv[1:]
    libc = symbols(nm, picolibc, "--defined-only", "-g")
    gpr_libc = symbols(nm, gpr, "--defined-only", "-g")
    listed = documented(doc)
    failed = False
    for lib in libraries:
        name = os.path.basename(lib)
        needed = (symbols(nm, lib, "-u") - symbols(nm, lib, "--defined-only")) & libc
        have = listed.get(name, set())
        wrong = False
        for what, names in (("calls, but docs/porting.md does not list", needed - have),
                            ("does not call, but docs/porting.md lists", have - needed),
                            ("calls, but the general-registers-only picolibc lacks",
                             needed - gpr_libc)):
            if names:
                print("%s %s: %s" % (name, what, ", ".join(sorted(names))))
                wrong = True
        if not wrong:
            print("%s calls exactly the %d libc functions docs/porting.md lists: %s"
                  % (name, len(needed), ", ".join(sorted(needed)) or "none"))
        failed = failed or wrong
    sys.exit(1 if failed else 0)


main()
