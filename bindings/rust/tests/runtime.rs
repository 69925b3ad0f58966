//! The Rust runtime (toolerr::runtime) on the shared scenarios of conformance/runtime, and in its own idioms.

use serde_json::{json, Value};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use toolerr::runtime::{Budget, CallOptions, Cancel, Cas, Clock, Executor, LoopGuard, MemoryStore, Store, StoreError, ToolError};
use toolerr::Envelope;

/// A fake clock: sleeps are recorded and move the clock, the n-th one cancels instead.
#[derive(Default)]
struct FakeClock {
    now: AtomicI64,
    sleeps: Mutex<Vec<u64>>,
    cancel_at: AtomicUsize,
}

impl Clock for FakeClock {
    fn now_ms(&self) -> i64 {
        self.now.load(Ordering::SeqCst)
    }
    fn sleep(&self, ms: u64, cancel: &Cancel) {
        let mut s = self.sleeps.lock().unwrap();
        s.push(ms);
        if s.len() == self.cancel_at.load(Ordering::SeqCst) {
            cancel.cancel();
            return;
        }
        self.now.fetch_add(ms as i64, Ordering::SeqCst);
    }
}

/// A shared store that always fails, as conformance/runtime says ("connection refused").
struct FailingStore;

impl Store for FailingStore {
    fn load(&self, _: &str) -> Result<Option<Vec<u8>>, StoreError> {
        Err("connection refused".into())
    }
    fn compare_and_swap(&self, _: &str, _: Option<&[u8]>, _: &[u8]) -> Result<Cas, StoreError> {
        Err("connection refused".into())
    }
}

fn scenarios() -> Vec<(String, Value)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance/runtime");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "json")).collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let v: Value = serde_json::from_slice(&std::fs::read(&f).unwrap()).unwrap();
        for sc in v.as_array().unwrap() {
            out.push((format!("{}/{}", f.file_name().unwrap().to_string_lossy(), sc["description"].as_str().unwrap()), sc.clone()));
        }
    }
    out
}

fn run_scenario(sc: &Value) -> Vec<Value> {
    let ex = &sc["executor"];
    let clock = Arc::new(FakeClock::default());
    clock.now.store(sc["start_ms"].as_i64().unwrap(), Ordering::SeqCst);
    let shared = Arc::new(MemoryStore::new());
    let draws: Arc<Mutex<VecDeque<f64>>> = Arc::default();
    let decisions: Arc<Mutex<Vec<Value>>> = Arc::default();
    let (d, rec) = (draws.clone(), decisions.clone());
    let mut x = Executor::new()
        .clock(clock.clone())
        .draw(move || d.lock().unwrap().pop_front().expect("the runtime drew more numbers than the scenario gives"))
        .on_decision(move |r| rec.lock().unwrap().push(r.clone()));
    x = if ex["store"] == "failing" { x.store(Arc::new(FailingStore)) } else { x.store(shared.clone()) };
    if !ex["policy"].is_null() {
        x = x.retry(ex["policy"].clone());
    }
    if !ex["settings"].is_null() {
        x = x.breaker(ex["settings"].clone());
    }
    if let Some(t) = ex["timeout_ms"].as_u64() {
        x = x.timeout(Duration::from_millis(t));
    }
    if !ex["budget"].is_null() {
        x = x.budget(Arc::new(Budget::new(ex["budget"].clone())));
    }
    if let Some(t) = ex["loop_threshold"].as_u64() {
        x = x.loop_guard(Arc::new(LoopGuard::new(t as u32)));
    }
    let tool = ex["tool"].as_str().unwrap();
    let mut out = Vec::new();
    for call in sc["calls"].as_array().unwrap() {
        clock.now.fetch_add(call["before_ms"].as_i64().unwrap_or(0), Ordering::SeqCst);
        *draws.lock().unwrap() = call["draws"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        decisions.lock().unwrap().clear();
        clock.sleeps.lock().unwrap().clear();
        clock.cancel_at.store(call["cancel_sleep"].as_u64().unwrap_or(0) as usize, Ordering::SeqCst);
        let mut outcomes: VecDeque<Value> = call["outcomes"].as_array().unwrap().iter().cloned().collect();
        let args = if call["args"].is_null() { None } else { Some(call["args"].clone()) };
        let r = x.call(tool, CallOptions { args, cancel: Some(Cancel::new()), ..Default::default() }, |_| {
            let o = outcomes.pop_front().expect("the runtime called the tool more often than the scenario scripts");
            clock.now.fetch_add(o["duration_ms"].as_i64().unwrap_or(0), Ordering::SeqCst);
            if o["error"].is_object() {
                return Err(ToolError::Envelope(serde_json::from_value::<Envelope>(o["error"].clone()).unwrap()));
            }
            Ok(o["result"].clone())
        });
        assert!(draws.lock().unwrap().is_empty(), "draws left unused");
        let b = if ex["store"] == "failing" {
            x.replica_state(tool)
        } else {
            shared.load(&format!("toolerr:breaker:{tool}")).unwrap()
        };
        let mut got = json!({
            "decisions": *decisions.lock().unwrap(),
            "sleeps_ms": *clock.sleeps.lock().unwrap(),
            "attempts": r.attempts,
            "breaker": b.map(|b| String::from_utf8(b).unwrap()),
        });
        if let Some(e) = r.error {
            got["error"] = serde_json::to_value(e).unwrap();
        }
        out.push(got);
    }
    out
}

#[test]
fn shared_scenarios() {
    let all = scenarios();
    assert!(all.len() >= 10);
    let mut failed = Vec::new();
    for (name, sc) in &all {
        let got = run_scenario(sc);
        for (i, call) in sc["calls"].as_array().unwrap().iter().enumerate() {
            if got[i] != call["expect"] {
                failed.push(format!("{name}, call {i}:\n  got  {}\n  want {}", got[i], call["expect"]));
            }
        }
    }
    assert!(failed.is_empty(), "{} scenario calls differ:\n{}", failed.len(), failed.join("\n"));
}

#[test]
fn memory_store_compare_and_swap() {
    let s = MemoryStore::new();
    assert_eq!(s.compare_and_swap("k", None, b"a").unwrap(), Cas { swapped: true, current: None });
    assert_eq!(s.compare_and_swap("k", None, b"b").unwrap(), Cas { swapped: false, current: Some(b"a".to_vec()) });
    assert_eq!(s.compare_and_swap("k", Some(b"x"), b"b").unwrap(), Cas { swapped: false, current: Some(b"a".to_vec()) });
    assert!(s.compare_and_swap("k", Some(b"a"), b"b").unwrap().swapped);
    assert_eq!(s.load("k").unwrap(), Some(b"b".to_vec()));
    assert_eq!(s.load("none").unwrap(), None);
}

#[test]
fn errors_are_classified_retried_and_serialized() {
    let calls = AtomicUsize::new(0);
    let retries = Arc::new(AtomicUsize::new(0));
    let n = retries.clone();
    let x = Executor::new().clock(Arc::new(FakeClock::default())).on_decision(move |d| {
        if d["kind"] == "retry" && d["allowed"] == true {
            n.fetch_add(1, Ordering::SeqCst);
        }
    });
    let r = x.call("search", CallOptions::default(), |_| {
        if calls.fetch_add(1, Ordering::SeqCst) < 2 {
            return Err(std::io::Error::new(std::io::ErrorKind::ConnectionReset, "connection reset by peer").into());
        }
        Ok("3 hits".to_string())
    });
    assert_eq!((r.value.as_deref(), r.attempts, retries.load(Ordering::SeqCst)), (Some("3 hits"), 3, 2));
    assert_eq!(r.outcome("toolu_1", "search").result, Some(json!({"text": "3 hits"})));

    let bad = Executor::new().call::<(), _>("search", CallOptions::default(), |_| Err(std::fmt::Error.into()));
    assert_eq!(bad.error.as_ref().unwrap().code, "TOOL_ERROR");
    let msg = &toolerr::to_anthropic(&[bad.outcome("toolu_1", "search")]).unwrap()[0];
    assert_eq!(msg.content[0].is_error, Some(true));
}

#[test]
fn an_error_message_past_the_request_limit_is_a_tool_error() {
    // Classified by its type alone (as in Python and Node), not the INVALID_INPUT of a request too long.
    let x = Executor::new().clock(Arc::new(FakeClock::default()));
    let r = x.call::<(), _>("search", CallOptions::default(), |_| {
        Err(std::io::Error::new(std::io::ErrorKind::Other, "x".repeat(33 << 20)).into())
    });
    let e = r.error.unwrap();
    assert_eq!((e.code.as_str(), e.details["tool"].as_str()), ("TOOL_ERROR", Some("search")));
}

#[test]
fn one_store_shares_the_breaker_between_executors() {
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let down = toolerr::envelope("TRANSPORT", "503", None, None, Some("tool")).unwrap();
    for _ in 0..3 {
        let x = Executor::new().store(store.clone()).retry(json!({"max_attempts": 1}));
        x.call::<(), _>("search", CallOptions::default(), |_| Err(ToolError::Envelope(down.clone())));
    }
    let r = Executor::new().store(store).call("search", CallOptions::default(), |_| Ok(1));
    assert_eq!((r.error.unwrap().code.as_str(), r.attempts), ("CIRCUIT_OPEN", 0));
}

#[test]
fn cancel_ends_a_backoff_sleep_at_once() {
    let cancel = Cancel::new();
    let c = cancel.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(30));
        c.cancel();
    });
    let start = std::time::Instant::now();
    let x = Executor::new().retry(json!({"base_ms": 60000, "cap_ms": 60000})).draw(|| 0.99);
    let r = x.call::<(), _>("search", CallOptions { cancel: Some(cancel), ..Default::default() }, |_| {
        Err(std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "connection refused").into())
    });
    t.join().unwrap();
    assert!(start.elapsed() < Duration::from_secs(5));
    assert_eq!((r.error.unwrap().code.as_str(), r.attempts), ("CANCELLED", 1));
}

#[test]
fn budget_and_loop_guard_belong_to_the_run() {
    let budget = Arc::new(Budget::new(json!({"steps": 3})));
    let x = Executor::new().budget(budget.clone()).loop_guard(Arc::new(LoopGuard::new(1)));
    let bad = toolerr::envelope("INVALID_ARGS", "bad", None, None, Some("tool")).unwrap();
    let args = |q: i32| CallOptions { args: Some(json!({ "q": q })), ..Default::default() };
    let code = |r: toolerr::runtime::CallResult<i32>| r.error.map(|e| e.code).unwrap_or_default();
    assert_eq!(code(x.call("search", args(1), |_| Err(ToolError::Envelope(bad.clone())))), "INVALID_ARGS");
    assert_eq!(code(x.call("search", args(1), |_| Err(ToolError::Envelope(bad.clone())))), "LOOP_DETECTED");
    assert_eq!(code(x.call("search", args(2), |_| Ok(1))), "");
    assert_eq!(code(x.call("search", args(3), |_| Ok(1))), "BUDGET_EXHAUSTED");
    assert_eq!(budget.state()["steps"], 3);
}

#[test]
fn a_success_decided_ahead_yields_to_a_breaker_another_call_changed() {
    // The step that asks for the call may answer on_success (docs/resilience.md,
    // "The step op"). Here another call of the same executor counts a failure
    // while this one runs, so the success decided ahead on the fresh breaker no
    // longer holds: the success goes to the core as a step and resets the count.
    let store = Arc::new(MemoryStore::new());
    let x = Executor::new().store(store.clone()).retry(json!({"max_attempts": 1}));
    let key = "toolerr:breaker:search";
    assert_eq!(x.call("search", CallOptions::default(), |_| Ok(1)).value, Some(1));
    let down = toolerr::envelope("TRANSPORT", "503", None, None, Some("tool")).unwrap();
    let counted = r#"{"failures":1,"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}"#;
    let r = x.call("search", CallOptions::default(), |_| {
        let inner = x.call::<(), _>("search", CallOptions::default(), |_| Err(ToolError::Envelope(down.clone())));
        assert_eq!(inner.error.map(|e| e.code), Some("TRANSPORT".to_string()));
        assert_eq!(String::from_utf8(store.load(key).unwrap().unwrap()).unwrap(), counted, "the other call counted its failure");
        Ok(2)
    });
    assert_eq!((r.value, r.attempts), (Some(2), 1));
    let fresh = r#"{"failures":0,"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}"#;
    assert_eq!(String::from_utf8(store.load(key).unwrap().unwrap()).unwrap(), fresh, "the success step ran and reset the count");
    assert_eq!(x.replica_state("search").as_deref(), Some(fresh.as_bytes()));

    // Another replica writing the shared breaker during the call: the same.
    let r = x.call("search", CallOptions::default(), |_| {
        let now = store.load(key).unwrap();
        assert!(store.compare_and_swap(key, now.as_deref(), counted.as_bytes()).unwrap().swapped);
        Ok(3)
    });
    assert_eq!((r.value, r.attempts), (Some(3), 1));
    assert_eq!(String::from_utf8(store.load(key).unwrap().unwrap()).unwrap(), fresh);
}

/// An error the core classifies as a timeout (its type named as tokio::time::error::Elapsed).
#[derive(Debug)]
struct Elapsed;
impl std::fmt::Display for Elapsed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("upstream timed out")
    }
}
impl std::error::Error for Elapsed {}

/// The system clock with its sleep switched off.
struct NoSleep;
impl Clock for NoSleep {
    fn now_ms(&self) -> i64 {
        toolerr::runtime::SystemClock.now_ms()
    }
    fn sleep(&self, _: u64, _: &Cancel) {}
}

const FRESH: &str = r#"{"failures":0,"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}"#;

#[test]
fn a_retried_call_is_two_crossings() {
    // A call that times out once and then succeeds, on a closed breaker with
    // no deadline, crosses into the core twice (docs/resilience.md, "Answers
    // decided ahead, chained"): its start, and its failure carrying the
    // classify request, whose cas, sleep, next call, success and that
    // success's cas come decided inside the answer. It took seven crossings
    // (six steps and a classification). The decisions are the shared scenarios'.
    let store = Arc::new(MemoryStore::new());
    let x = Executor::new().store(store.clone()).clock(Arc::new(NoSleep));
    let n = AtomicUsize::new(0);
    let flaky = |_: &toolerr::runtime::Attempt| -> Result<&str, ToolError> {
        if n.fetch_add(1, Ordering::SeqCst) % 2 == 0 {
            Err(Elapsed.into())
        } else {
            Ok("ok")
        }
    };
    assert_eq!(x.call("search", CallOptions::default(), flaky).value, Some("ok")); // the key written, counted, then reset
    let before = toolerr::crossings();
    let r = x.call("search", CallOptions::default(), flaky);
    assert_eq!((r.value, r.attempts, toolerr::crossings() - before), (Some("ok"), 2, 2));
    assert_eq!(String::from_utf8(store.load("toolerr:breaker:search").unwrap().unwrap()).unwrap(), FRESH);
    // With a timeout the answers that read the clock are left to their steps.
    let before = toolerr::crossings();
    let r = Executor::new().store(store.clone()).clock(Arc::new(NoSleep)).timeout(Duration::from_secs(60)).call("search", CallOptions::default(), flaky);
    assert_eq!((r.value, r.attempts, toolerr::crossings() - before), (Some("ok"), 2, 5));
}

/// A store of the port alone (as a Redis store is), over a MemoryStore.
struct PortStore(MemoryStore);

impl Store for PortStore {
    fn load(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.0.load(key)
    }
    fn compare_and_swap(&self, key: &str, old: Option<&[u8]>, new: &[u8]) -> Result<Cas, StoreError> {
        self.0.compare_and_swap(key, old, new)
    }
}

#[test]
fn stored_bytes_that_are_not_utf8_are_repaired_by_one_cas() {
    // A step carries the stored bytes as a JSON string (UTF-8 text only), so
    // bytes that are not UTF-8 reach the core as their text with U+FFFD; the
    // repair's compare-and-swap from that text must compare against the
    // bytes the store holds. It compared the text's UTF-8, which no store
    // held: each call lost 1,000 races (2,004 records), fell back on
    // contention and never repaired the key.
    for garbage in [&b"\xff\xfe"[..], b"{\"phase\":\"closed\xc3\"}", b"\xef\xbf\xbd\xff"] {
        assert_repaired_by_one_cas(garbage, &format!("{garbage:?}"));
    }
}

/// Stored garbage at the search tool's key, through a MemoryStore and
/// through a store of the port's own (PortStore), is repaired on the next
/// call by one compare-and-swap: two crossings, the records repair,
/// breaker, call, and a fresh state stored after.
fn assert_repaired_by_one_cas(garbage: &[u8], what: &str) {
    let key = "toolerr:breaker:search";
    for port in [false, true] {
        let mem = MemoryStore::new();
        assert!(mem.compare_and_swap(key, None, garbage).unwrap().swapped);
        let store: Arc<dyn Store> = if port { Arc::new(PortStore(mem)) } else { Arc::new(mem) };
        let kinds = Arc::new(Mutex::new(Vec::new()));
        let k = kinds.clone();
        let x = Executor::new().store(store.clone()).on_decision(move |r: &Value| k.lock().unwrap().push(r["kind"].as_str().unwrap_or_default().to_string()));
        let before = toolerr::crossings();
        let r = x.call("search", CallOptions::default(), |_| Ok::<_, ToolError>(1));
        let name = format!("{what} port={port}");
        assert_eq!((r.value, r.attempts, toolerr::crossings() - before), (Some(1), 1, 2), "{name}: {:?}", r.error);
        assert_eq!(*kinds.lock().unwrap(), ["repair", "breaker", "call"], "{name}");
        assert_eq!(store.load(key).unwrap().as_deref(), Some(FRESH.as_bytes()), "{name}");
    }
}

/// A value past the core's request limit (32 MiB), or one whose JSON
/// escapes take the request past it (17 MiB of quotes), failed every call
/// (INVALID_INPUT: the request is too long), and the key was never
/// repaired. Bytes longer than a breaker state may be (64 KiB) go as a text
/// that names their length, and the repair's compare-and-swap compares
/// against the bytes themselves.
#[test]
fn stored_bytes_longer_than_a_state_are_repaired_by_one_cas() {
    for garbage in [vec![b'x'; 40 << 20], vec![b'"'; 17 << 20], vec![0xff; (64 << 10) + 1]] {
        assert_repaired_by_one_cas(&garbage, &format!("{} bytes", garbage.len()));
    }
}

#[test]
fn answers_decided_ahead_yield_to_a_breaker_opened_meanwhile() {
    // A call whose next attempt was decided ahead of its sleep on a closed
    // breaker, while another call opens the breaker during that sleep, sends
    // its slept step after all and is refused (CIRCUIT_OPEN), as without
    // answers decided ahead.
    struct OpensDuringSleep(std::sync::OnceLock<Arc<Executor>>, AtomicUsize);
    impl Clock for OpensDuringSleep {
        fn now_ms(&self) -> i64 {
            toolerr::runtime::SystemClock.now_ms()
        }
        fn sleep(&self, _: u64, _: &Cancel) {
            if self.1.fetch_add(1, Ordering::SeqCst) == 0 {
                let other = self.0.get().unwrap().call::<(), _>("search", CallOptions::default(), |_| Err(Elapsed.into()));
                assert_eq!(other.error.map(|e| e.code).as_deref(), Some("CIRCUIT_OPEN"));
            }
        }
    }
    let clock = Arc::new(OpensDuringSleep(std::sync::OnceLock::new(), AtomicUsize::new(0)));
    let x = Arc::new(Executor::new().clock(clock.clone()));
    let _ = clock.0.set(x.clone());
    let calls = AtomicUsize::new(0);
    let r = x.call::<(), _>("search", CallOptions::default(), |_| {
        calls.fetch_add(1, Ordering::SeqCst);
        Err(Elapsed.into())
    });
    assert_eq!((r.error.map(|e| e.code).as_deref(), r.attempts, calls.load(Ordering::SeqCst)), (Some("CIRCUIT_OPEN"), 1, 1));
}

#[test]
fn a_cas_decided_ahead_to_swap_yields_to_a_write_that_won_the_race() {
    // The failure's cas comes with its swapped answer decided ahead
    // (on_swapped); when another replica writes the key first, the cas does
    // not swap, the cas step is sent, and the failure is counted on the
    // bytes that won: two failures, not the other replica's one alone.
    struct Racing(MemoryStore, std::sync::atomic::AtomicBool);
    let counted = |n: u32| format!(r#"{{"failures":{n},"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}}"#);
    impl Store for Racing {
        fn load(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
            self.0.load(key)
        }
        fn compare_and_swap(&self, key: &str, old: Option<&[u8]>, new: &[u8]) -> Result<Cas, StoreError> {
            if !self.1.swap(true, Ordering::SeqCst) {
                let now = self.0.load(key)?;
                let one = r#"{"failures":1,"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}"#;
                assert!(self.0.compare_and_swap(key, now.as_deref(), one.as_bytes())?.swapped);
            }
            self.0.compare_and_swap(key, old, new)
        }
    }
    let store = Arc::new(Racing(MemoryStore::new(), Default::default()));
    let x = Executor::new().store(store.clone()).retry(json!({"max_attempts": 1}));
    let r = x.call::<(), _>("search", CallOptions::default(), |_| Err(Elapsed.into()));
    assert_eq!((r.error.map(|e| e.code).as_deref(), r.attempts), (Some("TIMEOUT"), 1));
    assert_eq!(String::from_utf8(store.0.load("toolerr:breaker:search").unwrap().unwrap()).unwrap(), counted(2));
    assert_eq!(x.replica_state("search"), Some(counted(2).into_bytes()));
}

#[test]
fn a_failure_classified_inside_its_step_is_classify_exceptions() {
    // The failure event carries the request classify_exception sends
    // (classify); the envelope the call stops with is the one that op
    // answers, a message past the core's request limit (the step refused)
    // falling back to the type alone as before.
    let long = "x".repeat(17 << 20); // message and trace past the 32 MiB request limit
    for (message, trace) in [("upstream timed out", "upstream timed out"), ("bad value", ""), (long.as_str(), long.as_str())] {
        let want = toolerr::classify_exception("app::Elapsed", message, trace, Some("search"))
            .or_else(|_| toolerr::classify_exception("app::Elapsed", "", "", Some("search")))
            .unwrap();
        let r = Executor::new().retry(json!({"max_attempts": 1})).call::<(), _>("search", CallOptions::default(), |_| {
            Err(ToolError::Error { type_name: "app::Elapsed".into(), message: message.into(), trace: trace.into() })
        });
        assert_eq!(r.error, Some(want), "{}", &message[..message.len().min(40)]);
    }
}

/// An executor on `store` (no sleeping, the jitter drawn at 0.5) and the decision records it logs.
fn recorded(store: &Arc<MemoryStore>) -> (Executor, Arc<Mutex<Vec<Value>>>) {
    let records: Arc<Mutex<Vec<Value>>> = Arc::default();
    let r = records.clone();
    let x = Executor::new().store(store.clone()).clock(Arc::new(NoSleep)).draw(|| 0.5).on_decision(move |d| r.lock().unwrap().push(d.clone()));
    (x, records)
}

/// One call of `x` on "search" with `args` (`fail`: its first attempt times out): its
/// value, attempts, crossings into the core and the records it logged.
fn call_counted(x: &Executor, records: &Mutex<Vec<Value>>, args: Value, fail: bool) -> (Option<&'static str>, u32, u64, Vec<Value>) {
    records.lock().unwrap().clear();
    let mut n = 0;
    let before = toolerr::crossings();
    let r = x.call("search", CallOptions { args: Some(args), ..Default::default() }, |_| {
        n += 1;
        if fail && n == 1 {
            Err(Elapsed.into())
        } else {
            Ok("ok")
        }
    });
    let crossed = toolerr::crossings() - before;
    (r.value, r.attempts, crossed, std::mem::take(&mut *records.lock().unwrap()))
}

#[test]
fn a_successful_call_makes_no_crossing_once_its_start_stands() {
    // A start step asked with standing answers stands where the same start,
    // at any time and with any arguments, gets the very same bytes
    // (docs/resilience.md, "A start answer that stands"); the executor keeps
    // it per tool and applies it to the next call whose load made ahead and
    // replica hold its if_loaded, so a successful call on a fresh or absent
    // breaker crosses into the core no more (it crossed once: its start;
    // its success came decided ahead). The records logged are those the
    // start step writes: each call's are compared with the same call's on a
    // new executor (no answer kept), which sends the step.
    let store = Arc::new(MemoryStore::new());
    let key = "toolerr:breaker:search";
    let (x, records) = recorded(&store);
    let first = call_counted(&x, &records, json!({"q": 0}), false);
    assert_eq!((first.0, first.1, first.2), (Some("ok"), 1, 1), "the first call sends its start");
    assert_eq!(store.load(key).unwrap(), None, "a success on an absent breaker writes nothing");
    for i in 1..50 {
        let got = call_counted(&x, &records, json!({ "q": i }), false);
        assert_eq!((got.0, got.1, got.2), (Some("ok"), 1, 0), "call {i}: the start kept and its success decided ahead");
        assert_eq!(got.3, first.3, "call {i}: the records of the start step and its success");
    }
    let kinds: Vec<&str> = first.3.iter().map(|r| r["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["breaker", "call"]);

    // A retried call applies the kept start too: its failure is its one
    // crossing (the chained answers decided inside it), the breaker written
    // (a failure counted, then reset) and its records those of a new
    // executor's same call, which sends its start (two crossings).
    let (fresh, fresh_records) = recorded(&store);
    let want = call_counted(&fresh, &fresh_records, json!({"q": "r"}), true);
    assert_eq!((want.0, want.1, want.2), (Some("ok"), 2, 2));
    assert_eq!(store.load(key).unwrap().as_deref(), Some(FRESH.as_bytes()));
    // The store now holds a fresh breaker's bytes, not the absent one the
    // kept answer stood for, and this executor's replica has not seen them:
    // the start is sent (it changes the replica, so it does not stand), then
    // sent again (it stands, in place of the kept one), then kept.
    for (i, want_crossed) in [1, 1, 0, 0].into_iter().enumerate() {
        let got = call_counted(&x, &records, json!({ "q": i }), false);
        assert_eq!((got.0, got.2), (Some("ok"), want_crossed), "call {i} on the fresh bytes");
        assert_eq!(got.3, first.3, "call {i} on the fresh bytes: the same records");
    }
    let got = call_counted(&x, &records, json!({"q": "r"}), true);
    let (new, new_records) = recorded(&store);
    let sent = call_counted(&new, &new_records, json!({"q": "r"}), true);
    assert_eq!((got.0, got.1, got.2), (Some("ok"), 2, 1), "a retried call: its failure alone crosses");
    assert_eq!((sent.0, sent.1, sent.2), (Some("ok"), 2, 2), "a new executor sends its start");
    assert_eq!(got.3, sent.3, "the same records as when the start step is sent");
    assert_eq!(store.load(key).unwrap().as_deref(), Some(FRESH.as_bytes()));
}

/// A MemoryStore that fails while its flag (`.1`) is set.
#[derive(Default)]
struct Flaky(MemoryStore, std::sync::atomic::AtomicBool);

impl Store for Flaky {
    fn load(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        if self.1.load(Ordering::SeqCst) {
            return Err("connection refused".into());
        }
        self.0.load(key)
    }
    fn compare_and_swap(&self, key: &str, old: Option<&[u8]>, new: &[u8]) -> Result<Cas, StoreError> {
        if self.1.load(Ordering::SeqCst) {
            return Err("connection refused".into());
        }
        self.0.compare_and_swap(key, old, new)
    }
}

#[test]
fn a_start_answer_kept_yields_to_a_load_or_replica_that_moved() {
    let key = "toolerr:breaker:search";
    let store = Arc::new(Flaky::default());
    let clock = Arc::new(FakeClock::default());
    clock.now.store(1_000_000, Ordering::SeqCst);
    let x = Executor::new().store(store.clone()).clock(clock.clone()).retry(json!({"max_attempts": 1}));
    let other = Executor::new().store(store.clone()).clock(clock.clone()).retry(json!({"max_attempts": 1}));
    let down = toolerr::envelope("TRANSPORT", "503", None, None, Some("tool")).unwrap();
    let ok = |ex: &Executor| {
        let before = toolerr::crossings();
        let r = ex.call("search", CallOptions::default(), |_| Ok(1));
        (r.value, r.error.map(|e| e.code), toolerr::crossings() - before)
    };
    let fail = |ex: &Executor| {
        let before = toolerr::crossings();
        let r = ex.call::<(), _>("search", CallOptions::default(), |_| Err(ToolError::Envelope(down.clone())));
        (r.error.map(|e| e.code), toolerr::crossings() - before)
    };
    assert!(store.0.compare_and_swap(key, None, FRESH.as_bytes()).unwrap().swapped);
    // The replica saw nothing yet: the start changes it, so it does not stand.
    assert_eq!(ok(&x), (Some(1), None, 1));
    assert_eq!(ok(&x), (Some(1), None, 1), "the start that stands");
    assert_eq!(ok(&x), (Some(1), None, 0), "the start kept");

    // The replica moved: this executor counted a failure (its replica holds
    // the count), then another replica's success reset the shared breaker.
    // The load made ahead answers if_loaded again, but the replica does not:
    // the start is sent (and changes the replica, so it does not stand).
    assert_eq!(fail(&x), (Some("TRANSPORT".into()), 1), "the failure step alone crosses");
    assert_ne!(x.replica_state("search").as_deref(), Some(FRESH.as_bytes()));
    assert_eq!(ok(&other), (Some(1), None, 1));
    assert_eq!(store.0.load(key).unwrap().as_deref(), Some(FRESH.as_bytes()));
    let before = toolerr::crossings();
    let r = x.call("search", CallOptions::default(), |_| Ok::<_, ToolError>(x.replica_state("search")));
    assert_eq!(toolerr::crossings() - before, 1, "the replica moved: the start is sent");
    assert_eq!(r.value.flatten().as_deref(), Some(FRESH.as_bytes()), "the start step took the replica to the load");
    assert_eq!(ok(&x), (Some(1), None, 0), "both hold if_loaded again: the start kept");

    // Another replica sharing the store opens the breaker: the load made
    // ahead moved, the start is sent and refused, and the tool is not called.
    for _ in 0..3 {
        fail(&other);
    }
    let r = x.call("search", CallOptions::default(), |_| -> Result<i32, ToolError> { panic!("the breaker is open") });
    assert_eq!((r.error.map(|e| e.code).as_deref(), r.attempts), (Some("CIRCUIT_OPEN"), 0));

    // The breaker closes again (a fresh one written), then the store fails:
    // inside its back-off window there is no load made ahead, so the start
    // is sent; once the store is back, the kept answer holds again.
    assert!(store.0.compare_and_swap(key, store.0.load(key).unwrap().as_deref(), FRESH.as_bytes()).unwrap().swapped);
    assert_eq!(ok(&x), (Some(1), None, 1), "the load made ahead moved");
    assert_eq!(ok(&x), (Some(1), None, 0));
    // The start and the success are sent, each: the load made ahead failed,
    // then none is made inside the window (and nothing is decided ahead
    // while the replica's down_until_ms is set).
    store.1.store(true, Ordering::SeqCst);
    assert_eq!(ok(&x), (Some(1), None, 2), "the store failed");
    assert_eq!(ok(&x), (Some(1), None, 2), "inside the back-off window");
    store.1.store(false, Ordering::SeqCst);
    clock.now.fetch_add(60_000, Ordering::SeqCst);
    let calls: Vec<u64> = (0..3).map(|_| ok(&x).2).collect();
    assert_eq!(calls, [2, 0, 0], "the store is back: the start sent, then kept again");
}

#[test]
fn a_start_never_stands_with_a_timeout_budget_or_loop_guard() {
    // A start that reads the clock or the run's state (a timeout, a budget,
    // the loop guard) never stands: every successful call sends its start,
    // its success decided ahead but with the loop guard (whose state is the
    // run's), so one crossing per call, two with the loop guard.
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let base = || Executor::new().store(store.clone()).clock(Arc::new(NoSleep));
    let executors = [
        ("timeout", base().timeout(Duration::from_secs(60))),
        ("budget", base().budget(Arc::new(Budget::new(json!({"steps": 1000}))))),
        ("loop guard", base().loop_guard(Arc::new(LoopGuard::new(3)))),
    ];
    for ((name, x), want) in executors.iter().zip([1, 1, 2]) {
        let mut crossed = Vec::new();
        for i in 0..5 {
            let before = toolerr::crossings();
            let r = x.call("search", CallOptions { args: Some(json!({ "q": i })), ..Default::default() }, |_| Ok::<_, ToolError>(i));
            assert_eq!(r.value, Some(i), "{name}");
            crossed.push(toolerr::crossings() - before);
        }
        assert_eq!(crossed, [want; 5], "{name}: every start sent");
    }
}

/// Settings given to an executor after it made calls (its builder methods
/// take it and give it back, so `let x = x.timeout(..)` compiles after a
/// call) apply to its next calls of the tools it had called: it kept each
/// tool's request head, and the start answer that stood for it, from the
/// tool's first call, so a retry policy, a timeout or a key prefix set
/// after were ignored for those tools (three attempts, no deadline, the old
/// key), and a budget set after was never charged by a start that the kept
/// answer replaced (five calls on a budget of two steps all ran).
#[test]
fn settings_given_after_calls_apply_to_the_next_calls() {
    let store = Arc::new(MemoryStore::new());
    let ok = |x: &Executor| x.call("search", CallOptions::default(), |a| Ok::<_, ToolError>(a.timeout));
    let x = Executor::new().store(store.clone()).clock(Arc::new(NoSleep));
    for _ in 0..2 {
        assert_eq!(ok(&x).value, Some(None), "no deadline");
    }
    let x = x.retry(json!({"max_attempts": 1}));
    let r = x.call::<(), _>("search", CallOptions::default(), |_| Err(Elapsed.into()));
    assert_eq!((r.error.map(|e| e.code), r.attempts), (Some("TIMEOUT".to_string()), 1), "one attempt");
    let x = x.timeout(Duration::from_secs(60));
    for _ in 0..2 {
        assert!(ok(&x).value.flatten().is_some(), "the call's deadline");
    }
    let x = x.key_prefix("other:");
    let r = x.call::<(), _>("search", CallOptions::default(), |_| Err(Elapsed.into()));
    assert_eq!(r.attempts, 1);
    assert!(store.load("other:search").unwrap().is_some(), "the failure counted under the new prefix");
    let x = Executor::new().store(store.clone()).clock(Arc::new(NoSleep));
    for _ in 0..2 {
        assert!(ok(&x).value.is_some());
    }
    let x = x.budget(Arc::new(Budget::new(json!({"steps": 2}))));
    let codes: Vec<_> = (0..4).map(|_| ok(&x).error.map(|e| e.code)).collect();
    assert_eq!(codes, [None, None, Some("BUDGET_EXHAUSTED".to_string()), Some("BUDGET_EXHAUSTED".to_string())]);
}

/// A step request the core refuses (a retry policy or breaker settings it
/// cannot read, a draw outside [0, 1)) ends the call with the core's
/// error, as Python and Node raise it and Go's executor returns its own:
/// the executor panicked ("the step op refused its request").
#[test]
fn a_step_the_core_refuses_ends_the_call_with_its_error() {
    let settings = [
        Executor::new().retry(json!({"max_attempts": "three"})),
        Executor::new().breaker(json!("closed")),
        Executor::new().retry(json!({"max_attempts": 2})).draw(|| 2.0).clock(Arc::new(NoSleep)),
    ];
    for (x, attempts) in settings.iter().zip([0, 0, 1]) {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            x.call::<(), _>("search", CallOptions::default(), |_| Err(Elapsed.into()))
        }))
        .expect("no panic");
        let e = r.error.expect("the core's error");
        assert_eq!((e.code.as_str(), r.attempts), ("INVALID_INPUT", attempts), "{}", e.message);
    }
}

#[test]
fn answers_decided_ahead_for_a_key_that_holds_nothing_are_applied() {
    // An answer decided ahead for a key that holds nothing comes with
    // if_loaded null (a success on an absent breaker, the first failure's
    // cas from no bytes). serde reads a null RawValue member as None, as it
    // reads an absent one, and the executor took None for "not an answer
    // decided ahead": each was sent as a step. A successful call on a new
    // key took two crossings instead of one, and a retried one three instead of two.
    let store = Arc::new(MemoryStore::new());
    let x = Executor::new().store(store.clone()).clock(Arc::new(NoSleep));
    let before = toolerr::crossings();
    assert_eq!(x.call("search", CallOptions::default(), |_| Ok::<_, ToolError>(1)).value, Some(1));
    assert_eq!(toolerr::crossings() - before, 1, "the start, its success decided ahead");
    assert_eq!(store.load("toolerr:breaker:search").unwrap(), None, "nothing written");
    let mut n = 0;
    let before = toolerr::crossings();
    let r = x.call("other", CallOptions::default(), |_| {
        n += 1;
        if n == 1 {
            Err(Elapsed.into())
        } else {
            Ok("ok")
        }
    });
    assert_eq!((r.value, r.attempts, toolerr::crossings() - before), (Some("ok"), 2, 2));
    assert_eq!(String::from_utf8(store.load("toolerr:breaker:other").unwrap().unwrap()).unwrap(), FRESH);
}

/// An error whose source chain names the transport failure (as reqwest's
/// "error sending request" over hyper's "tcp connect error: Connection
/// refused" does) is TRANSPORT, retryable: the core reads the "Caused by:"
/// chain the runtime sends. It was TOOL_ERROR, not retryable, before.
#[test]
fn an_error_caused_by_a_refused_connection_is_transport() {
    #[derive(Debug)]
    struct SendError(std::io::Error);
    impl std::fmt::Display for SendError {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("error sending request for url (http://127.0.0.1:1/search)")
        }
    }
    impl std::error::Error for SendError {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }
    let x = Executor::new().retry(json!({"max_attempts": 1}));
    let r = x.call("search", CallOptions::default(), |_| -> Result<(), ToolError> {
        Err(SendError(std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "tcp connect error: Connection refused (os error 111)")).into())
    });
    let e = r.error.expect("a failure");
    assert_eq!((e.code.as_str(), e.retryable), ("TRANSPORT", true), "{}", e.message);
    assert_eq!(e.details["cause"], "connection_refused");
    assert_eq!(e.message, "The search tool could not connect: the connection was refused; retry later.");
}

/// A cause's message is read as its first line, at most 4,096 characters,
/// as the Node binding reads an Error.cause: a cause of 33 MiB took the
/// request past the core's 32 MiB limit, classify_error returned
/// INVALID_INPUT and the executor classified the error by its type alone
/// (TOOL_ERROR, its refused connection dropped). A Display that returns an
/// error made `to_string` panic in classify_error and in ToolError::from; a
/// message that writes on past the request limit is stopped there.
#[test]
fn a_cause_too_long_or_failing_to_print_is_read_as_far_as_it_goes() {
    #[derive(Debug)]
    struct Outer(Inner);
    #[derive(Debug)]
    struct Inner(usize, bool);
    impl std::fmt::Display for Outer {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("error sending request")
        }
    }
    impl std::fmt::Display for Inner {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("tcp connect error: Connection refused (os error 111)")?;
            for _ in 0..self.0 {
                f.write_str(&"x".repeat(1 << 20))?;
            }
            if self.1 { Err(std::fmt::Error) } else { f.write_str("\nsecond line") }
        }
    }
    impl std::error::Error for Outer {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }
    impl std::error::Error for Inner {}
    for (mib, fails) in [(33, false), (0, true), (33, true)] {
        let err = Outer(Inner(mib, fails));
        let e = toolerr::classify_error(&err, Some("search")).expect("classified");
        assert_eq!((e.code.as_str(), e.details["cause"].as_str()), ("TRANSPORT", Some("connection_refused")), "{mib} MiB, fails {fails}");
        let ToolError::Error { trace, .. } = ToolError::from(Outer(Inner(mib, fails))) else { panic!("an error") };
        assert_eq!(trace.len(), "error sending request\n\nCaused by:\n    ".len() + if mib == 0 { 52 } else { 4096 });
    }
    // The error's own message is stopped at the request limit (one that wrote without end never returned).
    let ToolError::Error { message, .. } = ToolError::from(Inner(64, false)) else { panic!("an error") };
    assert_eq!(message.len(), 32 << 20);
    let r = Executor::new().retry(json!({"max_attempts": 1})).call("search", CallOptions::default(), |_| -> Result<(), ToolError> { Err(Inner(64, true).into()) });
    assert_eq!(r.error.expect("a failure").code, "TOOL_ERROR");
}

/// An error whose source is itself (a cycle): each reading of its chain
/// follows it at most 8 causes deep, as the Node binding's Error.cause
/// chain. Unbounded, the chain was printed until memory ran out (here the
/// error ends its own cycle after 10,000 sources, so the test fails rather
/// than hangs: the trace held 10,000 causes).
#[test]
fn a_cause_chain_that_loops_is_read_at_most_8_causes_deep() {
    #[derive(Debug)]
    struct Looping(AtomicUsize);
    impl std::fmt::Display for Looping {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("connect error: Connection refused")
        }
    }
    impl std::error::Error for Looping {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            (self.0.fetch_add(1, Ordering::Relaxed) < 10_000).then_some(self as &(dyn std::error::Error + 'static))
        }
    }
    let err = Looping(AtomicUsize::new(0));
    let ToolError::Error { trace, .. } = ToolError::from(Looping(AtomicUsize::new(0))) else { panic!("an error") };
    assert_eq!(trace.matches("Caused by:").count(), 8, "{}", &trace[..trace.len().min(300)]);
    let e = toolerr::classify_error(&err, Some("search")).unwrap();
    assert_eq!(err.0.load(Ordering::Relaxed), 8);
    assert_eq!((e.code.as_str(), e.details["cause"].as_str()), ("TRANSPORT", Some("connection_refused")));
}

/// A draw outside [0, 1) (a NaN, an infinity: serde_json writes them as
/// null) is refused by the step op in the words the Python and Node
/// executors give: "event.draw: is required: a uniform random number in [0, 1)".
#[test]
fn a_draw_outside_0_1_is_refused_in_the_words_of_every_executor() {
    for draw in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1.5, -0.1] {
        let x = Executor::new().draw(move || draw);
        let r = x.call("search", CallOptions::default(), |_| -> Result<(), ToolError> {
            Err(std::io::Error::new(std::io::ErrorKind::ConnectionReset, "connection reset by peer").into())
        });
        let e = r.error.expect("refused");
        assert_eq!((e.code.as_str(), e.message.as_str()), ("INVALID_INPUT", "toolerr: event.draw: is required: a uniform random number in [0, 1)."), "{draw}");
    }
}

/// A zero timeout or store back-off and a loop guard of threshold 0 reach
/// the core, which refuses them at their path, the tool never called (before:
/// 0 ms became 1 ms by `.max(1)`, and a threshold of 0 was left out: the default 3).
#[test]
fn bad_numeric_options_reach_the_core_and_are_invalid_input() {
    let cases: Vec<(Executor, &str)> = vec![
        (Executor::new().timeout(Duration::ZERO), "timeout_ms"),
        (Executor::new().store_backoff(Duration::ZERO), "store_backoff_ms"),
        (Executor::new().loop_guard(Arc::new(LoopGuard::new(0))), "loop.threshold"),
        (Executor::new().budget(Arc::new(Budget::new(json!({"steps": -1})))), "budget.limits.steps"),
    ];
    for (x, path) in cases {
        let calls = AtomicUsize::new(0);
        let r = x.call("search", CallOptions::default(), |_| -> Result<(), ToolError> {
            calls.fetch_add(1, Ordering::Relaxed);
            Ok(())
        });
        let e = r.error.expect("refused");
        assert_eq!((e.code.as_str(), e.details["path"].as_str()), ("INVALID_INPUT", Some(path)), "{}", e.message);
        assert_eq!(calls.load(Ordering::Relaxed), 0, "{path}");
    }
}

/// The longest Duration is the longest bound the core takes (2^53 ms), not
/// a wrapped 2^64 - 1 ms that it refused.
#[test]
fn the_longest_timeout_saturates_and_is_taken() {
    for x in [Executor::new().timeout(Duration::MAX), Executor::new().store_backoff(Duration::MAX)] {
        let r = x.call("search", CallOptions::default(), |_| -> Result<u8, ToolError> { Ok(7) });
        assert!(r.error.is_none(), "{:?}", r.error);
        assert_eq!(r.value, Some(7));
    }
}
