# py_subinterp.py WHERE SECONDS: the main thread runs main_work while a
# thread named "subrunner" runs sub_work in a subinterpreter, each for
# SECONDS of its own CPU time (t1071).  WHERE says which thread creates
# the subinterpreter: "thread" (the one that runs it) or "main".
import ctypes
import sys
import threading
import time

try:
    import _interpreters as interpreters  # 3.13
except ImportError:
    import _xxsubinterpreters as interpreters  # 3.8-3.12

SUB = """
import time


def sub_work():
    x = 0
    for i in range(3000):
        x += i
    return x


def sub_loop(budget):
    end = time.thread_time() + budget
    while time.thread_time() < end:
        sub_work()


sub_loop(%r)
"""


def main_work():
    x = 0
    for i in range(3000):
        x += i
    return x


def main_loop(budget):
    end = time.thread_time() + budget
    while time.thread_time() < end:
        main_work()


def runner(where, budget, made):
    # PR_SET_NAME: the thread's samples carry its name
    ctypes.CDLL(None).prctl(15, b"subrunner", 0, 0, 0)
    interp = interpreters.create() if where == "thread" else made
    interpreters.run_string(interp, SUB % budget)


def main(where, budget):
    made = interpreters.create() if where == "main" else None
    t = threading.Thread(target=runner, args=(where, budget, made))
    t.start()
    main_loop(budget)
    t.join()


main(sys.argv[1], float(sys.argv[2]))
