//! Two replicas share one breaker through Redis: replica A's failures open it, replica B finds it open.
//! Feature `redis`: `cargo add --path toolerr-<version> --features redis`.
use serde_json::json;
use std::cell::Cell;
use std::sync::Arc;
use toolerr::redis_store::RedisStore;
use toolerr::runtime::{CallOptions, Executor, ToolError};
use toolerr::ClassifyOptions;

fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let url = std::env::args().nth(1).ok_or("usage: redis_example REDIS_URL (e.g. redis://127.0.0.1:6379/0)")?;
    let calls = Cell::new(0);
    let search = |_: &_| -> Result<(), ToolError> { // the search service is down: every call gets a 503
        calls.set(calls.get() + 1);
        let opts = ClassifyOptions { tool: Some("search".into()), ..Default::default() };
        Err(ToolError::Envelope(toolerr::classify_http(503, &[], None, &opts)?))
    };
    let prefix = format!("example:{}:", std::process::id()); // a fresh breaker per run; the replicas of one service share one prefix
    let a = Executor::new().store(Arc::new(RedisStore::open(&url)?)).key_prefix(&prefix).retry(json!({"max_attempts": 1}));
    let b = Executor::new().store(Arc::new(RedisStore::open(&url)?)).key_prefix(&prefix).retry(json!({"max_attempts": 1}));
    for i in 1..=3 { // 3 counted failures open the breaker (the default failure_threshold)
        let r = a.call("search", CallOptions::default(), search);
        println!("replica A, call {i}: {}", r.error.map(|e| e.code).unwrap_or_default());
    }
    let r = b.call("search", CallOptions::default(), search); // refused without calling it
    println!("replica B: {} - the tool ran {} times", r.error.map(|e| e.code).unwrap_or_default(), calls.get());
    Ok(())
}
