#!/usr/bin/env python3
"""The layout rule of docs/ARCHITECTURE.md: no folder of runtime/, arch/x86/ or tools/ holds
more than 15 source files (.c, .S) directly. Prints each folder over it; exit status 1 then.

Usage: scripts/folder_sizes.py [--max N] [--root DIR]"""
import argparse
import os
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--max", type=int, default=15)
ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
args = ap.parse_args()
over = []
for top in ("runtime", "arch/x86", "tools"):
    for folder, _, files in os.walk(os.path.join(args.root, top)):
        n = sum(1 for f in files if f.endswith((".c", ".S")))
        if n > args.max:
            over.append((os.path.relpath(folder, args.root), n))
for folder, n in over:
    print(f"{folder}: {n} source files, more than {args.max}: split it by job")
if not over:
    print(f"no folder of runtime/, arch/x86/ or tools/ holds more than {args.max} sources")
sys.exit(1 if over else 0)
