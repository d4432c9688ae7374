"""py_work.py: a CPU-bound Python script for the -X perf tests.

    python3.12 -X perf py_work.py SECONDS

SECONDS is wall time; "1c" runs until the process has used 1 s of CPU,
so that a test gets its samples however loaded the machine is.

main -> work_a (a generator summed in C) and main -> work_b -> fib
(recursive Python calls), so a sample's stack crosses the interpreter
and CPython's perf trampolines many times.
"""
import sys
import time


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def work_a():
    return sum(i * i for i in range(20000))


def work_b():
    return fib(18)


def main(arg):
    clock = time.process_time if arg.endswith("c") else time.monotonic
    end = clock() + float(arg.rstrip("c"))
    while clock() < end:
        work_a()
        work_b()


main(sys.argv[1])
