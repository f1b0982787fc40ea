"""A deliberate invalid opcode prints the exception report (vector, error code, registers)."""
import argparse
import re

from acarttest.board import Board, image_arch

ap = argparse.ArgumentParser()
ap.add_argument("--image", required=True)
args = ap.parse_args()

with Board(args.image, cpus=2, workload="invalid-opcode") as b:
    b.wait_for(r"^cpu 0 halted$", timeout=120)
    con = b.console()
    if image_arch(args.image) == "x86_64":
        regs = (r"  rip=0x([0-9a-f]{16}) cs=0x0008 rflags=0x[0-9a-f]{8}\n"
                r"  rax=0x[0-9a-f]{16} rbx=0x[0-9a-f]{16} rcx=0x[0-9a-f]{16} rdx=0x[0-9a-f]{16}\n"
                r"  rsi=.*\n  r8=.*\n  r12=.*\n")
    else:
        regs = (r"  eip=0x([0-9a-f]{8}) cs=0x0008 eflags=0x[0-9a-f]{8}\n"
                r"  eax=0x[0-9a-f]{8} ebx=0x[0-9a-f]{8} ecx=0x[0-9a-f]{8} edx=0x[0-9a-f]{8}\n"
                r"  esi=.*\n")
    m = re.search(r"EXCEPTION on cpu 0: vector 6 \(#UD invalid opcode\) error code 0x00000000\n"
                  + regs + r"  cr0=.*\ncpu 0 halted", con)
    assert m, con
    print("exception report at eip 0x%s" % m.group(1))
