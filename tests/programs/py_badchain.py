# py_badchain.py: a CPython 3.8-3.13 process whose frame chain is broken
# and whose memory is cut into many mappings, for t1073: the frame that
# runs spin() has its caller's pointer (f_back in 3.8-3.10, previous in
# the _PyInterpreterFrame of 3.11+) set to 0x10, and N pages (60,000
# unless told) are mapped with alternating protections, so that
# /proc/PID/maps holds N lines (4 MB) and never merges them.  spin()
# never returns (nothing then reads the pointer) and ends the process
# with os._exit once it has used SECONDS of CPU.
#
#   python3.12 py_badchain.py SECONDS [N] [sane]
#
# "sane" leaves the chain alone (the same process, for comparison).
# Prints "pid PID maps LINES" on stderr once the mappings are made;
# exits 3 if the kernel refused them (vm.max_map_count).
import ctypes
import mmap
import os
import resource
import sys

resource.setrlimit(resource.RLIMIT_CPU, (60, 60))
PAGE = mmap.PAGESIZE
PROT_READ = 1


def cut(n):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    m = mmap.mmap(-1, n * PAGE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(m))
    for i in range(0, n, 2):
        if libc.mprotect(base + i * PAGE, PAGE, PROT_READ) != 0:
            print("mprotect: errno %d at page %d" % (ctypes.get_errno(), i),
                  file=sys.stderr)
            os._exit(3)
    with open("/proc/self/maps") as f:
        lines = sum(1 for _ in f)
    print("pid", os.getpid(), "maps", lines, file=sys.stderr, flush=True)
    return m


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def spin(seconds, sane):
    f = sys._getframe()
    if not sane:
        # 3.8-3.10: f_back follows PyFrameObject's head (24 bytes with
        # ob_size); 3.11+: the frame object's f_frame follows f_back,
        # and `previous` is the _PyInterpreterFrame's 7th field in
        # 3.11, its 2nd since.
        if sys.version_info >= (3, 11):
            f = ctypes.c_void_p.from_address(id(f) + 24).value
            at = 48 if sys.version_info < (3, 12) else 8
            ctypes.c_void_p.from_address(f + at).value = 0x10
        else:
            ctypes.c_void_p.from_address(id(f) + 24).value = 0x10
    x = 0
    while cpu() < seconds:
        for i in range(10000):
            x += i
    os._exit(0)


kept = cut(int(sys.argv[2]) if len(sys.argv) > 2 else 60000)
spin(float(sys.argv[1]), len(sys.argv) > 3 and sys.argv[3] == "sane")
