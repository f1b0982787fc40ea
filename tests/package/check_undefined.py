"""What libacart.a needs from the link, against the list in docs/porting.md: every
symbol the archive leaves undefined must be listed there, and everything listed must be
undefined in it (a stale list fails too). Usage: check_undefined.py NM LIBACART PORTING_MD"""
import re
import subprocess
import sys


def symbols(nm, archive, *flags):
    out = subprocess.run([nm, *flags, archive], capture_output=True, text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines()
            if line.strip() and not line.endswith(":") and len(line.split()) >= 2}


def main():
    nm, archive, doc = sys.argv[1:4]
    needed = symbols(nm, archive, "-u") - symbols(nm, archive, "--defined-only")
    text = open(doc).read()
    m = re.search(r"<!-- libacart-undefined-begin -->(.*?)<!-- libacart-undefined-end -->", text,
                  re.S)
    if not m:
        sys.exit("check_undefined: %s has no libacart-undefined list" % doc)
    listed = set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", m.group(1)))
    missing, stale = sorted(needed - listed), sorted(listed - needed)
    if missing:
        print("libacart.a needs symbols docs/porting.md does not name: " + ", ".join(missing))
    if stale:
        print("docs/porting.md names symbols libacart.a does not need: " + ", ".join(stale))
    if missing or stale:
        sys.exit(1)
    print("libacart.a needs exactly the %d symbols docs/porting.md lists" % len(needed))


main()
