"""acart_simboard (tests/sim/simboard) for the tests that collect from it (tests/pt's
test_pt_capture.py and tests/sim/simboard's *_simboard.py): the board in the background with its log in a file,
and `acart collect` from it."""

import os
import shutil
import socket
import subprocess
import time

from .ptcase import check, run


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Board:
    """acart_simboard in the background, its log in a file."""

    def __init__(self, args, name, *options):
        self.port = free_port()
        self.log_path = os.path.join(args.workdir, name + ".log")
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            [args.simboard, "--port", str(self.port), "--seconds", "120"] + [str(o) for o in options],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while "listening on" not in self.text():
            check(self.proc.poll() is None, "%s: the board exited:\n%s" % (name, self.text()))
            check(time.time() < deadline, "%s: the board did not start:\n%s" % (name, self.text()))
            time.sleep(0.05)

    def text(self):
        with open(self.log_path) as f:
            return f.read()

    def stop(self):
        self.proc.terminate()
        self.proc.wait()
        self.log.close()
        check("raised #GP" not in self.text() and self.proc.returncode != 3,
              "a simulated CPU raised #GP:\n" + self.text())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def collect(args, board, name, *options, expect=0):
    folder = os.path.join(args.workdir, name)
    shutil.rmtree(folder, ignore_errors=True)
    out, err = run([args.acart, "collect", "--target", "127.0.0.1:%d" % board.port, "-o", folder]
                   + [str(o) for o in options], expect=expect)
    return folder, out, err
