"""Every session ends and leaves the board ready (docs/sep-protocol.md section 3), in one
transfer mode. The board boots with short keepalive and drain-stall times so that a dead
host is noticed in seconds. Each case is followed by a full collection whose counts add
up, and by the board's "board ready" report: lwIP's active pcbs, channel slots, heap,
receive pbufs and queued segments must be what they were at boot.

Cases: a long delayed-mode collection outlives the keepalive time; TERMINATE and then a
host that keeps its sockets; data connections never opened; bytes after TERMINATE;
command 0; a refused `acart collect` (words and exit status); a host that waited through
the end of the session that held the board; the link cut (QEMU monitor
`set_link net0 off`) mid-session and mid-collection; a host that stops reading its data
connections in the middle of a drain; and `acart collect` cut mid-drain, by the drain-stall
check and by a cut link: it must call the collection cut (exit 5, the cut channel named),
though QEMU's user network hands the board's reset on as a FIN."""
import argparse
import os
import re
import signal
import socket
import struct
import subprocess
import tempfile
import time

from acarttest import sep
from acarttest.board import Board, acart_collect

ap = argparse.ArgumentParser()
ap.add_argument("--image", required=True)
ap.add_argument("--acart", required=True)
ap.add_argument("--transfer", choices=["delayed", "immediate"], required=True)
ap.add_argument("--no-collect-cut", action="store_true",
                help="leave out the two `acart collect` cut cases (the x86_64 run: the host's "
                     "rule is host code and the board's reset path the same C as i686's)")
args = ap.parse_args()

KEEPALIVE = (2000, 1000, 3)  # idle ms, interval ms, probes: a dead host goes within 5 s
KEEPALIVE_S = (KEEPALIVE[0] + KEEPALIVE[1] * KEEPALIVE[2]) / 1000
STALL_MS = 4000
# Bounds are in the board's seconds (see board_seconds_per_second) plus this: lwIP's slow
# timer ticks every 500 ms, and TCG on a busy shared machine can be seconds late.
SLACK_S = 6

# A data connection taking under 256 KiB in 4 s with records waiting is stalled: through
# QEMU's user network a host that stops reading still drains up to ~15 KiB a second into
# buffers on the way (slirp, the host kernel); a reading host takes megabytes.
HANDSHAKE_MS = 3000
append = ("keepalive=%d,%d,%d drain-stall-ms=%d drain-min-bytes=262144 handshake-timeout-ms=%d"
          % (KEEPALIVE + (STALL_MS, HANDSHAKE_MS)))
if args.transfer == "immediate":
    append += " transfer=immediate"
else:
    # QEMU's user network and the host kernel take megabytes from a connection whose
    # reader stopped; rings larger than that let a delayed drain stop half way.
    append += " ring-kib=12288"

checks = []


def check(name, cond, detail=""):
    checks.append(name)
    assert cond, "%s: %s" % (name, detail)
    print("ok  %s" % name)


def session_ends(b):
    return len(re.findall(r"^acart: session ended ", b.console(), re.M))


def wait_session_end(b, before, timeout):
    """Waits for a session end after `before` of them; returns (seconds waited, reason)."""
    t0 = time.time()
    while time.time() - t0 < timeout:
        ends = re.findall(r"^acart: session ended \(([^)]*)\)", b.console(), re.M)
        if len(ends) > before:
            return time.time() - t0, ends[before]
        time.sleep(0.05)
    return None, None


class Ready:
    """Compares each "board ready" report with the one at boot."""

    def __init__(self, b):
        self.b = b
        self.seen = 1
        self.baseline = b.wait_ready(0, timeout=60)
        print("board ready at boot: %s" % self.baseline)

    def check_back(self, case):
        r = self.b.wait_ready(self.seen, timeout=60)
        self.seen = len(self.b.ready_reports())
        keys = ("active", "channels", "heap", "pbufs", "segments")
        check("%s: lwIP back to its boot counts" % case,
              all(r[k] == self.baseline[k] for k in keys), (r, self.baseline))


def board_seconds_per_second(port):
    """How many wall-clock seconds one second of the board's clock takes. The board counts
    its timeouts in TSC time, calibrated against the PIT at boot; under TCG on a loaded
    machine that calibration can be off by a factor of 3, so time bounds are set in the
    board's seconds and converted. Measured with the busy note: how long a holder we
    connected has held the board, as the board counts it."""
    t0 = time.time()
    holder = sep.Host(port)
    assert holder.handshake()[0] == sep.SUCCESS
    holder.open_data_channels()
    time.sleep(2)
    other = sep.Host(port)
    status, _ = other.handshake()
    wall = time.time() - t0
    note = other.read_busy_note()
    other.close()
    holder.close()
    assert status == sep.PMU_IN_USE and note, (status, note)
    return max(1.0, wall / (note[2] / 1000.0))


def configured_host(port, rcvbuf=None, ecb=None, callstack_depth=0):
    """A host that has done everything up to START."""
    h = sep.Host(port)
    status, _ = h.handshake()
    assert status == sep.SUCCESS, status
    if rcvbuf:
        socks = []
        for _ in range(h.num_cpus + 2):
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
            s.connect(("127.0.0.1", port))
            socks.append(s)
        h.channels = []
        for s in socks:
            s.sendall(sep.FIRST.pack(sep.FIRST.size, sep.PROTO, 0, 0, 0))
            proto, dtype, did = sep.DATA_FIRST.unpack(sep.recv_exact(s, sep.DATA_FIRST.size))
            h.channels.append((dtype, did, s))
    else:
        h.open_data_channels()
    statuses = sep.setup_collection(h, ecb=ecb, callstack_depth=callstack_depth)
    assert all(v == sep.SUCCESS for v in statuses.values()), statuses
    return h


with Board(args.image, cpus=2, workload="idle", append=append, monitor=True) as b:
    b.wait_for(r"^acart: listening on ", timeout=120)
    port = b.port
    ready = Ready(b)
    scale = board_seconds_per_second(port)
    print("one second of the board's clock takes %.2f s here" % scale)
    ready.check_back("clock measurement")

    # A collection longer than the whole keepalive time: the host is alive, its TCP stack
    # answers the probes, and the collection is not ended.
    n = sep.full_collection(port, seconds=KEEPALIVE_S + 3)
    check("a %.0f s collection outlives a %.0f s keepalive (%d records)"
          % (KEEPALIVE_S + 3, KEEPALIVE_S, n), n > 0)
    ready.check_back("long collection")

    # TERMINATE, then the host keeps every socket open.
    h = configured_host(port)
    h.start_readers()
    assert h.request(sep.OP["START"])[0] == sep.SUCCESS
    time.sleep(1)
    assert h.request(sep.OP["STOP"])[0] == sep.SUCCESS
    h.join_readers()
    st, _ = h.request(sep.OP["TERMINATE"])
    t0 = time.time()
    closed = h.expect_closed(timeout=10)
    took = time.time() - t0
    check("after TERMINATE the board closes the control connection within 2 s (%.2f s)" % took,
          st == sep.SUCCESS and closed and took <= 2, (st, closed, took))
    n = sep.full_collection(port)
    check("a new host gets a full collection while the old one keeps its sockets", n > 0)
    h.close()
    ready.check_back("TERMINATE, sockets kept")

    # A host that answers the handshake and never opens its data connections.
    h = sep.Host(port)
    before = session_ends(b)
    assert h.handshake()[0] == sep.SUCCESS
    took, why = wait_session_end(b, before, HANDSHAKE_MS / 1000 * scale + SLACK_S + 10)
    check("data connections never opened: session ended after %s s (%s)"
          % ("%.1f" % took if took else "never", why),
          why == "the data connections were not all opened within the handshake timeout" and
          took <= HANDSHAKE_MS / 1000 * scale + SLACK_S and h.expect_closed(5), (took, why))
    h.close()
    ready.check_back("data connections never opened")

    # Bytes after TERMINATE: the connection is closed, never left silent.
    h = sep.Host(port)
    assert h.handshake()[0] == sep.SUCCESS
    t0 = time.time()
    st, _ = h.request(0, want=8)
    took = time.time() - t0
    check("command 0 is answered (status %d in %.3f s)" % (st, took),
          st == sep.NOT_HANDLED and took < 1, (st, took))
    h.ctl.sendall(sep.HEADER.pack(48, sep.PROTO, sep.OP["TERMINATE"], 0, 0, 0, 0, 0) +
                  sep.HEADER.pack(48, sep.PROTO, sep.OP["VERSION"], 0, 0, 4, 0, 0))
    reply = sep.HEADER.unpack(sep.recv_exact(h.ctl, sep.HEADER.size))
    check("TERMINATE answered when bytes follow it", reply[2] == sep.OP["TERMINATE"] and
          reply[3] == sep.SUCCESS, reply)
    check("bytes after TERMINATE: the connection is closed", h.expect_closed(timeout=2))
    h.ctl.settimeout(2)
    try:
        h.ctl.sendall(b"\0" * 48)
        time.sleep(0.5)
        late = h.ctl.recv(1)
    except OSError:
        late = b""
    check("bytes sent after the close get a close, not silence", late == b"", late)
    h.close()
    ready.check_back("bytes after TERMINATE")

    # A refused host, in words, with its own exit status.
    h = configured_host(port)
    h.start_readers()
    assert h.request(sep.OP["START"])[0] == sep.SUCCESS
    r = subprocess.run([args.acart, "collect", "--target", "127.0.0.1:%d" % port,
                        "--duration", "1", "-o", os.path.join(tempfile.mkdtemp(), "out")],
                       capture_output=True, text=True, timeout=60)
    print(r.stderr.strip())
    check("refused acart collect exits 5 (target)", r.returncode == 5, r.returncode)
    check("refused acart collect says who holds the board and since when",
          re.search(r"is busy: another host has a session with it: 10\.0\.2\.2:\d+ has held it "
                    r"for \d+ min \d\d s \(since \d+ s after the board booted\) and is "
                    r"collecting \(status 150", r.stderr) is not None, r.stderr)
    check("the board's console names the holder",
          re.search(r"^acart: refused a host: the board is held by 10\.0\.2\.2:\d+ since "
                    r"[\d.]+ s after boot \(for [\d.]+ s\), collecting$", b.console(), re.M)
          is not None)
    assert h.request(sep.OP["STOP"])[0] == sep.SUCCESS
    h.join_readers()
    assert h.request(sep.OP["TERMINATE"])[0] == sep.SUCCESS
    h.close()
    ready.check_back("refused host")

    # A host connects while the board is held and sends its first message only after that
    # session ended: the board is free, so it gets the board, not a note about a holder
    # that is gone.
    h = configured_host(port)
    waiting = sep.Host(port)
    time.sleep(0.5)  # the board accepts it while h holds the board
    before = session_ends(b)
    assert h.request(sep.OP["TERMINATE"])[0] == sep.SUCCESS
    took, why = wait_session_end(b, before, 30)
    assert why is not None
    status, _ = waiting.handshake()
    check("a host that waited through the end of a session gets the board (status %d)" % status,
          status == sep.SUCCESS, status)
    check("the board's console says the waiting host took the free board",
          re.search(r"^acart: a host that waited takes the free board$", b.console(), re.M)
          is not None)
    waiting.open_data_channels()
    assert waiting.request(sep.OP["TERMINATE"])[0] == sep.SUCCESS
    waiting.close()
    h.close()
    n = sep.full_collection(port)
    check("then a clean full collection (%d records)" % n, n > 0)
    ready.check_back("host waited through a session end")

    # The link cut while a host holds the board: idle, then collecting.
    for phase in ("configured", "collecting"):
        h = configured_host(port)
        if phase == "collecting":
            h.start_readers()
            assert h.request(sep.OP["START"])[0] == sep.SUCCESS
            time.sleep(1)
        before = session_ends(b)
        b.monitor("set_link net0 off")
        took, why = wait_session_end(b, before, KEEPALIVE_S * scale + SLACK_S + 10)
        b.monitor("set_link net0 on")
        check("link cut while %s: session dropped within the keepalive time (%s s, %s)"
              % (phase, "%.1f" % took if took else "never", why),
              took is not None and took <= KEEPALIVE_S * scale + SLACK_S, (took, why))
        h.close()
        n = sep.full_collection(port)
        check("after the link came back the next host gets a full collection (%d records)" % n,
              n > 0)
        ready.check_back("link cut while %s" % phase)

    # A host that stops reading its data connections in the middle of a drain.
    # A faster rate and a small receive buffer: more records than the board's send buffer,
    # slirp's and the host's receive buffer hold together, so the drain stops half way.
    # Records with 64-deep call stacks (560 bytes) fill the rings quickly. In delayed mode
    # the collection runs until each CPU holds about 6.5 MB, more than the buffers on the
    # way take (the host kernel lets slirp's socket buffer grow to 4 MiB).
    h = configured_host(port, rcvbuf=4096, ecb=sep.ecb_with_sample_after(220000),
                        callstack_depth=64)
    assert h.request(sep.OP["START"])[0] == sep.SUCCESS
    before = session_ends(b)
    if args.transfer == "delayed":
        want = 12000 * h.num_cpus
        deadline = time.time() + 120
        while time.time() < deadline:
            time.sleep(1)
            st, body = h.request(sep.OP["GET_NUM_SAMPLES"], want=8)
            if st == sep.SUCCESS and struct.unpack("<Q", body)[0] >= want:
                break
        assert h.request(sep.OP["STOP"])[0] == sep.SUCCESS
    took, why = wait_session_end(b, before, 90 * scale)
    check("a host that stops reading is dropped (%s, after %s s)"
          % (why, "%.1f" % took if took else "never"),
          why == "the host stopped reading a data connection", (took, why))
    check("the control connection is closed", h.expect_closed(timeout=5))
    h.close()
    n = sep.full_collection(port)
    check("then a clean full collection (%d records)" % n, n > 0)
    ready.check_back("host stopped reading")

    # `acart collect` cut mid-drain, by the drain-stall check (the host stops reading: the
    # process stopped) and by a cut link. The board resets the data connections that still
    # hold records, but QEMU's user network hands a reset on to the host as a FIN: collect
    # must not take it for the end of a whole stream. It exits 5 naming the cut channels and
    # writes no session.json. Records with 64-deep call stacks, as above; in delayed mode
    # the collection lasts long enough for each CPU to hold more than the buffers on the way
    # take (measured by a short collection first), so the drain cannot finish into them.
    cut_options = ["--callstack=64", "--event", "CPU_CLK_UNHALTED.REF_TSC:sa=220000",
                   "--timeout", "15"]
    duration = 120
    if args.transfer == "delayed" and not args.no_collect_cut:
        r = acart_collect(args.acart, port, *cut_options)
        m = re.search(r"([\d.]+) s, \w+ transfer.*?: \d+ samples \(cpu0 (\d+), cpu1 (\d+)\)",
                      r.stdout)
        assert r.returncode == 0 and m, (r.returncode, r.stdout, r.stderr)
        rate = min(int(m.group(2)), int(m.group(3))) / float(m.group(1))
        duration = min(120, max(3, int(14000 / max(rate, 1)) + 1))
        print("%.0f samples per second per CPU: cut collections of %d s" % (rate, duration))
        ready.check_back("measuring the sample rate")

    def collect_cut(case, cut, resets_named=True):
        """`acart collect` from the board; once its data flows (a CPU file grows: the drain
        has begun), cut(proc) ends the session under it. Checks what collect says. With the
        link down, lwIP may give up retransmitting on a data connection and free it before
        the session ends, so that the end finds none to reset: resets_named=False then
        asks only that the session ended."""
        folder = tempfile.mkdtemp(prefix="acart-cut-")
        p = subprocess.Popen([args.acart, "collect", "--target", "127.0.0.1:%d" % port,
                              "--duration", str(duration), "-o", folder] + cut_options,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        files = [os.path.join(folder, "cpu%d.bin" % i) for i in range(2)]
        deadline = time.time() + duration + 120
        while (p.poll() is None and time.time() < deadline and
               not any(os.path.exists(f) and os.path.getsize(f) for f in files)):
            time.sleep(0.01)
        assert p.poll() is None, ("%s: collect ended before its data flowed" % case,
                                  p.communicate())
        before = session_ends(b)
        why, stalled = cut(p, before)
        out, err = p.communicate(timeout=120)
        print("%s: board: %s; collect exit %d: %s" % (case, why, p.returncode, err.strip()))
        ends = re.findall(r"^acart: session ended \(.*$", b.console(), re.M)
        line = ends[before] if len(ends) > before else None
        check("%s: the board ended the session mid-drain%s (%s)"
              % (case, " and reset the data connections" if resets_named else "", line),
              line and (not resets_named or
                        re.search(r"; [1-9]\d* data connections reset", line)))
        check("%s: acart collect exits 5 (target)" % case, p.returncode == 5, p.returncode)
        check("%s: collect names the cut channel%s" % (case, " (CPU %s)" % stalled
                                                       if stalled else ""),
              re.search(r"data channel of CPU %s (was cut )?after \d+ records" %
                        (stalled or r"\d"), err) and "was cut" in err and
              "the collection is incomplete" in err, err)
        check("%s: no session.json that looks complete" % case,
              not os.path.exists(os.path.join(folder, "session.json")))
        n = sep.full_collection(port)
        check("%s: then a clean full collection (%d records)" % (case, n), n > 0)
        ready.check_back(case)

    def stop_reading(p, before):
        os.kill(p.pid, signal.SIGSTOP)
        took, why = wait_session_end(b, before, 90 * scale)
        os.kill(p.pid, signal.SIGCONT)
        m = re.findall(r"^acart: data connection \d+ \(cpu (\d+)\) took", b.console(), re.M)
        return why, m[-1] if m and why == "the host stopped reading a data connection" else None

    def cut_link(p, before):
        b.monitor("set_link net0 off")
        took, why = wait_session_end(b, before, 90 * scale)
        b.monitor("set_link net0 on")
        # Immediate transfer: Ctrl-C, and STOP goes to a board that forgot the session.
        # Delayed: the drain is silent until --timeout.
        if args.transfer == "immediate":
            p.send_signal(signal.SIGINT)
        return why, None

    if not args.no_collect_cut:
        collect_cut("acart collect stopped mid-drain", stop_reading)
        collect_cut("link cut under acart collect mid-drain", cut_link, resets_named=False)

    con = b.console()
    assert "EXCEPTION" not in con and "assertion" not in con, con
    print("%s: %d checks passed" % (args.transfer, len(checks)))
