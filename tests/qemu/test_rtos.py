"""The rtos-pc board (a kernel that owns its interrupts and links the installed libacart.a)
against `acart collect`, compared with what the board itself counted in the same window
(the kernel snapshots its accounting when acart arms and disarms the sampling timer it
was given, the PIT):

- split: among the three workers (the same work in slices of 1, 2 and 3 ticks), each one's
  share of the workers' samples in `acart report --by task` is within 3 points of its
  share of the loops the workers counted themselves. The scheduler's per-task TSC cycles
  are printed beside them but not compared: they are wall time, and on a loaded host the
  host deschedules QEMU's virtual CPU for up to hundreds of milliseconds, charged to
  whichever task was current, during which no sample is taken and no loop runs;
- tick: the scheduler's LAPIC tick kept its rate while acart sampled: the median time
  between two tick interrupts (among gaps of one period give or take half), counted by
  the kernel against the TSC, within 2 % of the period it asked for (a tick reprogrammed by
  someone else shows here; the median of single-period gaps, because on a loaded host a
  virtual CPU left unscheduled merges some ticks into longer gaps), and no gap longer than
  half the collection (a masked tick shows here);
- callstack (with --callstack): at least 95 % of samples carry callers, and the samples
  in a worker carry worker_main and end in task_start, the bottom of the task's own stack;
- nmi: NMIs from QEMU's monitor are taken and returned from (x86_64: on the IST stack);
- switches: the kernel's scheduler reports each switch (aca_task_switched, through its
  trace hook); every task sample after the first switch belongs to the task that the
  last switch before it made current, and export perfetto's switch slices hold exactly
  those switches and every such sample;
- code mode: every sample record and the module record say the image's mode (32-bit for
  the i686 kernel, 64-bit for the x86_64 one, whose call stacks are walked through 64-bit
  frames: return addresses in 8-byte slots, frame pointers 8 bytes below them).

Both transfer modes: --transfer delayed|immediate (the board's command line).

On a loaded host QEMU's timer thread and its virtual CPU are descheduled in chunks of
tens to hundreds of milliseconds, independently, and the samples of a collection then
follow the loops less closely. So the test collects again on the same board, adding up
samples and loops, until the workers have MIN_SAMPLES samples (at most MAX_ROUNDS
collections); every collection is checked on its own for the rest."""
import argparse
import bisect
import json
import os
import re
import struct
import subprocess
import tempfile
import time

from acarttest.board import Board, CODE_MODE, image_arch
from acarttest.exports import perfetto_problems
from acarttest.rtos_board import function_of, read_stats, symbols

ap = argparse.ArgumentParser()
ap.add_argument("--image", required=True)
ap.add_argument("--acart", required=True)
ap.add_argument("--transfer", choices=["delayed", "immediate"], required=True)
ap.add_argument("--callstack", action="store_true")
ap.add_argument("--duration", type=int, default=8)
# Twice VTune's default rate: more samples make the shares' sampling noise (about
# 100 * sqrt(p(1-p)/n) points) small next to the 3 points allowed.
ap.add_argument("--sample-after", type=int, default=1100000)
args = ap.parse_args()

ARCH = image_arch(args.image)
WORKERS = ("worker1", "worker2", "worker3")
DEPTH = 16
MIN_SAMPLES = 8000
MAX_ROUNDS = 4


def collect(board, out):
    cmd = [args.acart, "collect", "--target", "127.0.0.1:%d" % board.port, "--duration",
           str(args.duration), "--transfer", args.transfer, "-o", out,
           "--event", "CPU_CLK_UNHALTED.REF_TSC:sa=%d" % args.sample_after]
    if args.callstack:
        cmd.append("--callstack=%d" % DEPTH)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    print(r.stdout[-2000:], r.stderr[-2000:])
    assert r.returncode == 0, "acart collect exited %d" % r.returncode
    return read_stats(board.bench_port)


def task_samples(out):
    """tid -> (samples, percent) from `acart report --by task`."""
    rep = subprocess.run([args.acart, "report", out, "--by", "task"], capture_output=True,
                         text=True, timeout=120)
    assert rep.returncode == 0, rep.stderr
    print(rep.stdout)
    shares = {}
    for m in re.finditer(r"^\s*(\d+)\s+([\d.]+)%\s+\d+\s+(\S+) \(pid (\d+), tid (\d+)\)$",
                         rep.stdout, re.M):
        shares[int(m.group(5))] = (int(m.group(1)), float(m.group(2)))
    assert shares, "no task rows in the report"
    return shares


def check_window(stats):
    """The board's own checks of one collection: its clock, its tick. Returns the window."""
    win = stats["window"]
    assert win, "the board saw no sampling window (timer never armed and disarmed)"
    hz = stats["board"]["tsc_hz"]
    seconds = (win["end_tsc"] - win["start_tsc"]) / hz
    # The board measured its TSC rate against the PIT at boot; a wrong rate would make
    # every time-based figure wrong together. The window is START to STOP, which the host
    # timed: coarse agreement catches a bad measurement (those are off by whole factors).
    print("window: %.2f s by the board's TSC at %.0f MHz, --duration %d s" % (
        seconds, hz / 1e6, args.duration))
    assert 0.75 * args.duration < seconds < 1.5 * args.duration + 2, (
        "the board's TSC rate disagrees with the host's clock: %.2f s for %d s" % (
            seconds, args.duration))
    sched_hz = stats["board"]["sched_hz"]
    assert win["median_gap_tsc"] > 0, "no ticks in the window"
    rate = hz / win["median_gap_tsc"]
    gap_ms = 1000.0 * win["max_gap_tsc"] / hz
    print("tick: %.2f Hz from the median of %d single-period gaps (asked %d Hz); %d interrupts "
          "in %.2f s (%.1f Hz), longest gap %.1f ms; sampling timer %d interrupts" % (
              rate, win["median_of"], sched_hz, win["ticks"], seconds, win["ticks"] / seconds,
              gap_ms, win["pit_interrupts"]))
    assert win["median_of"] >= 100, "only %d single-period tick gaps" % win["median_of"]
    assert abs(rate - sched_hz) <= 0.02 * sched_hz, "tick rate %.2f Hz, asked %d" % (rate,
                                                                                     sched_hz)
    assert gap_ms < 500 * seconds, "the tick stopped for %.0f ms of a %.1f s collection" % (
        gap_ms, seconds)
    return win


def descriptor(out):
    session = json.load(open(os.path.join(out, "session.json")))
    return session["descriptors"][0]


def check_code_mode(out):
    """Every sample (bits 14:13 of the u16 at offset 26 of each record) and the module
    record (bits 1:0 of its u16 at offset 2) carry the image's code mode."""
    want = CODE_MODE[ARCH]
    size = descriptor(out)["sample_size"]
    data = open(os.path.join(out, "cpu0.bin"), "rb").read()
    assert data and len(data) % size == 0, len(data)
    modes = {}
    for at in range(0, len(data), size):
        cpu_field, = struct.unpack_from("<H", data, at + 26)
        modes[(cpu_field >> 13) & 3] = modes.get((cpu_field >> 13) & 3, 0) + 1
    assert set(modes) == {want}, "samples by code mode %s, want all %d (%s)" % (modes, want,
                                                                                ARCH)
    mod = open(os.path.join(out, "module.bin"), "rb").read()
    at = 0
    while at < len(mod):
        rec_len, seg_bits = struct.unpack_from("<HH", mod, at)
        assert rec_len >= 80, "module record of length %d" % rec_len
        assert seg_bits & 3 == want, "module record in code mode %d, want %d (%s)" % (
            seg_bits & 3, want, ARCH)
        at += rec_len
    print("code mode: %d samples and the module record in mode %d (%s)" % (
        len(data) // size, want, ARCH))


def check_switches(out):
    """The port's switches against the samples, and export perfetto's switch slices."""
    session = json.load(open(os.path.join(out, "session.json")))
    counts = session["samples"].get("task_switches")
    assert counts, "session.json has no task_switches: the kernel reports every switch"
    assert counts["lost"] == [0], counts
    lines = open(os.path.join(out, "task-switches.csv")).read().splitlines()
    assert lines[0] == "cpu,tsc,pid,tid", lines[0]
    switches = [tuple(int(v) for v in line.split(",")) for line in lines[1:]]
    assert len(switches) == counts["kept"][0] >= 20, (len(switches), counts)
    tscs = [tsc for _, tsc, _, _ in switches]
    assert tscs == sorted(tscs), "switches out of time order"
    size = descriptor(out)["sample_size"]
    data = open(os.path.join(out, "cpu0.bin"), "rb").read()
    agree = disagree = before = irq = 0
    for at in range(0, len(data), size):
        tid, pid = struct.unpack_from("<II", data, at + 28)
        tsc, = struct.unpack_from("<Q", data, at + 40)
        k = bisect.bisect_right(tscs, tsc) - 1
        if k < 0:
            before += 1
        elif pid != switches[k][2]:
            irq += 1  # an interrupt handler's sample (aca_irq_enter): no task switch
        elif tid == switches[k][3]:
            agree += 1
        else:
            disagree += 1
    print("switches: %d; task samples after the first: %d in the switched-in task, %d not; "
          "%d before the first switch, %d in interrupt handlers" % (
              len(switches), agree, disagree, before, irq))
    assert agree > 0 and disagree == 0, (agree, disagree)
    timeline = os.path.join(out, "timeline.json")
    r = subprocess.run([args.acart, "export", "perfetto", out, "-o", timeline],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    problems, doc = perfetto_problems(timeline)
    assert not problems, problems
    slices = [e for e in doc["traceEvents"] if e["ph"] == "X" and e.get("cat") == "switch"]
    assert len(slices) == len(switches), (len(slices), len(switches))
    assert [(e["args"]["pid"], e["args"]["tid"]) for e in slices] == [
        (pid, tid) for _, _, pid, tid in switches]
    in_slices = sum(e["args"]["samples"] for e in slices)
    assert in_slices == agree + irq, (in_slices, agree, irq)


def check_callstacks(out, syms):
    desc = descriptor(out)
    size, off = desc["sample_size"], desc["callstack_offset"]
    assert desc["callstack_size"] == 8 * DEPTH, desc
    data = open(os.path.join(out, "cpu0.bin"), "rb").read()
    assert data and len(data) % size == 0, len(data)
    n = len(data) // size
    with_callers = in_worker = worker_ok = full_chain = 0
    for i in range(n):
        rec = data[i * size:(i + 1) * size]
        ip, = struct.unpack_from("<Q", rec, 8)
        stack = [a for a in struct.unpack_from("<%dQ" % DEPTH, rec, off) if a]
        callers = [function_of(syms, a - 1) for a in stack]
        if callers and all(callers):
            with_callers += 1
        here = function_of(syms, ip)
        if here in ("work_unit", "worker_main"):
            in_worker += 1
            if callers and callers[-1] == "task_start" and "worker_main" in callers + [here]:
                worker_ok += 1
            # The whole way from the interrupted function to the task's entry, one frame
            # each: work_unit <- worker_main <- task_start. A walk that took the 64-bit
            # stack for 32-bit frames (4-byte slots) would find none of these.
            want = {"work_unit": ["worker_main", "task_start"], "worker_main": ["task_start"]}
            full_chain += callers == want[here]
    print("call stacks: %d of %d samples with callers; %d of %d worker samples down to "
          "task_start, %d through every frame (%s)" % (with_callers, n, worker_ok, in_worker,
                                                      full_chain, ARCH))
    assert with_callers >= 0.95 * n, "%d of %d samples with callers" % (with_callers, n)
    assert in_worker > 0 and worker_ok >= 0.95 * in_worker, (worker_ok, in_worker)
    if ARCH == "x86_64":
        assert full_chain >= 0.9 * in_worker, (
            "%d of %d worker samples with the call stack worker_main <- task_start through "
            "64-bit frames" % (full_chain, in_worker))


def check_nmi(board):
    """NMIs from QEMU's monitor go through the kernel's NMI chain (where acart's PMI handler
    sits first while it samples with counters; the collections are over, so nothing claims
    them) and return: on x86_64 through the TSS's IST stack, on i686 on the interrupted
    stack. The kernel counts each as unclaimed; 0.5 s apart, none coalesce unless the host
    stalls the virtual CPU that long."""
    before = read_stats(board.bench_port)
    for _ in range(3):
        board.monitor("nmi")
        time.sleep(0.5)
    after = read_stats(board.bench_port)
    got = after["board"]["nmi_unclaimed"] - before["board"]["nmi_unclaimed"]
    ticks = after["now"]["ticks"] - before["now"]["ticks"]
    print("nmi: %d of 3 NMIs from the monitor counted, %d ticks meanwhile" % (got, ticks))
    assert 1 <= got <= 3, "%d NMIs counted for 3 sent" % got
    assert ticks > 0, "the tick stopped after the NMIs"
    assert "EXCEPTION" not in board.console(), board.console()


def check_fpu_off(console):
    """The kernel runs with the FPU and SSE off (CR0.EM set, CR4.OSFXSR and OSXMMEXCPT
    clear), the case of an RTOS that saves no x87/SSE state: an x87, MMX or SSE instruction
    anywhere in the image (acart, picolibc, the kernel) raises #NM or #UD, which the
    EXCEPTION checks below would catch."""
    m = re.search(r"^fpu: off, .*\(cr0 0x([0-9a-f]+), cr4 0x([0-9a-f]+)\)", console, re.M)
    assert m, "no fpu line on the console: " + console
    cr0, cr4 = int(m.group(1), 16), int(m.group(2), 16)
    assert cr0 & (1 << 2) and not cr4 & ((1 << 9) | (1 << 10)), (hex(cr0), hex(cr4))


syms = symbols(args.image) if args.callstack else None
append = "transfer=immediate" if args.transfer == "immediate" else ""
samples = {}  # worker name -> samples, over all rounds
loops = {}    # worker name -> loops counted in the windows, over all rounds
with Board(args.image, cpus=1, append=append, monitor=True) as b:
    b.wait_for(r"^acart: listening on ", timeout=120)
    check_fpu_off(b.console())
    for round_no in range(1, MAX_ROUNDS + 1):
        out = tempfile.mkdtemp(prefix="acart-rtos-")
        stats = collect(b, out)
        assert "EXCEPTION" not in b.console(), b.console()
        check_window(stats)
        check_code_mode(out)
        check_switches(out)
        if args.callstack:
            check_callstacks(out, syms)
        shares = task_samples(out)
        names = {t["tid"]: t["name"] for t in stats["wtask"].values()}
        for tid in shares:
            assert tid in names, "acart names task %d, which the board does not have" % tid
        run_total = sum(t["run_tsc"] for t in stats["wtask"].values())
        print("task        acart %   board TSC %")
        for tid, t in sorted(stats["wtask"].items()):
            print("%-10s %7.2f %12.2f" % (t["name"], shares.get(tid, (0, 0.0))[1],
                                          100.0 * t["run_tsc"] / run_total))
        workers = [tid for tid, n in names.items() if n in WORKERS]
        assert len(workers) == 3, names
        for tid in workers:
            samples[names[tid]] = samples.get(names[tid], 0) + shares.get(tid, (0, 0))[0]
            loops[names[tid]] = loops.get(names[tid], 0) + stats["wtask"][tid]["loops"]
        total = sum(samples.values())
        print("round %d: %d worker samples so far" % (round_no, total))
        if total >= MIN_SAMPLES:
            break
    check_nmi(b)

# --- split: acart's per-task shares against the workers' own loop counts
total_samples, total_loops = sum(samples.values()), sum(loops.values())
assert total_samples > 0 and total_loops > 0
misses = []
for name in WORKERS:
    own = 100.0 * loops[name] / total_loops
    got = 100.0 * samples[name] / total_samples
    print("%s: %.2f %% of the workers' %d samples, %.2f %% of their loops" % (
        name, got, total_samples, own))
    if abs(got - own) > 3.0:
        misses.append("%s: %.2f %% of the workers' samples against %.2f %% of their loops" % (
            name, got, own))
assert not misses, "; ".join(misses)
print("rtos-pc %s%s: ok" % (args.transfer, " with call stacks" if args.callstack else ""))
