//! rs_work.rs: a CPU-bound Rust workload for the unwinding tests and
//! bench/truth.sh: the main thread recurses 20 deep into a HashMap
//! update loop, a second thread sorts vectors.
//!
//!     rs_work [SECONDS]        (default 1)
use std::collections::HashMap;
use std::thread;

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
    let secs: f64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1.0);
    let t0 = std::time::Instant::now();
    let h = thread::spawn(move || {
        let mut s = 0u64;
        while t0.elapsed().as_secs_f64() < secs { s = s.wrapping_add(sort_vec(20000)); }
        s
    });
    let mut s = 0u64;
    while t0.elapsed().as_secs_f64() < secs { s = s.wrapping_add(recurse(20, 5000)); }
    s = s.wrapping_add(h.join().unwrap());
    println!("{}", s & 1);
}
