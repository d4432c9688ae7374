# py_longname.py: four functions doing the same work in turn for the CPU
# seconds given (t1070): `short` and `sibling` as written, one renamed
# with a 1,100-character name and one given a 4,200-character file name
# (code.replace, legal Python): a reader that cannot keep such a name
# must not hand their samples to the others.
import sys
import time


def work():
    x = 0
    for i in range(3000):
        x += i
    return x


def named(fn, name, filename=None):
    """A copy of `fn` whose code has another name or file name."""
    kw = {"co_name": name}
    if sys.version_info >= (3, 11):
        kw["co_qualname"] = name
    if filename:
        kw["co_filename"] = filename
    return type(fn)(fn.__code__.replace(**kw), fn.__globals__, name)


short = named(work, "short")
sibling = named(work, "sibling")
longname = named(work, "longname_" + "L" * 1091)
longfile = named(work, "longfile", "/" + "d" * 4200 + "/py_longname.py")


def main(budget):
    end = time.process_time() + budget
    while time.process_time() < end:
        for _ in range(20):
            short()
            longname()
            sibling()
            longfile()


main(float(sys.argv[1]))
