//! The toolerr runtime for Rust (toolerr::runtime::Executor) beside failsafe
//! 1.3.0, a circuit breaker crate (`CircuitBreaker::call`, consecutive
//! failures), on the work of scripts/bench-runtime.sh: one tool call whose
//! every fifth attempt fails retryably (a timeout), up to 3 attempts, the
//! breaker closed (3 consecutive failures), sleeping switched off (toolerr's
//! clock sleeps for nothing; failsafe never sleeps). failsafe has no retry,
//! so it runs under the plain retry loop, as opossum does for Node. Then the
//! same on successful calls alone (no attempt fails): what a closed
//! breaker's call costs.
//!
//! The figure is CPU time per call (the process's, every thread: a machine
//! shared with other work disturbs it less than wall time) above the plain
//! loop doing the same calls; rounds are interleaved (the order rotating)
//! and each ratio is the median of the per-round ratios. BENCH_ROUNDS
//! (default 7) and BENCH_RUNTIME_CALLS (default 20000) set the size. The
//! last line is the medians as one machine-readable record, for the script
//! that alternates this binary with an earlier revision's.
use failsafe::{backoff, failure_policy, CircuitBreaker, Config};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;
use toolerr::runtime::{CallOptions, Cancel, Clock, Executor, ToolError};

const FAIL_EVERY: u64 = 5;
const MAX_ATTEMPTS: u32 = 3;

#[derive(Debug)]
struct Timeout;
impl std::fmt::Display for Timeout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("upstream timed out")
    }
}
impl std::error::Error for Timeout {}

/// The system clock, its sleep switched off.
struct NoSleep;
impl Clock for NoSleep {
    fn now_ms(&self) -> i64 {
        toolerr::runtime::SystemClock.now_ms()
    }
    fn sleep(&self, _ms: u64, _cancel: &Cancel) {}
}

/// The tool: its attempts so far, and every how many attempts one fails (0: none).
struct Tool(u64, u64);
impl Tool {
    fn attempt(&mut self) -> Result<&'static str, Timeout> {
        self.0 += 1;
        if self.1 != 0 && self.0 % self.1 == 0 {
            Err(Timeout)
        } else {
            Ok("ok")
        }
    }
}

fn plain_retry<T, E>(mut call: impl FnMut() -> Result<T, E>) -> Result<T, E> {
    let mut attempt = 1;
    loop {
        match call() {
            Ok(v) => return Ok(v),
            Err(e) if attempt == MAX_ATTEMPTS => return Err(e),
            Err(_) => attempt += 1,
        }
    }
}

fn cpu_s() -> f64 {
    let mut ru = std::mem::MaybeUninit::<Rusage>::uninit();
    // getrusage(RUSAGE_SELF): user + system time of every thread.
    unsafe { getrusage(0, ru.as_mut_ptr()) };
    let ru = unsafe { ru.assume_init() };
    let tv = |t: [i64; 2]| t[0] as f64 + t[1] as f64 / 1e6;
    tv(ru.utime) + tv(ru.stime)
}

#[repr(C)]
struct Rusage {
    utime: [i64; 2],
    stime: [i64; 2],
    rest: [i64; 14],
}
extern "C" {
    fn getrusage(who: i32, usage: *mut Rusage) -> i32;
}

/// n calls of one contender on a tool failing every `fail_every`-th attempt
/// (0: never): CPU seconds, after checking every call returned the tool's
/// value after the plain loop's attempts.
fn run(n: u64, fail_every: u64, mut call: impl FnMut(&mut Tool) -> &'static str) -> f64 {
    let mut tool = Tool(0, fail_every);
    let t0 = cpu_s();
    for _ in 0..n {
        assert_eq!(black_box(call(&mut tool)), "ok", "a call did not return the tool's value");
    }
    let s = cpu_s() - t0;
    let want = n + if fail_every == 0 { 0 } else { n / (fail_every - 1) };
    assert!(tool.0.abs_diff(want) <= 1, "{} attempts for {n} calls, want {want}", tool.0);
    s
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The medians of one work's rounds (the tool failing every `fail_every`-th
/// attempt, 0: never): toolerr's and failsafe's overhead above the plain
/// loop, the plain loop's own time (µs per call) and failsafe's overhead
/// over toolerr's (the median of the per-round ratios).
fn work(n: u64, rounds: usize, fail_every: u64) -> (f64, f64, f64, f64) {
    let ex = Executor::new()
        .clock(Arc::new(NoSleep))
        .retry(serde_json::json!({"max_attempts": MAX_ATTEMPTS, "base_ms": 500, "cap_ms": 8000}))
        .breaker(serde_json::json!({"failure_threshold": 3, "open_ms": 30000, "success_threshold": 2}));
    let breaker = Config::new()
        .failure_policy(failure_policy::consecutive_failures(3, backoff::constant(Duration::from_secs(30))))
        .build();
    let mut contenders: Vec<(&str, Box<dyn FnMut(u64) -> f64>)> = vec![
        ("plain", Box::new(|n| run(n, fail_every, |t| plain_retry(|| t.attempt()).unwrap()))),
        (
            "toolerr",
            Box::new(|n| {
                run(n, fail_every, |t| {
                    let r = ex.call("search", CallOptions::default(), |_| t.attempt().map_err(ToolError::from));
                    r.value.expect("toolerr: the call failed")
                })
            }),
        ),
        ("failsafe", Box::new(|n| run(n, fail_every, |t| plain_retry(|| breaker.call(|| t.attempt())).unwrap()))),
    ];
    for (_, c) in contenders.iter_mut() {
        c((n / 10).max(1)); // warm-up
    }
    let k = contenders.len();
    let mut got: Vec<Vec<f64>> = vec![Vec::new(); k];
    for r in 0..rounds {
        for j in 0..k {
            let i = (j + r) % k;
            let s = (contenders[i].1)(n);
            got[i].push(s / n as f64 * 1e6);
        }
    }
    let over = |i: usize| -> Vec<f64> { (0..rounds).map(|r| got[i][r] - got[0][r]).collect() };
    let (toolerr, failsafe) = (over(1), over(2));
    let ratio = median((0..rounds).map(|r| failsafe[r] / toolerr[r]).collect());
    (median(toolerr), median(failsafe), median(got[0].clone()), ratio)
}

fn main() {
    let n = env("BENCH_RUNTIME_CALLS", 20000);
    let rounds = env("BENCH_ROUNDS", 7) as usize;
    let (t, f, p, ratio) = work(n, rounds, FAIL_EVERY);
    println!(
        "== rust, in process: decision overhead per call (µs above the plain loop, {p:.3} µs/call; median of {rounds} rounds of {n} calls)"
    );
    println!("  {:<44} {t:>9.2} µs/call", "toolerr Executor");
    println!("  {:<44} {f:>9.3} µs/call   toolerr {ratio:>6.3}x its speed", "failsafe 1.3.0 (under the plain loop)");
    println!(
        "  decision overhead vs failsafe: toolerr {ratio:.3}x the peer's, goal >= 1.00x {}",
        if ratio >= 1.0 { "met" } else { "missed" }
    );
    let (ok_t, ok_f, ok_p, ok_ratio) = work(n, rounds, 0);
    println!("== rust, in process, successful calls alone (µs above the plain loop, {ok_p:.3} µs/call; as many rounds of as many calls)");
    println!("  {:<44} {ok_t:>9.3} µs/call", "toolerr Executor");
    println!("  {:<44} {ok_f:>9.3} µs/call   toolerr {ok_ratio:>6.3}x its speed", "failsafe 1.3.0 (under the plain loop)");
    println!(
        "record toolerr_us={t:.4} failsafe_us={f:.4} plain_us={p:.4} ratio={ratio:.5} ok_toolerr_us={ok_t:.4} ok_failsafe_us={ok_f:.4} ok_ratio={ok_ratio:.5}"
    );
}
