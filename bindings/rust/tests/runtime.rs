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
