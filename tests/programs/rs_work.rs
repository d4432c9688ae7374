//! rs_work.rs: a CPU-bound Rust workload for the unwinding tests and
//! bench/truth.sh: the main thread recurses 20 deep into a HashMap
//! update loop, a second thread sorts vectors.
//!
//!     rs_work [SECONDS]        (default 1)
//!
//! SECONDS is wall time; "1c" runs each thread until it has used 1 s of
//! CPU, so that a test gets its samples however loaded the machine is.
use std::collections::HashMap;
use std::thread;
use std::time::Instant;

/// This thread's CPU time in seconds, from the scheduler's own count
/// (std has no thread CPU clock).
fn thread_cpu_secs() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|n| n.parse::<u64>().ok()))
        .map_or(0.0, |ns| ns as f64 / 1e9)
}

/// Whether a thread that started at `t0` (wall) and `c0` (CPU) is done.
fn done(t0: Instant, c0: f64, secs: f64, cpu: bool) -> bool {
    if cpu {
        thread_cpu_secs() - c0 >= secs
    } else {
        t0.elapsed().as_secs_f64() >= secs
    }
}

#[inline(never)]
fn hash_words(n: u64) -> u64 {
    let mut m: HashMap<u64, u64> = HashMap::new();
    for i in 0..n {
        *m.entry(i.wrapping_mul(2654435761) % 1000).or_insert(0) += i;
    }
    m.values().sum()
}

#[inline(never)]
fn sort_vec(n: usize) -> u64 {
    let mut v: Vec<u64> = (0..n as u64).map(|x| x.wrapping_mul(6364136223846793005) >> 7).collect();
    v.sort();
    v[n / 2]
}

#[inline(never)]
fn recurse(d: u32, n: u64) -> u64 {
    if d == 0 { return hash_words(n); }
    recurse(d - 1, n) + d as u64
}

fn main() {
    let arg = std::env::args().nth(1).unwrap_or_default();
    // Without the scheduler's count (no /proc), fall back to wall time.
    let cpu = arg.ends_with('c') && thread_cpu_secs() > 0.0;
    let secs: f64 = arg.trim_end_matches('c').parse().unwrap_or(1.0);
    let t0 = Instant::now();
    let h = thread::spawn(move || {
        let mut s = 0u64;
        let c0 = thread_cpu_secs();
        while !done(t0, c0, secs, cpu) { s = s.wrapping_add(sort_vec(20000)); }
        s
    });
    let mut s = 0u64;
    let c0 = thread_cpu_secs();
    while !done(t0, c0, secs, cpu) { s = s.wrapping_add(recurse(20, 5000)); }
    s = s.wrapping_add(h.join().unwrap());
    println!("{}", s & 1);
}
