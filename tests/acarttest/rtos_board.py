"""Helpers for the rtos-pc board's tests: its own accounting (the stats service on the
board's port 9323, forwarded to Board.bench_port) and the image's symbols."""
import socket
import subprocess
import time


def read_stats(port, timeout=20):
    """The board's accounting as {"board": {...}, "now": {...}, "window": {...} or None,
    "task": {tid: {...}}, "wtask": {tid: {...}}}. Numbers are ints."""
    deadline = time.time() + timeout
    while True:
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
            break
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.2)
    data = b""
    with s:
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    text = data.decode()
    assert text.endswith("end\n"), "stats cut short:\n" + text
    out = {"window": None, "task": {}, "wtask": {}}
    for line in text.splitlines():
        kind, *fields = line.split()
        rec = {}
        for f in fields:
            k, v = f.split("=", 1)
            rec[k] = int(v) if v.isdigit() else v
        if kind in ("task", "wtask"):
            out[kind][rec["tid"]] = rec
        elif kind != "end":
            out[kind] = rec
    return out


def symbols(image):
    """Function name -> (start, end) from the image's symbol table."""
    out = subprocess.run(["nm", "-S", "--defined-only", image], check=True,
                         capture_output=True, text=True).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tT":
            lo = int(parts[0], 16)
            syms[parts[3]] = (lo, lo + int(parts[1], 16))
    return syms


def function_of(syms, addr):
    for name, (lo, hi) in syms.items():
        if lo <= addr < hi:
            return name
    return None
