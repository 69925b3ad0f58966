//! Breakers shared between replicas through Redis (feature `redis`): the
//! runtime's [`Store`] port over the `redis` crate. `load` is a `GET`,
//! `compare_and_swap` one `EVALSHA` of the compare-and-swap script every
//! language's Redis store runs ([`CAS_SCRIPT`], `redisstore/cas.lua`, shipped
//! in the crate), with the same keys and the core's canonical state bytes, so
//! Go, Python, Node and Rust replicas share one breaker per tool. The breaker
//! logic stays in the core; Redis only makes one change atomic.
//!
//! Every operation ends within the store's deadline (50 ms by default: the
//! connect, read and write timeouts of its connections) or returns an error;
//! the executor then decides on the last state it saw and leaves the store
//! alone for its back-off window (docs/resilience.md, "Redis sick or
//! unreachable").
use crate::runtime::{Cas, Store, StoreError};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// The compare-and-swap Lua script, byte for byte the one Go embeds (same SHA-1).
pub const CAS_SCRIPT: &str = include_str!(concat!(env!("OUT_DIR"), "/cas.lua"));

/// What a key of another Redis type than a string (a list, a hash: `GET`
/// answers `WRONGTYPE`) reads as, in `load` and in cas.lua alike (Go:
/// `redisstore.WrongTypeState`): not a breaker state, so the executor
/// repairs the key instead of failing every operation on it.
pub const WRONG_TYPE_STATE: &str = "toolerr: the key holds another Redis type than a string (WRONGTYPE)";

/// The deadline of each store operation when none is given (Go: `redisstore.DefaultTimeout`).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(50);

/// The deadline of a new connection (connect and handshake) until Redis has
/// first answered the store (Go: `redisstore.DefaultConnectTimeout`): a
/// fresh store's first connect on a loaded machine can miss
/// [`DEFAULT_TIMEOUT`], and its replica then decides alone from a closed
/// breaker. After the first answer every connection has the store's
/// deadline again; until it, a Redis that cannot be reached costs a caller
/// at most this once per back-off window.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_millis(500);

/// The runtime's [`Store`] over Redis: a small pool of synchronous
/// connections (one per thread in flight), each bounded by the store's
/// deadline. A connection that failed is dropped and a new one made on the
/// next operation.
pub struct RedisStore {
    client: redis::Client,
    timeout: Duration,
    script: redis::Script,
    idle: Mutex<Vec<redis::Connection>>,
    answered: AtomicBool,
}

impl RedisStore {
    /// A store for `url` (`redis://host:6379/0`) with [`DEFAULT_TIMEOUT`]; it
    /// connects on first use.
    pub fn open(url: &str) -> Result<Self, StoreError> {
        Self::with_timeout(url, DEFAULT_TIMEOUT)
    }

    /// A store for `url` whose every operation (connect included) ends within `timeout`.
    pub fn with_timeout(url: &str, timeout: Duration) -> Result<Self, StoreError> {
        Ok(RedisStore {
            client: redis::Client::open(url)?,
            timeout: timeout.max(Duration::from_millis(1)),
            script: redis::Script::new(CAS_SCRIPT),
            idle: Mutex::new(Vec::new()),
            answered: AtomicBool::new(false),
        })
    }

    /// A new connection within the deadline ([`DEFAULT_CONNECT_TIMEOUT`]
    /// until Redis has first answered the store). The crate bounds only the
    /// TCP connect by it; the handshake that follows (its `CLIENT SETINFO`)
    /// would wait on a paused server without limit, so the connect runs on
    /// its own thread and is given up at the deadline (the thread ends when
    /// the server answers or the socket closes). The connection's reads and
    /// writes have the store's deadline.
    fn connect(&self) -> Result<redis::Connection, StoreError> {
        let (tx, rx) = std::sync::mpsc::channel();
        let (client, timeout) = (self.client.clone(), self.timeout);
        let wait = if self.answered.load(Ordering::Relaxed) { timeout } else { timeout.max(DEFAULT_CONNECT_TIMEOUT) };
        std::thread::spawn(move || {
            let c = client.get_connection_with_timeout(wait).and_then(|c| {
                c.set_read_timeout(Some(timeout))?;
                c.set_write_timeout(Some(timeout))?;
                Ok(c)
            });
            let _ = tx.send(c);
        });
        match rx.recv_timeout(wait) {
            Ok(c) => Ok(c?),
            Err(_) => Err(format!("toolerr: no connection to Redis within {wait:?}").into()),
        }
    }

    fn with_conn<T>(&self, f: impl FnOnce(&mut redis::Connection) -> redis::RedisResult<T>) -> Result<T, StoreError> {
        let conn = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut conn = match conn {
            Some(c) => c,
            None => self.connect()?,
        };
        let r = f(&mut conn);
        if r.is_ok() {
            self.idle.lock().unwrap_or_else(|e| e.into_inner()).push(conn);
        }
        if r.as_ref().map_or_else(|e| e.code().is_some(), |_| true) {
            // a reply, or an error reply of Redis's own: Redis answered
            self.answered.store(true, Ordering::Relaxed);
        }
        Ok(r?)
    }
}

impl Store for RedisStore {
    /// The bytes stored under `key` (`GET`), or `None`; [`WRONG_TYPE_STATE`]
    /// for a key of another Redis type.
    fn load(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.with_conn(|c| match redis::cmd("GET").arg(key).query::<Option<Vec<u8>>>(c) {
            Err(e) if e.code() == Some("WRONGTYPE") => Ok(Some(WRONG_TYPE_STATE.as_bytes().to_vec())),
            r => r,
        })
    }

    fn compare_and_swap(&self, key: &str, old: Option<&[u8]>, new: &[u8]) -> Result<Cas, StoreError> {
        let res = self.with_conn(|c| {
            self.script
                .key(key)
                .arg(if old.is_none() { "1" } else { "0" })
                .arg(old.unwrap_or_default())
                .arg(new)
                .invoke::<redis::Value>(c)
        })?;
        cas_reply(&res)
    }
}

/// Reads the script's reply: `[1]` swapped, `[0]` the key is absent,
/// `[0, bulk string]` the bytes stored now. Any other shape (a server not
/// running cas.lua) is an error naming the shape, never the bytes, so the
/// executor falls back and backs off.
fn cas_reply(res: &redis::Value) -> Result<Cas, StoreError> {
    use redis::Value::{Array, BulkString, Int};
    if let Array(a) = res {
        match a.as_slice() {
            [Int(1)] => return Ok(Cas { swapped: true, current: None }),
            [Int(0)] => return Ok(Cas { swapped: false, current: None }),
            [Int(0), BulkString(cur)] => return Ok(Cas { swapped: false, current: Some(cur.clone()) }),
            _ => {}
        }
    }
    Err(format!(
        "toolerr: the compare-and-swap script gave an unexpected reply {} (want [1], [0] or [0, bulk string])",
        shape(res, true)
    )
    .into())
}

/// Names a reply's type, an array's by its elements'.
fn shape(v: &redis::Value, top: bool) -> String {
    use redis::Value::*;
    match v {
        Array(a) if top && a.len() <= 4 => format!("[{}]", a.iter().map(|e| shape(e, false)).collect::<Vec<_>>().join(", ")),
        Array(a) => format!("array of {}", a.len()),
        Nil => "nil".into(),
        Int(_) => "integer".into(),
        BulkString(_) => "bulk string".into(),
        SimpleString(_) | Okay => "simple string".into(),
        ServerError(_) => "error".into(),
        Double(_) => "double".into(),
        Boolean(_) => "boolean".into(),
        Map(_) => "map".into(),
        Set(_) => "set".into(),
        _ => "other".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use redis::Value::*;

    #[test]
    fn cas_reply_reads_only_the_scripts_replies() {
        let ok = |v| cas_reply(&v).map(|c| (c.swapped, c.current)).unwrap();
        assert_eq!(ok(Array(vec![Int(1)])), (true, None));
        assert_eq!(ok(Array(vec![Int(0)])), (false, None));
        assert_eq!(ok(Array(vec![Int(0), BulkString(b"held".to_vec())])), (false, Some(b"held".to_vec())));
        let secret = || BulkString(b"secret".to_vec());
        for (reply, want) in [
            (Array(vec![Int(0), Int(5)]), "[integer, integer]"),
            (Array(vec![Int(1), secret()]), "[integer, bulk string]"),
            (Array(vec![Int(0), secret(), Nil]), "[integer, bulk string, nil]"),
            (Array(vec![Int(0), Nil]), "[integer, nil]"),
            (Array(vec![Int(2)]), "[integer]"),
            (Array(vec![BulkString(b"1".to_vec())]), "[bulk string]"),
            (Array(vec![]), "[]"),
            (Array(vec![Int(0), Array(vec![secret()])]), "[integer, array of 1]"),
            (Array(vec![Int(0), secret(), secret(), secret(), secret()]), "array of 5"),
            (secret(), "bulk string"),
            (Int(1), "integer"),
            (Nil, "nil"),
            (Array(vec![Int(0), SimpleString("secret".into())]), "[integer, simple string]"),
            (Array(vec![Int(0), Double(1.5)]), "[integer, double]"),
            (Array(vec![Int(0), Boolean(true)]), "[integer, boolean]"),
            (Map(vec![(secret(), secret())]), "map"),
        ] {
            let e = cas_reply(&reply).err().expect(want).to_string();
            assert_eq!(
                e,
                format!("toolerr: the compare-and-swap script gave an unexpected reply {want} (want [1], [0] or [0, bulk string])")
            );
            assert!(!e.contains("secret"));
        }
    }
}
