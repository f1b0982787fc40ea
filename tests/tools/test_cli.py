"""The acart command line: --help on every command, the documented exit statuses (2 usage,
3 bad input, 4 cannot write), and error messages that name the file and what is wrong."""

import json
import os

from acarttest.tooltest import check, main, run


def expect_error(args, cmd, status, *needles):
    _, err = run([args.acart] + cmd, expect=status)
    for needle in needles:
        check(needle in err, "acart %s: stderr lacks %r:\n%s" % (" ".join(map(str, cmd)), needle, err))


def collection(args, name, *extra):
    folder = os.path.join(args.workdir, name)
    run([args.synth, folder, "--cpus", 2, "--run", "0:1:1:0x1000:10", "--run", "1:1:2:0x1004:5"]
        + list(extra))
    return folder


def edit_session(folder, change):
    path = os.path.join(folder, "session.json")
    with open(path) as f:
        session = json.load(f)
    change(session)
    with open(path, "w") as f:
        json.dump(session, f)


def test_help(args):
    out, _ = run([args.acart, "--help"])
    commands = ["import", "report", "export", "flamegraph", "tb5"]
    if "\n  collect " in out:
        commands.append("collect")
    for c in commands:
        check("\n  %s " % c in out, "acart --help does not list %s" % c)
    for cmd in [[c] for c in commands] + [["export", "csv"], ["tb5", "print"]]:
        out, _ = run([args.acart] + cmd + ["--help"])
        check(out.startswith("usage: acart %s" % cmd[0]), "acart %s --help:\n%s" % (" ".join(cmd), out))
    run([args.acart], expect=2)
    expect_error(args, ["frobnicate"], 2, "unknown command frobnicate")


def test_usage_errors(args):
    folder = collection(args, "usage")
    expect_error(args, ["report"], 2, "expected one collection folder or tb5 file")
    expect_error(args, ["report", folder, "--by", "colour"], 2, "--by: unknown key colour")
    expect_error(args, ["report", folder, "--top", "many"], 2, "--top")
    expect_error(args, ["report", folder, "--bogus"], 2, "--bogus")
    expect_error(args, ["report", folder, "--event", "NO_SUCH_EVENT"], 2, "no event NO_SUCH_EVENT")
    expect_error(args, ["import", folder], 2, "missing -o")
    expect_error(args, ["export", "xml", folder], 2, "unknown format xml")
    expect_error(args, ["flamegraph", folder, "-o", "x.svg"], 2, "--elf")
    expect_error(args, ["tb5", "frob"], 2, "unknown tb5 command frob")
    out, _ = run([args.acart, "--help"])
    if "\n  collect " in out:
        base = ["collect", "--target", "127.0.0.1:9", "--duration", "1", "-o",
                os.path.join(args.workdir, "never")]
        for depth in ("0", "65", "x", ""):
            expect_error(args, base + ["--callstack=" + depth], 2,
                         "--callstack=%s: expected a depth from 1 to 64" % depth)


def test_input_errors(args):
    missing = os.path.join(args.workdir, "no-such-folder")
    expect_error(args, ["report", missing], 3, missing, "No such file")

    folder = collection(args, "truncated")
    with open(os.path.join(folder, "cpu1.bin"), "ab") as f:
        f.write(b"\0" * 10)
    expect_error(args, ["report", folder], 3, "cpu1.bin", "48-byte")

    # Records with call stacks are 48 + 8 x depth bytes: 48 more bytes end inside one.
    folder = collection(args, "truncated-stacks", "--callstack", "4")
    with open(os.path.join(folder, "cpu0.bin"), "ab") as f:
        f.write(b"\0" * 48)
    expect_error(args, ["report", folder], 3, "cpu0.bin", "ends inside a sample record")

    folder = collection(args, "no-tsc")
    edit_session(folder, lambda s: s["target"].pop("tsc_hz"))
    expect_error(args, ["report", folder], 3, "session.json", "target.tsc_hz", "missing")

    folder = collection(args, "bad-json")
    with open(os.path.join(folder, "session.json"), "w") as f:
        f.write('{"format": "acart-session", "version": 1,')
    expect_error(args, ["import", folder, "-o", os.path.join(args.workdir, "x.tb5")], 3,
                 "session.json", "not valid JSON")

    folder = collection(args, "wrong-version")
    edit_session(folder, lambda s: s.update(version=2))
    expect_error(args, ["report", folder], 3, "version 2 is not supported")

    folder = collection(args, "bad-module", "--module", "/target/image:0x1000:0x100")
    path = os.path.join(folder, "module.bin")
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(data[:60])
    expect_error(args, ["report", folder], 3, "module.bin", "truncated module record")

    folder = collection(args, "bad-event", "--event", "A:100", "--event", "B:100",
                        "--run", "0:1:1:0x1000:1:1")
    edit_session(folder, lambda s: s.update(events=s["events"][:1]))
    expect_error(args, ["report", folder], 3, "cpu0.bin", "event 1")

    not_tb5 = os.path.join(folder, "session.json")
    expect_error(args, ["report", not_tb5], 3, not_tb5, "tb5")

    good = collection(args, "good")
    expect_error(args, ["flamegraph", good, "--elf", missing, "-o", os.path.join(args.workdir, "f.svg")],
                 3, missing)
    expect_error(args, ["report", good, "--elf", not_tb5], 3, not_tb5, "ELF")


def test_output_errors(args):
    folder = collection(args, "output")
    target = os.path.join(args.workdir, "no-such-dir", "x.tb5")
    expect_error(args, ["import", folder, "-o", target], 4, target)
    a_file = os.path.join(folder, "session.json")
    expect_error(args, ["export", "csv", folder, "-o", a_file], 4, a_file)


def test_count_warning(args):
    folder = collection(args, "miscounted", "--report-per-cpu", "7")
    _, err = run([args.acart, "report", folder])
    check("CPU 0 has 10 sample records, the target reported 7" in err, "no count warning:\n" + err)
    check("CPU 1 has 5 sample records, the target reported 7" in err, "no count warning:\n" + err)


def test(args):
    test_help(args)
    test_usage_errors(args)
    test_input_errors(args)
    test_output_errors(args)
    test_count_warning(args)


main(test)
