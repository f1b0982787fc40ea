"""acart pt on a raw trace file (docs/pt.md, "A trace from elsewhere"), on the real trace of
tests/fixtures/pt/dynamorio-hello:
- given raw (the trace file, the CPU as family/model/stepping, the timing configuration of
  the fixture's README) it decodes exactly as from a collection folder holding it: `pt
  trace` (instructions and blocks), `pt calls`, `pt functions`, with the image as the ELF
  file, and with the image as raw memory at its address (`--raw FILE@ADDR`: the same
  instructions, times and bytes, without names);
- `pt packets` prints Intel's ptdump listing kept beside the fixture, byte for byte;
- an image that does not cover the trace: a gap that names the address missing (not the
  last instruction decoded), a warning where some of it decoded, and exit status 3 with no
  output file where none did; malformed --raw and --cpu-model arguments, raw-trace options
  given with a collection, a missing trace: exit status 2 or 3 and a message naming it.
Usage: test_pt_raw.py --acart ACART --fixture DIR --workdir DIR"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys

from acarttest.ptcase import TestFailure, check, run

# The fixture's README: Skylake-SP 6/85/4, MTC every 2^3 crystal clocks, TSC/crystal 308/2,
# nominal ratio 37, a 3.7 GHz TSC.
RAW_CONFIG = ["--cpu-model", "6/85/4", "--mtc-freq", "3", "--nom-freq", "37",
              "--cpuid-0x15.eax", "2", "--cpuid-0x15.ebx", "308", "--tsc-hz", "3700000000"]


def write_collection(folder, trace):
    """The collection test_pt_real.py writes: the same trace, the same configuration."""
    os.makedirs(folder)
    with open(os.path.join(folder, "pt-cpu0.bin"), "wb") as f:
        f.write(trace)
    open(os.path.join(folder, "cpu0.bin"), "wb").close()
    session = {
        "format": "acart-session", "version": 1,
        "target": {"hostname": "dynamorio", "tsc_hz": 3700000000, "num_cpus": 1,
                   "cpu_signature": {"family": 6, "model": 85, "stepping": 4}},
        "transfer": "delayed", "duration_s": 0.0,
        "events": [{"index": 0, "name": "CPU_CLK_UNHALTED.REF_TSC", "sample_after": 1}],
        "samples": {"total": 0, "per_cpu": [0], "dropped_per_cpu": [0]},
        "pt": {"version": 1, "mode": "full", "rtit_ctl": "0x%x" % (0x270b | 3 << 14),
               "cpuid_15_eax": 2, "cpuid_15_ebx": 308, "mtc_freq": 3, "nom_freq": 37,
               "per_cpu": [{"cpu": 0, "bytes": len(trace)}]},
    }
    with open(os.path.join(folder, "session.json"), "w") as f:
        json.dump(session, f)


def run_status(cmd):
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def without_names(out):
    """pt trace lines with the FUNCTION+OFFSET column dropped."""
    lines = []
    for line in out.splitlines():
        m = re.match(r"([0-9a-f]{16}  [0-9a-f]{16})  \S+  (.*)$", line)
        lines.append(m.group(1) + "  " + m.group(2) if m else line)
    return lines


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--acart", required=True)
    p.add_argument("--fixture", required=True)
    p.add_argument("--workdir", required=True)
    args = p.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir)
    acart, w = args.acart, args.workdir
    trace = os.path.join(args.fixture, "pt.bin")
    elf = os.path.join(args.fixture, "hello")
    with open(trace, "rb") as f:
        data = f.read()
    folder = os.path.join(w, "collection")
    write_collection(folder, data)
    # The code as raw memory: .text of the ELF, at its address (the fixture's README).
    text = os.path.join(w, "text.bin")
    run(["objcopy", "-O", "binary", "--only-section=.text", elf, text])
    with open(text, "rb") as f:
        code = f.read()
    check(len(code) == 0x27, "hello's .text should be 0x27 bytes, not %d" % len(code))
    try:
        # Raw trace against collection, the same image.
        for image in (["--elf", elf], ["--elf", elf, "--raw", text + "@0x401000"]):
            for cmd in (["trace"], ["trace", "--blocks"], ["calls"], ["functions"]):
                want, _ = run([acart, "pt", cmd[0], folder] + cmd[1:] + image)
                got, _ = run([acart, "pt", cmd[0], trace] + cmd[1:] + image + RAW_CONFIG)
                check(got == want, "pt %s %s: the raw trace decodes differently:\nraw:\n%s\n"
                      "collection:\n%s" % (" ".join(cmd), " ".join(image), got, want))
        out, _ = run([acart, "pt", "trace", trace, "--elf", elf] + RAW_CONFIG)
        check(len([x for x in out.splitlines() if "  _start" in x]) == 8,
              "pt trace should show hello's 8 instructions:\n" + out)
        # Raw memory alone: the same instructions, times and bytes, no names.
        want, _ = run([acart, "pt", "trace", folder, "--elf", elf])
        got, _ = run([acart, "pt", "trace", trace, "--raw", text + "@0x401000"] + RAW_CONFIG)
        check(without_names(got) == without_names(want),
              "pt trace with --raw differs from the ELF decode:\n%s\n%s" % (got, want))
        got, _ = run([acart, "pt", "functions", trace, "--raw", text + "@0x401000"] + RAW_CONFIG)
        want, _ = run([acart, "pt", "functions", folder, "--elf", elf])
        check(got.splitlines()[0] == want.splitlines()[0],
              "pt functions with --raw: another total:\n%s\n%s" % (got, want))
        # The CPU changes nothing here but must be accepted as ptxed takes it.
        run([acart, "pt", "calls", trace, "--elf", elf, "--cpu-model", "none"])
        run([acart, "pt", "calls", trace, "--elf", elf, "--cpu-model", "0x6/0x55"])

        # Packets: Intel's ptdump listing, from the file and from the collection.
        listing = os.path.join(args.fixture, "expected.ptdump.txt")
        with open(listing) as f:
            ptdump = f.read()
        out, _ = run([acart, "pt", "packets", trace])
        check(out == ptdump, "pt packets differs from ptdump:\n%s" % out[:3000])
        out, _ = run([acart, "pt", "packets", folder])
        check(out == ptdump, "pt packets of the collection differs from ptdump")
        out, _ = run([acart, "pt", "packets", trace, "--no-pad"])
        check(out.splitlines() == [x for x in ptdump.splitlines() if not x.endswith("  pad")],
              "pt packets --no-pad should leave out the PAD packets only")

        # An image that does not cover the trace.
        gone = text + "@0x501000"
        rc, out, err = run_status([acart, "pt", "trace", trace, "--raw", gone] + RAW_CONFIG)
        check(rc == 3 and "does not cover the trace" in err and "0x401000" in err,
              "an image covering none of the trace: exit 3 naming 0x401000, got %d:\n%s"
              % (rc, err))
        check("0x401000 is in no image given" in out, "the gap should name 0x401000:\n" + out)
        svg = os.path.join(w, "none.svg")
        rc, _, err = run_status([acart, "pt", "flamegraph", trace, "--raw", gone, "-o", svg]
                                + RAW_CONFIG)
        check(rc == 3 and not os.path.exists(svg),
              "flamegraph of an uncovered trace: exit 3 and no file, got %d:\n%s" % (rc, err))
        for cmd in ("calls", "functions"):
            rc, out, err = run_status([acart, "pt", cmd, trace, "--raw", gone] + RAW_CONFIG)
            check(rc == 3 and not out and "0x401000" in err,
                  "pt %s of an uncovered trace: exit 3, nothing printed, got %d:\n%s%s"
                  % (cmd, rc, out, err))
        # Half covered: the code after the first syscall (0x40101b on) is missing. The gap
        # names 0x40101b, the address not mapped, not 0x401019, the last one decoded.
        half = os.path.join(w, "half.bin")
        with open(half, "wb") as f:
            f.write(code[:0x1b])
        rc, out, err = run_status([acart, "pt", "trace", trace, "--raw", half + "@0x401000"]
                                  + RAW_CONFIG)
        gaps = [x for x in out.splitlines() if "pte_nomap" in x]
        check(rc == 0 and len(gaps) == 1 and "0x40101b is in no image given" in gaps[0],
              "a half-covered trace: one gap naming 0x40101b, exit 0, got %d:\n%s" % (rc, out))
        check("warning" in err and "0x40101b" in err, "a warning should name 0x40101b:\n" + err)

        # Malformed arguments: usage errors that name the argument.
        for spec in (text, text + "@", text + "@0xzz", "@0x401000", text + "@-1"):
            rc, _, err = run_status([acart, "pt", "trace", trace, "--raw", spec] + RAW_CONFIG)
            check(rc == 2 and ("--raw " + spec) in err,
                  "--raw %s: exit 2 naming it, got %d:\n%s" % (spec, rc, err))
        for cpu in ("intel", "6", "6/85/4/1", "0/1", "6/300", "6/85/x", ""):
            rc, _, err = run_status([acart, "pt", "trace", trace, "--elf", elf, "--cpu-model",
                                     cpu])
            check(rc == 2 and "--cpu-model %s: expected FAMILY/MODEL" % cpu in err,
                  "--cpu-model %r: exit 2 naming it, got %d:\n%s" % (cpu, rc, err))
        rc, _, err = run_status([acart, "pt", "trace", folder, "--elf", elf, "--mtc-freq", "3"])
        check(rc == 2 and "--mtc-freq: only for a raw trace" in err,
              "--mtc-freq with a collection: exit 2, got %d:\n%s" % (rc, err))
        rc, _, err = run_status([acart, "pt", "trace", trace, "--elf", elf, "--mtc-freq", "16"])
        check(rc == 2 and "--mtc-freq" in err, "--mtc-freq 16: exit 2, got %d" % rc)
        rc, _, err = run_status([acart, "pt", "trace", trace, "--elf", elf, "--cpu", "1"])
        check(rc == 2 and "CPU 0 only" in err, "--cpu 1 of a trace file: exit 2, got %d" % rc)
        rc, _, err = run_status([acart, "pt", "trace", trace])
        check(rc == 2 and "an image is required" in err, "no image: exit 2, got %d" % rc)
        missing = os.path.join(w, "missing.pt")
        rc, _, err = run_status([acart, "pt", "calls", missing, "--elf", elf])
        check(rc == 3 and missing in err, "a missing trace: exit 3 naming it, got %d:\n%s"
              % (rc, err))
    except TestFailure as e:
        print("FAIL %s" % e)
        return 1
    print("PASS: the raw trace decodes as its collection, pt packets is ptdump's listing, bad "
          "input refused")
    return 0


if __name__ == "__main__":
    sys.exit(main())
