"""`acart collect` against a scripted SEP target on loopback that plays a whole collection
(handshake, data connections, every set-up request, START, STOP, the records, the
counts, TERMINATE) with CPU 1 sending no sample. A time-based target (its handshake's OS
version says "time-based") whose collection lasted long enough for 20 ticks has a CPU
whose sampling timer never fired: collect must fail (exit 5) and name the CPU, yet keep
the folder it wrote. It must succeed when the collection was too short for 20 ticks, when
the target samples PMU events (which may never occur), when CPU 1 dropped what it took,
and when every CPU sent samples.

A board with more than 20 CPUs overflows GET_SAMPLE_DROP_INFO (20 entries): acart's
GET_DROP_REASONS then carries each CPU's `delivered` (docs/sep-protocol.md 4.2), and every
CPU's count is checked through it.

The target is written from docs/sep-protocol.md with its own struct layouts, like
tests/acarttest/sep.py, not from acart_wire.h."""

import json
import os
import shutil
import socket
import struct
import threading

from acarttest.tooltest import check, main, run

PROTO = 6
FIRST = struct.Struct("<IIIIQ")          # host's first message on every connection
HEADER = struct.Struct("<IIIiQQQQ")      # header_size, proto, command, status, to, from, r1, r2
DATA_FIRST = struct.Struct("<IHH")       # proto, data_type, data_id
SAMPLE = struct.Struct("<IIQQHHIIIQ")    # sep_sample_pc, 48 bytes
DROP = struct.Struct("<IIII")            # os_id, cpu_id, sampled, dropped
REASONS_HEAD = struct.Struct("<II")      # size, flags
REASON = struct.Struct("<8I")            # cpu_id, ring_full, no_counter, malformed, collision,
#                                          stuck, stuck_resets, delivered
MAX_DROP_NODES, REASONS_DELIVERED = 20, 1
DATA_CPU, DATA_MODULE, DATA_UNCORE = 0, 1, 2
OP_STOP, OP_TERMINATE, OP_NUM_CORES = 2, 35, 28
OP_GET_NUM_SAMPLES, OP_GET_SAMPLE_DROP_INFO = 76, 85
OP_GET_DROP_REASONS = 0x41430055
OP_GET_PMI_BUDGET = 0x41430056  # acart extension (docs/sep-protocol.md)
STATUS_DRIVER_COMM_FAILED = 159
SWITCH_DELAYED = 1 << 9
TIME_BASED = b"bare-metal i686, time-based sampling"
PMU_BASED = b"bare-metal i686, PMU sampling"
TSC_HZ = 1000000000


def target_status(version, num_cpus):
    os_info = struct.pack("<II64s64s64s", 0, 0, b"acart", b"0.1", version)
    switch = struct.pack("<II", SWITCH_DELAYED, 0)
    hw = struct.pack("<IIIIQQQ", num_cpus, 6, 0x5e, 3, TSC_HZ, 0, 0)
    head = struct.pack("<IIiIQIIIIII", 296, PROTO, 0, 0, 0, 48, len(os_info), 248, len(switch),
                       256, len(hw))
    body = head + os_info + switch + hw
    assert len(body) == 296
    return body


def recv_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise EOFError("connection closed after %d of %d bytes" % (len(buf), n))
        buf += chunk
    return buf


class Target(threading.Thread):
    """One session: `samples[i]` records on CPU i's channel, `dropped[i]` reported lost."""

    def __init__(self, version, samples, dropped=None, flood=False, delivered=None):
        super().__init__(daemon=True)
        self.version, self.samples, self.flood = version, samples, flood
        # With `delivered` (what the target claims each CPU sent), GET_DROP_REASONS answers.
        self.delivered = delivered
        self.dropped = dropped or [0] * len(samples)
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.listener.settimeout(30)
        self.port = self.listener.getsockname()[1]
        self.error = None
        self.ops = []

    def run(self):
        try:
            self.session()
        except Exception as e:  # reported by the test, in its own thread
            self.error = "%s: %s" % (type(e).__name__, e)
        finally:
            self.listener.close()

    def session(self):
        n = len(self.samples)
        control, _ = self.listener.accept()
        control.settimeout(30)
        check(FIRST.unpack(recv_exact(control, FIRST.size))[1] == PROTO, "host's protocol")
        control.sendall(target_status(self.version, n))
        channels = {}
        kinds = [(DATA_CPU, i) for i in range(n)] + [(DATA_UNCORE, 0), (DATA_MODULE, 0)]
        for kind in kinds:
            s, _ = self.listener.accept()
            s.settimeout(30)
            recv_exact(s, FIRST.size)
            s.sendall(DATA_FIRST.pack(PROTO, *kind))
            channels[kind] = s
        while True:
            head = recv_exact(control, HEADER.size)
            _, _, op, _, to_size, from_size, _, _ = HEADER.unpack(head)
            recv_exact(control, to_size)
            self.ops.append(op)
            status, reply = 0, bytes(from_size)
            if op == OP_NUM_CORES:
                reply = struct.pack("<I", n)
            elif op == OP_GET_NUM_SAMPLES:
                reply = struct.pack("<Q", sum(self.samples))
            elif op == OP_GET_SAMPLE_DROP_INFO:
                claimed = self.delivered or self.samples
                m = min(n, MAX_DROP_NODES)
                reply = struct.pack("<I", m) + b"".join(
                    DROP.pack(0, i, claimed[i], self.dropped[i]) for i in range(m))
                reply += bytes(from_size - len(reply))
            elif op == OP_GET_DROP_REASONS and self.delivered:
                reply = REASONS_HEAD.pack(n, REASONS_DELIVERED) + b"".join(
                    REASON.pack(i, self.dropped[i], 0, 0, 0, 0, 0, self.delivered[i])
                    for i in range(n))
                reply += bytes(from_size - len(reply))
            elif op in (OP_GET_DROP_REASONS, OP_GET_PMI_BUDGET):
                # A target without these acart extensions (the PMI budget's among them).
                status, reply = STATUS_DRIVER_COMM_FAILED, b""
            elif op == OP_STOP:
                for (kind, cpu), s in channels.items():
                    if kind == DATA_CPU:
                        s.sendall(b"".join(self.sample(cpu, k) for k in range(self.samples[cpu])))
                    if self.flood and kind == DATA_MODULE:
                        threading.Thread(target=self.flood_modules, args=(s,), daemon=True).start()
                    else:
                        s.close()
            control.sendall(HEADER.pack(HEADER.size, PROTO, op, status, 0, len(reply), 0, 0) +
                            reply)
            if op == OP_TERMINATE:
                control.close()
                return

    @staticmethod
    def flood_modules(sock):
        """Well-formed module records after STOP, without end, until the host gives up."""
        path = b"flood.bin\0"
        record = bytearray(80) + path
        struct.pack_into("<H", record, 0, len(record))
        struct.pack_into("<H", record, 52, len(path))
        block = bytes(record) * 8192
        try:
            while True:
                sock.sendall(block)
        except OSError:
            sock.close()

    @staticmethod
    def sample(cpu, k):
        # descriptor 0, event 0, CPU number and 32-bit mode in cpu_and_os, raw pid/tid.
        return SAMPLE.pack(0, 0, 0x401000 + 4 * k, 0x246, 8, cpu | 2 << 13, 2, 1,
                           (1 << 28) | (1 << 29) | (1 << 30), 1000 * k)


def collect(args, name, version, samples, dropped=None, duration="0.5", event=None, expect=0,
            flood=False, delivered=None):
    t = Target(version, samples, dropped, flood, delivered)
    t.start()
    folder = os.path.join(args.workdir, name)
    cmd = [args.acart, "collect", "--target", "127.0.0.1:%d" % t.port, "--duration", duration,
           "-o", folder, "--timeout", "20"]
    if event:
        cmd += ["--event", event]
    out, err = run(cmd, expect=expect)
    t.join(30)
    check(not t.is_alive(), "%s: the scripted target is still waiting" % name)
    if flood:  # the host gave up on the target mid-session: nothing more to check of it
        return out, err
    check(t.error is None, "%s: the scripted target failed: %s" % (name, t.error))
    check(t.ops and t.ops[-1] == OP_TERMINATE, "%s: the session did not end with TERMINATE: %r"
          % (name, t.ops[-5:]))
    check(os.path.exists(os.path.join(folder, "session.json")),
          "%s: no session.json in %s" % (name, folder))
    return out, err


def test(args):
    # 0.5 s at 1 GHz every 2.2 M TSC ticks: about 227 ticks per CPU; CPU 1 took none.
    _, err = collect(args, "silent_time_based", TIME_BASED, [120, 0], expect=5)
    check("CPU 1 took no sample in" in err and "time-based sampling" in err and
          "timer never fired" in err, "silent CPU not named:\n%s" % err)
    check("CPU 0 took" not in err, "CPU 0 blamed:\n%s" % err)

    # Three CPUs, the last one silent: the check covers every CPU, not just CPU 1.
    _, err = collect(args, "silent_last_cpu", TIME_BASED, [50, 60, 0], expect=5)
    check("CPU 2 took no sample in" in err, "silent CPU 2 not named:\n%s" % err)

    # One tick per second of collection: too short to expect 20 ticks anywhere.
    collect(args, "short_time_based", TIME_BASED, [1, 0],
            event="CPU_CLK_UNHALTED.REF_TSC:sa=1000000000")
    # PMU events may never occur on a CPU.
    collect(args, "silent_pmu", PMU_BASED, [120, 0])
    # CPU 1's timer fired; its ring was full: a warning about drops, no failure.
    _, err = collect(args, "dropped_time_based", TIME_BASED, [120, 0], dropped=[0, 200])
    check("dropped 200 samples" in err, "no warning about the drops:\n%s" % err)
    # Every CPU sampled.
    out, _ = collect(args, "all_time_based", TIME_BASED, [120, 110])
    check("230 samples" in out, "summary: %s" % out)

    # 40 CPUs: GET_SAMPLE_DROP_INFO names the first 20, GET_DROP_REASONS all of them.
    many = [100 + i for i in range(40)]
    out, err = collect(args, "cpus_40", TIME_BASED, many, delivered=list(many))
    check("%d samples" % sum(many) in out, "summary: %s" % out)
    check("covers" not in err, "a CPU went unchecked:\n%s" % err)
    with open(os.path.join(args.workdir, "cpus_40", "session.json")) as f:
        samples = json.load(f)["samples"]
    check(samples["per_cpu"] == many, "per-CPU counts: %r" % samples.get("per_cpu"))
    # CPU 33 sent one record fewer than the target claims: named, though past the 20.
    claimed = list(many)
    claimed[33] += 1
    _, err = collect(args, "cpus_40_short", TIME_BASED, many, delivered=claimed, expect=5)
    check("CPU 33: received 133 sample records, the target reports 134" in err,
          "CPU 33's shortfall not named:\n%s" % err)
    # A silent CPU past the 20 is named too.
    quiet = list(many)
    quiet[37] = 0
    _, err = collect(args, "cpus_40_silent", TIME_BASED, quiet, delivered=list(quiet), expect=5)
    check("CPU 37 took no sample in" in err, "silent CPU 37 not named:\n%s" % err)

    # A target that goes on sending module records after STOP: the host gives up once it
    # has more than a target can hold (256 MiB that are not samples), never drains for ever.
    _, err = collect(args, "flood_after_stop", PMU_BASED, [10, 10], expect=5, flood=True)
    check("still sending: more than a target can hold" in err, "flood not refused:\n%s" % err)
    shutil.rmtree(os.path.join(args.workdir, "flood_after_stop"), ignore_errors=True)


if __name__ == "__main__":
    main(test)
