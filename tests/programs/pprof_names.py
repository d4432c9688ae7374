#!/usr/bin/env python3
# pprof_names.py PROFILE: prints the name of every function of a
# gzip-compressed profile.proto, one a line in table order, for the
# sp-fold tests; a reader of its own, so no protobuf package is needed.
# pprof_names.py --values PROFILE: prints each sample's values instead,
# space-separated, one sample a line, as the signed int64s they encode.
import gzip
import sys


def varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v, i


def fields(b):
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        if key & 7 == 0:
            v, i = varint(b, i)
        elif key & 7 == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        else:
            sys.exit("pprof_names.py: wire type %d" % (key & 7))
        yield key >> 3, v


def int64s(v):
    """The int64 values of a packed (bytes) or single (int) field."""
    out, i = [], 0
    if isinstance(v, int):
        out = [v]
    while not isinstance(v, int) and i < len(v):
        n, i = varint(v, i)
        out.append(n)
    return [n - (1 << 64) if n >= 1 << 63 else n for n in out]


def values(path):
    for field, v in fields(gzip.open(path).read()):
        if field == 2:    # sample: its values are field 2
            vals = []
            for f, x in fields(v):
                if f == 2:
                    vals += int64s(x)
            print(" ".join(str(n) for n in vals))


def main():
    if sys.argv[1] == "--values":
        return values(sys.argv[2])
    strs, funcs = [], []
    for field, v in fields(gzip.open(sys.argv[1]).read()):
        if field == 6:    # string_table
            strs.append(v.decode())
        elif field == 5:  # function: its name is field 2
            funcs.append(dict(fields(v)).get(2, 0))
    for n in funcs:
        print(strs[n])


main()
