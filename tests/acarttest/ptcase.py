"""Intel PT test cases from annotated assembly (tests/pt/traces/*.ptt).

libipt's test-trace compiler pttc (built by scripts/setup-deps into .deps/) assembles a
.ptt file with yasm and writes the PT packets its `@pt` comments describe. This module
turns its output into an acart collection folder: the code as a fixed-address ELF image
(functions from an `acart-symbols` block), pt-cpu<N>.bin, and a session.json whose `pt`
member comes from `; acart:` lines of the .ptt file (docs/pt.md).

Expected results are `.exp(acart-...)` blocks of the .ptt file, written from what the
assembly executes; pttc replaces `%0label` with the label's address and `%0pN` with the
offset of packet pN, so no address or offset is typed by hand.

`; acart:` settings (key=value, space separated):
  bits, nom_freq, mtc_freq, cpuid_15_eax, cpuid_15_ebx, tsc_hz, cpus  the collection
  short=N              the file is N bytes shorter than pt.per_cpu[0].bytes says
  base=FILE.ptt        this file is a variant of FILE.ptt (same folder): its code and
                       packets with this file's settings, and this file's .exp blocks in
                       place of FILE.ptt's blocks of the same names
An `.exp(acart-lost)` block of lines `%0pN BYTES` says the target lost BYTES before packet
pN (pt.per_cpu[].lost).
"""

import argparse
import json
import os
import re
import shutil
import struct
import subprocess


def board_test_args(*more):
    """--acart, --simboard and a fresh --workdir (plus `more` required options): what every
    test of the simulated board takes."""
    ap = argparse.ArgumentParser()
    for a in ("--acart", "--simboard", "--workdir") + more:
        ap.add_argument(a, required=True)
    args = ap.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir)
    return args


class TestFailure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise TestFailure(message)


def run(cmd, expect=0, cwd=None):
    """Runs cmd; its exit status must be expect (None: any)."""
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, cwd=cwd)
    if expect is not None and r.returncode != expect:
        raise TestFailure(
            "%s: exit %d, expected %d\nstdout:\n%s\nstderr:\n%s"
            % (" ".join(str(c) for c in cmd), r.returncode, expect, r.stdout, r.stderr))
    return r.stdout, r.stderr


def settings(ptt_text):
    s = {"bits": "64", "nom_freq": "0", "mtc_freq": "0", "cpuid_15_eax": "0",
         "cpuid_15_ebx": "0", "tsc_hz": "1000000", "cpus": "1"}
    for line in ptt_text.splitlines():
        m = re.match(r"\s*;\s*acart:\s*(.*)$", line)
        if m:
            for item in m.group(1).split():
                key, _, value = item.partition("=")
                s[key] = value
    m = re.search(r"^\s*bits\s+(16|32|64)", ptt_text, re.M)
    if m:
        s["bits"] = m.group(1)
    m = re.search(r"^\s*org\s+(0x[0-9a-fA-F]+)", ptt_text, re.M)
    check(m, "the .ptt file has no org")
    s["org"] = int(m.group(1), 16)
    return s


def exp_blocks(text):
    """{name: the lines of its `.exp(acart-NAME)` block} of a .ptt file's text."""
    blocks, name = {}, None
    for line in text.splitlines():
        m = re.match(r"\s*;\s*@pt\s+\.exp\(acart-([a-z_-]+)\)", line)
        if m:
            name = m.group(1)
            blocks[name] = [line]
        elif name and line.strip().startswith(";") and "@pt" not in line:
            blocks[name].append(line)
        else:
            name = None
    return blocks


def variant_text(ptt, text):
    """The .ptt text pttc compiles: text itself, or for a variant (`base=FILE.ptt`) its own
    comments and expectations around its base's code, packets and symbols, with the base's
    settings overridden by its own."""
    m = re.search(r"^\s*;\s*acart:.*\bbase=(\S+)", text, re.M)
    if not m:
        return text
    with open(os.path.join(os.path.dirname(ptt), m.group(1))) as f:
        base = f.read()
    for name, lines in exp_blocks(base).items():
        if name != "symbols":
            base = base.replace("\n".join(lines) + "\n", "")
    acart = re.compile(r"^\s*;\s*acart:(.*)$", re.M)
    merged = "; acart:" + " ".join(acart.findall(base) + acart.findall(text))
    first = text.find("@pt")
    cut = len(text) if first < 0 else text.rfind("\n", 0, first) + 1
    head, blocks = text[:cut], text[cut:]
    return "\n".join([merged, acart.sub("", head), acart.sub("", base), blocks])


def read_exp(path):
    """The lines of a pttc .exp file, stripped; [] if pttc wrote none."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [line.strip() for line in f if line.strip()]


def build_elf(workdir, name, bits, org, symbols):
    """name.elf: name.bin at org, with a function symbol per (start, end, name)."""
    asm = ['.section .text,"ax",@progbits', ".Lbase:", '.incbin "%s.bin"' % name]
    for start, end, sym in symbols:
        asm += [".globl %s" % sym, ".type %s,@function" % sym,
                ".set %s, .Lbase + 0x%x" % (sym, start - org), ".size %s, 0x%x" % (sym, end - start)]
    with open(os.path.join(workdir, name + ".s"), "w") as f:
        f.write("\n".join(asm) + "\n")
    emul = ("--32", "elf_i386") if bits != "64" else ("--64", "elf_x86_64")
    run(["as", emul[0], name + ".s", "-o", name + ".o"], cwd=workdir)
    run(["ld", "-m", emul[1], "-Ttext=0x%x" % org, "-e", "0x%x" % org, "-z", "noexecstack",
         name + ".o", "-o", name + ".elf"], cwd=workdir)
    return os.path.join(workdir, name + ".elf")


def write_collection(folder, trace, s, lost=()):
    """A collection folder holding `trace` (bytes) on every CPU, as docs/pt.md says."""
    os.makedirs(folder, exist_ok=True)
    cpus = int(s["cpus"])
    mtc_freq = int(s["mtc_freq"])
    # TraceEn, OS, User, ToPA, MTCEn, TSCEn, BranchEn, MTCFreq.
    rtit_ctl = 0x1 | 0x4 | 0x8 | 0x100 | 0x200 | 0x400 | 0x2000 | (mtc_freq << 14)
    short = int(s.get("short", "0"))
    per_cpu = []
    for cpu in range(cpus):
        entry = {"cpu": cpu, "bytes": len(trace) + short}
        if lost:
            entry["lost"] = [{"offset": offset, "bytes": size} for offset, size in lost]
        per_cpu.append(entry)
        with open(os.path.join(folder, "pt-cpu%d.bin" % cpu), "wb") as f:
            f.write(trace)
        open(os.path.join(folder, "cpu%d.bin" % cpu), "wb").close()
    session = {
        "format": "acart-session", "version": 1,
        "target": {"hostname": "pttc", "tsc_hz": int(s["tsc_hz"]), "num_cpus": cpus,
                   "cpu_signature": {"vendor": "GenuineIntel", "family": 6, "model": 85,
                                     "stepping": 4}},
        "transfer": "delayed", "duration_s": 0.0,
        "events": [{"index": 0, "name": "CPU_CLK_UNHALTED.REF_TSC", "sample_after": 1}],
        "samples": {"total": 0, "per_cpu": [0] * cpus, "dropped_per_cpu": [0] * cpus},
        "pt": {"version": 1, "mode": "full", "rtit_ctl": "0x%x" % rtit_ctl,
               "cpuid_15_eax": int(s["cpuid_15_eax"]), "cpuid_15_ebx": int(s["cpuid_15_ebx"]),
               "mtc_freq": mtc_freq, "nom_freq": int(s["nom_freq"]), "per_cpu": per_cpu},
    }
    with open(os.path.join(folder, "session.json"), "w") as f:
        json.dump(session, f, indent=1)


class Case:
    """One .ptt file compiled by pttc into a collection folder and an ELF image."""

    def __init__(self, ptt, pttc, workdir):
        self.name = os.path.splitext(os.path.basename(ptt))[0]
        self.dir = os.path.join(workdir, self.name)
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        with open(ptt) as f:
            text = variant_text(ptt, f.read())
        with open(os.path.join(self.dir, self.name + ".ptt"), "w") as f:
            f.write(text)
        self.settings = settings(text)
        run([pttc, self.name + ".ptt"], cwd=self.dir)
        symbols = []
        for line in self.exp("symbols"):
            start, end, sym = line.split()
            symbols.append((int(start, 16), int(end, 16), sym))
        check(symbols, "%s: no acart-symbols block" % ptt)
        self.elf = build_elf(self.dir, self.name, self.settings["bits"], self.settings["org"],
                             symbols)
        with open(os.path.join(self.dir, self.name + ".pt"), "rb") as f:
            self.trace = f.read()
        self.collection = os.path.join(self.dir, "collection")
        lost = [(int(offset, 16), int(size)) for offset, size in
                (line.split() for line in self.exp("lost"))]
        write_collection(self.collection, self.trace, self.settings, lost)

    def exp(self, what):
        return read_exp(os.path.join(self.dir, "%s-acart-%s.exp" % (self.name, what)))


# Normal forms of acart's output, the form the .exp blocks are written in.

def norm_event(text):
    """'[0000000000001000  enabled, ip: 0000000000100000]' -> '[enabled]'; gaps keep offsets and
    the libipt error: '[gap 00000000000000a0 pte_bad_opc resync 00000000000000c0]', losses
    their size: '[gap 00000000000000a0 lost 4096]', '[gap ... lost unknown]' for a loss of 0."""
    body = text.strip()[1:-1]
    m = re.match(r"gap at offset 0x([0-9a-f]+): (.*)$", body)
    if m:
        rest = m.group(2)
        out = "[gap %016x" % int(m.group(1), 16)
        e = re.match(r"(pte_[a-z_]+)", rest)
        if e:
            out += " " + e.group(1)
        elif "lost" in rest:
            n = re.search(r"lost at least (\d+) bytes", rest)
            out += " lost %s" % (n.group(1) if n else "unknown" if "not known" in rest else "?")
        elif "loop of direct branches" in rest:
            out += " loop"
        elif "no PSB to synchronise" in rest:
            out += " nosync"
        elif "file ends" in rest:
            out += " truncated"
        r = re.search(r"resynchronised at the PSB at 0x([0-9a-f]+)", rest)
        out += " resync %016x]" % int(r.group(1), 16) if r else "]"
        return out
    what = body.split("  ", 1)[1]
    return "[%s]" % what.split(", ")[0]


def trace_lines(out):
    """`acart pt trace` -> ['cpu 0', '0000000000100000', '[enabled]', ...]."""
    lines = []
    for line in out.splitlines():
        if line.startswith("["):
            lines.append(norm_event(line))
        elif line.startswith("cpu "):
            lines.append(line.strip())
        else:
            lines.append(line.split()[1])
    return lines


def time_lines(out):
    """`acart pt trace` instructions as 'ADDRESS TSC' (TSC in hex, no padding)."""
    lines = []
    for line in out.splitlines():
        if not line.startswith("[") and not line.startswith("cpu "):
            tsc, ip = line.split()[:2]
            lines.append("%s %x" % (ip, int(tsc, 16)))
    return lines


def call_lines(out):
    """`acart pt calls` -> 'DEPTH FUNCTION INSNS START DURATION [NOTE]' and gap lines."""
    lines = []
    for line in out.splitlines():
        if line.startswith("cpu ") or line.strip().startswith("start us"):
            continue
        if line.strip().startswith("["):
            lines.append(norm_event(line.strip()))
            continue
        m = re.match(r"\s*(\S+)\s+(\S+)\s+(\d+)  ( *)(.*)$", line)
        check(m, "unexpected pt calls line: %r" % line)
        start, duration, insns, indent, rest = m.groups()
        note = ""
        n = re.match(r"(.*?)  \((.*)\)$", rest)
        if n:
            rest, note = n.group(1), " (%s)" % n.group(2)
        lines.append("%d %s %s %s %s%s" % (len(indent) // 2, rest, insns, start, duration, note))
    return lines


def function_lines(out, fields=6):
    """`acart pt functions` -> 'FUNCTION INSNS INCL_INSNS CALLS CYCLES SELF_US', its first
    `fields` fields. CYCLES: counted from CYC packets, '~N' estimated, '-' not known."""
    lines = []
    for line in out.splitlines()[2:]:
        parts = line.split()
        if len(parts) == 8:
            lines.append(" ".join([parts[7], parts[0], parts[2], parts[3], parts[4],
                                   parts[5]][:fields]))
    return lines
