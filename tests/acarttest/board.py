"""Boots the qemu-pc board through scripts/run-board for a test and watches its console.

Each Board picks free loopback ports, so tests can run in parallel."""
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RUN_BOARD = os.path.join(TOP, "scripts", "run-board")


def image_arch(image):
    """"i686" for an ELF32 board image, "x86_64" for an ELF64 one (its EI_CLASS byte)."""
    with open(image, "rb") as f:
        head = f.read(5)
    assert head[:4] == b"\x7fELF", "%s is not an ELF image" % image
    return {1: "i686", 2: "x86_64"}[head[4]]


# The SEP code mode samples and module records of an image carry (SEP_MODE_32BIT/64BIT).
CODE_MODE = {"i686": 2, "x86_64": 3}


def exception_report_re(arch):
    """The board's exception report (boards/qemu-pc/trap_report.c) as a regex whose groups
    are cpu, vector, vector name, instruction pointer and stack pointer (hex)."""
    if arch == "x86_64":
        return (r"EXCEPTION on cpu (\d+): vector (\d+) \(([^)]*)\) error code 0x[0-9a-f]{8}\n"
                r"  rip=0x([0-9a-f]{16}) cs=0x0008 rflags=0x[0-9a-f]{8}\n"
                r"  rax=.*\n  rsi=0x[0-9a-f]{16} rdi=0x[0-9a-f]{16} rbp=0x[0-9a-f]{16} "
                r"rsp=0x([0-9a-f]{16})\n")
    return (r"EXCEPTION on cpu (\d+): vector (\d+) \(([^)]*)\) error code 0x[0-9a-f]{8}\n"
            r"  eip=0x([0-9a-f]{8}) cs=0x0008 eflags=0x[0-9a-f]{8}\n"
            r"  eax=.*\n  esi=0x[0-9a-f]{8} edi=0x[0-9a-f]{8} ebp=0x[0-9a-f]{8} esp=0x([0-9a-f]{8})\n")


def acart_collect(acart, port, *options):
    """`acart collect` of one second from the board at port into a fresh folder; the
    finished process (stdout and stderr as text), the folder as its `folder`."""
    out = tempfile.mkdtemp(prefix="acart-collect-")
    r = subprocess.run([acart, "collect", "--target", "127.0.0.1:%d" % port, "--duration",
                        "1", "-o", out] + list(options),
                       capture_output=True, text=True, timeout=120)
    r.folder = out
    return r


def _port_free(port):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def free_port_pair():
    for _ in range(200):
        p = random.randrange(20000, 60000, 4)
        if _port_free(p) and _port_free(p + 1) and _port_free(p + 2):
            return p
    raise RuntimeError("no free loopback port pair")


class Board:
    def __init__(self, image, cpus=4, workload="idle", accel="auto", append="", monitor=False,
                 icount=None):
        self.port = free_port_pair()
        self.echo_port = self.port + 1
        self.bench_port = self.port + 2
        fd, self.log = tempfile.mkstemp(prefix="acart-board-", suffix=".log")
        os.close(fd)
        self.runner_log = self.log + ".runner"
        cmd = [RUN_BOARD, "--image", image, "--cpus", str(cpus), "--port", str(self.port),
               "--workload", workload, "--accel", accel, "--log", self.log]
        if append:
            cmd += ["--append", append]
        if icount is not None:
            cmd += ["--icount", str(icount)]
        self.monitor_path = None
        if monitor:
            self.monitor_path = self.log + ".monitor"
            cmd += ["--monitor", self.monitor_path]
        with open(self.runner_log, "w") as err:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=err)

    def console(self):
        with open(self.log, errors="replace") as f:
            return f.read().replace("\r", "")

    def wait_for(self, pattern, timeout=60):
        """Waits until the console matches pattern (a regex); returns the match."""
        deadline = time.time() + timeout
        rx = re.compile(pattern, re.M)
        while time.time() < deadline:
            m = rx.search(self.console())
            if m:
                return m
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        raise AssertionError("board console never matched %r within %ds; console:\n%s\nrunner:\n%s"
                             % (pattern, timeout, self.console(), self.stderr_text()))

    def monitor(self, command):
        """One command on QEMU's monitor (e.g. "set_link net0 off"); returns its output."""
        deadline = time.time() + 30
        while True:
            try:
                s = socket.socket(socket.AF_UNIX)
                s.connect(self.monitor_path)
                break
            except OSError:
                s.close()
                if time.time() > deadline:
                    raise
                time.sleep(0.2)
        with s:
            s.settimeout(10)
            out = b""
            while b"(qemu)" not in out:
                out += s.recv(4096)
            s.sendall(command.encode() + b"\n")
            out = b""
            while out.count(b"(qemu)") < 1:
                out += s.recv(4096)
            return out.decode(errors="replace")

    READY = re.compile(r"^acart: board ready: tcp active (\d+) time-wait (\d+) pcbs (\d+), "
                       r"channels (\d+), heap (\d+) bytes, pbufs (\d+), segments (\d+)$", re.M)

    def ready_reports(self):
        """Every "board ready" line so far, as dicts: what lwIP holds with no session."""
        keys = ("active", "time_wait", "pcbs", "channels", "heap", "pbufs", "segments")
        return [dict(zip(keys, map(int, m.groups()))) for m in self.READY.finditer(self.console())]

    def wait_ready(self, after, timeout=60):
        """Waits for the (after+1)-th "board ready" line and returns it."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            r = self.ready_reports()
            if len(r) > after:
                return r[after]
            time.sleep(0.1)
        raise AssertionError("no board-ready report #%d within %ds; console:\n%s"
                             % (after + 1, timeout, self.console()))

    def stderr_text(self):
        with open(self.runner_log, errors="replace") as f:
            return f.read()

    def accelerator(self):
        """The runner's one line on which accelerator it chose and why."""
        for line in self.stderr_text().splitlines():
            if line.startswith("run-board: accelerator "):
                return line[len("run-board: accelerator "):]
        return "unknown"

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for path in (self.log, self.runner_log, self.monitor_path):
            if not path:
                continue
            try:
                os.unlink(path)
            except OSError:
                pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if exc[0] is not None:
            sys.stderr.write("board console at failure:\n" + self.console() + "\n")
        self.stop()
