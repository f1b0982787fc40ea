"""`make install`'s tool part, as `cmake --install` of the host build puts it under a prefix:
bin/acart, whose --version names the project's version and the commit the tree is at; a
man page per command `acart --help` lists, each valid roff that groff renders without a
warning and whose synopsis is the command's own usage line; and bash completion that
completes the commands, a command's options and the words that select a subcommand."""
import argparse
import os
import re
import subprocess
import tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--build", required=True, help="the host build folder (build/)")
ap.add_argument("--source", required=True)
ap.add_argument("--version", required=True)
args = ap.parse_args()


def check(cond, what):
    if not cond:
        raise SystemExit("FAIL: " + what)
    print("ok  " + what.split("\n")[0])


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    check(r.returncode == 0, "%s exits 0 (%d)\n%s%s" % (" ".join(cmd), r.returncode, r.stdout,
                                                       r.stderr))
    return r


with tempfile.TemporaryDirectory() as prefix:
    run(["cmake", "--install", args.build, "--prefix", prefix])
    acart = os.path.join(prefix, "bin", "acart")
    check(os.access(acart, os.X_OK), "bin/acart installed and executable")

    out = run([acart, "--version"]).stdout.strip()
    commit = subprocess.run(["git", "-C", args.source, "rev-parse", "--short=12", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    m = re.match(r"^acart (\S+) \(commit (.+)\)$", out)
    check(m and m.group(1) == args.version, "--version names version %s: %r" % (args.version, out))
    if commit:
        # The commit the tree was at when built: HEAD, or one before it when commits came
        # after the build.
        named = m.group(2).split()[0]
        r = subprocess.run(["git", "-C", args.source, "merge-base", "--is-ancestor", named, "HEAD"])
        check(r.returncode == 0, "--version names a commit of this tree (HEAD %s): %r"
              % (commit, out))

    top = run([acart, "--help"]).stdout
    cmds = re.findall(r"^  (\S+)\s{2,}", top.split("commands:", 1)[1].split("\n\n", 1)[0], re.M)
    check(len(cmds) >= 9, "acart --help lists the commands: %s" % cmds)
    man1 = os.path.join(prefix, "share", "man", "man1")
    for name in ["acart"] + ["acart-" + c for c in cmds]:
        path = os.path.join(man1, name + ".1")
        check(os.path.isfile(path), "man page %s" % path)
        r = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", path], capture_output=True,
                           text=True)
        check(r.returncode == 0 and not r.stderr.strip(),
              "%s.1 renders without warnings\n%s" % (name, r.stderr))
        text = open(path).read()
        if name != "acart":
            usage = run([acart, name[6:], "--help"]).stdout.splitlines()[0].replace("\\", "\\e")
            check(usage in text, "%s.1's synopsis is the command's usage line" % name)

    bash = os.path.join(prefix, "share", "bash-completion", "completions", "acart")
    check(os.path.isfile(bash), "bash completion installed")

    def complete(*words):
        script = ("source %s; COMP_WORDS=(%s); COMP_CWORD=%d; _acart; echo \"${COMPREPLY[*]}\""
                  % (bash, " ".join("'%s'" % w for w in words), len(words) - 1))
        return run(["bash", "-c", script]).stdout.split()

    check(complete("acart", "rep") == ["report"], "completes a command: %s" % complete("acart", "rep"))
    check(set(cmds) <= set(complete("acart", "")), "offers every command")
    check("--by" in complete("acart", "report", "--b"), "completes a command's option: %s"
          % complete("acart", "report", "--b"))
    check("pprof" in complete("acart", "export", "pp"), "completes an export format: %s"
          % complete("acart", "export", "pp"))
    check("print" in complete("acart", "tb5", "pr"), "completes a tb5 subcommand")
print("install ok")
