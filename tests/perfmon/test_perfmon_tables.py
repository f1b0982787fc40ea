#!/usr/bin/env python3
"""The generated perfmon tables say what Intel's JSON says: every core event of every
model in perfmon/json, read here independently of scripts/gen-perfmon.py, against
what perfmon_dump prints from the compiled tables (encodings as IA32_PERFEVTSELx bits,
counters, fixed counter, PEBS, extra MSR and value, sample-after value, CPUID models).
Usage: test_perfmon_tables.py PERFMON_DUMP THIRD_PARTY_PERFMON_DIR"""
import csv
import json
import os
import subprocess
import sys


def n(s):
    return int(str(s).strip(), 0)


def expected(root):
    models = {}
    with open(os.path.join(root, "mapfile.csv"), newline="") as f:
        for row in csv.DictReader(f):
            path = row["Filename"].lstrip("/")
            if row["EventType"] == "core" and os.path.exists(os.path.join(root, path)):
                models.setdefault(path, []).append(row["Family-model"].split("-")[2])
    out = {}
    for path, cpus in models.items():
        code = path.split("/")[0]
        data = json.load(open(os.path.join(root, path)))
        out[("model", code)] = (data["Header"]["Version"], sorted(cpus))
        for e in data["Events"]:
            codes = [n(x) for x in e["EventCode"].split(",")]
            umasks = [n(x) for x in e["UMask"].split(",")]
            msrs = [n(x) for x in e.get("MSRIndex", "0").split(",") if n(x)]
            if (len(codes) > 1 or len(umasks) > 1) and not msrs:
                continue  # the open OFFCORE_RESPONSE: no value to encode
            evtsel = codes[0] | umasks[0] << 8 | n(e.get("CounterMask", "0")) << 24
            evtsel |= (e.get("EdgeDetect") == "1") << 18
            evtsel |= (e.get("AnyThread") == "1") << 21
            evtsel |= (e.get("Invert") == "1") << 23
            ctr = e["Counter"]
            fixed = int(ctr.split()[-1]) if ctr.startswith("Fixed") else -1
            counters = 0 if fixed >= 0 else sum(1 << int(x) for x in ctr.split(","))
            pebs = e.get("PEBS", "0") in ("1", "2") or e.get("Precise") == "1"
            alt = (0, 0)
            if len(msrs) == 2:
                alt = (codes[-1], umasks[-1])
            out[(code, e["EventName"])] = dict(
                evtsel="%08x" % evtsel, counters="%02x" % counters, fixed=str(fixed),
                pebs=str(int(pebs)), sa=str(n(e["SampleAfterValue"])),
                msr="%x" % (msrs[0] if msrs else 0),
                value="%x" % (n(e["MSRValue"]) if msrs else 0),
                alt="%02x/%02x" % alt)
    return out


def main():
    dump, root = sys.argv[1], sys.argv[2]
    want = expected(root)
    got = {}
    r = subprocess.run([dump], capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stderr, file=sys.stderr)
        return 1
    for line in r.stdout.splitlines():
        f = line.split()
        if f[0] == "model":
            got[("model", f[1])] = (f[3], sorted(f[4:]))
            continue
        fields = dict(x.split("=", 1) for x in f[2:])
        fields.pop("pebs_counters")
        got[(f[0], f[1])] = fields
    bad = 0
    for key in sorted(set(want) | set(got)):
        if want.get(key) != got.get(key):
            print("%s: JSON %s, tables %s" % (key, want.get(key), got.get(key)))
            bad += 1
    events = sum(1 for k in want if k[0] != "model")
    print("%d models, %d events compared, %d differ" % (
        sum(1 for k in want if k[0] == "model"), events, bad))
    return 1 if bad or events < 1000 else 0


if __name__ == "__main__":
    sys.exit(main())
