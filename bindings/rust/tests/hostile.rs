//! Hostile input: a request over the core's 32 MiB limit (core.MaxRequestBytes)
//! is refused by its length alone, never written into one more buffer first,
//! as the Python (invoke_length) and Node (toolerr_invoke(0, n)) bindings do.
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use serde_json::{json, Value};

/// The system allocator, noting the largest block each thread asks for
/// (an allocation or a reallocation's new size).
struct Largest;

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize) {
    let _ = LARGEST.try_with(|c| c.set(c.get().max(size)));
}

unsafe impl GlobalAlloc for Largest {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static ALLOC: Largest = Largest;

/// The largest block this thread asked for while `f` ran, and what `f` gave.
fn largest<T>(f: impl FnOnce() -> T) -> (usize, T) {
    LARGEST.with(|c| c.set(0));
    let r = f();
    (LARGEST.with(|c| c.get()), r)
}

const LIMIT: usize = 32 << 20;

#[test]
fn a_transcript_text_over_32_mib_is_refused_before_the_request_is_written() {
    let text = format!("[{}]", " ".repeat(LIMIT));
    let framed = |head: &str| head.len() + text.len() + format!(",\"raw_len\":{}}}", text.len()).len();
    let cases: [(&str, usize, Box<dyn Fn() -> toolerr::Result<Value>>); 2] = [
        (
            "convert_json_as",
            framed(r#"{"from":"openai-chat","op":"convert","to":"anthropic","messages":"#),
            Box::new(|| toolerr::convert_json_as::<Value>(&text, "openai-chat", "anthropic", json!({}))),
        ),
        (
            "check_body",
            framed(r#"{"format":"openai-chat","op":"check","body":"#),
            Box::new(|| toolerr::check_body("openai-chat", toolerr::Transcript::Json(&text), json!({}))),
        ),
    ];
    for (name, want, call) in cases {
        let (peak, r) = largest(call);
        let e = r.expect_err(name).envelope;
        assert_eq!(e.code, "INVALID_INPUT", "{name}: {e:?}");
        assert_eq!(e.details["bound"], "request_bytes", "{name}: {e:?}");
        assert_eq!(e.details["count"], json!(want), "{name}: the framed request's length");
        assert!(peak < 1 << 20, "{name}: a block of {peak} bytes was allocated (the request written out)");
    }
}

#[test]
fn a_transcript_text_at_the_limit_is_still_sent() {
    // One byte under the refusal: the same framing, sent and read by the core
    // (not refused by its length), so the length counted is the one written.
    let head = r#"{"format":"openai-chat","op":"check","body":"#;
    let n = LIMIT - head.len() - ",\"raw_len\":}".len() - 8; // 8 digits of raw_len
    let text = format!("{{\"messages\":[]{}}}", " ".repeat(n - "{\"messages\":[]}".len()));
    assert_eq!(text.len(), n);
    let r = toolerr::check_body("openai-chat", toolerr::Transcript::Json(&text), json!({}));
    if let Err(e) = &r {
        assert_ne!(e.envelope.details["bound"], "request_bytes", "{:?}", e.envelope);
    }
}

/// An option naming a member the binding writes itself (`op`, `raw_len`,
/// the function's own `format`/`from`/`to`, breaker's `state`/`event`/
/// `now_ms`) is refused with `details.path` naming it, never a silently
/// different request (before, `check(.., json!({"op": "version"}))` ran the
/// version op), as the Python and Node bindings refuse it.
#[test]
fn an_option_cannot_replace_a_member_the_binding_writes() {
    let msgs = [json!({"role": "user", "content": "hi"})];
    let cases: Vec<(&str, toolerr::Result<Value>)> = vec![
        ("op", toolerr::check("openai-chat", &msgs, json!({"op": "version"}))),
        ("raw_len", toolerr::repair("openai-chat", &msgs, json!({"raw_len": 3}))),
        ("format", toolerr::trim("openai-chat", &msgs, json!({"format": "anthropic"}))),
        ("to", toolerr::convert(&msgs, "openai-chat", "anthropic", json!({"to": "gemini"}))),
        ("op", toolerr::loop_guard(json!({"op": "version"}))),
        ("now_ms", toolerr::breaker(None, "allow", 1, json!({"now_ms": 2}))),
    ];
    for (name, got) in cases {
        let e = got.expect_err(name);
        assert_eq!(e.envelope.code, "INVALID_INPUT", "{name}");
        assert_eq!(e.envelope.details["path"], json!(name), "{name}");
    }
    // The same calls without the clashing option are answered.
    let findings = toolerr::check("openai-chat", &msgs, json!({})).expect("check");
    assert!(findings.get("findings").is_some(), "{findings}");
    let state = toolerr::breaker(None, "allow", 1, json!({})).expect("breaker");
    assert_eq!(state["allowed"], json!(true), "{state}");
}

/// A misspelled option is refused with `details.path` naming it, where the
/// core dropped it and answered with the option's default.
#[test]
fn a_misspelled_option_is_refused_by_name() {
    let msgs = [json!({"role": "user", "content": "hi"})];
    let cases: Vec<(&str, toolerr::Result<Value>)> = vec![
        ("id_rule", toolerr::check("openai-chat", &msgs, json!({"id_rule": "anthropic"}))),
        ("max_message", toolerr::trim("openai-chat", &msgs, json!({"max_message": 1}))),
        ("modle", toolerr::convert(&msgs, "openai-chat", "anthropic", json!({"modle": "gpt-4o"}))),
        ("settngs", toolerr::breaker(None, "allow", 1, json!({"settngs": {}}))),
    ];
    for (name, got) in cases {
        let e = got.expect_err(name);
        assert_eq!(e.envelope.code, "INVALID_INPUT", "{name}");
        assert_eq!(e.envelope.details["path"], json!(name), "{name}");
        assert!(e.envelope.message.contains("is not a known member"), "{name}: {}", e.envelope.message);
    }
}
