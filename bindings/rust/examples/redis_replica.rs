//! The Rust replica of the cross-language and chaos tests
//! (redisstore/replica_test.go describes the protocol): toolerr's Executor
//! over toolerr::redis_store::RedisStore, driven by one JSON command per line
//! on stdin, one JSON answer per line on stdout. Feature `redis`.
use serde_json::{json, Value};
use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use toolerr::redis_store::RedisStore;
use toolerr::runtime::{CallOptions, Executor, ToolError};
use toolerr::Envelope;

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as u64
}

fn main() {
    let probes: Arc<Mutex<Vec<u64>>> = Arc::default();
    let mut x: Option<Arc<Executor>> = None;
    let mut tool = String::new();
    let stdout = std::io::stdout();
    for line in std::io::stdin().lock().lines() {
        let cmd: Value = serde_json::from_str(&line.unwrap()).unwrap();
        match cmd["cmd"].as_str() {
            Some("config") => {
                let c = &cmd["config"];
                tool = c["tool"].as_str().unwrap().to_string();
                let url = format!("redis://{}/0", c["addr"].as_str().unwrap());
                let store = RedisStore::with_timeout(&url, Duration::from_millis(c["store_timeout_ms"].as_u64().unwrap())).unwrap();
                let p = probes.clone();
                x = Some(Arc::new(
                    Executor::new()
                        .store(Arc::new(store))
                        .store_backoff(Duration::from_millis(c["store_backoff_ms"].as_u64().unwrap()))
                        .retry(json!({"max_attempts": 1}))
                        .breaker(c["settings"].clone())
                        .on_decision(move |r| {
                            if r["probe"] == true {
                                p.lock().unwrap().push(now_ms());
                            }
                        }),
                ));
                writeln!(stdout.lock(), "{}", json!({"ok": true})).unwrap();
            }
            Some("run") => {
                let x = x.clone().expect("run before config");
                probes.lock().unwrap().clear();
                let end = Instant::now() + Duration::from_millis(cmd["ms"].as_u64().unwrap());
                let fail = cmd["fail"].as_bool().unwrap_or(false);
                let hold = Duration::from_millis(cmd["hold_ms"].as_u64().unwrap_or(0));
                let gap = Duration::from_millis(cmd["gap_ms"].as_u64().unwrap_or(0));
                let calls: Arc<Mutex<Vec<Value>>> = Arc::default();
                let workers: Vec<_> = (0..cmd["workers"].as_u64().unwrap_or(1).max(1))
                    .map(|_| {
                        let (x, calls, tool) = (x.clone(), calls.clone(), tool.clone());
                        std::thread::spawn(move || {
                            while Instant::now() < end {
                                let mut spent = Duration::ZERO;
                                let mut reached = 0;
                                let start = now_ms();
                                let t0 = Instant::now();
                                let r = x.call(&tool, CallOptions::default(), |_| {
                                    reached = 1;
                                    let h0 = Instant::now();
                                    std::thread::sleep(hold);
                                    spent = h0.elapsed();
                                    if fail {
                                        return Err(ToolError::Envelope(Envelope {
                                            code: "TRANSPORT".into(),
                                            message: "The tool is unavailable (HTTP 503).".into(),
                                            retryable: true,
                                            details: serde_json::from_value(json!({"status": 503})).unwrap(),
                                            source: "tool".into(),
                                        }));
                                    }
                                    Ok(())
                                });
                                let lat = t0.elapsed().saturating_sub(spent).as_micros() as u64;
                                let code = r.error.map(|e| e.code).unwrap_or_default();
                                calls.lock().unwrap().push(json!([start, lat, reached, code]));
                                std::thread::sleep(gap);
                            }
                        })
                    })
                    .collect();
                for w in workers {
                    w.join().unwrap();
                }
                let mut calls = calls.lock().unwrap().clone();
                calls.sort_by_key(|c| c[0].as_u64());
                let p = probes.lock().unwrap().clone();
                writeln!(stdout.lock(), "{}", json!({"calls": calls, "probes": p})).unwrap();
            }
            _ => return,
        }
    }
}
