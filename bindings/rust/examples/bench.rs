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
//! is text in and text out as the peer); and the core's own whole body of (b)
//! (core/body_bench_test.go's workBBody: model, the list, 2.6 KB of tools,
//! tool_choice, temperature, max_tokens) as text, beside serde_json decoding
//! that body and encoding the converted one. Each pair runs in interleaved rounds;
//! the figure is the median of per-round ratios (BENCH_CLOCK=cpu: of process
//! CPU time). An s in BENCH_WORK (s, bs) prints where the body rows' time goes: the
//! core's call alone and its answer read as a `Value` alone, each beside the
//! row's peer.
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

/// `ours` and `peer` in `rounds` interleaved rounds of `n` calls each, after
/// one warm-up round, ours first in even rounds and the peer first in odd ones
/// (the second slot pays for the first's cache misses): the medians of their
/// microseconds per call and the median of the per-round ratios.
fn rounds_of(rounds: usize, n: usize, mut ours: impl FnMut(), mut peer: impl FnMut()) -> (f64, f64, f64) {
    per_call_us(n.max(1), &mut ours);
    per_call_us(n.max(1), &mut peer);
    let (mut a, mut b, mut r) = (vec![], vec![], vec![]);
    for round in 0..rounds {
        let (x, y) = if round % 2 == 0 {
            let x = per_call_us(n, &mut ours);
            (x, per_call_us(n, &mut peer))
        } else {
            let y = per_call_us(n, &mut peer);
            (per_call_us(n, &mut ours), y)
        };
        a.push(x);
        b.push(y);
        r.push(x / y);
    }
    (median(a), median(b), median(r))
}

fn pair(name: &str, rounds: usize, n: usize, goal: f64, ours: impl FnMut(), peer: impl FnMut()) {
    let (a, b, ratio) = rounds_of(rounds, n, ours, peer);
    println!("{name:<52} {a:9.2} us {b:9.2} us {ratio:6.2}x (goal <= {goal}x: {})", if ratio <= goal { "met" } else { "missed" });
}

/// A share of a pair's time beside the same peer (BENCH_WORK=s): no goal.
fn share(name: &str, rounds: usize, n: usize, part: impl FnMut(), peer: impl FnMut()) {
    let (a, b, ratio) = rounds_of(rounds, n, part, peer);
    println!("{name:<52} {a:9.2} us {b:9.2} us {ratio:6.2}x");
}

/// The function tools of work item (b)'s calls as an OpenAI Chat request
/// declares them: core/body_bench_test.go's workBTools, byte for byte (2.6 KB).
const WORK_B_TOOLS: &str = r#"[{"type":"function","function":{"name":"search_flights","description":"Search flights between two airports on a date.","parameters":{"type":"object","properties":{"origin":{"type":"string","description":"IATA code"},"destination":{"type":"string","description":"IATA code"},"date":{"type":"string","format":"date"},"passengers":{"type":"integer","minimum":1}},"required":["origin","destination","date"]}}},{"type":"function","function":{"name":"book_flight","description":"Book a flight found by search_flights.","parameters":{"type":"object","properties":{"flight_id":{"type":"string"},"passenger_name":{"type":"string"},"seat":{"type":"string","enum":["window","aisle","middle"]}},"required":["flight_id","passenger_name"]}}},{"type":"function","function":{"name":"search_hotels","description":"Search hotels in a city for a stay.","parameters":{"type":"object","properties":{"city":{"type":"string"},"check_in":{"type":"string","format":"date"},"check_out":{"type":"string","format":"date"},"max_price":{"type":"number"}},"required":["city","check_in","check_out"]}}},{"type":"function","function":{"name":"book_hotel","description":"Book a hotel found by search_hotels.","parameters":{"type":"object","properties":{"hotel_id":{"type":"string"},"guest_name":{"type":"string"},"nights":{"type":"integer","minimum":1}},"required":["hotel_id","guest_name"]}}},{"type":"function","function":{"name":"get_weather_forecast","description":"The weather forecast for a city and date.","parameters":{"type":"object","properties":{"city":{"type":"string"},"date":{"type":"string","format":"date"},"units":{"type":"string","enum":["metric","imperial"]}},"required":["city"]}}}]"#;

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
    // the core's workBBody (core/body_bench_test.go): the list with the model, tools and parameters around it
    let full = format!(r#"{{"model":"gpt-4o","messages":{raw},"tools":{WORK_B_TOOLS},"tool_choice":"auto","temperature":0.2,"max_tokens":1024}}"#);
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
    if !work.contains('b') && !work.contains('s') {
        return;
    }
    for to in ["anthropic", "gemini"] {
        let answer = toolerr::convert(&msgs, "openai-chat", to, json!({})).unwrap();
        let flagged = answer.to_string().matches(if to == "anthropic" { "\"is_error\":true" } else { "\"error\":{\"code\"" }).count();
        assert_eq!(flagged, 3, "the three failures keep their flag");
        let kept: Box<RawValue> = toolerr::convert_json_as(&raw, "openai-chat", to, json!({})).unwrap();
        assert_eq!(serde_json::from_str::<Value>(kept.get()).unwrap(), answer, "the list as text and as values convert alike");
        let peer = || { black_box(serde_json::to_vec(&(serde_json::from_str::<Vec<Value>>(black_box(&raw)).unwrap(), &answer)).unwrap()); };
        let full_answer = toolerr::convert_body(Transcript::Json(&full), "openai-chat", to, json!({})).unwrap();
        let declared = if to == "anthropic" { &full_answer["body"]["tools"] } else { &full_answer["body"]["tools"][0]["functionDeclarations"] };
        assert_eq!(declared.as_array().map(Vec::len), Some(5), "the five tools are carried");
        // serde_json decoding the whole body and encoding the converted one
        let peer_full = || { black_box(serde_json::to_vec(&(serde_json::from_str::<Value>(black_box(&full)).unwrap(), &full_answer)).unwrap()); };
        if work.contains('s') {
            // where a body row's time goes: the core's call alone (the request the binding writes, by
            // invoke_bytes) and serde_json reading its answer into a Value alone, beside the row's peer
            for (form, text, peer) in [("body", &body, &peer as &dyn Fn()), ("body + tools", &full, &peer_full as &dyn Fn())] {
                let req = format!(r#"{{"from":"openai-chat","op":"convert","to":"{to}","body":{text},"raw_len":{}}}"#, text.len());
                let out = String::from_utf8(toolerr::invoke_bytes(req.as_bytes())).unwrap();
                let got: Value = serde_json::from_str(&out).unwrap();
                assert_eq!(got["ok"], toolerr::convert_body(Transcript::Json(text), "openai-chat", to, json!({})).unwrap(), "the request is the binding's");
                share(&format!("(s) -> {to}, {form}: core call alone"), rounds, n / 40,
                    || { black_box(toolerr::invoke_bytes(black_box(req.as_bytes()))); }, peer);
                share(&format!("(s) -> {to}, {form}: answer as a Value"), rounds, n / 40,
                    || { black_box(serde_json::from_str::<Value>(black_box(&out)).unwrap()); }, peer);
            }
        }
        if !work.contains('b') {
            continue;
        }
        pair(&format!("(b) -> {to}, values / serde_json decode + encode"), rounds, n / 40, 2.0,
            || { black_box(toolerr::convert(black_box(&msgs), "openai-chat", to, json!({})).unwrap()); }, peer);
        pair(&format!("(b) -> {to}, a body as JSON text / serde_json"), rounds, n / 40, 2.0,
            || { black_box(toolerr::convert_body(Transcript::Json(black_box(&body)), "openai-chat", to, json!({})).unwrap()); }, peer);
        // the same conversions with the answer kept as the core's bytes (RawValue: checked once, no tree)
        pair(&format!("(b) -> {to}, values, RawValue out / serde_json"), rounds, n / 40, 2.0,
            || { black_box(toolerr::convert_as::<Box<RawValue>>(black_box(&msgs), "openai-chat", to, json!({})).unwrap()); }, peer);
        pair(&format!("(b) -> {to}, list as JSON text, RawValue out"), rounds, n / 40, 2.0,
            || { black_box(toolerr::convert_json_as::<Box<RawValue>>(black_box(&raw), "openai-chat", to, json!({})).unwrap()); }, peer);
        // a whole body with tools and parameters, beside serde_json decoding that body
        pair(&format!("(b) -> {to}, body + tools as text / serde_json"), rounds, n / 40, 2.0,
            || { black_box(toolerr::convert_body(Transcript::Json(black_box(&full)), "openai-chat", to, json!({})).unwrap()); }, peer_full);
        pair(&format!("(b) -> {to}, body + tools, RawValue out"), rounds, n / 40, 2.0,
            || { black_box(toolerr::convert_body_as::<Box<RawValue>>(Transcript::Json(black_box(&full)), "openai-chat", to, json!({})).unwrap()); }, peer_full);
    }
}
