#!/usr/bin/env python3
"""The lwIP options template of docs/porting.md is what the ports in the tree build with:
every `#define NAME VALUE` of the template has the same value in each port's lwipopts.h,
except those whose comment says "yours" (a port's own choice: its services, its CPUs)."""
import argparse
import re
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--doc", required=True)
ap.add_argument("ports", nargs="+", help="the ports' lwipopts.h")
args = ap.parse_args()

DEFINE = re.compile(r"^\s*#\s*define\s+(\w+)\s+(.*?)\s*(/\*.*)?$")


def defines(text):
    out = {}
    for line in text.splitlines():
        m = DEFINE.match(line)
        if m and not m.group(1).endswith("_H"):
            out[m.group(1)] = (re.sub(r"\s+", " ", m.group(2)), m.group(3) or "")
    return out


doc = open(args.doc).read()
m = re.search(r"<!-- lwip-template-begin -->\s*```c\n(.*?)```\s*<!-- lwip-template-end -->",
              doc, re.S)
if not m:
    sys.exit("%s: no lwIP template between the lwip-template markers" % args.doc)
template = defines(m.group(1))
failures = []
for port in args.ports:
    have = defines(open(port).read())
    if "acart_lwip_requirements.h" not in open(port).read():
        failures.append("%s does not include acart_lwip_requirements.h" % port)
    for name, (value, comment) in template.items():
        if "yours" in comment:
            continue
        if name not in have:
            failures.append("%s: %s is not defined (the template has %s)" % (port, name, value))
        elif have[name][0] != value:
            failures.append("%s: %s is %s, the template has %s" % (port, name, have[name][0],
                                                                    value))
for f in failures:
    print(f)
print("%d template options, %d ports: %s" % (len(template), len(args.ports),
                                             "ok" if not failures else "%d differ" % len(failures)))
sys.exit(1 if failures else 0)
