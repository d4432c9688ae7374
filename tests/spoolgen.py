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
    raw HEXBYTES
Numbers may be decimal or 0x-hex; PID and DELTA are signed.
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
    raise SystemExit("spoolgen: unknown record kind %r" % kind)


def main():
    out = bytearray()
    for line in sys.stdin:
        words = line.split()
        if words and not words[0].startswith("#"):
            out += encode(words)
    sys.stdout.buffer.write(out)


main()
