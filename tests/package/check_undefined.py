"""What libacart.a needs from the link, against the list in docs/porting.md: every
symbol the archive leaves undefined must be listed there, and everything listed must be
undefined in it (a stale list fails too), except that the x86_64 library needs none of the
entries on a line that says "(i686 only)". Usage:
check_undefined.py NM LIBACART PORTING_MD [i686|x86_64]"""
import re
import subprocess
import sys


def symbols(nm, archive, *flags):
    out = subprocess.run([nm, *flags, archive], capture_output=True, text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines()
            if line.strip() and not line.endswith(":") and len(line.split()) >= 2}


def main():
    nm, archive, doc = sys.argv[1:4]
    arch = sys.argv[4] if len(sys.argv) > 4 else "i686"
    needed = symbols(nm, archive, "-u") - symbols(nm, archive, "--defined-only")
    text = open(doc).read()
    m = re.search(r"<!-- libacart-undefined-begin -->(.*?)<!-- libacart-undefined-end -->", text,
                  re.S)
    if not m:
        sys.exit("check_undefined: %s has no libacart-undefined list" % doc)
    listed = set()
    for entry in re.split(r"\n(?=- )", m.group(1)):
        if arch == "x86_64" and "(i686 only)" in entry:
            continue
        listed |= set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", entry))
    missing, stale = sorted(needed - listed), sorted(listed - needed)
    if missing:
        print("libacart.a needs symbols docs/porting.md does not name: " + ", ".join(missing))
    if stale:
        print("docs/porting.md names symbols libacart.a does not need: " + ", ".join(stale))
    if missing or stale:
        sys.exit(1)
    print("libacart.a (%s) needs exactly the %d symbols docs/porting.md lists" % (arch, len(needed)))


main()
