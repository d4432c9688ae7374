# py_frames.py: a pure-Python workload of known functions for the
# CPython frame reader's unit test (tests/unit/check_record_py.c): a
# module calling three levels, a method of a class, a recursive
# function, a generator and a lambda on the main thread, and a second
# thread of four functions, two with names not in ASCII (a str of one
# byte a character and one of two).  Each line marked "# at:NAME" is the line
# that function NAME's frame executes while it waits on its callee; the
# test reads these marks.  Runs on CPython 3.7-3.13; prints "ready" once
# both threads spin, and dies after 60 s of CPU time if nobody kills it.
# With an argument "Nc" (N may be a fraction) it exits (status 0) once
# it has used N s of CPU, for tests that record it to its end however
# loaded the machine is; with "Nc usr1", N s of CPU after a SIGUSR1.
import _thread
import os
import resource
import signal
import sys

resource.setrlimit(resource.RLIMIT_CPU, (60, 60))


def stop(sig, frame):
    os._exit(0)


def arm(sig=None, frame=None):
    # ITIMER_PROF counts the process's CPU time, all threads, in
    # fractions of a second (RLIMIT_CPU takes whole seconds).
    signal.signal(signal.SIGPROF, stop)
    signal.setitimer(signal.ITIMER_PROF, float(sys.argv[1].rstrip("c")))


if len(sys.argv) > 2 and sys.argv[2] == "usr1":
    signal.signal(signal.SIGUSR1, arm)  # once a recorder has attached
elif len(sys.argv) > 1:
    arm()


class Spinner:
    def spin(self, n):
        return recurse(n)  # at:Spinner.spin


def recurse(n):
    if n > 0:
        return recurse(n - 1)  # at:recurse
    return sum(gen_values(200))  # at:recurse


def gen_values(k):
    square = lambda x: x * x
    for i in range(k):
        yield square(i)  # at:gen_values


def level3():
    while True:
        Spinner().spin(3)  # at:level3


def level2():
    level3()  # at:level2


def level1():
    level2()  # at:level1


def naïve_函数(x):
    return x + 1


def café(x):
    return naïve_函数(x)  # at:café


def busy_thread(started):
    if started.locked():
        started.release()
    x = 0
    for i in range(1000):
        x += café(i)  # at:busy_thread
    return x


def worker(started):
    while True:
        busy_thread(started)  # at:worker


started = _thread.allocate_lock()
started.acquire()
_thread.start_new_thread(worker, (started,))
started.acquire()
print("ready", flush=True)  # at:<module>
level1()  # at:<module>
