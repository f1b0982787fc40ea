"""acart flamegraph: the SVG parses as XML in headless Chromium (loaded as a file, and
parsed strictly with DOMParser), renders the expected function names as text with a
width, carries every frame's name and samples in its tooltip, and stacks an inlined
function on the function it was inlined into."""

import html
import json
import os
import re
import subprocess
import tempfile

from tooltest import TestFailure, check, line_addresses, main, marked_lines, run, symbols

OTHER = ("/lib/libother.so", 0x7F000000, 0x10000)

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


def make_collection(args):
    syms = symbols(args.workload)
    marks = marked_lines(args.source)
    mix = line_addresses(args.workload, os.path.basename(args.source), marks["mix_body"])
    check(mix, "no code for the mix_body line")
    runs = [(syms["alpha"][0], 500), (syms["gamma_fn"][0], 200), (mix[0], 300),
            (OTHER[1] + 0x40, 50), (0x10, 25)]
    folder = os.path.join(args.workdir, "collection")
    cmd = [args.synth, folder, "--hostname", "flamebox",
           "--module", "/target/%s:0x400000:0x200000" % os.path.basename(args.workload),
           "--module", "%s:%#x:%#x" % OTHER]
    for address, count in runs:
        cmd += ["--run", "0:1:1:%#x:%d" % (address, count)]
    run(cmd)
    return folder, marks


def frame(frames, prefix):
    found = [f for f in frames if f["title"].startswith(prefix)]
    check(len(found) == 1, "%d frames titled %r..." % (len(found), prefix))
    return found[0]


def test(args):
    folder, marks = make_collection(args)
    svg = os.path.join(args.workdir, "flame.svg")
    run([args.acart, "flamegraph", folder, "--elf", args.workload, "-o", svg])

    # Loaded as a file: Chromium's XML parser must not report an error.
    dom = chromium_dump(args, "file://" + os.path.abspath(svg))
    check("<svg" in dom and "parsererror" not in dom and "This page contains the following errors" not in dom,
          "Chromium did not load the SVG cleanly:\n" + dom[:2000])

    # Parsed strictly and rendered inside a page that measures what it drew.
    with open(svg, encoding="utf-8") as f:
        text = f.read()
    page = os.path.join(args.workdir, "measure.html")
    with open(page, "w") as f:
        f.write(PAGE % json.dumps(text))
    dom = chromium_dump(args, "file://" + os.path.abspath(page))
    m = re.search(r'<pre id="result">(.*?)</pre>', dom, re.S)
    check(m, "no result in the page:\n" + dom[:2000])
    result = json.loads(html.unescape(m.group(1)))
    check("error" not in result, "DOMParser rejects the SVG: %s" % result.get("error"))
    check(result["width"] > 1000, "the SVG draws %.0f px wide" % result["width"])

    drawn = {t["text"]: t["width"] for t in result["texts"]}
    for name in ("alpha", "beta", "gamma_fn", "mix", "all"):
        check(drawn.get(name, 0) > 0, "%r is not rendered as text (texts: %s)" % (name, sorted(drawn)))
    frames = result["frames"]
    total = 1075
    for name, count in (("alpha", 500), ("beta", 300), ("gamma_fn", 200), ("mix", 300),
                        ("[libother.so]", 50), ("[unknown]", 25), ("all", total)):
        f = frame(frames, name + " (")
        want = "%s (%d samples, %.2f%%)" % (name, count, 100.0 * count / total)
        check(f["title"] == want, "tooltip %r, expected %r" % (f["title"], want))
    # Source lines: the tooltip has the path DWARF gives, the frame its base name.
    line_title = re.compile(r"(^|/)%s:%d \(300 samples" % (re.escape(os.path.basename(args.source)),
                                                           marks["mix_body"]))
    lines = [f for f in frames if line_title.search(f["title"])]
    check(len(lines) == 1, "no single frame for the mix_body line: %s" % [f["title"] for f in frames])
    mix_line = lines[0]
    beta, mix = frame(frames, "beta ("), frame(frames, "mix (")
    check(mix["y"] < beta["y"] and mix_line["y"] < mix["y"], "frames are not stacked beta < mix < line")
    check(beta["x"] <= mix["x"] and mix["x"] + mix["width"] <= beta["x"] + beta["width"] + 0.01,
          "the inlined mix frame is not inside beta's width")


main(test)
