"""acart export chrome, export perfetto and acart pt flamegraph on pttc traces (traces/*.ptt): the JSON
parses (Python's json), has one timeline per CPU, every call a complete event nested in
its caller, with the times and instructions the assembly gives; gaps are instant events;
the flame graph's frames hold the instructions of the call tree. And the image: a
position-independent ELF goes where module.bin says. Usage:
  test_pt_export.py --acart ACART --pttc PTTC --synth SYNTH --traces DIR --workdir DIR"""

import argparse
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

from acarttest.ptcase import Case, TestFailure, check, run, write_collection


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    data.decode("utf-8")  # strict: JSON files are UTF-8
    return json.loads(data)


def timelines(doc):
    """{tid: [X events in file order]} after checking the document's shape."""
    check(isinstance(doc, dict) and isinstance(doc.get("traceEvents"), list),
          "no traceEvents array")
    events = doc["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in events
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    check(any(e.get("ph") == "M" and e.get("name") == "process_name" for e in events),
          "no process_name")
    out = {}
    for e in events:
        check(isinstance(e.get("ph"), str) and isinstance(e.get("pid"), int), "event %r" % e)
        if e["ph"] == "X":
            check(isinstance(e["name"], str) and e["dur"] >= 0 and e["ts"] >= 0, "event %r" % e)
            check(names.get(e["tid"]) == "cpu %d" % e["tid"], "tid %d has no cpu name" % e["tid"])
            out.setdefault(e["tid"], []).append(e)
    for tid, calls in out.items():
        # Each call lies inside the call before it of one depth less: its caller.
        open_calls = []
        for e in calls:
            depth = e["args"]["depth"]
            del open_calls[depth:]
            check(len(open_calls) == depth, "cpu %d: %s at depth %d has no caller"
                  % (tid, e["name"], depth))
            if open_calls:
                p = open_calls[-1]
                check(p["ts"] <= e["ts"] and e["ts"] + e["dur"] <= p["ts"] + p["dur"] + 1e-6,
                      "cpu %d: %s [%s, +%s] is not inside its caller %s [%s, +%s]"
                      % (tid, e["name"], e["ts"], e["dur"], p["name"], p["ts"], p["dur"]))
            open_calls.append(e)
    return out


def summary(calls):
    return [(e["args"]["depth"], e["name"], e["ts"], e["dur"], e["args"]["insns"]) for e in calls]


def check_timing(args, case):
    """timing.ptt on two CPUs, microseconds from the time stamps (1 tick = 1 us there)."""
    folder = os.path.join(case.dir, "two")
    write_collection(folder, case.trace, dict(case.settings, cpus="2"))
    out = os.path.join(case.dir, "timing.json")
    run([args.acart, "export", "chrome", folder, "--elf", case.elf, "-o", out])
    lines = timelines(load(out))
    check(sorted(lines) == [0, 1], "timelines %s, expected cpus 0 and 1" % sorted(lines))
    want = [(0, "main", 0.0, 1052.0, 7), (1, "work", 0.0, 1016.0, 2),
            (1, "work", 1016.0, 32.0, 2)]
    for tid in (0, 1):
        check(summary(lines[tid]) == want, "cpu %d: %s, expected %s"
              % (tid, summary(lines[tid]), want))
    run([args.acart, "export", "chrome", folder, "--elf", case.elf, "-o", out, "--cpu", "1"])
    check(sorted(timelines(load(out))) == [1], "--cpu 1 exports other CPUs")


def check_perfetto(args, case):
    """acart export perfetto of a collection with samples and timing.ptt's trace on two CPUs:
    process 2 holds the PT calls export chrome gives, on the samples' clock (time 0 the
    earliest TSC of either); without --elf the calls are left out with a note."""
    two = os.path.join(case.dir, "two")
    folder = os.path.join(case.dir, "perfetto")
    org = case.settings["org"]
    run([args.synth, folder, "--cpus", "2", "--tsc-hz", case.settings["tsc_hz"],
         "--tsc-start", "600000", "--tsc-step", "100",
         "--run", "0:1:1:%#x:5:0" % org, "--run", "1:1:1:%#x:4:0" % org])
    with open(os.path.join(two, "session.json")) as f:
        pt = json.load(f)["pt"]
    with open(os.path.join(folder, "session.json")) as f:
        doc = json.load(f)
    doc["pt"] = pt
    with open(os.path.join(folder, "session.json"), "w") as f:
        json.dump(doc, f)
    for cpu in (0, 1):
        with open(os.path.join(two, "pt-cpu%d.bin" % cpu), "rb") as src, \
                open(os.path.join(folder, "pt-cpu%d.bin" % cpu), "wb") as dst:
            dst.write(src.read())
    chrome_json = os.path.join(case.dir, "perfetto-chrome.json")
    perfetto_json = os.path.join(case.dir, "perfetto.json")
    run([args.acart, "export", "chrome", folder, "--elf", case.elf, "-o", chrome_json])
    run([args.acart, "export", "perfetto", folder, "--elf", case.elf, "-o", perfetto_json])
    chrome, perfetto = load(chrome_json), load(perfetto_json)
    check(perfetto["otherData"]["base_tsc"] == 600000,
          "perfetto base_tsc %s, expected the first sample's 600000" % perfetto["otherData"])
    shift = ((chrome["otherData"]["base_tsc"] - perfetto["otherData"]["base_tsc"]) * 1e6 /
             int(case.settings["tsc_hz"]))
    check(shift > 0, "PT starts after the samples in this case, shift %s" % shift)

    def calls(doc, pid, shift=0.0):
        return sorted((e["tid"], e["name"], round(e["ts"] + shift, 3), e["dur"],
                       json.dumps(e["args"], sort_keys=True))
                      for e in doc["traceEvents"] if e.get("ph") == "X" and e["pid"] == pid)
    want = calls(chrome, 0, shift)
    got = calls(perfetto, 2)
    check(want and got == want, "perfetto PT calls %s, expected %s" % (got, want))
    names = {e["pid"]: e["args"]["name"] for e in perfetto["traceEvents"]
             if e.get("ph") == "M" and e.get("name") == "process_name"}
    check(names.get(2) == "Intel PT", "process names %s" % names)
    instants = [e for e in perfetto["traceEvents"] if e.get("ph") == "i" and e["pid"] == 1]
    check(len(instants) == 9, "%d sample instants, expected 9" % len(instants))
    _, err = run([args.acart, "export", "perfetto", folder, "-o", perfetto_json])
    check("give --elf IMAGE for its calls" in err, "without --elf: %r" % err)
    check(not any(e["pid"] == 2 for e in load(perfetto_json)["traceEvents"]),
          "PT calls without an image")


def check_calls(args, case):
    """calls.ptt with one microsecond per instruction: starts and lengths in instructions."""
    out = os.path.join(case.dir, "calls.json")
    run([args.acart, "export", "chrome", case.collection, "--elf", case.elf, "-o", out,
         "--clock", "insns"])
    got = summary(timelines(load(out))[0])
    want = [(0, "main", 0, 17, 17), (1, "work", 2, 11, 11), (2, "leaf", 3, 2, 2),
            (2, "leaf", 8, 2, 2), (1, "helper", 15, 1, 1)]
    check(got == want, "calls: %s, expected %s" % (got, want))

    svg = os.path.join(case.dir, "calls.svg")
    run([args.acart, "pt", "flamegraph", case.collection, "--elf", case.elf, "-o", svg])
    frames = dict(flame_frames(svg))
    want = {"all": 17, "main": 17, "work": 11, "leaf": 4, "helper": 1}
    check(frames == want, "flame graph frames %s, expected %s" % (frames, want))

    # Two CPUs: a tower each under its `cpu N` root, as the calls close (no call kept).
    folder = os.path.join(case.dir, "two-cpus")
    write_collection(folder, case.trace, dict(case.settings, cpus="2"))
    svg = os.path.join(case.dir, "two-cpus.svg")
    run([args.acart, "pt", "flamegraph", folder, "--elf", case.elf, "-o", svg])
    frames = sorted(flame_frames(svg))
    want = sorted([("all", 34)] + [("cpu %d" % cpu, 17) for cpu in (0, 1)] +
                  [(name, n) for name, n in want.items() if name != "all"] * 2)
    check(frames == want, "two-CPU flame graph frames %s, expected %s" % (frames, want))


def flame_frames(svg):
    """[(frame name, instructions)] of an `acart pt flamegraph` SVG, from its tooltips."""
    ns = "{http://www.w3.org/2000/svg}"
    frames = []
    for t in ET.parse(svg).getroot().iter(ns + "title"):
        m = re.match(r"^(.*) \((\d+) instructions, [\d.]+%\)$", t.text or "")
        if m:
            frames.append((m.group(1), int(m.group(2))))
    return frames


def check_gaps(args, case):
    """resync.ptt: its gap is an instant event naming libipt's error."""
    out = os.path.join(case.dir, "resync.json")
    run([args.acart, "export", "chrome", case.collection, "--elf", case.elf, "-o", out])
    doc = load(out)
    timelines(doc)
    gaps = [e for e in doc["traceEvents"] if e.get("ph") == "i"]
    check(len(gaps) == 1 and "pte_bad_opc" in gaps[0]["args"]["what"],
          "resync: gap events %s" % gaps)


def check_pie(args, case):
    """calls.ptt's code as a position-independent image linked at 0, placed where module.bin
    says it was loaded: the same trace as the fixed-address image gives."""
    run(["ld", "-m", "elf_i386", "-pie", "-Ttext=0", "-e", "0", "-z", "noexecstack",
         "--no-dynamic-linker", case.name + ".o", "-o", "pie.elf"], cwd=case.dir)
    folder = os.path.join(case.dir, "pie")
    run([args.synth, folder, "--module", "/fw/pie.elf:0x%x:0x1000" % case.settings["org"]])
    for name in ("session.json", "pt-cpu0.bin"):
        with open(os.path.join(case.collection, name), "rb") as f:
            data = f.read()
        if name == "session.json":
            pt = json.loads(data)["pt"]
            with open(os.path.join(folder, name)) as f:
                doc = json.load(f)
            doc["pt"] = pt
            data = json.dumps(doc).encode()
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
    pie = os.path.join(case.dir, "pie.elf")
    fixed, _ = run([args.acart, "pt", "trace", case.collection, "--elf", case.elf])
    placed, _ = run([args.acart, "pt", "trace", folder, "--elf", pie])
    check(placed == fixed and "work+0x" in placed,
          "the PIE image placed by module.bin decodes differently:\n" + placed)
    os.remove(os.path.join(folder, "module.bin"))
    out, err = run([args.acart, "pt", "trace", folder, "--elf", pie], expect=3)
    check("no module of the collection is named pie.elf" in err, "PIE without module: " + err)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--acart", required=True)
    p.add_argument("--pttc", required=True)
    p.add_argument("--synth", required=True, help="tests/tools' acart_synth_collection")
    p.add_argument("--traces", required=True)
    p.add_argument("--workdir", required=True)
    args = p.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    try:
        for name, fns in (("timing", (check_timing, check_perfetto)), ("calls", (check_calls,)),
                          ("resync", (check_gaps,)), ("calls", (check_pie,))):
            case = Case(os.path.join(args.traces, name + ".ptt"), args.pttc, args.workdir)
            for fn in fns:
                fn(args, case)
                print("ok   %s (%s)" % (name, fn.__name__))
        out, err = run([args.acart, "export", "chrome", args.workdir, "--elf", "x", "-o",
                        os.path.join(args.workdir, "none.json")], expect=3)
        check("session.json" in err, "a folder with no collection: %r" % err)
        # A collection without PT is bad input for every PT command.
        case = Case(os.path.join(args.traces, "calls.ptt"), args.pttc, args.workdir)
        session = os.path.join(case.collection, "session.json")
        with open(session) as f:
            doc = json.load(f)
        del doc["pt"]
        with open(session, "w") as f:
            json.dump(doc, f)
        for cmd in (["pt", "calls"], ["export", "chrome", "-o", os.path.join(case.dir, "x.json")]):
            out, err = run([args.acart] + cmd + [case.collection, "--elf", case.elf], expect=3)
            check("no Intel PT in this collection" in err, "%s without pt: %r" % (cmd, err))
    except TestFailure as e:
        print("FAIL %s" % e)
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
