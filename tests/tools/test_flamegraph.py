"""acart flamegraph: the SVG parses as XML in headless Chromium (loaded as a file, and
parsed strictly with DOMParser), renders the expected function names as text with a
width, carries every frame's name and samples in its tooltip, and stacks an inlined
function on the function it was inlined into."""

import os
import re

from acarttest.tooltest import (check, frame, line_addresses, main, marked_lines, render_svg,
                                run, symbols)

OTHER = ("/lib/libother.so", 0x7F000000, 0x10000)


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


def test(args):
    folder, marks = make_collection(args)
    svg = os.path.join(args.workdir, "flame.svg")
    run([args.acart, "flamegraph", folder, "--elf", args.workload, "-o", svg])
    result = render_svg(args, svg)

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
