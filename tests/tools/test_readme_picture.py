"""The README's first screen shows the demo's flame graph (docs/images/demo-flamegraph.svg,
made by `make readme-picture`): the README names the picture, and a real browser
(headless Chromium) loads it as clean SVG and draws it, acart_demo_hotspot taking nearly
the whole width as every demo sample did, above run_hotspot and the CPUs' start functions."""
import argparse
import os
import re
import shutil

from acarttest.tooltest import TestFailure, check, render_svg

ap = argparse.ArgumentParser()
ap.add_argument("--readme", required=True)
ap.add_argument("--svg", required=True)
ap.add_argument("--chromium", default="chromium")
ap.add_argument("--workdir", required=True)
args = ap.parse_args()

try:
    text = open(args.readme, encoding="utf-8").read()
    first_screen = "\n".join(text.splitlines()[:25])
    rel = os.path.relpath(args.svg, os.path.dirname(os.path.abspath(args.readme)))
    check(re.search(r"!\[[^\]]+\]\(%s\)" % re.escape(rel), first_screen),
          "the README's first screen shows no %s" % rel)
    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir)
    svg = os.path.join(args.workdir, os.path.basename(args.svg))
    shutil.copy(args.svg, svg)  # render_svg writes its measuring page beside the SVG
    drawn = render_svg(args, svg)
    frames = drawn["frames"]
    widest = max(f["width"] for f in frames)
    for name in ("acart_demo_hotspot", "run_hotspot"):
        mine = [f for f in frames if f["title"].startswith(name + " ")]
        check(mine, "no %s frame drawn: %s" % (name, [f["title"] for f in frames][:20]))
        width = sum(f["width"] for f in mine)
        check(width >= 0.9 * widest, "%s drawn %.0f px of %.0f" % (name, width, widest))
    starters = [f for f in frames if f["title"].startswith(("board_main ", "ap_entry "))]
    check(len(starters) >= 2, "the CPUs' start functions are not drawn")
    print("README picture: %d frames drawn, %.0f px wide" % (len(frames), drawn["width"]))
except TestFailure as e:
    raise SystemExit("FAIL: %s" % e)
