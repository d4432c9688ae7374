// unw_segs.rs: a deep recursion that grows its stack in segments, as
// rustc does with the stacker crate, for the test of unwinding across
// stack switches (t2008, issue 28).
//
//   unw_segs SECONDS            ("3c": until 3 s of CPU time are used)
//
// main -> walk -> descend -> descend_a -> descend_b -> descend_c ->
// descend_a ... -> fill or bottom, each descend_* with a frame of about
// 1 KiB, the depth following unw_deep.c's sawtooth of CPU time (40 to
// 400 levels) without its jitter: a depth that goes up and down by a
// level or two at each bottom call, at a segment's edge, leaves and
// enters a new segment every few tens of microseconds, and the frames a
// recorder reads live milliseconds later are refused then (the caller
// found in the older segment calls another function), which t2008
// counts as incomplete, not wrong.  When less than RED_ZONE bytes of the current segment are
// left, the next level runs on a new segment: mmap'd (SEGMENT bytes above
// a guard page) and switched to by seg_switch, a trampoline written here
// the way psm's rust_psm_on_stack is (the old stack pointer kept in rbp,
// which its CFI names), and unmapped when the level returns.  A switch
// puts three frames between two descend_* levels: on_segment, seg_switch
// and seg_entry.  The thread's own stack serves the first MAIN_USE bytes
// below walk.  No crates: rustc alone builds it.
use std::arch::global_asm;
use std::hint::black_box;
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering::Relaxed};

const FRAME: usize = 1000;
const MIN_DEPTH: i32 = 40;
const MAX_DEPTH: i32 = 400;
const SEGMENT: usize = 128 << 10;
const RED_ZONE: usize = 32 << 10;
const MAIN_USE: usize = 64 << 10;
const PAGE: usize = 4096;

// seg_switch(arg, unused, callback, new_sp): calls callback(arg, unused)
// with the stack pointer at new_sp, then returns on the old stack.
global_asm!(
    ".text",
    ".globl seg_switch",
    ".type seg_switch,@function",
    ".p2align 4",
    "seg_switch:",
    ".cfi_startproc",
    "pushq %rbp",
    ".cfi_def_cfa %rsp, 16",
    ".cfi_offset %rbp, -16",
    "movq %rsp, %rbp",
    ".cfi_def_cfa_register %rbp",
    "movq %rcx, %rsp",
    "callq *%rdx",
    "movq %rbp, %rsp",
    "popq %rbp",
    ".cfi_def_cfa %rsp, 8",
    "retq",
    ".cfi_endproc",
    ".size seg_switch, .-seg_switch",
    options(att_syntax)
);

#[repr(C)]
struct Timespec {
    sec: i64,
    nsec: i64,
}

extern "sysv64" {
    fn seg_switch(arg: usize, unused: usize, cb: extern "sysv64" fn(usize, usize), sp: usize);
}

extern "C" {
    fn mmap(addr: *mut u8, len: usize, prot: i32, flags: i32, fd: i32, off: i64) -> *mut u8;
    fn munmap(addr: *mut u8, len: usize) -> i32;
    fn mprotect(addr: *mut u8, len: usize, prot: i32) -> i32;
    fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
    fn nanosleep(req: *const Timespec, rem: *mut Timespec) -> i32;
}

static TARGET: AtomicI32 = AtomicI32::new(MIN_DEPTH);
static DONE: AtomicI32 = AtomicI32::new(0);
static LIMIT: AtomicUsize = AtomicUsize::new(0); // the segment's low end
static SINK: AtomicUsize = AtomicUsize::new(0);
static mut START: f64 = 0.0;
static mut SECS: f64 = 1.0;
static mut CLOCK: i32 = 1; // CLOCK_MONOTONIC, or 2: the process's CPU

fn clock_secs() -> f64 {
    let mut ts = Timespec { sec: 0, nsec: 0 };
    unsafe { clock_gettime(CLOCK, &mut ts) };
    ts.sec as f64 + ts.nsec as f64 / 1e9
}

fn stack_pointer() -> usize {
    let sp: usize;
    unsafe { std::arch::asm!("mov {}, rsp", out(reg) sp) };
    sp
}

#[inline(never)]
fn fill(buf: &mut [u8; FRAME], d: i32) {
    for i in (0..FRAME).step_by(8) {
        buf[i] = (d as usize + i) as u8;
    }
    black_box(buf);
}

// The sawtooth's depth at `t` seconds: up in 1 s, down in 2 s.
fn sawtooth(t: f64) -> i32 {
    let p = t - 3.0 * ((t / 3.0) as i64 as f64);
    let f = if p < 1.0 { p } else { (3.0 - p) / 2.0 };
    MIN_DEPTH + (f * (MAX_DEPTH - MIN_DEPTH) as f64) as i32
}

#[inline(never)]
fn steer() {
    let t = clock_secs() - unsafe { START };
    if t >= unsafe { SECS } {
        DONE.store(1, Relaxed);
        return;
    }
    TARGET.store(sawtooth(t).clamp(MIN_DEPTH, MAX_DEPTH), Relaxed);
}

#[inline(never)]
fn bottom(buf: &[u8; FRAME]) -> i32 {
    let mut s: usize = 0;
    for i in 0..20000usize {
        s = s.wrapping_add(i ^ black_box(buf[i % FRAME]) as usize);
    }
    SINK.fetch_add(s, Relaxed);
    steer();
    if DONE.load(Relaxed) != 0 {
        let rest = Timespec { sec: 2, nsec: 0 };
        unsafe { nanosleep(&rest, std::ptr::null_mut()) };
    }
    (s & 1) as i32
}

// What a level calls: the next level, on a new segment when this one is
// nearly used up.
type Level = fn(i32) -> i32;

#[repr(C)]
struct Call {
    next: Level,
    d: i32,
    r: i32,
}

extern "sysv64" fn seg_entry(arg: usize, _unused: usize) {
    let call = unsafe { &mut *(arg as *mut Call) };
    call.r = (call.next)(call.d);
}

#[inline(never)]
fn on_segment(next: Level, d: i32) -> i32 {
    let len = SEGMENT + PAGE;
    let base = unsafe { mmap(std::ptr::null_mut(), len, 0, 0x22 | 0x4000, -1, 0) };
    if base as isize == -1 || unsafe { mprotect(base.add(PAGE), SEGMENT, 3) } != 0 {
        std::process::abort();
    }
    let old = LIMIT.swap(base as usize + PAGE, Relaxed);
    let mut call = Call { next, d, r: 0 };
    unsafe { seg_switch(&mut call as *mut Call as usize, 0, seg_entry, base as usize + len) };
    LIMIT.store(old, Relaxed);
    unsafe { munmap(base, len) };
    black_box(call.r)
}

#[inline(always)]
fn deeper(next: Level, d: i32) -> i32 {
    if stack_pointer() - LIMIT.load(Relaxed) < RED_ZONE {
        on_segment(next, d)
    } else {
        next(d)
    }
}

macro_rules! descend {
    ($name:ident, $next:ident) => {
        #[inline(never)]
        fn $name(d: i32) -> i32 {
            let mut buf = [0u8; FRAME];
            let mut r = 0;
            fill(&mut buf, d);
            while DONE.load(Relaxed) == 0 && TARGET.load(Relaxed) >= d {
                if TARGET.load(Relaxed) > d {
                    r += deeper($next, d + 1);
                } else {
                    r += bottom(&buf);
                }
            }
            black_box(r) + buf[d as usize % FRAME] as i32
        }
    };
}
descend!(descend_a, descend_b);
descend!(descend_b, descend_c);
descend!(descend_c, descend_a);

#[inline(never)]
fn descend() -> i32 {
    black_box(descend_a(0))
}

#[inline(never)]
fn walk() {
    unsafe { START = clock_secs() };
    LIMIT.store(stack_pointer() - MAIN_USE, Relaxed);
    while DONE.load(Relaxed) == 0 {
        let r = descend();
        SINK.fetch_add(r as usize, Relaxed);
    }
}

fn main() {
    let arg = std::env::args().nth(1).unwrap_or_else(|| "1".into());
    unsafe {
        CLOCK = if arg.contains('c') { 2 } else { 1 };
        SECS = arg.trim_end_matches('c').parse().unwrap_or(1.0);
    }
    walk();
}
