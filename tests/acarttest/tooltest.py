"""Shared pieces of the acart tool tests: running programs, reading symbols, call sites and
line tables with binutils (independent of the elfutils code under test), parsing `acart
report`, rendering flame graphs in headless Chromium."""

import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET


class TestFailure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise TestFailure(message)


def arguments():
    p = argparse.ArgumentParser()
    p.add_argument("--acart", required=True)
    p.add_argument("--synth", required=True)
    p.add_argument("--workload", required=True)
    p.add_argument("--workload-pie", required=True)
    p.add_argument("--workload-32", help="the workload as an ELF32 (i686) executable")
    p.add_argument("--source", required=True, help="workload.c")
    p.add_argument("--workdir", required=True)
    p.add_argument("--chromium", default="chromium")
    args = p.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir)
    return args


def run(cmd, expect=0, cwd=None):
    """Runs cmd; checks its exit status; returns (stdout, stderr)."""
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, cwd=cwd)
    if r.returncode != expect:
        raise TestFailure(
            "%s: exit %d, expected %d\nstdout:\n%s\nstderr:\n%s"
            % (" ".join(str(c) for c in cmd), r.returncode, expect, r.stdout, r.stderr))
    return r.stdout, r.stderr


def symbols(elf):
    """{name: (address, size)} of the defined function symbols, from binutils nm."""
    out, _ = run(["nm", "--defined-only", "-S", elf])
    table = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tT":
            table[parts[3]] = (int(parts[0], 16), int(parts[1], 16))
    return table


def marked_lines(source):
    """{marker: line number} for the `LINE:marker` comments of the workload's source."""
    lines = {}
    with open(source) as f:
        for number, text in enumerate(f, 1):
            m = re.search(r"LINE:(\w+)", text)
            if m:
                lines[m.group(1)] = number
    return lines


def line_addresses(elf, file_name, line):
    """Addresses whose line-table row is file_name:line, from binutils' decoded line table.
    Only addresses starting a non-empty range of that line are returned (an address listed
    by several rows belongs to the last one)."""
    out, _ = run(["objdump", "--dwarf=decodedline", elf])
    rows = []
    for text in out.splitlines():
        m = re.match(r"^(\S+)\s+(\d+)\s+(0x[0-9a-f]+)", text)
        if m:
            rows.append((os.path.basename(m.group(1)), int(m.group(2)), int(m.group(3), 16)))
    found = []
    for i, (name, number, address) in enumerate(rows):
        if name != file_name or number != line:
            continue
        nxt = rows[i + 1][2] if i + 1 < len(rows) else None
        if nxt is not None and nxt > address:
            found.append(address)
    return found


def call_sites(elf):
    """{(caller, callee): [return addresses]} of the direct calls in elf, from binutils'
    objdump: a call's return address is the address of the instruction after it."""
    out, _ = run(["objdump", "-d", "--no-show-raw-insn", elf])
    sites, function, pending = {}, None, None
    for text in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", text)
        if m:
            function = m.group(1)  # a call ending a function returns to the next one's start
            continue
        m = re.match(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$", text)
        if not m or function is None:
            continue
        address = int(m.group(1), 16)
        if pending:
            sites.setdefault(pending, []).append(address)
            pending = None
        target = re.match(r"^[0-9a-f]+ <([^>+]+)>$", m.group(3).strip())
        if m.group(2).startswith("call") and target:
            pending = (function, target.group(1))
    return sites


PAGE = """<!doctype html>
<html><body><div id="host"></div><pre id="result">not run</pre>
<script>
const text = %s;
const doc = new DOMParser().parseFromString(text, "image/svg+xml");
const result = {};
const errors = doc.getElementsByTagName("parsererror");
if (errors.length) {
  result.error = errors[0].textContent;
} else {
  const svg = document.importNode(doc.documentElement, true);
  document.getElementById("host").appendChild(svg);
  result.texts = Array.from(svg.querySelectorAll("text")).map(
      t => ({text: t.textContent, width: t.getComputedTextLength()}));
  result.frames = Array.from(svg.querySelectorAll("g")).map(g => {
    const r = g.querySelector("rect");
    return {title: g.querySelector("title").textContent,
            x: +r.getAttribute("x"), y: +r.getAttribute("y"), width: +r.getAttribute("width")};
  });
  result.width = svg.getBBox().width;
}
document.getElementById("result").textContent = JSON.stringify(result);
</script></body></html>
"""


def chromium_dump(args, url):
    with tempfile.TemporaryDirectory() as profile:
        cmd = [args.chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
               "--no-first-run", "--disable-background-networking", "--disable-component-update",
               "--disable-sync", "--user-data-dir=" + profile, "--dump-dom", url]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        except FileNotFoundError:
            raise TestFailure("%s not found: headless Chromium is needed" % args.chromium)
        check(r.returncode == 0, "chromium exit %d: %s" % (r.returncode, r.stderr[-2000:]))
        return r.stdout


def render_svg(args, svg):
    """Loads svg in headless Chromium as a file (its XML parser must not complain), then
    parses it strictly with DOMParser inside a page that draws it and measures what it
    drew: {"texts": [{text, width}], "frames": [{title, x, y, width}], "width": px}."""
    dom = chromium_dump(args, "file://" + os.path.abspath(svg))
    check("<svg" in dom and "parsererror" not in dom and
          "This page contains the following errors" not in dom,
          "Chromium did not load the SVG cleanly:\n" + dom[:2000])
    with open(svg, encoding="utf-8") as f:
        text = f.read()
    page = os.path.join(os.path.dirname(os.path.abspath(svg)),
                        os.path.basename(svg) + ".measure.html")
    with open(page, "w") as f:
        f.write(PAGE % json.dumps(text))
    dom = chromium_dump(args, "file://" + page)
    m = re.search(r'<pre id="result">(.*?)</pre>', dom, re.S)
    check(m, "no result in the page:\n" + dom[:2000])
    result = json.loads(html.unescape(m.group(1)))
    check("error" not in result, "DOMParser rejects the SVG: %s" % result.get("error"))
    check(result["width"] > 1000, "the SVG draws %.0f px wide" % result["width"])
    return result


def frame(frames, prefix):
    """The one rendered frame whose tooltip starts with prefix."""
    found = [f for f in frames if f["title"].startswith(prefix)]
    check(len(found) == 1, "%d frames titled %r..." % (len(found), prefix))
    return found[0]


# Vertical distance between a flame graph frame and the one it stands on.
FRAME_STEP = 17.0


def svg_frames(svg):
    """The frames of a flame graph as written (no browser): [{title, x, y, width}]."""
    ns = "{http://www.w3.org/2000/svg}"
    frames = []
    for g in ET.parse(svg).getroot().iter(ns + "g"):
        rect, title = g.find(ns + "rect"), g.find(ns + "title")
        frames.append({"title": title.text, "x": float(rect.get("x")), "y": float(rect.get("y")),
                       "width": float(rect.get("width"))})
    return frames


def frame_tree(frames):
    """{path from "all": samples} rebuilt from where a flame graph's frames are drawn
    (render_svg's or svg_frames' list): a frame's parent is the frame one step below whose
    width covers it."""
    nodes = []
    for f in frames:
        m = re.match(r"^(.*) \((\d+) samples, [\d.]+%\)$", f["title"])
        check(m, "frame tooltip %r" % f["title"])
        nodes.append(dict(f, name=m.group(1), count=int(m.group(2))))

    def parent(n):
        below = [p for p in nodes if abs(p["y"] - (n["y"] + FRAME_STEP)) < 0.01 and
                 p["x"] - 0.01 <= n["x"] and n["x"] + n["width"] <= p["x"] + p["width"] + 0.01]
        check(len(below) <= 1, "frame %s stands on %d frames" % (n["name"], len(below)))
        return below[0] if below else None

    tree = {}
    for n in nodes:
        path, at = [], n
        while at is not None:
            path.append(at["name"])
            at = parent(at)
        path = tuple(reversed(path))
        check(path[0] == "all", "frame %s does not stand on all: %s" % (n["name"], path))
        check(path not in tree, "two frames at %s" % (path,))
        tree[path] = n["count"]
    return tree


ROW = re.compile(r"^\s*(\d+)\s+([\d.]+)%\s+(\d+)\s+(.*)$")


def parse_report(text):
    """{event name: [(samples, percent text, event count, label), ...]} in printed order,
    without the Total row."""
    events, current = {}, None
    for line in text.splitlines():
        m = re.match(r"^Event (\S+) \(index \d+\), sample after (\d+): (\d+) samples$", line)
        if m:
            current = events.setdefault(m.group(1), [])
            continue
        m = ROW.match(line)
        if m and current is not None and m.group(4) != "Total":
            current.append((int(m.group(1)), m.group(2), int(m.group(3)), m.group(4)))
    return events


def main(test):
    """Runs test(args) and turns a TestFailure into a readable exit status 1."""
    args = arguments()
    try:
        test(args)
    except TestFailure as e:
        print("FAIL: %s" % e, file=sys.stderr)
        sys.exit(1)
    print("PASS")
