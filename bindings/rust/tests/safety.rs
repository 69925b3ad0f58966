//! Safety: threads, memory over many calls, bad input.
use serde_json::json;

const REQ: &[u8] = br#"{"op":"envelope","code":"TIMEOUT","message":"Search timed out after 10 s"}"#;

#[test]
fn threads_get_identical_answers() {
    let handles: Vec<_> = (0..8).map(|i| std::thread::spawn(move || {
        (0..2000).filter(|j| {
            let e = toolerr::envelope("RATE_LIMITED", &format!("worker {i} call {j}"), None, Some(json!({"n": j})), None).unwrap();
            e.details["n"] != json!(j) || !e.message.starts_with(&format!("worker {i} call {j}"))
        }).count()
    })).collect();
    let bad: usize = handles.into_iter().map(|h| h.join().unwrap()).sum();
    assert_eq!(bad, 0);
}

fn rss_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    statm.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() * 4096
}

#[test]
fn many_calls_leave_rss_flat() {
    let n: usize = std::env::var("TOOLERR_MEMORY_CALLS").ok().and_then(|s| s.parse().ok()).unwrap_or(1_000_000);
    let want = toolerr::invoke_bytes(REQ);
    for _ in 0..50_000 {
        toolerr::invoke_bytes(REQ);
    }
    let (before, t0) = (rss_bytes(), std::time::Instant::now());
    for _ in 0..n {
        toolerr::invoke_bytes(REQ);
    }
    let grown = rss_bytes().saturating_sub(before);
    println!("{n} calls in {:.1} s, RSS grew {:.2} MB", t0.elapsed().as_secs_f64(), grown as f64 / 1e6);
    assert_eq!(toolerr::invoke_bytes(REQ), want);
    assert!(grown < 16 << 20, "RSS grew {grown} bytes");
}

#[test]
fn bad_input_is_an_err_with_the_envelope() {
    for (req, path) in [(json!({}), "op"), (json!({"op": 5}), "op"), (json!({"op": "no_such_op"}), "op"),
                        (json!({"op": "envelope", "message": "no code"}), "code")] {
        let e = toolerr::invoke(&req).unwrap_err().envelope;
        assert_eq!((e.code.as_str(), e.retryable, e.source.as_str()), ("INVALID_INPUT", false, "orchestrator"), "{req}");
        assert_eq!(e.details["path"], path, "{req}");
        assert!(!e.message.is_empty());
    }
}

#[test]
fn bad_bytes_answer_with_an_error_envelope() {
    let huge = vec![b' '; 33 << 20];
    for raw in [&b""[..], b"not json", b"[1,2]", b"\xff\xfe{", &br#"{"op":"version""#.repeat(1000), &huge] {
        assert!(toolerr::invoke_bytes(raw).starts_with(br#"{"error":{"code":"INVALID_INPUT""#));
    }
}
