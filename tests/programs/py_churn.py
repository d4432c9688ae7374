# py_churn.py: threads that start, run a little and end, over and over,
# so that the CPython frame reader's test (tests/unit/check_record_py.c)
# reads thread states and frames while they are torn down.  Prints
# "ready" once the loop runs; dies after 60 s of CPU time.
import _thread
import resource

resource.setrlimit(resource.RLIMIT_CPU, (60, 60))


def inner(n):
    return sum(range(n))


def short_lived(done):
    inner(2000)
    done.release()


def spawn_loop():
    first = True
    while True:
        done = _thread.allocate_lock()
        done.acquire()
        _thread.start_new_thread(short_lived, (done,))
        inner(500)
        done.acquire()
        if first:
            print("ready", flush=True)
            first = False


spawn_loop()
