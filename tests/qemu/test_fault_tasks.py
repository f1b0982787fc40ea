"""NMI and #DF run on their own stacks: as their own tasks in 32-bit mode
(arch/x86/kit/i686/tss.c), through the interrupt stack table in long mode
(arch/x86/kit/x86_64/tss.c):
- a stack overflow on cpu 1 hits the guard page below its stack; the CPU cannot push the
  #PF frame, raises #DF, and the #DF task prints the exception report (no triple fault,
  which would end QEMU without a report), with the interrupted stack pointer just above
  the guard page;
- an NMI injected from QEMU's monitor (LINT1 of every CPU) while both spin in the hotspot
  reaches each CPU's own NMI task, which frames the interrupted context from the saved TSS: with no
  NMI handler installed the report names vector 2 and an EIP inside acart_demo_hotspot."""
import argparse
import re
import socket
import time

from acarttest import sep
from acarttest.board import Board, exception_report_re, image_arch

ap = argparse.ArgumentParser()
ap.add_argument("--image", required=True)
args = ap.parse_args()

REPORT = exception_report_re(image_arch(args.image))

with Board(args.image, cpus=2, workload="stack-overflow") as b:
    b.wait_for(r"^cpu 1 halted$", timeout=120)
    con = b.console()
reports = re.findall(REPORT, con)
assert len(reports) == 1, con
cpu, vector, name, eip, esp = reports[0]
assert (cpu, vector) == ("1", "8") and name.startswith("#DF"), reports
assert not re.search(r"^cpu 0 halted$", con, re.M), "cpu 0 went down too:\n" + con
print("stack overflow on cpu 1: #DF report, esp 0x%s" % esp)

with Board(args.image, cpus=2, workload="hotspot", monitor=True) as b:
    b.wait_for(r"^acart: listening on ", timeout=120)
    m = re.search(r"^Hotspot ip: 0x([0-9a-f]+)$", b.console(), re.M)
    hotspot = int(m.group(1), 16)
    b.monitor("nmi")  # QEMU raises LINT1 on every CPU; the board routes it as NMI on each
    b.wait_for(r"^cpu 0 halted$", timeout=60)
    b.wait_for(r"^cpu 1 halted$", timeout=60)
    con = b.console()
reports = re.findall(REPORT, con)
assert sorted(r[0] for r in reports) == ["0", "1"], con
for cpu, vector, name, eip, esp in reports:
    assert vector == "2" and name == "NMI", reports
    # Anywhere in the workload loop around the hotspot, or the net interrupt on cpu 0.
    assert cpu == "0" or abs(int(eip, 16) - hotspot) < 0x400, (cpu, eip, hex(hotspot))
print("NMI task on both cpus: %s" % ", ".join("cpu%s eip 0x%s" % (r[0], r[3]) for r in reports))


def stats(port):
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(b"stats\n")
        data = b""
        while True:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
    w = data.decode().split()
    n = int(w[w.index("cpus") + 1])
    return ([int(x) for x in w[w.index("passes") + 1:w.index("passes") + 1 + n]],
            [int(x) for x in w[w.index("nmi") + 1:w.index("nmi") + 1 + n]])


with Board(args.image, cpus=2, workload="hotspot", monitor=True, append="count-nmis") as b:
    b.wait_for(r"^acart: listening on ", timeout=120)
    # One at a time: an NMI that arrives while the last one is still in its handler is
    # held, and a third is dropped, as on hardware.
    for i in range(1, 6):
        b.monitor("nmi")
        deadline = time.time() + 60
        while True:
            passes0, nmis = stats(b.bench_port)
            if nmis == [i, i] or time.time() > deadline:
                break
            time.sleep(0.1)
        assert nmis == [i, i], "NMIs taken per CPU: %s after %d (each CPU must return from " \
            "its NMI task to take the next)" % (nmis, i)
    time.sleep(1)
    passes1, _ = stats(b.bench_port)
    assert all(p1 > p0 for p0, p1 in zip(passes0, passes1)), (passes0, passes1)
    assert "EXCEPTION" not in b.console(), b.console()
    h = sep.Host(b.port)
    assert h.handshake()[0] == 0
    h.open_data_channels()
    assert all(v == 0 for v in sep.setup_collection(h).values())
    h.start_readers()
    assert h.request(sep.OP["START"])[0] == 0
    time.sleep(1)
    assert h.request(sep.OP["STOP"])[0] == 0
    h.join_readers()
    records = sum(len(v) for (t, _), v in h.received.items() if t == 0) // 48
    h.request(sep.OP["TERMINATE"])
    h.close()
    assert records > 0, "no samples after the NMIs"
print("5 NMIs returned on both cpus; hotspot passes %s -> %s; then %d samples collected" % (
    passes0, passes1, records))
