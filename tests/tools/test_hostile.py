"""A hostile target's names on the host: a collection whose host name, task names, module
path and event name carry ESC sequences, BEL, CR, LF, DEL, a C1 control, a right-to-left
override, invalid UTF-8 and path separators. Whatever acart prints (report, tb5 print of the
imported file, error messages) must hold no control byte but the line ends it writes
itself, and be valid UTF-8, with each hostile name shown in its escaped form; export csv
must write its files inside the output folder under escaped names; the flame graph must be
well-formed XML without those characters."""

import os
import subprocess
import xml.etree.ElementTree as ET

from acarttest.tooltest import check, main

HOST = b"evil\x1b]0;owned\x07..x\r\n"
TASK = b"\x1b[2Jfake line\nTotal\x7f\xff\xfe\xc2\x9b\xe2\x80\xaemoc.exe"
MODULE = b"/lib/\x1b[31mred\xff.so"
EVENT = b"CPU_CLK_UNHALTED.REF_TSC\x1b[8m"
# The escaped forms the terminal must show (text_escape.h).
HOST_SHOWN = b"evil\\x1b]0;owned\\x07..x\\x0d\\x0a"
TASK_SHOWN = b"\\x1b[2Jfake line\\x0aTotal\\x7f\\xff\\xfe\\u{009b}\\u{202e}moc.exe"
MODULE_SHOWN = b"\\x1b[31mred\\xff.so"  # reports name a module by its file name
# The tb5 file keeps names as UTF-16: a byte that is not UTF-8 becomes U+FFFD there.
MODULE_TB5_SHOWN = b"/lib/\\x1b[31mred\xef\xbf\xbd.so"
EVENT_SHOWN = b"CPU_CLK_UNHALTED.REF_TSC\\x1b[8m"


def run(cmd, expect=0):
    r = subprocess.run([c if isinstance(c, bytes) else str(c) for c in cmd], capture_output=True)
    check(r.returncode == expect, "%r: exit %d, expected %d\n%r" % (cmd, r.returncode, expect,
                                                                    r.stderr))
    return r.stdout, r.stderr


def check_terminal_safe(what, data):
    """No byte below 0x20 but LF, no DEL, valid UTF-8 without C1 or bidi controls."""
    bad = [b for b in data if (b < 0x20 and b != 0x0A) or b == 0x7F]
    check(not bad, "%s: raw control bytes %r in %r" % (what, bad[:8], data[:400]))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise AssertionError("%s: not UTF-8: %s" % (what, e))
    check(not any(0x80 <= ord(c) < 0xA0 or c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067"
                  "\u2068\u2069\u200e\u200f\u2028\u2029" for c in text),
          "%s: C1 or bidirectional control in %r" % (what, text[:400]))


def test(args):
    folder = os.path.join(args.workdir, "hostile")
    run([args.synth, folder, b"--hostname", HOST, b"--event", EVENT + b":1000",
         b"--module", MODULE + b":0x400000:0x10000", b"--task", b"1:2:" + TASK,
         b"--run", b"0:1:2:0x400100:5", b"--run", b"0:1:3:0x400200:3"])

    for by in ("task", "module", "cpu"):
        out, err = run([args.acart, "report", folder, "--by", by])
        check_terminal_safe("report --by " + by, out + err)
        check(HOST_SHOWN in out, "report --by %s: host name not shown escaped:\n%r" % (by, out))
        check(EVENT_SHOWN in out, "report --by %s: event name not shown escaped" % by)
    out, _ = run([args.acart, "report", folder, "--by", "task"])
    check(TASK_SHOWN + b" (pid 1, tid 2)" in out, "task name not shown escaped:\n%r" % out)
    # The forged "Total" row must not appear as a line of its own.
    check(not any(line.startswith(b"Total") for line in out.split(b"\n")), "forged line")
    out, _ = run([args.acart, "report", folder, "--by", "module"])
    check(MODULE_SHOWN in out, "module name not shown escaped:\n%r" % out)

    # An error message that quotes a name from the command line and the file.
    _, err = run([args.acart, "report", folder, "--event", b"no\x1b[5such"], expect=2)
    check_terminal_safe("report --event error", err)
    check(b"no\\x1b[5such" in err, "error message not escaped: %r" % err)

    tb5 = os.path.join(args.workdir, "hostile.tb5")
    out, err = run([args.acart, "import", folder, "-o", tb5, "--quiet"])
    check_terminal_safe("import", out + err)
    out, err = run([args.acart, "tb5", "print", tb5])
    check_terminal_safe("tb5 print", out + err)
    check(MODULE_TB5_SHOWN in out, "tb5 print: module path not shown escaped:\n%r" % out[:2000])
    out, err = run([args.acart, "report", tb5, "--by", "task"])
    check_terminal_safe("report of the tb5 file", out + err)

    csv_dir = os.path.join(args.workdir, "csv")
    os.makedirs(csv_dir)
    out, err = run([args.acart, "export", "csv", folder, "-o", csv_dir])
    check_terminal_safe("export csv", out + err)
    names = sorted(os.listdir(csv_dir))
    host_file = "evil%1b%5d0%3bowned%07..x%0d%0a"
    check(names == ["counters-cpu0-hostname-%s.csv" % host_file,
                    "tasks-hostname-%s.csv" % host_file], "export csv wrote %r" % names)

    svg = os.path.join(args.workdir, "hostile.svg")
    run([args.acart, "flamegraph", folder, "--elf", args.workload, "-o", svg])
    with open(svg, "rb") as f:
        data = f.read()
    check_terminal_safe("flame graph", data)
    ET.fromstring(data)  # well-formed XML, or this raises


main(test)
