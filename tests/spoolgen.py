#!/usr/bin/env python3
"""spoolgen.py: writes SPULSE1 bytes from a line-per-record description.

An encoder written apart from common/, so tests can check that sp-dump
reads what any implementation of the format writes, and can craft
malformed spools byte by byte.  It encodes exactly what it is told and
validates nothing.

    header START_US INTERVAL_US     (magic + header; omit for raw tests)
    module ID PID START END OFFSET INODE KERNEL PATH
    frame ID TAG ADDR
    stack ID PREFIX FRAME           (PREFIX "-" = root, 0xffffffff)
    thread ID PID TID
    sample DELTA THREAD STACK
    exec TS PID PYTHON
    deactivate PID
    ext TAG HEXPAYLOAD
    host KEY VALUE ...              (extension 16: string pairs)
    comm TS PID TID EXEC NAME       (17)
    stats KEY COUNT ...             (19: counters)
    buildid MODULE HEXBYTES         (21)
    event INDEX NAME PERIOD FREQ    (22)
    weight EVENT WEIGHT             (23)
    pycode ID FIRSTLINE NAME FILE   (26)
    pynode ID PREFIX CODE LINE FLAGS  (27; PREFIX "-" = root)
    pystack LEAF FLAGS INDEX ...    (28; LEAF "-" = none; the count is put)
    raw HEXBYTES
Numbers may be decimal or 0x-hex; PID and DELTA are signed.  Names, keys
and values take Python byte escapes (\x00, \x1b) for any byte.
"""
import codecs
import sys


def uvar(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def svar(v):
    return uvar((v << 1) ^ (v >> 63) if v >= 0 else ((-v) << 1) - 1)


def num(s):
    if s == "-":
        return 0xFFFFFFFF
    return int(s, 0)


def text(s):
    return codecs.escape_decode(s.encode())[0]


def lenbytes(b):
    return uvar(len(b)) + b


def ext(tag, payload):
    return bytes([tag]) + uvar(len(payload)) + payload


def encode_ext(kind, a):
    if kind == "host":
        return ext(16, b"".join(lenbytes(text(x)) for x in a))
    if kind == "stats":
        return ext(19, b"".join(lenbytes(text(a[i])) + uvar(num(a[i + 1]))
                               for i in range(0, len(a), 2)))
    if kind == "comm":
        return ext(17, uvar(num(a[0])) + svar(num(a[1])) + uvar(num(a[2])) +
                   bytes([num(a[3])]) + lenbytes(text(a[4])))
    if kind == "buildid":
        return ext(21, uvar(num(a[0])) + lenbytes(bytes.fromhex(a[1])))
    if kind == "event":
        return ext(22, uvar(num(a[0])) + lenbytes(text(a[1])) +
                   uvar(num(a[2])) + uvar(num(a[3])))
    if kind == "weight":
        return ext(23, uvar(num(a[0])) + uvar(num(a[1])))
    if kind == "pycode":
        return ext(26, uvar(num(a[0])) + svar(num(a[1])) +
                   lenbytes(text(a[2])) + lenbytes(text(a[3])))
    if kind == "pynode":
        return ext(27, uvar(num(a[0])) + uvar(num(a[1])) +
                   uvar(num(a[2])) + svar(num(a[3])) + bytes([num(a[4])]))
    if kind == "pystack":
        return ext(28, uvar(num(a[0])) + bytes([num(a[1])]) +
                   uvar(len(a) - 2) + b"".join(uvar(num(x)) for x in a[2:]))
    return None


def encode(words):
    kind, a = words[0], words[1:]
    if kind == "header":
        return b"SPULSE1\0" + uvar(num(a[0])) + uvar(num(a[1]))
    if kind == "module":
        # \xHH and other Python byte escapes give any byte, NUL too.
        path = codecs.escape_decode(" ".join(a[7:]).encode())[0]
        return (b"\x01" + uvar(num(a[0])) + svar(num(a[1])) +
                b"".join(uvar(num(x)) for x in a[2:6]) +
                bytes([num(a[6])]) + uvar(len(path)) + path)
    if kind == "frame":
        return b"\x02" + b"".join(uvar(num(x)) for x in a[:3])
    if kind == "stack":
        return b"\x03" + b"".join(uvar(num(x)) for x in a[:3])
    if kind == "thread":
        return b"\x04" + uvar(num(a[0])) + svar(num(a[1])) + uvar(num(a[2]))
    if kind == "sample":
        return b"\x05" + svar(num(a[0])) + uvar(num(a[1])) + uvar(num(a[2]))
    if kind == "exec":
        return b"\x06" + uvar(num(a[0])) + svar(num(a[1])) + bytes([num(a[2])])
    if kind == "deactivate":
        return b"\x07" + svar(num(a[0]))
    if kind == "ext":
        payload = bytes.fromhex(a[1]) if len(a) > 1 else b""
        return bytes([num(a[0])]) + uvar(len(payload)) + payload
    if kind == "raw":
        return bytes.fromhex("".join(a))
    if encode_ext(kind, a) is not None:
        return encode_ext(kind, a)
    raise SystemExit("spoolgen: unknown record kind %r" % kind)


def main():
    out = bytearray()
    for line in sys.stdin:
        words = line.split()
        if words and not words[0].startswith("#"):
            out += encode(words)
    sys.stdout.buffer.write(out)


main()
