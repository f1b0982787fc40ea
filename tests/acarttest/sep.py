"""A small SEP host for tests: handshake, data channels, control requests.

Written from docs/sep-protocol.md, independently of the C definitions in acart_wire.h,
so that a mistake on one side shows up as a failure instead of agreeing with itself."""
import os
import socket
import struct
import threading
import time

PROTO = 6
HEADER = struct.Struct("<IIIiQQQQ")  # header_size, proto, command, status, to, from, r1, r2
FIRST = struct.Struct("<IIIIQ")      # msg_size, proto, per_cpu_buffer_size, reserved, reserved
DATA_FIRST = struct.Struct("<IHH")   # proto, data_type, data_id
BUSY_NOTE = struct.Struct("<16sIHHQQ")  # acart's note to a refused host (sep-protocol 3.1)

OP = dict(START=1, STOP=2, INIT_PMU=3, INIT=4, EM_GROUPS=5, EM_CONFIG_NEXT=25, NUM_CORES=28,
          COLLECT_SYS_CONFIG=29, GET_SYS_CONFIG=30, TERMINATE=35, RESERVE=38, VERSION=51,
          NUM_DESCRIPTOR=57, DESC_NEXT=58, READ_MSR=67, WRITE_MSR=68, GET_PLATFORM_INFO=70,
          SET_CPU_TOPOLOGY=73, INIT_NUM_DEV=74, GET_NUM_SAMPLES=76, SET_DEVICE_NUM_UNITS=78,
          GET_SAMPLE_DROP_INFO=85, GET_DRV_SETUP_INFO=86, GET_THREAD_COUNT=88,
          GET_THREAD_INFO=89, SET_OSID=92, INIT_DRIVER=94, GET_NORMALIZED_TSC=24)

SUCCESS = 0
BAD_PARAMETER = 63
BUFFER_TOO_SMALL = 103
PMU_IN_USE = 150
NOT_HANDLED = 159
MSR_ACCESS_ERROR = 196
COMM_NOT_COMPATIBLE = 218
UNSUPPORTED_DATA_SIZE = 98
INVALID_PROG_INFO = 228

FIXTURES = os.environ.get("ACART_FIXTURES_DIR",
                          os.path.join(os.path.dirname(__file__), "..", "fixtures"))
FIXTURE_ECB = os.path.join(FIXTURES, "aca", "bin_ecb.config_6_0_CPU_CLK_UNHALTED.REF_TSC")


def recv_exact(sock, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise EOFError("connection closed after %d of %d bytes" % (len(buf), n))
        buf.extend(chunk)
    return bytes(buf)


def connect(port, timeout=20):
    deadline = time.time() + timeout
    while True:
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return s
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.2)


class Host:
    def __init__(self, port):
        self.port = port
        self.ctl = connect(port)
        self.data = []

    def handshake(self, msg_size=FIRST.size, proto=PROTO):
        self.ctl.sendall(FIRST.pack(msg_size, proto, 0, 0, 0))
        st = recv_exact(self.ctl, 296)
        _size, version, status = struct.unpack_from("<IIi", st, 0)
        self.num_cpus, = struct.unpack_from("<I", st, 256)
        self.tsc_hz, = struct.unpack_from("<Q", st, 256 + 16)
        self.switch_bits, = struct.unpack_from("<I", st, 248)
        return status, version

    def open_data_channels(self, burst=True):
        """Connects every data channel, then handshakes each, as VTune does (burst); or
        each connected and handshaken before the next. QEMU's user network listens with
        a backlog of 1, so a burst through it loses SYNs and waits a second for each
        retransmission; a test running many sessions goes one at a time."""
        def handshake(s):
            s.sendall(FIRST.pack(FIRST.size, PROTO, 0, 0, 0))
            proto, dtype, did = DATA_FIRST.unpack(recv_exact(s, DATA_FIRST.size))
            assert proto == PROTO, proto
            return dtype, did, s
        n = self.num_cpus + 2
        if burst:
            socks = [connect(self.port) for _ in range(n)]
            self.channels = [handshake(s) for s in socks]
        else:
            self.channels = [handshake(connect(self.port)) for _ in range(n)]
        return [(t, i) for t, i, _ in self.channels]

    def request(self, command, payload=b"", want=0, header_size=HEADER.size, proto=PROTO,
                declared_to=None):
        to = len(payload) if declared_to is None else declared_to
        self.ctl.sendall(HEADER.pack(header_size, proto, command, 0, to, want, 0, 0) + payload)
        h = HEADER.unpack(recv_exact(self.ctl, HEADER.size))
        _hs, version, cmd, status, _to, frm, _r1, _r2 = h
        assert version == PROTO and cmd == command, h
        body = recv_exact(self.ctl, frm) if status == SUCCESS and frm else b""
        return status, body

    def read_busy_note(self, timeout=10):
        """acart's note after a busy status: (holder "ip:port", state, held_ms, since_boot_ms),
        or None when the board sent none."""
        self.ctl.settimeout(timeout)
        try:
            raw = recv_exact(self.ctl, BUSY_NOTE.size)
        except EOFError:
            return None
        magic, ip, port, state, held, since = BUSY_NOTE.unpack(raw)
        assert magic.rstrip(b"\0") == b"acart-busy-v1", magic
        return ("%d.%d.%d.%d:%d" % (ip & 255, (ip >> 8) & 255, (ip >> 16) & 255, ip >> 24, port),
                state, held, since)

    def expect_closed(self, timeout=10):
        self.ctl.settimeout(timeout)
        try:
            return self.ctl.recv(1) == b""
        except ConnectionResetError:
            return True

    def start_readers(self, idle_timeout=120):
        """One thread per data channel, each reading until EOF or idle_timeout seconds of
        silence (a delayed-mode collection is silent until STOP)."""
        self.received = {}
        self.first_byte_at, self.last_byte_at = {}, {}  # time.monotonic() per channel
        self.threads = []
        for dtype, did, s in self.channels:
            key = (dtype, did)
            self.received[key] = bytearray()

            def reader(sock=s, buf=self.received[key], key=key):
                try:
                    sock.settimeout(idle_timeout)
                except OSError:  # closed by the test before the thread ran
                    return
                while True:
                    try:
                        chunk = sock.recv(65536)
                    except OSError:  # reset by the board, or closed by the test
                        return
                    if not chunk:
                        return
                    now = time.monotonic()
                    self.first_byte_at.setdefault(key, now)
                    self.last_byte_at[key] = now
                    buf.extend(chunk)
            t = threading.Thread(target=reader, daemon=True)
            t.start()
            self.threads.append(t)

    def join_readers(self, timeout=120):
        for t in self.threads:
            t.join(timeout)
            assert not t.is_alive(), "a data channel was never closed by the target"

    def close(self):
        for _, _, s in getattr(self, "channels", []):
            s.close()
        self.ctl.close()


def u32(v):
    return struct.pack("<I", v)


DEV_CFG_COLLECT_OS_CALLSTACKS = 1 << 19


def setup_collection(h, ecb=None, callstack_depth=0, ask_callstacks=True):
    """Everything CollectionTest sends before START; returns the statuses seen. With
    callstack_depth, asks for frame-pointer call stacks of that depth after the 48 bytes
    of each record (INIT flag and descriptor callstack offset/size); ask_callstacks=False
    leaves out the INIT flag, so the area is described but not asked for."""
    record = 48 + 8 * callstack_depth
    statuses = {}

    def req(name, payload=b"", want=0):
        st, body = h.request(OP[name], payload, want)
        statuses[name] = st
        return body
    req("SET_OSID")
    req("VERSION", want=4)
    req("GET_DRV_SETUP_INFO", want=32)
    size = struct.unpack("<I", req("COLLECT_SYS_CONFIG", want=4))[0]
    req("GET_SYS_CONFIG", want=size)
    req("GET_PLATFORM_INFO", want=15440)
    req("NUM_CORES", want=4)
    req("INIT_NUM_DEV", u32(1))
    req("RESERVE", want=4)
    drv = bytearray(104)
    struct.pack_into("<IHH I", drv, 0, 104, 1, 0, 1)
    req("INIT_DRIVER", bytes(drv))
    topo = bytearray()
    for i in range(h.num_cpus):
        t = bytearray(72)
        struct.pack_into("<I", t, 0, i)
        topo += t
    req("SET_CPU_TOPOLOGY", bytes(topo))
    req("NUM_DESCRIPTOR", u32(1))
    desc = bytearray(112)
    struct.pack_into("<I", desc, 0, record)
    if callstack_depth:
        struct.pack_into("<II", desc, 60, 48, 8 * callstack_depth)  # callstack_offset, _size
    req("DESC_NEXT", bytes(desc))
    dev = bytearray(4080)
    if callstack_depth and ask_callstacks:
        struct.pack_into("<Q", dev, 32, DEV_CFG_COLLECT_OS_CALLSTACKS)  # enable_bit_fields
    req("INIT", bytes(dev))
    ev = bytearray(144)
    struct.pack_into("<IiiiI", ev, 0, 1, -1, -1, -1, record)
    req("EM_GROUPS", bytes(ev))
    if ecb is None:
        with open(FIXTURE_ECB, "rb") as f:
            ecb = f.read()
    req("EM_CONFIG_NEXT", ecb)
    req("SET_DEVICE_NUM_UNITS", u32(1))
    req("INIT_PMU", u32(h.num_cpus * 56))
    return statuses


def ecb_with_sample_after(sa):
    """The fixture ECB (fixed counter 2, CPU_CLK_UNHALTED.REF_TSC) with another
    sample-after value: the counter's preload is -sa in 48 bits."""
    with open(FIXTURE_ECB, "rb") as f:
        ecb = bytearray(f.read())
    for i in range((len(ecb) - 1728) // 136):
        off = 1728 + 136 * i
        if ecb[off] == 4 and struct.unpack_from("<I", ecb, off + 8)[0] == 0x30B:
            struct.pack_into("<Q", ecb, off + 48, (-sa) & 0xFFFFFFFFFFFF)
    return bytes(ecb)


def full_collection(port, seconds=2.0, ecb=None, allow_drops=False, counts=None, burst=True):
    """One whole session as a SEP host runs it: handshake, data channels, setup, START,
    `seconds` of sampling, STOP, every data channel read to its end, the counts, TERMINATE.
    Checks that the counts add up (records received per CPU = what GET_SAMPLE_DROP_INFO
    says was delivered, their sum = GET_NUM_SAMPLES, every record whole, nothing dropped
    unless allow_drops: then drops, which a full ring makes, are added to
    counts["dropped"]) and returns the number of records. burst: see open_data_channels."""
    h = Host(port)
    status, _ = h.handshake()
    assert status == SUCCESS, "handshake status %d" % status
    h.open_data_channels(burst)
    statuses = setup_collection(h, ecb=ecb)
    assert all(v == SUCCESS for v in statuses.values()), statuses
    h.start_readers()
    st, _ = h.request(OP["START"])
    assert st == SUCCESS, st
    time.sleep(seconds)
    st, _ = h.request(OP["STOP"])
    assert st == SUCCESS, st
    h.join_readers()
    st, body = h.request(OP["GET_NUM_SAMPLES"], want=8)
    assert st == SUCCESS, st
    total = struct.unpack("<Q", body)[0]
    received = sum(len(v) for (t, _), v in h.received.items() if t == 0)
    assert received % 48 == 0, "partial record: %d bytes" % received
    assert total == received // 48 and total > 0, (total, received // 48)
    st, body = h.request(OP["GET_SAMPLE_DROP_INFO"], want=324)
    assert st == SUCCESS, st
    n = struct.unpack_from("<I", body, 0)[0]
    for i in range(n):
        _os, cpu, delivered, dropped = struct.unpack_from("<IIII", body, 4 + 16 * i)
        assert len(h.received[(0, cpu)]) // 48 == delivered, (cpu, delivered, dropped)
        assert dropped == 0 or allow_drops, (cpu, delivered, dropped)
        if counts is not None:
            counts["dropped"] = counts.get("dropped", 0) + dropped
    st, _ = h.request(OP["TERMINATE"])
    assert st == SUCCESS, st
    assert h.expect_closed(5), "the board kept the control connection after TERMINATE"
    h.close()
    return total
