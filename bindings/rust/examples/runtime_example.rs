//! Seed 000's worked example through the runtime: a search tool over HTTP answers 503, 503, then 400.
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use toolerr::runtime::{CallOptions, Executor, ToolError};
use toolerr::ClassifyOptions;

/// Calls the search service at `url` under the runtime and returns what it prints.
pub fn run(url: &str) -> Vec<String> {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let out = lines.clone();
    let seed = Mutex::new(7u64);
    let x = Executor::new()
        .retry(json!({"max_attempts": 3, "base_ms": 20}))
        .draw(move || { // a seeded draw, so the output is stable
            let mut s = seed.lock().unwrap();
            *s = *s * 16807 % 2147483647;
            *s as f64 / 2147483647.0
        })
        .on_decision(move |d| { // every decision is a record from the core
            if d["kind"] == "retry" {
                let then = if d["allowed"] == true { format!("retried silently after {} ms", d["delay_ms"]) } else { format!("not retried ({})", d["reason"].as_str().unwrap_or("")) };
                out.lock().unwrap().push(format!("attempt {}: {} -> {then}", d["attempt"], d["code"].as_str().unwrap_or("")));
            }
        });
    let r = x.call("search", CallOptions { args: Some(json!({"q": "flights", "max_results": 500})), ..Default::default() }, |_| {
        let resp = minreq::get(url).with_timeout(5).send()?;
        let body = resp.as_str()?.to_string();
        if resp.status_code >= 400 {
            let opts = ClassifyOptions { source: Some("tool".into()), tool: Some("search".into()), ..Default::default() };
            return Err(ToolError::Envelope(toolerr::classify_http(resp.status_code as u16, &[], Some(Value::String(body)), &opts)?));
        }
        Ok(serde_json::from_str::<Value>(&body)?)
    });
    let err = r.error.clone().expect("the 400 ends the call");
    let mut lines = lines.lock().unwrap().clone();
    lines.push(format!("the model gets: {} {} after {} calls", err.code, if err.retryable { "retryable" } else { "not retryable" }, r.attempts));
    let msg = &toolerr::to_anthropic(&[r.outcome("toolu_01", "search")]).expect("serializes")[0]; // or to_openai_chat, to_gemini, ...
    lines.push(format!("{} is_error: {}", msg.content[0].kind, msg.content[0].is_error == Some(true)));
    lines
}

#[allow(dead_code)]
fn main() {
    let Some(url) = std::env::args().nth(1) else {
        eprintln!("usage: runtime_example URL (a search service: bindings/python/examples/search_service.py in the clone starts one)");
        std::process::exit(2);
    };
    for line in run(&url) {
        println!("{line}");
    }
}
