# py_lines.py: prints, for every code object of a few modules, its line
# table and the line CPython itself gives each instruction (the files
# named and the interpreter's own dis.py), so that
# tests/unit/check_record_py.c can compare sp-record's line table
# decoders (sp-record/python/pydecode.c) with the interpreter's own answers.
# Output: "minor N", then one line per code object:
#   FIRSTLINENO TABLE-HEX LINE LINE ...   (a line per code unit, -1: none)
import dis
import sys


def lines_of(code):
    n = len(code.co_code) // 2
    out = [-1] * n
    if hasattr(code, "co_lines"):
        for start, end, line in code.co_lines():
            for i in range(start // 2, min(end // 2, n)):
                out[i] = -1 if line is None else line
    else:
        line = code.co_firstlineno
        starts = dict(dis.findlinestarts(code))
        for i in range(n):
            line = starts.get(2 * i, line)
            out[i] = line
    return out


def table_of(code):
    if sys.version_info >= (3, 10):
        return code.co_linetable
    return code.co_lnotab


def walk(code):
    yield code
    for c in code.co_consts:
        if hasattr(c, "co_code"):
            yield from walk(c)


print("minor", sys.version_info[1])
for name in sys.argv[1:] + [dis.__file__]:
    with open(name) as f:
        top = compile(f.read(), name, "exec")
    for code in walk(top):
        print(code.co_firstlineno, table_of(code).hex() or "-",
              " ".join(str(x) for x in lines_of(code)))
