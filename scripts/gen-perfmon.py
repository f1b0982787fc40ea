#!/usr/bin/env python3
"""Generates perfmon/perfmon_tables.c, the event tables of `acart collect --event` and of
IPROBE's event names, from Intel's perfmon JSON in perfmon/json/.

    scripts/gen-perfmon.py            rewrite perfmon/perfmon_tables.c
    scripts/gen-perfmon.py --check    exit 1 when the committed file is not what the
                                      inputs give (the perfmon_tables_current test)

Every core event file perfmon/json/mapfile.csv names and the folder holds becomes
one model table: its events sorted by name (for binary search), each with its encoding
(EventCode, UMask, CounterMask, Invert, EdgeDetect, AnyThread), the counters it may use,
whether it can be sampled with PEBS and on which counters, the extra MSR it needs
(MSR_OFFCORE_RSP_0/1, MSR_PEBS_LD_LAT, MSR_PEBS_FRONTEND) with its value, and perfmon's
SampleAfterValue. Each table carries the file's version (checked against the mapfile's)
and the CPUID family-6 models the mapfile maps to it. Python 3 standard library only.
"""
import argparse
import csv
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INPUT = os.path.join(ROOT, "perfmon", "json")
OUTPUT = os.path.join(ROOT, "perfmon", "perfmon_tables.c")

MSR_KINDS = {  # perfmon's MSRIndex -> (perfmon_tables.h's PERFMON_MSR_*, the MSR)
    0x1A6: ("PERFMON_MSR_OFFCORE_RSP", 0x1A6),
    0x1A7: ("PERFMON_MSR_OFFCORE_RSP", 0x1A7),
    0x3F6: ("PERFMON_MSR_LOAD_LATENCY", 0x3F6),
    0x3F7: ("PERFMON_MSR_FRONTEND", 0x3F7),
}


class GenError(Exception):
    pass


def num(text, what):
    try:
        return int(str(text).strip(), 0)
    except ValueError:
        raise GenError("%s: not a number: %r" % (what, text)) from None


def num_list(text, what):
    return [num(t, what) for t in str(text).split(",") if t.strip()]


def counters_of(text, what):
    """perfmon's Counter field: a list of general counters, or 'Fixed counter N'."""
    text = str(text).strip()
    if text.lower().startswith("fixed counter"):
        return 0, num(text.split()[-1], what)
    mask = 0
    for n in num_list(text, what):
        if n > 7:
            raise GenError("%s: general counter %d" % (what, n))
        mask |= 1 << n
    return mask, None


def flag(e, key):
    return str(e.get(key, "0")).strip() == "1"


def model_rows(mapfile):
    """{events file (relative to INPUT): (version, [family-6 models])} for core files."""
    files = {}
    with open(mapfile, newline="") as f:
        for row in csv.DictReader(f):
            if row["EventType"] != "core":
                continue
            path = row["Filename"].lstrip("/")
            if not os.path.exists(os.path.join(INPUT, path)):
                continue
            vendor, family, model = row["Family-model"].split("-")
            if vendor != "GenuineIntel" or family != "6":
                raise GenError("mapfile: %s is not an Intel family-6 model" % row["Family-model"])
            version, models = files.setdefault(path, (row["Version"], []))
            if version != row["Version"]:
                raise GenError("mapfile: %s has versions %s and %s" % (path, version, row["Version"]))
            models.append(int(model, 16))
    return files


def event_row(e, what, vary_pebs_counters):
    code = num_list(e["EventCode"], what + " EventCode")
    umask = num_list(e["UMask"], what + " UMask")
    msrs = [m for m in num_list(e.get("MSRIndex", "0"), what + " MSRIndex") if m]
    counters, fixed = counters_of(e["Counter"], what + " Counter")
    pebs = str(e.get("PEBS", "0")) in ("1", "2") or str(e.get("Precise", "0")) == "1"
    pebs_counters = 0
    if pebs:
        pebs_counters = counters
        if vary_pebs_counters and e.get("PEBScounters") not in (None, ""):
            listed = [n for n in num_list(e["PEBScounters"], what + " PEBScounters") if n < 32]
            pebs_counters = sum(1 << n for n in listed) & counters
    cmask = num(e.get("CounterMask", "0"), what + " CounterMask")
    if len(code) > 2 or len(umask) > 2 or cmask > 255 or max(code + umask) > 255:
        raise GenError("%s: encoding out of range" % what)
    flags = []
    for key, name in (("Invert", "INV"), ("EdgeDetect", "EDGE"), ("AnyThread", "ANY"),
                      ("TakenAlone", "TAKEN_ALONE"), ("Deprecated", "DEPRECATED")):
        if flag(e, key):
            flags.append("PERFMON_" + name)
    if pebs:
        flags.append("PERFMON_PEBS")
    extra = None
    if msrs:
        kind, msr = MSR_KINDS.get(msrs[0], (None, None))
        if kind is None or len(msrs) > 2:
            raise GenError("%s: MSRIndex %s" % (what, e["MSRIndex"]))
        # Two MSRs: the event counts through either of the offcore-response pair, the
        # second with the second code (or umask) perfmon lists.
        alt_code = alt_umask = 0
        if len(msrs) == 2:
            if msrs != [0x1A6, 0x1A7]:
                raise GenError("%s: MSRIndex %s" % (what, e["MSRIndex"]))
            alt_code = code[1] if len(code) == 2 else code[0]
            alt_umask = umask[1] if len(umask) == 2 else umask[0]
        extra = (num(e.get("MSRValue", "0"), what + " MSRValue"), kind, msr, alt_code, alt_umask)
    elif len(code) > 1 or len(umask) > 1:
        raise GenError("%s: several encodings without offcore MSRs" % what)
    sav = num(e.get("SampleAfterValue", "0"), what + " SampleAfterValue")
    return {
        "name": e["EventName"].strip(),
        "code": code[0],
        "umask": umask[0],
        "cmask": cmask,
        "flags": flags,
        "counters": counters,
        "pebs_counters": pebs_counters,
        "fixed": fixed,
        "extra": extra,
        "sav": sav,
    }


def is_open_offcore(e):
    return "," in str(e["UMask"]) + str(e["EventCode"]) and not num_list(e.get("MSRIndex", "0"), "")[0]


def load_model(path, version, models):
    with open(os.path.join(INPUT, path)) as f:
        data = json.load(f)
    header = data["Header"]
    if "V" + header["Version"] != version:
        raise GenError("%s: header version %s, mapfile %s" % (path, header["Version"], version))
    # Some files (Goldmont's) list the same PEBScounters for every event, PEBS or not:
    # that says nothing, and the Counter field is the better answer there.
    pebs_lists = {str(e.get("PEBScounters")) for e in data["Events"]}
    # The bare OFFCORE_RESPONSE of Goldmont and Skylake leaves the response MSR's value to the user: there
    # is nothing to encode by name, so it is left out.
    events = [event_row(e, "%s %s" % (path, e.get("EventName")), len(pebs_lists) > 1)
              for e in data["Events"] if not is_open_offcore(e)]
    events.sort(key=lambda r: r["name"].upper())
    names = [r["name"].upper() for r in events]
    for a, b in zip(names, names[1:]):
        if a == b:
            raise GenError("%s: event %s twice" % (path, a))
    stem = os.path.splitext(os.path.basename(path))[0]
    return {
        "dir": path.split("/")[0],
        "uarch": stem[:-len("_core")] if stem.endswith("_core") else stem,
        "version": header["Version"],
        "published": header.get("DatePublished", ""),
        "path": path,
        "models": sorted(models),
        "events": events,
    }


def c_string_pool(names):
    offsets, pool, at = [], [], 0
    for n in names:
        offsets.append(at)
        pool.append(n)
        at += len(n) + 1
    if at > 0xFFFF:
        raise GenError("names pool of %d bytes: more than a uint16_t offset reaches" % at)
    return offsets, pool


def render(models, commit):
    out = []
    w = out.append
    w("/* clang-format off */")
    w("/* Generated by scripts/gen-perfmon.py from Intel perfmon (commit %s): do not edit." % commit)
    w(" * The event data is Intel's, under the BSD 3-Clause licence in perfmon/LICENSE. */")
    w('#include "perfmon_tables.h"')
    w("")
    w('const char perfmon_commit[] = "%s";' % commit)
    for m in models:
        tag = m["dir"].lower()
        offsets, pool = c_string_pool([e["name"] for e in m["events"]])
        savs = sorted({e["sav"] for e in m["events"]})
        if len(savs) > 256:
            raise GenError("%s: more than 256 sample-after values" % m["path"])
        extras = [e["extra"] for e in m["events"] if e["extra"]]
        if len(extras) > 0xFFFE or len(m["events"]) > 0xFFFF:
            raise GenError("%s: too many events" % m["path"])
        w("")
        w("/* %s: %s version %s (%s). */" % (m["dir"], m["path"], m["version"], m["published"]))
        w("static const char %s_names[] =" % tag)
        for n in pool:
            w('    "%s\\0"' % n)
        w("    ;")
        w("static const uint32_t %s_sample_after[] = {%s};" % (tag, ", ".join(map(str, savs))))
        if extras:
            w("static const struct perfmon_extra %s_extras[] = {" % tag)
            for value, kind, msr, alt_code, alt_umask in extras:
                w("    {0x%xull, 0x%x, %s, 0x%02x, 0x%02x}," % (value, msr, kind, alt_code, alt_umask))
            w("};")
        w("static const struct perfmon_event %s_events[] = {" % tag)
        extra_at = 0
        for e, off in zip(m["events"], offsets):
            extra = 0
            if e["extra"]:
                extra_at += 1
                extra = extra_at
            w("    {%d, %d, 0x%02x, 0x%02x, %d, %s, 0x%02x, 0x%02x, %s, %d}, /* %s */" % (
                off, extra, e["code"], e["umask"], e["cmask"],
                "|".join(e["flags"]) if e["flags"] else "0",
                e["counters"], e["pebs_counters"],
                "PERFMON_NO_FIXED" if e["fixed"] is None else str(e["fixed"]),
                savs.index(e["sav"]), e["name"]))
        w("};")
        w("static const uint8_t %s_cpu_models[] = {%s};" % (
            tag, ", ".join("0x%02x" % x for x in m["models"])))
    w("")
    w("const struct perfmon_model perfmon_models[] = {")
    for m in models:
        tag = m["dir"].lower()
        w('    {"%s", "%s", "%s", %s_names, %s_events, %s, %s_sample_after, %s_cpu_models, %d, %d},' % (
            m["uarch"], m["dir"], m["version"], tag, tag,
            "%s_extras" % tag if any(e["extra"] for e in m["events"]) else "0",
            tag, tag, len(m["events"]), len(m["models"])))
    w("};")
    w("const unsigned perfmon_num_models = sizeof perfmon_models / sizeof perfmon_models[0];")
    return "\n".join(out) + "\n"


def generate():
    with open(os.path.join(INPUT, "COMMIT")) as f:
        commit = f.read().strip()
    rows = model_rows(os.path.join(INPUT, "mapfile.csv"))
    if not rows:
        raise GenError("no core event file of the mapfile is in %s" % INPUT)
    models = [load_model(p, v, ms) for p, (v, ms) in rows.items()]
    models.sort(key=lambda m: m["dir"])
    seen = {}
    for m in models:
        for x in m["models"]:
            if x in seen:
                raise GenError("model 6-%02X maps to %s and %s" % (x, seen[x], m["path"]))
            seen[x] = m["path"]
    return render(models, commit)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="compare with the committed file instead of writing it")
    ap.add_argument("--output", default=OUTPUT, help="file to write or check")
    args = ap.parse_args()
    try:
        text = generate()
    except (GenError, KeyError, OSError, json.JSONDecodeError) as e:
        print("gen-perfmon: %s" % e, file=sys.stderr)
        return 2
    if args.check:
        try:
            with open(args.output) as f:
                current = f.read()
        except OSError as e:
            print("gen-perfmon: %s" % e, file=sys.stderr)
            return 1
        if current != text:
            print("gen-perfmon: %s is not what scripts/gen-perfmon.py makes of perfmon/json: "
                  "run scripts/gen-perfmon.py and commit the result" % args.output, file=sys.stderr)
            return 1
        return 0
    with open(args.output, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
