"""A scripted SEP target on loopback for `acart collect`'s tests (tests/tools): it plays a
whole collection (handshake, data connections, every set-up request, START, STOP, the
records, the counts, TERMINATE), written from docs/sep-protocol.md with its own struct
layouts, like tests/acarttest/sep.py, not from acart_wire.h. A test chooses what each CPU
sends and what the target claims; `cut` ends a data channel short after STOP."""

import socket
import struct
import threading

from acarttest.tooltest import check

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
OP_START, OP_STOP, OP_TERMINATE, OP_NUM_CORES = 1, 2, 35, 28
OP_GET_NUM_SAMPLES, OP_GET_SAMPLE_DROP_INFO = 76, 85
OP_GET_DROP_REASONS = 0x41430055
OP_GET_PMI_BUDGET = 0x41430056  # acart extension (docs/sep-protocol.md)
OP_GET_CHANNEL_TOTALS = 0x41430057  # acart extension (docs/sep-protocol.md 7.1)
OP_GET_TASK_SWITCHES = 0x41430058  # acart extension (docs/sep-protocol.md)
TOTAL = struct.Struct("<HHIQ")           # data_type, data_id, flags, bytes
CHANNEL_FINISHED = 1
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


class Cut:
    """How the target cuts CPU `cpu`'s data channel: after STOP it sends `records` of that
    CPU's records and `extra` bytes of the next, then ends the connection with a FIN, or a
    reset (`reset`), yet claims every record sent. `control`: "keep" answers the host to
    TERMINATE as usual; "close" ends the session (the control connection closed) right
    after STOP's answer, as a board does; "start" ends the whole session, every connection
    with a FIN, right after START's answer, nothing sent."""

    def __init__(self, cpu, records=0, extra=0, reset=False, control="close"):
        self.cpu, self.records, self.extra, self.reset, self.control = (cpu, records, extra,
                                                                        reset, control)


def close_connection(sock, reset=False):
    """Closes sock with a FIN, or with a reset (SO_LINGER 0)."""
    if reset:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


class Target(threading.Thread):
    """One session: `samples[i]` records on CPU i's channel, `dropped[i]` reported lost."""

    def __init__(self, version, samples, dropped=None, flood=False, delivered=None, cut=None,
                 totals=None):
        super().__init__(daemon=True)
        self.version, self.samples, self.flood, self.cut = version, samples, flood, cut
        # With `totals`, GET_CHANNEL_TOTALS answers: what the target queued on each channel,
        # every one finished; `totals` is the module channel's bytes (it sends none).
        self.totals = totals
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
            elif op == OP_GET_CHANNEL_TOTALS and self.totals is not None:
                entries = [TOTAL.pack(kind, i, CHANNEL_FINISHED,
                                      SAMPLE.size * self.samples[i] if kind == DATA_CPU
                                      else self.totals if kind == DATA_MODULE else 0)
                           for kind, i in kinds]
                reply = struct.pack("<II", len(entries), 0) + b"".join(entries)
                reply += bytes(from_size - len(reply))
            elif op in (OP_GET_DROP_REASONS, OP_GET_PMI_BUDGET, OP_GET_CHANNEL_TOTALS,
                        OP_GET_TASK_SWITCHES):
                # A target without these acart extensions (the PMI budget's among them).
                status, reply = STATUS_DRIVER_COMM_FAILED, b""
            elif op == OP_STOP:
                cut = self.cut
                for (kind, cpu), s in channels.items():
                    if kind == DATA_CPU and cut and cut.cpu == cpu:
                        data = b"".join(self.sample(cpu, k) for k in range(cut.records + 1))
                        s.sendall(data[:cut.records * SAMPLE.size + cut.extra])
                        close_connection(s, cut.reset)
                        continue
                    if kind == DATA_CPU:
                        s.sendall(b"".join(self.sample(cpu, k) for k in range(self.samples[cpu])))
                    if self.flood and kind == DATA_MODULE:
                        threading.Thread(target=self.flood_modules, args=(s,), daemon=True).start()
                    else:
                        s.close()
            control.sendall(HEADER.pack(HEADER.size, PROTO, op, status, 0, len(reply), 0, 0) +
                            reply)
            if op == OP_TERMINATE or (self.cut and (self.cut.control, op) in (("close", OP_STOP),
                                                                               ("start", OP_START))):
                for s in channels.values():
                    if s.fileno() >= 0:
                        s.close()
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
