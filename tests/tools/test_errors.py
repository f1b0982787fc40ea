"""Errors that say where: corrupted tb5 files and collection folders, each read by `acart tb5
print` and `acart report`, must fail (exit status 3) with a message that names the section
or field and the byte offset. Each corruption keeps every checksum right except where the
checksum is the point, so the check that is meant to catch it is the one that speaks."""

import os
import shutil
import struct
import subprocess

from acarttest.tooltest import check, main, run

HEADER, TRAILER, SECTION_ENTRY, BLOCK_ENTRY = 64, 48, 48, 24  # format version 2
KINDS = {"hardware": 1, "modules": 5, "strings": 8, "events": 17}


def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


class Tb5:
    """A tb5 file's bytes with its directory parsed, and writers that keep its CRCs."""

    def __init__(self, data):
        self.b = bytearray(data)
        t = len(self.b) - TRAILER
        self.dir_off, self.dir_len = struct.unpack_from("<QQ", self.b, t + 8)
        self.nsec, self.nblk = struct.unpack_from("<II", self.b, t + 24)

    def entry_off(self, kind, stream=0xFFFFFFFF):
        for i in range(self.nsec):
            off = self.dir_off + i * SECTION_ENTRY
            k, _, s = struct.unpack_from("<HHI", self.b, off)
            if k == kind and s == stream:
                return i, off
        raise AssertionError("no section of kind %d" % kind)

    def section(self, kind, stream=0xFFFFFFFF):
        """(file offset, length) of a one-block section's payload."""
        _, e = self.entry_off(kind, stream)
        length = struct.unpack_from("<Q", self.b, e + 24)[0]
        first, count = struct.unpack_from("<II", self.b, e + 32)
        check(count == 1, "kind %d has %d blocks" % (kind, count))
        blk = self.dir_off + self.nsec * SECTION_ENTRY + first * BLOCK_ENTRY
        return struct.unpack_from("<Q", self.b, blk)[0], length

    def fix_section_crc(self, kind, stream=0xFFFFFFFF):
        off, length = self.section(kind, stream)
        _, e = self.entry_off(kind, stream)
        struct.pack_into("<I", self.b, e + 12, crc32c(self.b[off:off + length]))

    def fix_directory(self):
        t = len(self.b) - TRAILER
        struct.pack_into("<I", self.b, t + 32,
                         crc32c(self.b[self.dir_off:self.dir_off + self.dir_len]))
        struct.pack_into("<I", self.b, t + 44, crc32c(self.b[t:t + 44]))

    def fix_header(self):
        struct.pack_into("<I", self.b, 60, crc32c(self.b[:60]))


def expect_error(args, name, data, phrases, commands=("tb5 print", "report")):
    path = os.path.join(args.workdir, name + ".tb5")
    with open(path, "wb") as f:
        f.write(data)
    for command in commands:
        r = subprocess.run([args.acart] + command.split() + [path], capture_output=True,
                           text=True, errors="replace")
        text = r.stdout + r.stderr
        check(r.returncode == 3, "%s %s: exit %d, expected 3\n%s" % (command, name, r.returncode,
                                                                      text))
        for p in phrases:
            check(p in text, "%s %s: the message does not say %r:\n%s" % (command, name, p,
                                                                          text[-2000:]))


# Section contents only tb5 print reads (and verifies) all of: `report` reads a tb5 file
# written by import through the session it stores, and does not check every checksum.
PRINT = ("tb5 print",)


def tb5_cases(args, good):
    t = Tb5(good)
    size = len(good)

    x = Tb5(good)
    struct.pack_into("<I", x.b, 12, 65)
    x.fix_header()
    expect_error(args, "header-size", x.b, ["header field header_size at byte offset 12: 65"])

    x = Tb5(good)
    x.b[61] ^= 1
    expect_error(args, "header-crc", x.b, ["header field crc at byte offset 60"])

    x = Tb5(good)
    struct.pack_into("<Q", x.b, size - TRAILER + 16, x.dir_len + 16)
    x.fix_directory()
    expect_error(args, "trailer-dir-length",
                 x.b, ["trailer at byte offset %d" % (size - TRAILER),
                       "directory at byte offset %d" % t.dir_off])

    x = Tb5(good)
    x.b[x.dir_off + 3] ^= 0x40
    expect_error(args, "directory-crc", x.b, ["directory at byte offset %d" % t.dir_off,
                                              "does not match its crc"])

    # A block of the modules section pointing past the data area.
    x = Tb5(good)
    i, e = x.entry_off(KINDS["modules"])
    first = struct.unpack_from("<I", x.b, e + 32)[0]
    blk = x.dir_off + x.nsec * SECTION_ENTRY + first * BLOCK_ENTRY
    struct.pack_into("<Q", x.b, blk, x.dir_off - 8)
    x.fix_directory()
    expect_error(args, "block-outside", x.b, [
        "directory entry %d (modules section) at byte offset %d: block %d (entry at byte offset "
        "%d)" % (i, e, first, blk), "outside the data area"])

    # A record count that does not match the section's length.
    x = Tb5(good)
    i, e = x.entry_off(KINDS["modules"])
    struct.pack_into("<Q", x.b, e + 16, struct.unpack_from("<Q", x.b, e + 16)[0] + 1)
    x.fix_directory()
    expect_error(args, "record-count", x.b,
                 ["directory entry %d (modules section) at byte offset %d" % (i, e),
                  "records of"])

    # A stream number far past the others: every stream-0 section moved to stream 900000.
    x = Tb5(good)
    for i in range(x.nsec):
        e = x.dir_off + i * SECTION_ENTRY
        if struct.unpack_from("<I", x.b, e + 4)[0] == 0:
            struct.pack_into("<I", x.b, e + 4, 900000)
    x.fix_directory()
    expect_error(args, "stream-gap", x.b,
                 ["directory: stream 0 has no section, but stream 900000 has"])

    # Section contents, with every checksum right.
    x = Tb5(good)
    off, _ = x.section(KINDS["hardware"])
    struct.pack_into("<I", x.b, off + 4, 100000)  # num_nodes (tb5/src/wire.h)
    x.fix_section_crc(KINDS["hardware"])
    x.fix_directory()
    expect_error(args, "hardware-nodes", x.b,
                 ["hardware section: field num_nodes at byte offset 4: 100000 nodes"], PRINT)

    x = Tb5(good)
    off, length = x.section(KINDS["strings"])
    struct.pack_into("<I", x.b, off, length)  # the first string's length runs past the end
    x.fix_section_crc(KINDS["strings"])
    x.fix_directory()
    expect_error(args, "string-length", x.b, ["strings section: string 0 at byte offset 0"], PRINT)

    x = Tb5(good)
    off, length = x.section(KINDS["events"], 0)
    struct.pack_into("<I", x.b, off + 8, 3)  # the first event's num_details (tb5/src/wire.h)
    x.fix_section_crc(KINDS["events"], 0)
    x.fix_directory()
    expect_error(args, "event-details", x.b, ["stream 0 events section: event 0 at byte offset 0"],
                 PRINT)

    # A damaged section, its checksum left as it was.
    x = Tb5(good)
    off, length = x.section(KINDS["modules"])
    x.b[off + 5] ^= 0xFF
    expect_error(args, "modules-crc", x.b, ["modules section: its %d bytes (from file offset %d) "
                                            "do not match the crc" % (length, off)], PRINT)


def dump_cases(args, tb5):
    """tb5 rewrite names the dump item and its offset."""
    dump = os.path.join(args.workdir, "good.dump")
    run([args.acart, "tb5", "dump", tb5, dump])
    with open(dump, "rb") as f:
        good = f.read()
    kind = struct.unpack_from("<I", good, 16)[0]
    for name, length, phrase in [
            ("huge", 1 << 40, "dump item 0 (kind %d) at byte offset 16" % kind),
            ("short", 3, "dump item 1 (kind ")]:
        bad = bytearray(good)
        struct.pack_into("<Q", bad, 24, length)  # the first item's payload length
        path = os.path.join(args.workdir, "dump-" + name)
        with open(path, "wb") as f:
            f.write(bad)
        r = subprocess.run([args.acart, "tb5", "rewrite", path, path + ".tb5"],
                           capture_output=True, text=True)
        check(r.returncode == 3 and phrase in r.stderr,
              "tb5 rewrite of dump-%s: exit %d, expected 3 and %r:\n%s"
              % (name, r.returncode, phrase, r.stderr))


def collection_cases(args, folder):
    def broken(name, change):
        d = os.path.join(args.workdir, name)
        shutil.copytree(folder, d)
        change(d)
        return d

    def dir_instead(d, f):
        os.remove(os.path.join(d, f))
        os.mkdir(os.path.join(d, f))

    for name, change, phrases in [
        ("cpu-dir", lambda d: dir_instead(d, "cpu0.bin"),
         ["cpu0.bin: a directory, not a file of sample records"]),
        ("module-dir", lambda d: dir_instead(d, "module.bin"),
         ["module.bin: a directory, not a file"]),
        ("session-dir", lambda d: dir_instead(d, "session.json"),
         ["session.json: a directory, not a file"]),
        ("module-truncated", lambda d: open(os.path.join(d, "module.bin"), "ab").write(b"\1" * 20),
         ["module.bin: byte ", "truncated module record (20 of 80 bytes)"]),
        ("session-json", lambda d: open(os.path.join(d, "session.json"), "a").write("}"),
         ["session.json: not valid JSON (near byte "]),
    ]:
        d = broken(name, change)
        for command in ("report", "import"):
            extra = ["-o", os.path.join(args.workdir, name + ".tb5")] if command == "import" else []
            r = subprocess.run([args.acart, command, d] + extra, capture_output=True, text=True)
            check(r.returncode == 3, "%s %s: exit %d\n%s" % (command, name, r.returncode, r.stderr))
            for p in phrases:
                check(p in r.stderr, "%s %s: the message does not say %r:\n%s"
                      % (command, name, p, r.stderr))


def mode_cases(args):
    """An image of the other mode than the collection's, both ways round (an ELF64 image for
    a collection of 32-bit code, an ELF32 one for 64-bit code): a clear message naming both,
    exit 3, no report."""
    check(args.workload_32, "--workload-32 (the ELF32 workload) is needed")
    for bits, image, phrase in [
            (32, args.workload, "is an ELF64 image, but the collection is of 32-bit code (IA-32) "
                                "(its module records say so)"),
            (64, args.workload_32, "is an ELF32 image, but the collection is of 64-bit code "
                                   "(Intel 64) (its module records say so)")]:
        folder = os.path.join(args.workdir, "mode%d" % bits)
        run([args.synth, folder, "--code-mode", str(bits), "--task", "1:2:idle", "--module",
             "/img/%s:0x400000:0x10000" % os.path.basename(image), "--run", "0:1:2:0x400100:5"])
        for command in ("report", "flamegraph"):
            extra = (["-o", os.path.join(args.workdir, "mode%d.svg" % bits)]
                     if command == "flamegraph" else [])
            r = subprocess.run([args.acart, command, folder, "--elf", image] + extra,
                               capture_output=True, text=True)
            check(r.returncode == 3, "%s of a %d-bit collection with %s: exit %d\n%s"
                  % (command, bits, image, r.returncode, r.stderr))
            check(image + " " + phrase in r.stderr,
                  "%s: the message does not name the mismatch:\n%s" % (command, r.stderr))
            check(not r.stdout.strip(), "%s printed a report despite the mismatch:\n%s"
                  % (command, r.stdout))


def test(args):
    mode_cases(args)
    folder = os.path.join(args.workdir, "good")
    run([args.synth, folder, "--task", "1:2:idle", "--module", "/img/app.elf:0x400000:0x10000",
         "--run", "0:1:2:0x400100:5"])
    tb5 = os.path.join(args.workdir, "good.tb5")
    run([args.acart, "import", folder, "-o", tb5, "--quiet"])
    with open(tb5, "rb") as f:
        good = f.read()
    run([args.acart, "tb5", "print", tb5])  # the original is fine
    tb5_cases(args, good)
    dump_cases(args, tb5)
    collection_cases(args, folder)


main(test)
