"""A consumer whose toolchain's mode has no libraries in the package fails at
find_package(acart), naming its own mode and what the package holds, instead of linking
objects of the other mode: both ways round, an x86_64 build against a package that holds
only i686 libraries and an i686 build against one that holds only x86_64 libraries (each a
copy of the installed package without the consumer's lib/<arch>). CMake wraps the message
at a column that depends on the package's path, so its output is read flattened. Usage:
check_wrong_arch.py --package DIR --consumer DIR --lwip DIR --workdir DIR
    --toolchain-i686 FILE --libc-i686 DIR --toolchain-x86_64 FILE --libc-x86_64 DIR"""
import argparse
import os
import shutil
import subprocess
import sys

POINTER_SIZE = {"i686": 4, "x86_64": 8}


def case(args, consumer_arch, package_arch):
    """The consumer of consumer_arch against a copy of the package with package_arch only;
    returns what is wrong, or None."""
    pkg = os.path.join(args.workdir, "package-%s-only" % package_arch)
    build = pkg + "-build-" + consumer_arch
    shutil.rmtree(pkg, ignore_errors=True)
    shutil.rmtree(build, ignore_errors=True)
    shutil.copytree(args.package, pkg, symlinks=True)
    for sub in ("lib", os.path.join("lib", "cmake", "acart")):
        shutil.rmtree(os.path.join(pkg, sub, consumer_arch), ignore_errors=True)
    toolchain = getattr(args, "toolchain_" + consumer_arch)
    libc = getattr(args, "libc_" + consumer_arch)
    r = subprocess.run(["cmake", "-S", args.consumer, "-B", build, "-G", "Ninja",
                        "-DCMAKE_TOOLCHAIN_FILE=" + toolchain, "-DCMAKE_PREFIX_PATH=" + pkg,
                        "-DLWIP_DIR=" + args.lwip, "-DLIBC_DIR=" + libc],
                       capture_output=True, text=True)
    flat = " ".join((r.stdout + r.stderr).split())
    if r.returncode == 0:
        return "configured, and would link against the %s-only package:\n%s" % (package_arch,
                                                                                 flat)
    wants = ["this build is %s (pointer size %d), but the package at"
             % (consumer_arch, POINTER_SIZE[consumer_arch]),
             "has libraries for: %s." % package_arch,
             "Install the %s build" % consumer_arch]
    missing = [w for w in wants if w not in flat]
    if missing:
        return "the message does not say %r:\n%s" % (missing, flat)
    start = flat.find("acart: this build is")
    print("%s consumer, %s-only package: %s" % (consumer_arch, package_arch,
                                                flat[start:start + 300]))
    return None


def main():
    p = argparse.ArgumentParser()
    for name in ("package", "consumer", "lwip", "workdir", "toolchain-i686", "libc-i686",
                 "toolchain-x86_64", "libc-x86_64"):
        p.add_argument("--" + name, required=True)
    args = p.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    failures = []
    for consumer_arch, package_arch in (("x86_64", "i686"), ("i686", "x86_64")):
        wrong = case(args, consumer_arch, package_arch)
        if wrong:
            failures.append("%s consumer, %s-only package: %s" % (consumer_arch, package_arch,
                                                                   wrong))
    for f in failures:
        print("FAIL: " + f, file=sys.stderr)
    return 1 if failures else 0


sys.exit(main())
