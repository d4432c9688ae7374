# py_cext.py: alternates every ~100 us between a Python function that
# calls the native spinext.burn and one that spins in Python alone, for
# the CPU seconds given (t1067).
import sys
import time

import spinext


def with_ext():
    spinext.burn(40000)


def pure():
    x = 0
    for i in range(1500):
        x += i
    return x


def main(budget):
    end = time.process_time() + budget
    while time.process_time() < end:
        for _ in range(50):
            with_ext()
            pure()


main(float(sys.argv[1]))
