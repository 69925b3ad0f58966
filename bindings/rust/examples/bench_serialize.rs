//! Per-call time of one typical serialize (a failed tool call's envelope to an
//! Anthropic tool_result message) through the toolerr Rust binding, beside the
//! same message written plainly with serde_json. Run by scripts/bench-bindings.sh.
use serde_json::{json, Value};
use std::hint::black_box;
use std::time::Instant;
use toolerr::{Envelope, Outcome};

/// Best of 3 rounds of n calls each, after a warm-up: the least disturbed figure.
fn per_call_us(n: usize, mut f: impl FnMut()) -> f64 {
    for _ in 0..n / 10 {
        f();
    }
    (0..3).map(|_| {
        let t0 = Instant::now();
        for _ in 0..n {
            f();
        }
        t0.elapsed().as_secs_f64() * 1e6 / n as f64
    }).fold(f64::INFINITY, f64::min)
}

fn main() {
    let env: Envelope = serde_json::from_value(json!({"code": "TIMEOUT", "details": {"attempt": 1, "tool": "get_weather"},
        "message": "The get_weather tool timed out after 10 seconds.", "retryable": true, "source": "tool"})).unwrap();
    let outcome = [Outcome::failed("toolu_01", "get_weather", env.clone())];
    let raw = serde_json::to_vec(&json!({"op": "serialize", "format": "anthropic", "results": &outcome})).unwrap();
    let plain = || -> Value {
        json!([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01",
            "content": serde_json::to_string(&env).unwrap(), "is_error": true}]}])
    };
    let ours = serde_json::to_value(toolerr::to_anthropic(&outcome).unwrap()).unwrap();
    assert_eq!(ours, plain(), "toolerr and the plain version differ");
    let n: usize = std::env::var("BENCH_CALLS").ok().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let api = per_call_us(n, || { black_box(toolerr::to_anthropic(black_box(&outcome)).unwrap()); });
    let boundary = per_call_us(n, || { black_box(toolerr::invoke_bytes(black_box(&raw))); });
    let base = per_call_us(n * 10, || { black_box(plain()); });
    println!("rust: one failed envelope -> Anthropic tool_result message");
    for (name, us) in [("toolerr to_anthropic (API)", api), ("  of which invoke_bytes (FFI + core)", boundary), ("plain serde_json", base)] {
        println!("{name:<48} {us:9.2} us/call {:8.1}x plain", us / base);
    }
    println!("goal <= 3x plain: {}", if api <= 3.0 * base { "met" } else { "missed" });
}
