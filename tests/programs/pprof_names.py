#!/usr/bin/env python3
# pprof_names.py PROFILE: prints the name of every function of a
# gzip-compressed profile.proto, one a line in table order, for the
# sp-fold tests; a reader of its own, so no protobuf package is needed.
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


def main():
    strs, funcs = [], []
    for field, v in fields(gzip.open(sys.argv[1]).read()):
        if field == 6:    # string_table
            strs.append(v.decode())
        elif field == 5:  # function: its name is field 2
            funcs.append(dict(fields(v)).get(2, 0))
    for n in funcs:
        print(strs[n])


main()
