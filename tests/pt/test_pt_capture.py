"""Intel PT capture, end to end on the simulated board: acart_simboard runs the target
runtime on simulated CPUs whose trace unit writes a real packet stream (demo.ptt compiled
by pttc, replayed in a loop: one pass of a control loop per 101 bytes) into the buffers the
runtime programmed; `acart collect --pt` negotiates acart's PT extension, receives the PT
channel and writes pt-cpu<N>.bin and session.json's pt member; `acart pt` decodes them.
Checked: every byte against the stream the trace unit wrote, losses and freezes as the
target counted them, the decode against what demo.ptt's assembly executes, and every
refusal (no Intel PT, full mode without ToPA regions, a CPU without CYC, filters, PT_INFO
before the EXTENSIONS negotiation).

No CPU here has Intel PT: this is the only place where the target's PT code runs, and it
runs on the simulator. Usage:
  test_pt_capture.py --acart ACART --simboard SIMBOARD --pttc PTTC --traces DIR --workdir DIR"""

import json
import os
import re
import struct
import sys
import time

from acarttest import sep  # the SEP host of the QEMU tests, written from the protocol document
from acarttest.ptcase import Case, TestFailure, board_test_args, check, run
from acarttest.simboard import Board, collect

OP_EXTENSIONS, OP_PT_INFO = 0x41430100, 0x41430110

PSB = bytes([0x02, 0x82] * 8)
RTIT_TRACE_EN, RTIT_OS, RTIT_USER, RTIT_TOPA = 0x1, 0x4, 0x8, 0x100
RTIT_MTC_EN, RTIT_TSC_EN, RTIT_BRANCH_EN, RTIT_CYC_EN = 0x200, 0x400, 0x2000, 0x2


def session_pt(folder):
    with open(os.path.join(folder, "session.json")) as f:
        return json.load(f)["pt"]


def trace_file(folder, cpu):
    with open(os.path.join(folder, "pt-cpu%d.bin" % cpu), "rb") as f:
        return f.read()


def looped(stream, n):
    """The first n bytes of the stream replayed in a loop."""
    return (stream * (n // len(stream) + 1))[:n]


CALL_RE = re.compile(r"\s*\S+\s+\S+\s+(\d+)  ( *)(\S+(?: \S+)?)")


def call_trees(out):
    """`acart pt calls` of one CPU: its outermost calls, each as [(depth, function, insns)]."""
    trees = []
    for line in out.splitlines():
        if line.startswith("cpu ") or "start us" in line or line.strip().startswith("["):
            continue
        m = CALL_RE.match(line)
        check(m, "unexpected pt calls line %r" % line)
        insns, indent, function = m.groups()
        function = function.split("  (")[0]
        if not indent:
            trees.append([])
        trees[-1].append((len(indent) // 2, function, int(insns)))
    return trees


def demo_tree(case):
    """The call tree one pass of demo.ptt makes, from its acart-calls block."""
    tree = []
    for line in case.exp("calls"):
        if line.startswith("#"):
            continue
        parts = line.split()
        depth = int(parts[0])
        function = parts[1] if parts[1] != "[interrupt]" else "[interrupt] " + parts[2]
        insns = int(parts[3] if parts[1] == "[interrupt]" else parts[2])
        tree.append((depth, function, insns))
    return tree


def check_session_basics(pt, mode, cpus=4):
    check(pt["version"] == 1 and pt["mode"] == mode, "pt member: %r" % pt)
    ctl = int(pt["rtit_ctl"], 16)
    want = RTIT_TRACE_EN | RTIT_OS | RTIT_USER | RTIT_TSC_EN | RTIT_BRANCH_EN
    check(ctl & want == want, "rtit_ctl %#x lacks TraceEn, OS, User, TSCEn or BranchEn" % ctl)
    check(pt["cpuid_15_eax"] == 3 and pt["cpuid_15_ebx"] == 250 and pt["nom_freq"] == 20,
          "sideband: CPUID 0x15 3/250 and nominal ratio 20 expected: %r" % pt)
    check([c["cpu"] for c in pt["per_cpu"]] == list(range(cpus)), "per_cpu: %r" % pt["per_cpu"])
    return ctl


def test_full(args, case):
    """Full mode, drained while tracing: every byte the trace unit wrote, in order, and the
    decode of each pass is what demo.ptt's assembly executes."""
    with Board(args, "full", "--trace", case.pt_path, "--pace", 256) as board:
        folder, out, _ = collect(args, board, "full", "--duration", 1, "--pt")
        check("no trace lost" in out, "full: losses reported:\n" + out)
        pt = session_pt(folder)
        ctl = check_session_basics(pt, "full")
        check(ctl & (RTIT_TOPA | RTIT_MTC_EN) == RTIT_TOPA | RTIT_MTC_EN and pt["mtc_freq"] == 3
              and (ctl >> 14) & 0xf == 3, "full: ToPA output and MTC every 2^3 ticks: %#x" % ctl)
        passes = None
        for cpu in range(4):
            data = trace_file(folder, cpu)
            check(len(data) > 50 * len(case.trace), "cpu %d: only %d bytes" % (cpu, len(data)))
            check(pt["per_cpu"][cpu]["bytes"] == len(data) and "lost" not in pt["per_cpu"][cpu],
                  "cpu %d: session says %r, file has %d bytes" % (cpu, pt["per_cpu"][cpu], len(data)))
            check(data == looped(case.trace, len(data)),
                  "cpu %d: pt-cpu%d.bin is not the stream the trace unit wrote" % (cpu, cpu))
            passes = len(data) // len(case.trace)
        # Plain SEP still works on this board, and leaves no PT behind.
        plain, _, _ = collect(args, board, "plain", "--duration", 0.3)
        with open(os.path.join(plain, "session.json")) as f:
            check("pt" not in json.load(f), "a collection without --pt has a pt member")
        check(not os.path.exists(os.path.join(plain, "pt-cpu0.bin")), "pt-cpu0.bin without --pt")
    calls, _ = run([args.acart, "pt", "calls", folder, "--elf", case.elf, "--cpu", "3"])
    trees = call_trees(calls)
    want = demo_tree(case)
    # Every whole pass but the last, whose end the decoder may hold back (ptxed's rule).
    check(len(trees) >= passes - 1, "cpu 3: %d passes decoded, %d in the file" % (len(trees), passes))
    for n, tree in enumerate(trees[:passes - 1]):
        check(tree == want, "cpu 3, pass %d: %r, expected %r" % (n, tree, want))
    print("ok   full mode: 4 CPUs, %d passes each, byte for byte, decoded" % passes)


def stretches(data, lost):
    """The file cut at its losses: [(start, end)]."""
    cuts = [0] + [entry["offset"] for entry in lost] + [len(data)]
    return [(cuts[i], cuts[i + 1]) for i in range(len(cuts) - 1)]


LOST_RE = r"at least (\d+) bytes lost(?: to full rings)? in (\d+) losses \((\d+) of unknown size\)"


def stopped_lines(board, cpus=4):
    """The board's last "stopped tracing" line of each CPU: {cpu: (stream byte, traced)},
    waited for (the board looks between its steps)."""
    deadline = time.time() + 10
    while True:
        found = {int(c): (int(at), int(n)) for c, at, n in re.findall(
            r"simboard: cpu (\d+) stopped tracing at stream byte (\d+), (\d+) bytes traced",
            board.text())}
        if len(found) == cpus or time.time() > deadline:
            check(len(found) == cpus, "the board did not say where each CPU stopped:\n"
                  + board.text())
            return found


def test_losses(args, case):
    """Rings too small for the pace: the target counts what it drops, each stretch after a
    loss restarts at a PSB, and acart pt reports each loss as a gap and goes on. The totals
    are lower bounds, said as such, with the losses of unknown size counted apart."""
    with Board(args, "losses", "--trace", case.pt_path, "--pace", 60000, "--pt-memory", 256) as board:
        folder, out, err = collect(args, board, "losses", "--duration", 0.5, "--pt")
        pt = session_pt(folder)
        check("buffers filled" in err, "losses: no warning:\n" + err)
        entries = [e for c in pt["per_cpu"] for e in c.get("lost", [])]
        want_total = (sum(e["bytes"] for e in entries), len(entries),
                      sum(1 for e in entries if e["bytes"] == 0))
        for where, text in (("summary", out), ("warning", err), ("board", board.text())):
            m = re.findall(LOST_RE, text)
            check(m and tuple(int(v) for v in m[-1]) == want_total,
                  "losses: the %s's total %r, session.json's losses add up to %r:\n%s"
                  % (where, m, want_total, text[-2000:]))
        # Exactness would be wrong: the stream bytes the code ran traced are more than the
        # file holds and the target counted lost.
        stopped = stopped_lines(board)
        for cpu in range(4):
            counted = len(trace_file(folder, cpu)) + sum(
                e["bytes"] for e in pt["per_cpu"][cpu].get("lost", []))
            check(counted < stopped[cpu][1], "cpu %d: %d bytes kept or counted lost of %d traced"
                  % (cpu, counted, stopped[cpu][1]))
        for cpu in range(4):
            data, entry = trace_file(folder, cpu), pt["per_cpu"][cpu]
            lost = entry.get("lost", [])
            check(len(lost) >= 3, "cpu %d: %d losses with rings far too small" % (cpu, len(lost)))
            check(all(e["bytes"] > 0 for e in lost[:-1]), "cpu %d: a loss of 0 bytes: %r" % (cpu, lost))
            for n, (start, end) in enumerate(stretches(data, lost)):
                piece = data[start:end]
                if n and piece:
                    check(piece[:16] == PSB, "cpu %d: the stretch at %d does not start with a PSB"
                          % (cpu, start))
                check(piece == looped(case.trace, len(piece)),
                      "cpu %d: the stretch at %d is not the stream from a pass's start" % (cpu, start))
        calls, _ = run([args.acart, "pt", "calls", folder, "--elf", case.elf, "--cpu", "0"])
        # A loss of 0 bytes (the unit stopped at a full ring) is printed as not known.
        gaps = re.findall(r"gap at offset 0x([0-9a-f]+): the target lost "
                          r"(?:at least (\d+) bytes|trace here \(how many bytes is not known)",
                          calls)
        want = [(e["offset"], e["bytes"]) for e in pt["per_cpu"][0]["lost"]]
        check(not re.search(r"lost (at least )?0 bytes", calls), "cpu 0: a loss printed as 0 bytes")
        check([(int(o, 16), int(b or 0)) for o, b in gaps] == want,
              "cpu 0: the decode's gaps %r are not the losses %r" % (gaps[:4], want[:4]))
        trees = call_trees(calls)
        check(trees.count(demo_tree(case)) > 10, "cpu 0: no whole passes decoded between the gaps")
    print("ok   full mode, rings too small: %d losses on cpu 0, each a gap, each stretch from a PSB"
          % len(want))


def test_delayed(args, case):
    """Delayed transfer: nothing drains while tracing, so each ring fills once; the rest is
    one loss at its end."""
    with Board(args, "delayed", "--trace", case.pt_path, "--pace", 2048, "--transfer", "delayed") as board:
        folder, _, _ = collect(args, board, "delayed", "--duration", 1, "--pt")
        pt = session_pt(folder)
        for cpu in range(4):
            data, entry = trace_file(folder, cpu), pt["per_cpu"][cpu]
            check(len(data) == 7 * 65536, "cpu %d: %d bytes, the ring holds 7 x 64 KiB" % (cpu, len(data)))
            check(data == looped(case.trace, len(data)), "cpu %d: not the stream" % cpu)
            lost = entry.get("lost", [])
            check(len(lost) == 1 and lost[0]["offset"] == len(data) and lost[0]["bytes"] > 65536,
                  "cpu %d: one loss at the end expected: %r" % (cpu, lost))
    print("ok   full mode, delayed transfer: each ring once, the rest one loss at its end")


def test_snapshot(args, case, name, board_options, collect_options, reason, code):
    """The flight recorder: rings wrap until a freeze (cpu 1's aca_trace_freeze or exception
    report, or the host's PT_FREEZE); the collection ends early; each file is the ring's
    last bytes from a PSB, ending where that CPU stopped tracing."""
    with Board(args, name, "--trace", case.pt_path, "--pace", 2048, *board_options) as board:
        started = time.time()
        folder, _, err = collect(args, board, name, "--duration", 60, "--pt", "--pt-snapshot",
                                 *collect_options)
        check(time.time() - started < 30, "%s: the collection did not end at the freeze" % name)
        check("the target froze its trace" in err, "%s: no freeze message:\n%s" % (name, err))
        froze_on_board = "froze its trace at stream byte" in board.text()
        check(froze_on_board == (reason != "host"), "%s: the board's freeze:\n%s"
              % (name, board.text()))
        stopped = stopped_lines(board)
    pt = session_pt(folder)
    check_session_basics(pt, "snapshot")
    check(pt["freeze"]["reason"] == reason and pt["freeze"]["code"] == code,
          "%s: freeze %r" % (name, pt["freeze"]))
    ring = 7 * 65536
    for cpu in range(4):
        data, entry = trace_file(folder, cpu), pt["per_cpu"][cpu]
        check(entry["wrapped"] and ring - len(case.trace) < len(data) <= ring,
              "cpu %d: %d bytes of a %d-byte ring that wrapped: %r" % (cpu, len(data), ring, entry))
        check(data[:16] == PSB, "cpu %d: the snapshot does not start with a PSB" % cpu)
        stopped_at = stopped[cpu][0]
        stream = looped(case.trace, stopped_at)
        check(data == stream[stopped_at - len(data):],
              "cpu %d: the snapshot is not the last bytes before it stopped at %d"
              % (cpu, stopped_at))
    calls, _ = run([args.acart, "pt", "calls", folder, "--elf", case.elf, "--cpu", "1"])
    check(call_trees(calls)[0] == demo_tree(case), "cpu 1: the first frozen pass decodes wrong")
    print("ok   snapshot, frozen by %s: the last %d bytes before the freeze, PSB-aligned"
          % (reason, len(trace_file(folder, 1))))


def check_programmed(board, log_from, pt, name, on, off):
    """Every CPU began tracing with the IA32_RTIT_CTL session.json reports (the simulated
    CPU's own MSR, as the board saw it after log_from), with the bits `on` set and `off`
    clear."""
    programmed = {int(c): int(v, 16) for c, v in re.findall(
        r"simboard: cpu (\d+) traces with IA32_RTIT_CTL 0x([0-9a-f]+)", board.text()[log_from:])}
    ctl = int(pt["rtit_ctl"], 16)
    check(sorted(programmed) == list(range(4)) and set(programmed.values()) == {ctl},
          "%s: session.json's rtit_ctl %#x, the CPUs were programmed with %r"
          % (name, ctl, programmed))
    check(ctl & (on | RTIT_BRANCH_EN | RTIT_TRACE_EN) == on | RTIT_BRANCH_EN | RTIT_TRACE_EN
          and not ctl & off, "%s: IA32_RTIT_CTL %#x, expected %#x set and %#x clear"
          % (name, ctl, on, off))
    return ctl


def test_filters_and_refusals(args, case):
    """Filters by function, range and module, with the CPL and timing packets chosen
    (each bit both ways across the two collections and full mode's defaults); refusals."""
    with Board(args, "filters", "--trace", case.pt_path, "--pace", 256) as board:
        log_from = len(board.text())
        folder, _, _ = collect(args, board, "filters", "--duration", 0.3, "--pt", "--pt-snapshot",
                               "--pt-filter", "filter", "--pt-filter", "0x100000-0x1000ff",
                               "--elf", case.elf, "--pt-cpl", "os", "--pt-no-tsc", "--pt-cyc")
        pt = session_pt(folder)
        ctl = check_programmed(board, log_from, pt, "--pt-cpl os --pt-no-tsc --pt-cyc",
                               RTIT_OS | RTIT_CYC_EN | RTIT_MTC_EN, RTIT_USER | RTIT_TSC_EN)
        check((ctl >> 14) & 0xf == pt["mtc_freq"] == 3, "MTCFreq %#x, mtc_freq %r"
              % (ctl, pt["mtc_freq"]))
        check(pt["freeze"]["reason"] == "host", "no freeze: the stop freezes: %r" % pt.get("freeze"))
        check((ctl >> 32) & 0xff == 0x11, "ADDR0_CFG and ADDR1_CFG: %#x" % ctl)
        symbols = {line.split()[2]: (int(line.split()[0], 16), int(line.split()[1], 16))
                   for line in case.exp("symbols")}
        start, end = symbols["filter"]
        want = [{"start": "0x%x" % start, "end": "0x%x" % (end - 1), "name": "filter"},
                {"start": "0x100000", "end": "0x1000ff"}]
        check(pt["filters"] == want, "filters %r, expected %r" % (pt["filters"], want))
        log_from = len(board.text())
        folder, _, _ = collect(args, board, "module", "--duration", 0.3, "--pt", "--pt-snapshot",
                               "--pt-filter", "demo.elf", "--pt-cpl", "user", "--pt-no-mtc")
        pt = session_pt(folder)
        check(pt["filters"] == [{"start": "0x100000", "end": "0x100fff", "name": "demo.elf"}],
              "a module filter: %r" % pt["filters"])
        check_programmed(board, log_from, pt, "--pt-cpl user --pt-no-mtc",
                         RTIT_USER | RTIT_TSC_EN, RTIT_OS | RTIT_MTC_EN | RTIT_CYC_EN | 0xf << 14)
        _, _, err = collect(args, board, "three", "--duration", 0.3, "--pt", "--pt-filter", "1-2",
                            "--pt-filter", "3-4", "--pt-filter", "5-6", expect=5)
        check("3 ranges asked, the target's CPU filters 2" in err, "three ranges:\n" + err)
        _, _, err = collect(args, board, "nosuch", "--duration", 0.3, "--pt", "--pt-filter", "nosuch",
                            expect=5)
        check("--pt-filter nosuch: no function of that name" in err and "no module" in err,
              "an unknown name:\n" + err)
        check("no module named nosuch" in board.text(), "the board did not say what it refused")
    print("ok   filters: a function from --elf, a range, a module; --pt-cpl os and user, "
          "--pt-no-tsc, --pt-no-mtc, --pt-cyc as programmed; refusals")


def test_negotiation(args, case):
    """PT_INFO is an extension: before EXTENSIONS it answers 159 like any unknown command
    (docs/sep-protocol.md 4.4), after it the trace unit's description."""
    with Board(args, "negotiation", "--trace", case.pt_path) as board:
        h = sep.Host(board.port)
        try:
            status, _ = h.handshake()
            check(status == 0, "handshake status %d" % status)
            status, _ = h.request(OP_PT_INFO, want=128)
            check(status == sep.NOT_HANDLED, "PT_INFO before EXTENSIONS: status %d" % status)
            status, ext = h.request(OP_EXTENSIONS, want=16)
            check(status == 0 and struct.unpack_from("<I", ext, 4)[0] & 4,
                  "EXTENSIONS: status %d, %r" % (status, ext))
            status, info = h.request(OP_PT_INFO, want=128)
            check(status == 0 and struct.unpack_from("<II", info, 0) == (1, 1),
                  "PT_INFO after EXTENSIONS: status %d, %r" % (status, info[:8]))
            h.request(sep.OP["TERMINATE"])
        finally:
            h.close()
    print("ok   PT_INFO before EXTENSIONS: 159; after: present")


def test_other_cpus(args, case):
    with Board(args, "qemu", "--model", "qemu") as board:
        _, _, err = collect(args, board, "qemu", "--duration", 0.3, "--pt", expect=5)
        check("has no Intel PT: CPUID.07H:EBX[25] is clear" in err, "no PT:\n" + err)
        check("acart: no Intel PT" in board.text(), "the board's console does not say it")
    with Board(args, "broadwell", "--model", "broadwell", "--trace", case.pt_path) as board:
        _, _, err = collect(args, board, "bdw-full", "--duration", 0.3, "--pt", expect=5)
        check("use --pt-snapshot" in err, "full mode on one-entry ToPA:\n" + err)
        _, _, err = collect(args, board, "bdw-cyc", "--duration", 0.3, "--pt", "--pt-snapshot",
                            "--pt-cyc", expect=5)
        check("no cycle-accurate mode" in err, "CYC on Broadwell:\n" + err)
        folder, _, _ = collect(args, board, "bdw", "--duration", 1, "--pt", "--pt-snapshot")
        pt = session_pt(folder)
        check(not int(pt["rtit_ctl"], 16) & RTIT_TOPA and "mtc_freq" in pt and pt["mtc_freq"] == 0,
              "Broadwell: single-range output, no MTC: %r" % pt)
        data = trace_file(folder, 0)
        check(data[:16] == PSB and data == looped(case.trace, len(data)) and len(data) > 30000,
              "Broadwell: the single-range snapshot is not the stream from a PSB")
    print("ok   no Intel PT, one-entry ToPA CPUs: refused with the reason; single-range snapshot")


def main():
    args = board_test_args("--pttc", "--traces")
    case = Case(os.path.join(args.traces, "demo.ptt"), args.pttc, args.workdir)
    case.pt_path = os.path.join(case.dir, "demo.pt")
    check(case.trace[:16] == PSB, "demo.pt does not start with a PSB")
    try:
        test_full(args, case)
        test_losses(args, case)
        test_delayed(args, case)
        test_snapshot(args, case, "snapshot-api", ["--freeze-after", 3000000], [], "api", 7)
        test_snapshot(args, case, "snapshot-exception",
                      ["--freeze-after", 3000000, "--freeze-exception", 6], [], "exception", 6)
        test_snapshot(args, case, "snapshot-host", [], ["--pt-freeze-after", 1], "host", 0)
        _, err = run([args.acart, "collect", "--target", "127.0.0.1:1", "-o", args.workdir,
                      "--duration", 5, "--pt", "--pt-freeze-after", 1], expect=2)
        check("it needs --pt-snapshot" in err, "--pt-freeze-after without a snapshot:\n" + err)
        test_filters_and_refusals(args, case)
        test_negotiation(args, case)
        test_other_cpus(args, case)
    except TestFailure as e:
        print("FAIL %s" % e)
        return 1
    print("all PT capture tests passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
