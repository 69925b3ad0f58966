//! The Rust binding beside serde_json, in one process (scripts/bench-bindings.sh).
//! Work items of issue 12: (a) one failed tool call's envelope to an Anthropic
//! tool_result message, beside serde_json building the same message; (b) the
//! 40-message OpenAI Chat transcript of the core's benchmark
//! (core/testdata/bench/transcript-b.json, TOOLERR_BENCH_TRANSCRIPT) converted
//! to Anthropic and to Gemini, beside
//! serde_json decoding that transcript and encoding toolerr's answer (the
//! least any serde_json converter does: no conversion logic at all): the
//! answer as a `Value` (values in, a whole body as JSON text in) and as the
//! core's bytes (`Box<RawValue>`: values in, the list as JSON text in, which
//! is text in and text out as the peer). Each pair runs in interleaved rounds;
//! the figure is the median of per-round ratios (BENCH_CLOCK=cpu: of process
//! CPU time).
use serde_json::{json, value::RawValue, Value};
use std::hint::black_box;
use std::time::Instant;
use toolerr::{Envelope, Outcome, Transcript};

/// The process's CPU time in seconds (CLOCK_PROCESS_CPUTIME_ID: every
/// thread, the Go core's collector included; the time other processes hold
/// the cores is not counted).
fn process_cpu_s() -> f64 {
    #[repr(C)]
    struct Timespec {
        sec: i64,
        nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
    }
    const CLOCK_PROCESS_CPUTIME_ID: i32 = 2; // Linux
    let mut ts = Timespec { sec: 0, nsec: 0 };
    let rc = unsafe { clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_PROCESS_CPUTIME_ID)");
    ts.sec as f64 + ts.nsec as f64 * 1e-9
}

/// Microseconds per call of `f` over `n` calls: wall-clock, or with
/// BENCH_CLOCK=cpu the process's CPU time (steadier on a loaded machine).
fn per_call_us(n: usize, f: &mut impl FnMut()) -> f64 {
    let cpu = std::env::var("BENCH_CLOCK").is_ok_and(|c| c == "cpu");
    let (t0, c0) = (Instant::now(), if cpu { process_cpu_s() } else { 0.0 });
    for _ in 0..n {
        f();
    }
    let s = if cpu { process_cpu_s() - c0 } else { t0.elapsed().as_secs_f64() };
    s * 1e6 / n as f64
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn pair(name: &str, rounds: usize, n: usize, goal: f64, mut ours: impl FnMut(), mut peer: impl FnMut()) {
    per_call_us(n.max(1), &mut ours);
    per_call_us(n.max(1), &mut peer);
    let (mut a, mut b, mut r) = (vec![], vec![], vec![]);
    for _ in 0..rounds {
        let (x, y) = (per_call_us(n, &mut ours), per_call_us(n, &mut peer));
        a.push(x);
        b.push(y);
        r.push(x / y);
    }
    let ratio = median(r);
    println!("{name:<52} {:9.2} us {:9.2} us {ratio:6.2}x (goal <= {goal}x: {})", median(a), median(b), if ratio <= goal { "met" } else { "missed" });
}

fn main() {
    let env: Envelope = serde_json::from_value(json!({"code": "TIMEOUT", "details": {"attempt": 1, "tool": "get_weather"},
        "message": "The get_weather tool timed out after 10 seconds.", "retryable": true, "source": "tool"})).unwrap();
    let outcome = [Outcome::failed("toolu_01", "get_weather", env.clone())];
    let plain = || -> String {
        serde_json::to_string(&json!([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01",
            "content": serde_json::to_string(&env).unwrap(), "is_error": true}]}])).unwrap()
    };
    let ours = serde_json::to_value(toolerr::to_anthropic(&outcome).unwrap()).unwrap();
    assert_eq!(ours, serde_json::from_str::<Value>(&plain()).unwrap(), "toolerr and serde_json differ");

    let file = std::fs::read_to_string(std::env::var("TOOLERR_BENCH_TRANSCRIPT").expect("TOOLERR_BENCH_TRANSCRIPT")).unwrap();
    let msgs: Vec<Value> = serde_json::from_str(&file).unwrap();
    let raw = serde_json::to_string(&msgs).unwrap(); // compact
    let body = format!("{{\"messages\":{raw}}}"); // the user holds the whole request body as text
    let rounds: usize = std::env::var("BENCH_ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(41);
    let n: usize = std::env::var("BENCH_CALLS").ok().and_then(|s| s.parse().ok()).unwrap_or(4_000);
    let clock = if std::env::var("BENCH_CLOCK").is_ok_and(|c| c == "cpu") { "process CPU time" } else { "wall-clock" };
    println!("rust: toolerr beside serde_json; medians of {rounds} interleaved rounds ({clock})");
    println!("{:<52} {:>12} {:>12} {:>7}", "", "toolerr", "serde_json", "ratio");
    let work = std::env::var("BENCH_WORK").unwrap_or_else(|_| "ab".into()); // which work items run: "a", "b" or both
    if work.contains('a') {
        pair("(a) to_anthropic / serde_json building the message", rounds, n, 3.0,
            || { black_box(toolerr::to_anthropic(black_box(&outcome)).unwrap()); },
            || { black_box(plain()); });
    }
    if !work.contains('b') {
        return;
    }
    for to in ["anthropic", "gemini"] {
        let answer = toolerr::convert(&msgs, "openai-chat", to, json!({})).unwrap();
        let flagged = answer.to_string().matches(if to == "anthropic" { "\"is_error\":true" } else { "\"error\":{\"code\"" }).count();
        assert_eq!(flagged, 3, "the three failures keep their flag");
        let kept: Box<RawValue> = toolerr::convert_json_as(&raw, "openai-chat", to, json!({})).unwrap();
        assert_eq!(serde_json::from_str::<Value>(kept.get()).unwrap(), answer, "the list as text and as values convert alike");
        let peer = || { black_box(serde_json::to_vec(&(serde_json::from_str::<Vec<Value>>(black_box(&raw)).unwrap(), &answer)).unwrap()); };
        pair(&format!("(b) -> {to}, values / serde_json decode + encode"), rounds, n / 40, 2.0,
            || { black_box(toolerr::convert(black_box(&msgs), "openai-chat", to, json!({})).unwrap()); }, peer);
        pair(&format!("(b) -> {to}, a body as JSON text / serde_json"), rounds, n / 40, 2.0,
            || { black_box(toolerr::convert_body(Transcript::Json(black_box(&body)), "openai-chat", to, json!({})).unwrap()); }, peer);
        // the same conversions with the answer kept as the core's bytes (RawValue: checked once, no tree)
        pair(&format!("(b) -> {to}, values, RawValue out / serde_json"), rounds, n / 40, 2.0,
            || { black_box(toolerr::convert_as::<Box<RawValue>>(black_box(&msgs), "openai-chat", to, json!({})).unwrap()); }, peer);
        pair(&format!("(b) -> {to}, list as JSON text, RawValue out"), rounds, n / 40, 2.0,
            || { black_box(toolerr::convert_json_as::<Box<RawValue>>(black_box(&raw), "openai-chat", to, json!({})).unwrap()); }, peer);
    }
}
