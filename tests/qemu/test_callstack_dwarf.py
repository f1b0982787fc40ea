"""Call stacks of firmware built without frame pointers (issue 26): the board's CFI
variant (-fomit-frame-pointer -fasynchronous-unwind-tables, .eh_frame kept) runs the
hotspot workload on 2 CPUs, `acart collect --callstack=dwarf` has each sample carry the
interrupted registers and a copy of its stack, and `acart export folded` unwinds them with
the image's CFI. At least 95 % of all samples must unwind to the workload's call graph, as
the board built it: acart_demo_hotspot <- run_hotspot <- board_main (CPU 0) or ap_entry
(the others). With --workload leaf (on the frame-pointer image, x86_64) the samples land in
acart_demo_leaf, which GCC 12 leaves without a frame: a frame-pointer walk loses run_leaf
there, and the CFI unwind must keep it. The records themselves are checked too: the registers the frame gives are
marked known, SP is the one the copy starts at, and the copy stays within its size."""
import argparse
import json
import os
import struct
import subprocess
import tempfile

from acarttest.board import Board

ap = argparse.ArgumentParser()
ap.add_argument("--image", required=True)
ap.add_argument("--acart", required=True)
ap.add_argument("--bytes", type=int, default=2048)
ap.add_argument("--duration", type=int, default=3)
ap.add_argument("--workload", choices=["hotspot", "leaf"], default="hotspot")
args = ap.parse_args()

HEAD = 208  # struct acart_stack_copy
REG_BP, REG_SP, REG_IP, REG_FLAGS, REG_CS = 6, 7, 8, 9, 10
KNOWN = sum(1 << r for r in (REG_BP, REG_SP, REG_IP, REG_FLAGS, REG_CS))
ENTRY = ("board_main", "ap_entry")
CHAIN = {"hotspot": ["run_hotspot", "acart_demo_hotspot"],
         "leaf": ["run_leaf", "acart_demo_leaf"]}[args.workload]

out = tempfile.mkdtemp(prefix="acart-dwarf-")
with Board(args.image, cpus=2, workload=args.workload) as b:
    b.wait_for(r"^acart: listening on ", timeout=300)
    r = subprocess.run([args.acart, "collect", "--target", "127.0.0.1:%d" % b.port,
                        "--duration", str(args.duration), "--callstack=dwarf,%d" % args.bytes,
                        "-o", out], capture_output=True, text=True, timeout=300)
    print(r.stdout[-2000:], r.stderr[-2000:])
    assert r.returncode == 0, "acart collect exited %d" % r.returncode
    assert "EXCEPTION" not in b.console(), b.console()

session = json.load(open(os.path.join(out, "session.json")))
desc = session["descriptors"][0]
assert desc["stack_copy_size"] == HEAD + args.bytes, desc
assert desc["stack_copy_offset"] + desc["stack_copy_size"] == desc["sample_size"], desc
size, at = desc["sample_size"], desc["stack_copy_offset"]
records = 0
for cpu in range(2):
    data = open(os.path.join(out, "cpu%d.bin" % cpu), "rb").read()
    assert data and len(data) % size == 0, (cpu, len(data))
    for i in range(len(data) // size):
        rec = data[i * size:(i + 1) * size]
        known, = struct.unpack_from("<Q", rec, at)
        regs = struct.unpack_from("<24Q", rec, at + 8)
        copied, = struct.unpack_from("<I", rec, at + 200)
        ip, = struct.unpack_from("<Q", rec, 8)
        assert known == KNOWN, "cpu %d record %d: known registers 0x%x" % (cpu, i, known)
        assert regs[REG_IP] == ip, (cpu, i, hex(regs[REG_IP]), hex(ip))
        assert 0 < copied <= args.bytes and copied % 4 == 0, (cpu, i, copied)
        assert rec[at + HEAD + copied:] == bytes(size - at - HEAD - copied), \
            "cpu %d record %d: bytes after the copy are not zero" % (cpu, i)
        records += 1

folded = os.path.join(out, "stacks.folded")
r = subprocess.run([args.acart, "export", "folded", out, "--elf", args.image, "-o", folded],
                   capture_output=True, text=True, timeout=300)
assert r.returncode == 0, r.stderr
total = good = 0
for line in open(folded):
    stack, count = line.rsplit(" ", 1)
    frames, count = stack.split(";"), int(count)
    total += count
    if frames[-3:] in ([e] + CHAIN for e in ENTRY):
        good += count
    else:
        print("other stack: %s (%d)" % (stack, count))
assert total == records, "folded stacks hold %d samples, the files %d" % (total, records)
print("%d of %d samples unwound to <entry> <- %s" % (good, total, " <- ".join(CHAIN)))
assert good >= 0.95 * total, "only %d of %d samples unwound to the entry function" % (good, total)
print("dwarf call stacks ok")
