//! toolerr::redis_store on a real redis-server started on a free loopback
//! port (stopped after, by pid). Feature `redis`.
#![cfg(feature = "redis")]
use serde_json::Value;
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use toolerr::redis_store::{RedisStore, CAS_SCRIPT};
use toolerr::runtime::{CallOptions, Executor, Store, ToolError};
use toolerr::Envelope;

struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = Command::new("kill").args(["-CONT", &self.child.id().to_string()]).status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn server() -> Option<Server> {
    if Command::new("redis-server").arg("--version").stdout(Stdio::null()).status().is_err() {
        assert!(std::env::var_os("CI").is_none(), "redis-server not found under CI: run scripts/setup-redis.sh");
        eprintln!("skipped: redis-server not found (scripts/setup-redis.sh)");
        return None;
    }
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let dir = std::env::temp_dir().join(format!("toolerr-redis-{port}"));
    std::fs::create_dir_all(&dir).unwrap();
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir"])
        .arg(&dir)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let url = format!("redis://127.0.0.1:{port}/0");
    let s = RedisStore::open(&url).unwrap();
    let t0 = Instant::now();
    while s.load("ping").is_err() {
        assert!(t0.elapsed() < Duration::from_secs(10), "redis-server did not answer");
        std::thread::sleep(Duration::from_millis(20));
    }
    Some(Server { child, url })
}

#[test]
fn script_is_the_go_one() {
    let go = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../redisstore/cas.lua");
    if let Ok(b) = std::fs::read(go) {
        assert_eq!(CAS_SCRIPT.as_bytes(), b.as_slice());
    }
}

#[test]
fn compare_and_swap_and_sharing() {
    let Some(srv) = server() else { return };
    let s = RedisStore::with_timeout(&srv.url, Duration::from_secs(1)).unwrap();
    assert_eq!(s.load("k").unwrap(), None);
    assert!(!s.compare_and_swap("k", Some(b"x"), b"a").unwrap().swapped);
    assert!(s.compare_and_swap("k", None, b"a").unwrap().swapped);
    assert_eq!(s.compare_and_swap("k", None, b"b").unwrap().current.as_deref(), Some(&b"a"[..]));
    assert_eq!(s.compare_and_swap("k", Some(b"z"), b"b").unwrap().current.as_deref(), Some(&b"a"[..]));
    assert!(s.compare_and_swap("k", Some(b"a"), b"b").unwrap().swapped);
    assert_eq!(s.load("k").unwrap().as_deref(), Some(&b"b"[..]));

    let env = || Envelope {
        code: "TRANSPORT".into(),
        message: "The tool is unavailable.".into(),
        retryable: true,
        details: Default::default(),
        source: "tool".into(),
    };
    for _ in 0..3 {
        let x = Executor::new()
            .store(Arc::new(RedisStore::with_timeout(&srv.url, Duration::from_secs(1)).unwrap()))
            .retry(serde_json::json!({"max_attempts": 1}));
        let _ = x.call("rust-shared", CallOptions::default(), |_| Err::<(), _>(ToolError::Envelope(env())));
    }
    let x = Executor::new().store(Arc::new(RedisStore::with_timeout(&srv.url, Duration::from_secs(1)).unwrap()));
    let mut calls = 0;
    let r = x.call("rust-shared", CallOptions::default(), |_| {
        calls += 1;
        Ok::<(), ToolError>(())
    });
    assert_eq!(r.error.map(|e| e.code), Some("CIRCUIT_OPEN".to_string()));
    assert_eq!(calls, 0);
}

#[test]
fn paused_server_costs_one_deadline_per_window() {
    let Some(srv) = server() else { return };
    let kinds = Arc::new(Mutex::new(Vec::<String>::new()));
    let k = kinds.clone();
    let x = Executor::new()
        .store(Arc::new(RedisStore::with_timeout(&srv.url, Duration::from_millis(30)).unwrap()))
        .store_backoff(Duration::from_millis(300))
        .on_decision(move |r: &Value| k.lock().unwrap().push(r["kind"].as_str().unwrap_or_default().to_string()));
    // Warmed until one call is answered by the store: on a loaded machine a
    // 30 ms deadline can be missed, and that call's fallback opens a back-off
    // window in which the measured call would never ask the paused server.
    for i in 0.. {
        kinds.lock().unwrap().clear();
        assert!(x.call("paused", CallOptions::default(), |_| Ok::<(), ToolError>(())).error.is_none());
        if !kinds.lock().unwrap().iter().any(|k| k == "fallback") {
            break;
        }
        assert!(i < 20, "the store missed its 30 ms deadline on 20 calls in a row");
        std::thread::sleep(Duration::from_millis(350));
    }
    let pid = srv.child.id().to_string();
    Command::new("kill").args(["-STOP", &pid]).status().unwrap();
    let t0 = Instant::now();
    assert!(x.call("paused", CallOptions::default(), |_| Ok::<(), ToolError>(())).error.is_none());
    let first = t0.elapsed();
    let t0 = Instant::now();
    for _ in 0..50 {
        assert!(x.call("paused", CallOptions::default(), |_| Ok::<(), ToolError>(())).error.is_none());
    }
    let rest = t0.elapsed();
    Command::new("kill").args(["-CONT", &pid]).status().unwrap();
    assert!(first >= Duration::from_millis(25) && first < Duration::from_millis(300), "{first:?}");
    assert!(rest < Duration::from_millis(200), "{rest:?}");
}

/// A store that has had no answer from Redis yet gives a new connection
/// `DEFAULT_CONNECT_TIMEOUT` (500 ms), not the 50 ms deadline: a fresh
/// replica's first connect on a loaded machine missed 50 ms and it decided
/// alone from a closed breaker (Go's TestExecutor_sharedBreaker failed so).
/// Once Redis has answered, a paused server costs the store's deadline.
#[test]
fn a_fresh_store_waits_the_connect_deadline_then_its_own() {
    use toolerr::redis_store::{DEFAULT_CONNECT_TIMEOUT, DEFAULT_TIMEOUT};
    let Some(srv) = server() else { return };
    let s = RedisStore::open(&srv.url).unwrap();
    let pid = srv.child.id().to_string();
    Command::new("kill").args(["-STOP", &pid]).status().unwrap();
    let t0 = Instant::now();
    assert!(s.load("k").is_err());
    let first = t0.elapsed();
    Command::new("kill").args(["-CONT", &pid]).status().unwrap();
    assert!(first >= DEFAULT_CONNECT_TIMEOUT && first < DEFAULT_CONNECT_TIMEOUT + Duration::from_millis(400), "{first:?}");
    assert_eq!(s.load("k").unwrap(), None);
    Command::new("kill").args(["-STOP", &pid]).status().unwrap();
    let t0 = Instant::now();
    assert!(s.load("k").is_err());
    let answered = t0.elapsed();
    Command::new("kill").args(["-CONT", &pid]).status().unwrap();
    assert!(answered >= DEFAULT_TIMEOUT && answered < Duration::from_millis(300), "{answered:?}");
}

/// A list, hash or set at a breaker's key (GET answers WRONGTYPE) reads as
/// `WRONG_TYPE_STATE`, the text cas.lua compares it as (Go:
/// `redisstore.WrongTypeState`), so the executor repairs the key as it
/// repairs bytes that are not a state. Before, every load and
/// compare-and-swap on it failed: a store_error each back-off window,
/// forever, and the window left the store alone for every other tool too.
#[test]
fn a_key_of_another_redis_type_is_repaired() {
    use toolerr::redis_store::WRONG_TYPE_STATE;
    let Some(srv) = server() else { return };
    assert!(CAS_SCRIPT.contains(&format!("'{WRONG_TYPE_STATE}'")));
    let mut admin = redis::Client::open(srv.url.as_str()).unwrap().get_connection().unwrap();
    let fresh = r#"{"failures":0,"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}"#;
    let s = Arc::new(RedisStore::with_timeout(&srv.url, Duration::from_secs(1)).unwrap());
    for put in ["RPUSH", "HSET", "SADD"] {
        let _: () = redis::cmd("DEL").arg("toolerr:breaker:typed").arg("toolerr:breaker:other").query(&mut admin).unwrap();
        let mut c = redis::cmd(put);
        c.arg("toolerr:breaker:typed").arg("a");
        if put == "HSET" {
            c.arg("b");
        }
        let _: i64 = c.query(&mut admin).unwrap();
        assert_eq!(s.load("toolerr:breaker:typed").unwrap().as_deref(), Some(WRONG_TYPE_STATE.as_bytes()), "{put}");
        let cas = s.compare_and_swap("toolerr:breaker:typed", Some(b"x"), b"y").unwrap();
        assert_eq!(cas.current.as_deref(), Some(WRONG_TYPE_STATE.as_bytes()));
        let kinds = Arc::new(Mutex::new(Vec::<String>::new()));
        let k = kinds.clone();
        let x = Executor::new().store(s.clone()).retry(serde_json::json!({"max_attempts": 1})).on_decision(move |r: &Value| {
            let kind = r["kind"].as_str().unwrap_or_default();
            if kind == "repair" || kind == "fallback" {
                k.lock().unwrap().push(kind.to_string());
            }
        });
        assert!(x.call("typed", CallOptions::default(), |_| Ok::<(), ToolError>(())).error.is_none());
        assert_eq!(s.load("toolerr:breaker:typed").unwrap().as_deref(), Some(fresh.as_bytes()));
        let failed = x.call("other", CallOptions::default(), |_| {
            Err::<(), ToolError>(ToolError::Envelope(Envelope {
                code: "TRANSPORT".into(),
                message: "The tool is unavailable.".into(),
                retryable: true,
                details: Default::default(),
                source: "tool".into(),
            }))
        });
        assert_eq!(failed.error.map(|e| e.code).as_deref(), Some("TRANSPORT"));
        assert_eq!(*kinds.lock().unwrap(), ["repair"], "{put}: the store is not in a back-off window");
        let other = s.load("toolerr:breaker:other").unwrap().unwrap();
        assert_eq!(String::from_utf8(other).unwrap(), fresh.replace(r#""failures":0"#, r#""failures":1"#));
    }
}
