//! The toolerr runtime for Rust: run one tool call with retries, the per-tool
//! circuit breaker, the run's budget and loop guard, and get the outcome ready
//! to serialize (a failure as an [`Envelope`]).
//!
//! Every decision is the core's `step` op (docs/resilience.md, "The step
//! op"); this module only reads the clock, draws jitter, sleeps, honours a
//! [`Cancel`] token, moves bytes to and from the [`Store`]s and logs the
//! core's decision records through the `log` crate (target `toolerr`), so
//! Rust decides exactly as Go, Python and Node do (conformance/runtime/*.json
//! proves it).
//!
//! # Notes
//!
//! The runtime is synchronous. An async variant behind a cargo feature would
//! differ only in its sleep and store I/O, and would have to pick one async
//! runtime (tokio, async-std, smol) for every user; the Redis store the next
//! step needs has a synchronous client (`redis` crate), and an async program
//! can run a call on `spawn_blocking`. So none is shipped until a user needs
//! one.

use crate::{classify_exception, Envelope, Outcome};
use serde::{Deserialize, Serialize};
use serde_json::{json, value::RawValue, Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The error a [`Store`] returns.
pub type StoreError = Box<dyn std::error::Error + Send + Sync>;

/// The answer of [`Store::compare_and_swap`]: whether it stored the new
/// bytes, and when not, what the key holds now (`None`: nothing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cas {
    /// Whether the new bytes were stored.
    pub swapped: bool,
    /// When not swapped, the bytes the key holds now.
    pub current: Option<Vec<u8>>,
}

/// The byte-level compare-and-swap port every breaker store implements (Go's
/// `resilience.Store`, the Redis stores): `load` returns the bytes under a
/// key (`None`: none); `compare_and_swap` stores `new` only if the key holds
/// exactly `old` (`None`: nothing). Errors make the executor fall back to its
/// local store.
pub trait Store: Send + Sync {
    /// The bytes stored under `key`, or `None`.
    fn load(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError>;
    /// Stores `new` under `key` if it holds exactly `old`.
    fn compare_and_swap(&self, key: &str, old: Option<&[u8]>, new: &[u8]) -> Result<Cas, StoreError>;
}

/// The in-process [`Store`]: a map under a mutex.
#[derive(Debug, Default)]
pub struct MemoryStore {
    data: Mutex<HashMap<String, Vec<u8>>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Store for MemoryStore {
    fn load(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.data.lock().unwrap_or_else(|e| e.into_inner()).get(key).cloned())
    }

    fn compare_and_swap(&self, key: &str, old: Option<&[u8]>, new: &[u8]) -> Result<Cas, StoreError> {
        let mut m = self.data.lock().unwrap_or_else(|e| e.into_inner());
        match m.get_mut(key) {
            Some(cur) if Some(cur.as_slice()) == old => {
                cur.clear();
                cur.extend_from_slice(new);
            }
            None if old.is_none() => {
                m.insert(key.to_string(), new.to_vec());
            }
            cur => return Ok(Cas { swapped: false, current: cur.map(|v| v.clone()) }),
        }
        Ok(Cas { swapped: true, current: None })
    }
}

/// One agent run's step, token and wall-time budget, shared by its calls
/// (thread-safe): `limits` is `{"steps"?, "tokens"?, "wall_ms"?}` (0 or
/// absent: no limit); the core charges one step (and the call's tokens)
/// before every attempt.
#[derive(Debug)]
pub struct Budget {
    limits: Value,
    state: Mutex<Value>,
}

impl Budget {
    /// A budget with these limits, nothing spent.
    pub fn new(limits: Value) -> Self {
        Budget { limits, state: Mutex::new(Value::Null) }
    }

    /// What was spent so far: `{"steps", "tokens", "started_ms"}` (null before the first charge).
    pub fn state(&self) -> Value {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// `d` in whole milliseconds as the step op takes them: rounded up (1 µs is
/// 1 ms, never 0) and saturated at 2^53 ms, the op's largest (a
/// `Duration::MAX` is no bound the core refuses, and `as u64` wrapped it).
fn whole_ms(d: Duration) -> u64 {
    const MAX_MS: u128 = 1 << 53;
    let ms = d.as_millis() + u128::from(d.subsec_nanos() % 1_000_000 != 0);
    ms.min(MAX_MS) as u64
}

/// One agent run's loop guard (thread-safe): a call that failed `threshold`
/// times in a row with the same arguments is refused with `LOOP_DETECTED`.
/// A `threshold` of 0 is refused by the core on the first call
/// (`INVALID_INPUT`, `details.path` `loop.threshold`), as in every runtime.
#[derive(Debug)]
pub struct LoopGuard {
    threshold: u32,
    state: Mutex<Value>,
}

impl LoopGuard {
    /// A loop guard refusing after `threshold` failures in a row.
    pub fn new(threshold: u32) -> Self {
        LoopGuard { threshold, state: Mutex::new(Value::Null) }
    }
}

/// A cancellation token: [`Cancel::cancel`] ends a backoff sleep at once and
/// the call stops with `CANCELLED`. Clones share one token.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<(Mutex<bool>, Condvar)>);

impl Cancel {
    /// A token not cancelled.
    pub fn new() -> Self {
        Self::default()
    }

    /// Cancels, waking every sleeper.
    pub fn cancel(&self) {
        *self.0 .0.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.0 .1.notify_all();
    }

    /// Whether [`Cancel::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        *self.0 .0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits `d` or until cancelled; returns whether it was cancelled.
    pub fn wait(&self, d: Duration) -> bool {
        let (m, cv) = &*self.0;
        let g = m.lock().unwrap_or_else(|e| e.into_inner());
        let (g, _) = cv.wait_timeout_while(g, d, |c| !*c).unwrap_or_else(|e| e.into_inner());
        *g
    }
}

/// The clock and sleep of an executor (a fake one in tests).
pub trait Clock: Send + Sync {
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> i64;
    /// Sleeps `ms` milliseconds, or less when `cancel` is cancelled.
    fn sleep(&self, ms: u64, cancel: &Cancel);
}

/// The system clock and a sleep that [`Cancel`] interrupts.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
    }
    fn sleep(&self, ms: u64, cancel: &Cancel) {
        cancel.wait(Duration::from_millis(ms));
    }
}

/// How a tool call failed: with its own envelope, or with an error the
/// executor classifies (`classify_exception`: type name, message, source
/// chain). Any `std::error::Error` converts into it with `?`.
#[derive(Debug)]
pub enum ToolError {
    /// The tool's own envelope (e.g. from [`crate::classify_http`]).
    Envelope(Envelope),
    /// An error: its type name, message and printed source chain.
    Error {
        /// `std::any::type_name` of the error.
        type_name: String,
        /// Its `Display` text.
        message: String,
        /// The message and its "Caused by:" chain (at most 8 causes deep);
        /// "" for an error of no source.
        trace: String,
    },
}

impl<E: std::error::Error + 'static> From<E> for ToolError {
    fn from(err: E) -> Self {
        let trace = crate::cause_chain(&err);
        ToolError::Error { type_name: std::any::type_name::<E>().to_string(), message: crate::display_text(&err), trace }
    }
}

/// What the tool is told about its attempt.
#[derive(Debug, Clone)]
pub struct Attempt {
    /// 1-based attempt number.
    pub attempt: u32,
    /// What is left of the call's deadline, when it has one.
    pub timeout: Option<Duration>,
    /// The call's cancellation token.
    pub cancel: Cancel,
}

/// The facts of one call: its arguments (for the loop guard), the tokens each
/// attempt charges the budget, and its cancellation token.
#[derive(Debug, Clone, Default)]
pub struct CallOptions {
    /// The call's arguments, compared by the loop guard.
    pub args: Option<Value>,
    /// Tokens charged to the budget with each attempt.
    pub tokens: Option<u64>,
    /// Cancelling it ends a backoff sleep at once (`CANCELLED`).
    pub cancel: Option<Cancel>,
}

/// How one call ended: `value` on success, else `error` (the envelope for
/// the model); `attempts` is how many calls were made, `cause` the tool's
/// last error.
#[derive(Debug)]
pub struct CallResult<T> {
    /// The tool's value, on success.
    pub value: Option<T>,
    /// The envelope for the model, on failure.
    pub error: Option<Envelope>,
    /// How many calls of the tool were made.
    pub attempts: u32,
    /// The tool's last error, when the call failed after calling it.
    pub cause: Option<ToolError>,
}

impl<T: Serialize> CallResult<T> {
    /// The outcome to serialize: the envelope, or the value as text (a
    /// string), JSON (anything else) or empty (null).
    pub fn outcome(&self, call_id: &str, name: &str) -> Outcome {
        if let Some(e) = &self.error {
            return Outcome::failed(call_id, name, e.clone());
        }
        let v = self.value.as_ref().map(|v| serde_json::to_value(v).unwrap_or(Value::Null)).unwrap_or(Value::Null);
        let result = match v {
            Value::Null => json!({}),
            Value::String(s) => json!({ "text": s }),
            v => json!({ "json": v }),
        };
        Outcome::succeeded(call_id, name, result)
    }
}

type Draw = Box<dyn Fn() -> f64 + Send + Sync>;

/// The step op's replica state: one back-off window after a store failure,
/// and per breaker key the last state seen in the store.
#[derive(Default)]
struct Replica {
    down_until_ms: u64,
    seen: HashMap<String, Seen>,
}

/// A breaker state the replica saw: its value (the canonical bytes as a
/// string, or none) and that value's JSON literal as the core wrote it,
/// which a step request carries as it is.
#[derive(Clone)]
struct Seen {
    value: Option<String>,
    literal: String,
}

impl Default for Seen {
    fn default() -> Self {
        Seen { value: None, literal: "null".into() }
    }
}

type OnDecision = Box<dyn Fn(&Value) + Send + Sync>;

/// A step's action, as the core writes it (docs/resilience.md, "The step op").
#[derive(Clone, Deserialize)]
struct Action {
    kind: String,
    #[serde(default)]
    attempt: Option<u32>,
    #[serde(default)]
    attempts: Option<u32>,
    #[serde(default)]
    timeout_ms: Option<u64>,
    #[serde(default)]
    delay_ms: Option<u64>,
    #[serde(default)]
    key: Option<String>,
    #[serde(default)]
    old: Option<String>,
    #[serde(default)]
    new: Option<String>,
    #[serde(default)]
    error: Option<Box<Envelope>>,
}

/// The step op's response as it is read: the members the runtime uses, the
/// state, the answer decided ahead and the decision records kept as the
/// core's text (the state is sent back unread; the records are read only
/// when someone hears them).
#[derive(Deserialize)]
struct StepResponse<'a> {
    #[serde(borrow, default)]
    ok: Option<StepAnswer<'a>>,
    #[serde(default)]
    error: Option<Envelope>,
}

/// A step's answer, or an answer decided ahead inside one (on_success,
/// on_swapped, on_slept: the answer to the event its action expects, with
/// if_loaded, and the one decided ahead of its own action in turn), read in
/// the same pass as the answer it came in.
#[derive(Deserialize)]
struct StepAnswer<'a> {
    action: Action,
    #[serde(borrow)]
    decisions: &'a RawValue,
    /// An answer decided ahead's: the stored value it holds for (null,
    /// which serde reads as None as it reads an absent member: none; the
    /// core writes it in every answer decided ahead).
    #[serde(default)]
    if_loaded: Option<String>,
    #[serde(default)]
    budget: Option<Box<Value>>,
    #[serde(default, rename = "loop")]
    loop_state: Option<Box<Value>>,
    #[serde(borrow, default)]
    on_slept: Option<Box<StepAnswer<'a>>>,
    #[serde(borrow, default)]
    on_success: Option<Box<StepAnswer<'a>>>,
    #[serde(borrow, default)]
    on_swapped: Option<Box<StepAnswer<'a>>>,
    #[serde(borrow, default)]
    replica: Option<ReplicaAnswer<'a>>,
    /// A start step's, when its answer stands (the request asked `standing`).
    #[serde(default)]
    stands: Option<Stands>,
    #[serde(borrow)]
    state: &'a RawValue,
}

/// A start answer's `stands`: the stored value it stands for (null: none).
#[derive(Deserialize)]
struct Stands {
    #[serde(default)]
    if_loaded: Option<String>,
}

impl StepAnswer<'_> {
    /// The answer decided ahead this answer carries (one at most: named
    /// after the event its action expects), and those inside it in turn.
    fn ahead(&mut self) -> Option<Arc<Decided>> {
        let mut a = self.on_success.take().or(self.on_swapped.take()).or(self.on_slept.take())?;
        let ahead = a.ahead();
        Some(Arc::new(Decided {
            action: Arc::new(a.action),
            decisions: a.decisions.get().into(),
            if_loaded: a.if_loaded,
            replica: a.replica.map(|r| (r.down_until_ms, r.state.get().into())),
            state: a.state.get().into(),
            ahead,
        }))
    }
}

/// An answer decided ahead, read with the answer it came in (so a chained
/// answer's text is read once, not again at each level it is applied at),
/// its decision records kept as the core's text (read when applied, if
/// someone hears them).
struct Decided {
    action: Arc<Action>,
    decisions: Box<str>,
    /// The stored value it holds for (`None`: no key).
    if_loaded: Option<String>,
    /// The replica state it answers: `down_until_ms` and the state's JSON literal as the core wrote it.
    replica: Option<(u64, Box<str>)>,
    state: Arc<str>,
    ahead: Option<Arc<Decided>>,
}

#[derive(Deserialize)]
struct ReplicaAnswer<'a> {
    #[serde(default)]
    down_until_ms: u64,
    #[serde(borrow)]
    state: &'a RawValue,
}


/// One step's answer as the call loop uses it.
struct Step {
    action: Arc<Action>,
    /// The decision records, read only when someone hears them.
    records: Vec<Value>,
    /// The call's next state, as the core's JSON text.
    state: Arc<str>,
    /// The answer the core decided ahead for the event the action expects
    /// (on_success, on_swapped, on_slept).
    ahead: Option<Arc<Decided>>,
    /// A start step's answer that stands, to keep for the tool's next calls.
    stood: Option<Arc<Stood>>,
}

/// A start answer that stood (its `stands`; docs/resilience.md, "A start
/// answer that stands"): the core's promise that a start of the same tool
/// with the same constant request members, other `now_ms` and `args`, no
/// caller deadline, a load made ahead that answered exactly `if_loaded` and
/// the replica at `{"down_until_ms": 0, "state": if_loaded}` gets these
/// very bytes. Kept per tool and applied instead of that start step.
struct Stood {
    action: Arc<Action>,
    /// The decision records as the core's JSON text (read when applied, if someone hears them).
    decisions: String,
    state: Arc<str>,
    ahead: Option<Arc<Decided>>,
    /// The stored value it stands for (`None`: no key).
    if_loaded: Option<String>,
}

/// A tool's constant part of its step requests, and its start answer kept.
struct Tool {
    /// The tool's constant request members as JSON text without the closing brace ([`Executor::head`]).
    head: Arc<str>,
    /// The tool's breaker key ([`Executor::key`]).
    key: Arc<str>,
    /// The last value loaded for the tool and its loaded event's text.
    loaded: Arc<LastLoaded>,
    /// The last start answer of this head that stood.
    stood: Option<Arc<Stood>>,
}

/// The last value a tool's loads read (`None`: no key) and its loaded
/// event's text, so that loading the same value again does not write its
/// JSON literal again (the text depends on the value alone). One per tool,
/// not a map by key: the map's lookups (SipHash of the key, twice per
/// successful call) cost more than the text they saved.
type LastLoaded = Mutex<Option<(Option<String>, Arc<str>)>>;

/// What [`Executor::head`] gives a call of a tool: its request head, its
/// breaker key, its last loaded event and its start answer kept.
struct ToolCall {
    head: Arc<str>,
    key: Arc<str>,
    loaded: Arc<LastLoaded>,
    stood: Option<Arc<Stood>>,
}

/// What an answer decided ahead is checked against: the event that came.
enum Held {
    /// Another event (a failure, a cas that did not swap, a store's error): the step is sent.
    Other,
    /// A success or a slept: the value its load made ahead read (`None`: no key).
    Loaded(Option<String>),
    /// A cas that swapped.
    Swapped,
}

/// The kind of event the runtime sends next, for the loads made ahead.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sent {
    /// A store's answer (loaded, cas, store_error): sent as it is.
    Store,
    /// start: carries a load made ahead, and may apply the tool's start answer kept.
    Start,
    /// failure: carries a load made ahead.
    Ahead,
    /// success or slept: carries a load made ahead, and may apply the answer decided ahead.
    Success,
    /// cancelled during a sleep.
    Plain,
}

/// Runs tool calls under the core's decisions. Build it with
/// [`Executor::new`] and the setters; share it between threads.
pub struct Executor {
    shared: Option<Arc<dyn Store>>,
    memory: Arc<dyn Store>,
    replica: Mutex<Replica>,
    config: Map<String, Value>,
    tools: Mutex<HashMap<String, Tool>>,
    budget: Option<Arc<Budget>>,
    loop_guard: Option<Arc<LoopGuard>>,
    clock: Arc<dyn Clock>,
    draw: Draw,
    on_decision: Option<OnDecision>,
}

impl Default for Executor {
    fn default() -> Self {
        Self::new()
    }
}

fn random_draw() -> f64 {
    // xorshift64* seeded per call from the clock and a counter: jitter needs
    // spread, not cryptographic strength.
    use std::sync::atomic::{AtomicU64, Ordering};
    static SEED: AtomicU64 = AtomicU64::new(0);
    let t = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1);
    let mut x = t ^ SEED.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed) | 1;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
}

/// An event's text begun with `start`, with room for the load made ahead
/// that follows it (a breaker state's loaded event is about 130 bytes).
fn event_text(start: &str) -> String {
    let mut e = String::with_capacity(start.len() + 192);
    e.push_str(start);
    e
}

/// A new call's state, `null` (one text shared by every call).
fn null_state() -> Arc<str> {
    static NULL: std::sync::OnceLock<Arc<str>> = std::sync::OnceLock::new();
    NULL.get_or_init(|| "null".into()).clone()
}

/// The JSON text of a value serde_json writes (a string, an envelope, a
/// draw: none of them fails).
fn json_text<T: Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "null".into())
}

/// Stored bytes that are no UTF-8, by the text a step event carried them in
/// (see [`stored_text`]): one call's.
type Raw = HashMap<String, Vec<u8>>;

/// The most stored bytes a step event carries (64 KiB; a breaker state is
/// under 200). Longer ones, never a breaker state, go as a text that names
/// their length ([`oversized`]), the same in every binding: carried whole, a
/// value past the core's request limit (32 MiB; Redis holds up to 512 MiB)
/// made every call of the tool fail with INVALID_INPUT, on every replica,
/// and the key was never repaired.
const MAX_STORED_BYTES: usize = 64 << 10;

/// The text stored bytes longer than [`MAX_STORED_BYTES`] go as (n: their length).
fn oversized(n: usize) -> String {
    format!("toolerr: {n} stored bytes, more than a breaker state takes ({MAX_STORED_BYTES})")
}

/// Stored bytes as the text a step event carries them in. A step carries
/// them as a JSON string, which holds UTF-8 text only (RFC 8259, section
/// 8.1): bytes that are no UTF-8 go as their text with U+FFFD for each bad
/// sequence (`String::from_utf8_lossy`; the core finds no breaker state in
/// it and repairs the key), and `raw` maps that text back to the bytes, so
/// that the compare-and-swap from it ([`cas_old`]) compares against the
/// bytes the store holds, not the text's UTF-8, which no store holds.
/// So do bytes longer than [`MAX_STORED_BYTES`], as the text [`oversized`]
/// names them by.
fn stored_text(b: Vec<u8>, raw: &mut Raw) -> String {
    if b.len() > MAX_STORED_BYTES {
        let t = oversized(b.len());
        raw.insert(t.clone(), b);
        return t;
    }
    match String::from_utf8(b) {
        Ok(t) => {
            if !raw.is_empty() {
                raw.remove(&t);
            }
            t
        }
        Err(e) => {
            let b = e.into_bytes();
            let t = String::from_utf8_lossy(&b).into_owned();
            raw.insert(t.clone(), b);
            t
        }
    }
}

/// The JSON literal of stored bytes, as a step event carries them (`null`:
/// none; `raw`: see [`stored_text`]).
fn stored_literal(b: Option<Vec<u8>>, raw: &mut Raw) -> String {
    b.map(|b| json_text(&stored_text(b, raw))).unwrap_or_else(|| "null".into())
}

/// The bytes a cas action compares against: the stored bytes its old text
/// was read from (`raw`, see [`stored_text`]), else that text's UTF-8.
fn cas_old<'a>(old: Option<&'a str>, raw: &'a Raw) -> Option<&'a [u8]> {
    old.map(|t| raw.get(t).map_or(t.as_bytes(), Vec::as_slice))
}

/// Keeps the replica state a step (or an answer decided ahead) answered:
/// its `down_until_ms` and its state's JSON literal (a state it holds
/// already is not read or copied again).
fn keep_replica(replica: &mut Replica, key: &str, down_until_ms: u64, literal: &str) {
    replica.down_until_ms = down_until_ms;
    match replica.seen.get_mut(key) {
        Some(seen) if seen.literal == literal => {}
        Some(seen) => {
            seen.value = serde_json::from_str(literal).unwrap_or(None);
            seen.literal.clear();
            seen.literal.push_str(literal);
        }
        None => {
            replica.seen.insert(key.to_string(), Seen { value: serde_json::from_str(literal).unwrap_or(None), literal: literal.to_string() });
        }
    }
}

/// The loaded event of `value` (`None`: no key): the one written for the
/// last value loaded (`last`) when it is the same, else written now and
/// kept in its place.
fn loaded_event(last: &LastLoaded, value: Option<&str>) -> Arc<str> {
    let mut kept = last.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((v, event)) = kept.as_ref() {
        if v.as_deref() == value {
            return event.clone();
        }
    }
    let literal = value.map(json_text).unwrap_or_else(|| "null".into());
    let event: Arc<str> = format!(r#"{{"kind":"loaded","value":{literal}}}"#).into();
    *kept = Some((value.map(str::to_string), event.clone()));
    event
}

/// The event of a store call that failed with `e`.
fn store_error_text(e: &StoreError) -> String {
    format!(r#"{{"kind":"store_error","message":{}}}"#, json_text(&e.to_string()))
}

impl Executor {
    /// An executor with the defaults: in-memory breakers (3 failures, 30 s,
    /// 2 probes), the SDK retry policy (3 attempts, 500 ms base, 8 s cap),
    /// no timeout, budget or loop guard, the system clock, decisions logged
    /// through `log` only.
    pub fn new() -> Self {
        Executor {
            shared: None,
            memory: Arc::new(MemoryStore::new()),
            replica: Mutex::new(Replica::default()),
            config: Map::new(),
            tools: Mutex::new(HashMap::new()),
            budget: None,
            loop_guard: None,
            clock: Arc::new(SystemClock),
            draw: Box::new(random_draw),
            on_decision: None,
        }
    }

    /// The store shared between replicas (default: this executor's memory).
    pub fn store(mut self, s: Arc<dyn Store>) -> Self {
        self.shared = Some(s);
        // What this executor saw in the store it had is no state of this one.
        self.replica = Mutex::new(Replica::default());
        self.reconfigured()
    }

    /// How long a failed store is left alone (default 1 s); meanwhile the
    /// breaker decides on the last state this executor saw there. Whole ms
    /// rounded up, at most 2^53; `Duration::ZERO` is refused on the first
    /// call (`INVALID_INPUT`, `details.path` `store_backoff_ms`).
    pub fn store_backoff(mut self, d: Duration) -> Self {
        self.config.insert("store_backoff_ms".into(), whole_ms(d).into());
        self.reconfigured()
    }

    /// The breaker state of `tool` this executor last saw in its store (or,
    /// while the store fails, made from it), as its canonical bytes.
    pub fn replica_state(&self, tool: &str) -> Option<Vec<u8>> {
        let r = self.replica.lock().unwrap_or_else(|e| e.into_inner());
        r.seen.get(&self.key(tool)).and_then(|s| s.value.as_ref()).map(|s| s.as_bytes().to_vec())
    }

    fn key(&self, tool: &str) -> String {
        self.config.get("key_prefix").and_then(|v| v.as_str()).unwrap_or("toolerr:breaker:").to_string() + tool
    }

    /// What goes before the tool name in the store key (default `toolerr:breaker:`).
    pub fn key_prefix(mut self, p: &str) -> Self {
        self.config.insert("key_prefix".into(), p.into());
        self.reconfigured()
    }

    /// The retry policy `{"max_attempts", "base_ms", "cap_ms", "max_wait_ms"}`.
    pub fn retry(mut self, policy: Value) -> Self {
        self.config.insert("policy".into(), policy);
        self.reconfigured()
    }

    /// The breaker settings `{"failure_threshold", "open_ms", "success_threshold"}`.
    pub fn breaker(mut self, settings: Value) -> Self {
        self.config.insert("settings".into(), settings);
        self.reconfigured()
    }

    /// The bound on one call, retries and sleeps included. Whole ms rounded
    /// up, at most 2^53; `Duration::ZERO` is refused on the first call
    /// (`INVALID_INPUT`, `details.path` `timeout_ms`).
    pub fn timeout(mut self, d: Duration) -> Self {
        self.config.insert("timeout_ms".into(), whole_ms(d).into());
        self.reconfigured()
    }

    /// The run's budget.
    pub fn budget(mut self, b: Arc<Budget>) -> Self {
        self.budget = Some(b);
        self.reconfigured()
    }

    /// The run's loop guard.
    pub fn loop_guard(mut self, g: Arc<LoopGuard>) -> Self {
        self.loop_guard = Some(g);
        self.reconfigured()
    }

    /// The clock and sleep.
    pub fn clock(mut self, c: Arc<dyn Clock>) -> Self {
        self.clock = c;
        self
    }

    /// The jitter draw, uniform in [0, 1).
    pub fn draw(mut self, f: impl Fn() -> f64 + Send + Sync + 'static) -> Self {
        self.draw = Box::new(f);
        self
    }

    /// Receives every decision record (also logged through `log`, target `toolerr`).
    pub fn on_decision(mut self, f: impl Fn(&Value) + Send + Sync + 'static) -> Self {
        self.on_decision = Some(Box::new(f));
        self
    }

    /// This executor after a builder method changed what its step requests
    /// carry: the tools' request heads, and the start answers kept for them,
    /// are dropped (made again on each tool's next call), so that a setting
    /// given after calls applies to the next ones: a head kept from before
    /// carried the old config, and an answer that stood for it was applied
    /// with no budget charged or loop guard asked.
    fn reconfigured(mut self) -> Self {
        self.tools.get_mut().unwrap_or_else(|e| e.into_inner()).clear();
        self
    }

    fn shared_store(&self) -> &dyn Store {
        self.shared.as_deref().unwrap_or(self.memory.as_ref())
    }

    /// The constant members of `tool`'s step requests (its configuration,
    /// op, tool, on_success, on_swapped, on_slept and standing), as JSON
    /// text without the closing brace, written once per tool; its breaker
    /// key; its last loaded event; and the last start answer of the tool
    /// that stood, if any.
    fn head(&self, tool: &str) -> ToolCall {
        let mut tools = self.tools.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = tools.get(tool) {
            return ToolCall { head: t.head.clone(), key: t.key.clone(), loaded: t.loaded.clone(), stood: t.stood.clone() };
        }
        let mut base = self.config.clone();
        base.insert("op".into(), "step".into());
        base.insert("tool".into(), tool.into());
        // Every step may decide ahead the answer to the event its action
        // expects: a call's success, a cas that swapped, a sleep that ended;
        // and a start says whether its answer stands.
        for m in ["on_success", "on_swapped", "on_slept", "standing"] {
            base.insert(m.into(), true.into());
        }
        let mut text = json_text(&base);
        text.pop(); // the closing brace: the request's other members follow
        let h: Arc<str> = text.into();
        let key: Arc<str> = self.key(tool).into();
        let loaded = Arc::new(LastLoaded::default());
        tools.insert(tool.to_string(), Tool { head: h.clone(), key: key.clone(), loaded: loaded.clone(), stood: None });
        ToolCall { head: h, key, loaded, stood: None }
    }

    /// Keeps `stood`, a start answer of `tool` sent with `head`, in place of
    /// the one kept before (the last that stood is applied).
    fn keep_stood(&self, tool: &str, head: &Arc<str>, stood: Arc<Stood>) {
        let mut tools = self.tools.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = tools.get_mut(tool).filter(|t| Arc::ptr_eq(&t.head, head)) {
            t.stood = Some(stood);
        }
    }

    /// The start answer kept for the tool (`stood`), when it holds for this
    /// start: its load made ahead answered exactly `if_loaded` (`held`) and
    /// the replica is `{"down_until_ms": 0, "state": if_loaded}`. The core
    /// promised that the start step gets those very bytes then, at any time
    /// and with any `args` (docs/resilience.md, "A start answer that
    /// stands"); a start event here never carries a caller deadline (a
    /// `timeout` is the head's `timeout_ms`, and a start with one never
    /// stands), and the answer stood for this executor's head. Else None,
    /// and the start step is sent.
    fn kept(&self, key: &str, stood: &Stood, held: &Held, heard: bool) -> Option<Step> {
        match held {
            Held::Loaded(v) if *v == stood.if_loaded => {}
            _ => return None,
        }
        let replica = self.replica.lock().unwrap_or_else(|e| e.into_inner());
        if replica.down_until_ms != 0 || replica.seen.get(key).and_then(|s| s.value.as_ref()) != stood.if_loaded.as_ref() {
            return None;
        }
        drop(replica);
        Some(Step {
            action: stood.action.clone(),
            records: if heard { serde_json::from_str(&stood.decisions).unwrap_or_default() } else { Vec::new() },
            state: stood.state.clone(),
            ahead: stood.ahead.clone(),
            stood: None,
        })
    }

    /// Whether someone hears the decision records (on_decision, or a logger
    /// at any of their levels): they are read from the answer only then.
    fn listened(&self) -> bool {
        self.on_decision.is_some()
            || [log::Level::Warn, log::Level::Info, log::Level::Debug].into_iter().any(|l| log::log_enabled!(target: "toolerr", l))
    }

    /// Sends one step: the request's text is the tool's constant members,
    /// the state as the core last wrote it, the event's text, the clock,
    /// the replica's state and the run's budget and loop states (under
    /// their locks: every step is one request). Err is the envelope of a
    /// request the core refused.
    fn step(&self, head: &str, key: &str, tokens: Option<u64>, state: &str, event: &str, heard: bool) -> Result<Step, Envelope> {
        use std::fmt::Write;
        let mut bstate = self.budget.as_ref().map(|b| b.state.lock().unwrap_or_else(|e| e.into_inner()));
        let mut lstate = self.loop_guard.as_ref().map(|g| g.state.lock().unwrap_or_else(|e| e.into_inner()));
        let mut replica = self.replica.lock().unwrap_or_else(|e| e.into_inner());
        let seen = replica.seen.get(key).map(|s| s.literal.as_str()).unwrap_or("null");
        let mut req = String::with_capacity(head.len() + state.len() + event.len() + seen.len() + 96);
        let _ = write!(
            req,
            r#"{head},"state":{state},"event":{event},"now_ms":{},"replica":{{"down_until_ms":{},"state":{seen}}}"#,
            self.clock.now_ms(),
            replica.down_until_ms
        );
        if let (Some(b), Some(st)) = (&self.budget, &bstate) {
            let mut m = json!({"limits": b.limits, "state": **st});
            if let Some(t) = tokens.filter(|t| *t > 0) {
                m["charge"] = json!({ "tokens": t });
            }
            let _ = write!(req, r#","budget":{m}"#);
        }
        if let (Some(g), Some(st)) = (&self.loop_guard, &lstate) {
            let m = json!({ "threshold": g.threshold, "state": **st });
            let _ = write!(req, r#","loop":{m}"#);
        }
        req.push('}');
        crate::with_response(req.as_bytes(), |out| {
            // Text checked as UTF-8 once (serde_json's byte reader checks
            // each string and raw member again); other bytes go to the byte
            // reader, for its error.
            let read = match std::str::from_utf8(out) {
                Ok(text) => serde_json::from_str(text),
                Err(_) => serde_json::from_slice(out),
            };
            let r: StepResponse = read
                .unwrap_or_else(|e| panic!("toolerr: the step op's answer is not one ({e}): {}", String::from_utf8_lossy(out)));
            let mut a = match (r.error, r.ok) {
                (None, Some(a)) => a,
                (Some(e), _) => return Err(e),
                (None, None) => panic!("toolerr: the step op answered neither ok nor error: {}", String::from_utf8_lossy(out)),
            };
            let ahead = a.ahead();
            if let (Some(st), Some(v)) = (bstate.as_mut(), a.budget) {
                **st = *v;
            }
            if let (Some(st), Some(v)) = (lstate.as_mut(), a.loop_state) {
                **st = *v;
            }
            if let Some(v) = &a.replica {
                keep_replica(&mut replica, key, v.down_until_ms, v.state.get());
            }
            let state: Arc<str> = a.state.get().into();
            let action = Arc::new(a.action);
            let stood = a.stands.map(|s| {
                Arc::new(Stood {
                    action: action.clone(),
                    decisions: a.decisions.get().to_string(),
                    state: state.clone(),
                    ahead: ahead.clone(),
                    if_loaded: s.if_loaded,
                })
            });
            Ok(Step {
                action,
                records: if heard { serde_json::from_str(a.decisions.get()).unwrap_or_default() } else { Vec::new() },
                state,
                ahead,
                stood,
            })
        })
    }

    /// The answer the core decided ahead (`d`) for the event the last
    /// action expected (on_success, on_swapped, on_slept), when it holds:
    /// the event came as expected (`held`: a success or slept whose load
    /// made ahead read exactly `if_loaded`, a cas that swapped) and the
    /// replica is still `{"down_until_ms": 0, "state": if_loaded}`; the
    /// replica then takes the answer's, as a step's (docs/resilience.md,
    /// "The step op"). Else None, and the step is sent.
    fn decided(&self, key: &str, d: &Decided, held: &Held, heard: bool) -> Option<Step> {
        match held {
            Held::Other => return None,
            Held::Loaded(v) if *v != d.if_loaded => return None,
            _ => {}
        }
        let mut replica = self.replica.lock().unwrap_or_else(|e| e.into_inner());
        if replica.down_until_ms != 0 || replica.seen.get(key).and_then(|s| s.value.as_ref()) != d.if_loaded.as_ref() {
            return None;
        }
        if let Some((down, literal)) = &d.replica {
            keep_replica(&mut replica, key, *down, literal);
        }
        drop(replica);
        Some(Step {
            action: d.action.clone(),
            records: if heard { serde_json::from_str(&d.decisions).unwrap_or_default() } else { Vec::new() },
            state: d.state.clone(),
            ahead: d.ahead.clone(),
            stood: None,
        })
    }

    fn report(&self, rec: &Value) {
        if let Some(f) = &self.on_decision {
            f(rec);
        }
        let level = match rec["level"].as_str() {
            Some("warn") => log::Level::Warn,
            Some("info") => log::Level::Info,
            _ => log::Level::Debug,
        };
        if log::log_enabled!(target: "toolerr", level) {
            log::log!(target: "toolerr", level, "toolerr decision {}", rec);
        }
    }

    /// A load of `key`: the loaded event's text, and the value read
    /// (`None` when the store failed; then the event is a store_error;
    /// `last`: the tool's last loaded event; `raw`: the call's, see
    /// [`stored_text`]).
    fn load(&self, key: &str, last: &LastLoaded, raw: &mut Raw) -> (Arc<str>, Option<Option<String>>) {
        match self.shared_store().load(key) {
            Ok(v) => {
                let value = v.map(|b| stored_text(b, raw));
                (loaded_event(last, value.as_deref()), Some(value))
            }
            Err(e) => (store_error_text(&e).into(), None),
        }
    }

    /// The store's answer to a load or cas action, as the event's text, and
    /// what an answer decided ahead is checked against (Swapped for a cas
    /// that swapped); `raw`: the call's, see [`stored_text`].
    fn store_event(&self, a: &Action, last: &LastLoaded, raw: &mut Raw) -> (String, Held) {
        let key = a.key.as_deref().unwrap_or_default();
        if a.kind == "load" {
            return (self.load(key, last, raw).0.to_string(), Held::Other);
        }
        let cas = self.shared_store().compare_and_swap(key, cas_old(a.old.as_deref(), raw), a.new.as_deref().unwrap_or_default().as_bytes());
        match cas {
            Ok(c) => (
                format!(r#"{{"kind":"cas","swapped":{},"current":{}}}"#, c.swapped, stored_literal(c.current, raw)),
                if c.swapped { Held::Swapped } else { Held::Other },
            ),
            Err(e) => (store_error_text(&e), Held::Other),
        }
    }

    /// The failure event of `e` (without its closing brace) with its
    /// envelope: its own, or classified here (`classify_exception`; a
    /// message past the core's request limit by the type alone, as the
    /// Python and Node executors do, not as INVALID_INPUT of the request).
    fn failed(&self, e: &ToolError, tool: &str, draw: &str) -> String {
        let env = match e {
            ToolError::Envelope(env) => Ok(env.clone()),
            ToolError::Error { type_name, message, trace } => {
                classify_exception(type_name, message, trace, Some(tool)).or_else(|_| classify_exception(type_name, "", "", Some(tool)))
            }
        };
        let env = env.unwrap_or_else(|bad| bad.envelope);
        format!(r#"{{"kind":"failure","error":{},"draw":{draw}"#, json_text(&env))
    }

    /// Calls `f` for `tool` with retries, the breaker, the budget and the
    /// loop guard, and returns how the call ended; it never panics for the
    /// tool's failures.
    ///
    /// # Panics
    /// When the linked core refuses a step request (a binding and core of
    /// different ABI versions).
    pub fn call<T, F>(&self, tool: &str, opts: CallOptions, mut f: F) -> CallResult<T>
    where
        F: FnMut(&Attempt) -> std::result::Result<T, ToolError>,
    {
        let ToolCall { head, key, loaded: last, stood } = self.head(tool);
        // Whether someone hears the records, asked once for the call.
        let heard = self.listened();
        let cancel = opts.cancel.clone().unwrap_or_default();
        // The event to send, as its JSON text without the closing brace
        // (a load made ahead is appended before it) unless it is a store's
        // answer, which is complete.
        let mut event = event_text(r#"{"kind":"start""#);
        if let Some(args) = &opts.args {
            event.push_str(r#","args":"#);
            event.push_str(&json_text(args));
        }
        let mut sent = Sent::Start;
        let mut held = Held::Other; // what an answer decided ahead (or the start answer kept) is checked against
        // For a failure that carries its classify request: the draw's text,
        // to send the failure with the envelope classified here when the
        // core refuses that request.
        let mut classified: Option<String> = None;
        let mut state: Arc<str> = null_state();
        let (mut value, mut cause): (Option<T>, Option<ToolError>) = (None, None);
        let mut ahead: Option<Arc<Decided>> = None; // the answer decided ahead for the event the last action expects
        let mut raw = Raw::new(); // stored bytes that are no UTF-8, by the text the core was given (stored_text)
        let mut calls = 0; // the calls of the tool made
        loop {
            // A load made ahead, while the store is not left alone after
            // failing: the step uses it for the breaker's load, one step fewer.
            // The event's close (the load made ahead and its brace) is
            // event[close..].
            let close = event.len();
            if sent != Sent::Store {
                if sent != Sent::Plain && self.replica.lock().unwrap_or_else(|e| e.into_inner()).down_until_ms == 0 {
                    let (loaded, v) = self.load(&key, &last, &mut raw);
                    event.push_str(r#","loaded":"#);
                    event.push_str(&loaded);
                    if let (Sent::Success | Sent::Start, Some(v)) = (sent, v) {
                        held = Held::Loaded(v);
                    }
                }
                event.push('}');
            }
            // The start: the answer kept for the tool when it holds, else its
            // step (whose answer is kept if it stands); later, the answer
            // decided ahead when it holds, else the step.
            let decided = if sent == Sent::Start {
                stood.as_deref().and_then(|s| self.kept(&key, s, &held, heard))
            } else {
                ahead.as_deref().and_then(|a| self.decided(&key, a, &held, heard))
            };
            let r = match decided {
                Some(r) => r,
                None => match self.step(&head, &key, opts.tokens, &state, &event, heard) {
                    Ok(r) => r,
                    Err(refused) => {
                        // The core refused the failure's classify request: the
                        // envelope classified here (its fallbacks included).
                        let again = match (&classified, &cause) {
                            (Some(draw), Some(e)) => self.step(&head, &key, opts.tokens, &state, &(self.failed(e, tool, draw) + &event[close..]), heard),
                            _ => Err(refused),
                        };
                        match again {
                            Ok(r) => r,
                            // A request the core refuses (settings it cannot
                            // read, a draw outside [0, 1)) ends the call with
                            // the core's error, as Go's executor ends it with
                            // its own: it panicked.
                            Err(e) => return CallResult { value: None, error: Some(e), attempts: calls, cause },
                        }
                    }
                },
            };
            if let Some(s) = r.stood {
                self.keep_stood(tool, &head, s);
            }
            ahead = r.ahead;
            state = r.state;
            held = Held::Other;
            classified = None;
            for rec in &r.records {
                self.report(rec);
            }
            let a = r.action;
            (event, sent) = match a.kind.as_str() {
                "stop" => {
                    let attempts = a.attempts.unwrap_or(0);
                    return match &a.error {
                        Some(e) => CallResult { value: None, error: Some((**e).clone()), attempts, cause },
                        None => CallResult { value, error: None, attempts, cause: None },
                    };
                }
                "load" | "cas" => {
                    let (text, h) = self.store_event(&a, &last, &mut raw);
                    held = h;
                    (text, Sent::Store)
                }
                "call" => {
                    let at = Attempt { attempt: a.attempt.unwrap_or(1), timeout: a.timeout_ms.map(Duration::from_millis), cancel: cancel.clone() };
                    calls += 1;
                    match f(&at) {
                        Ok(v) => {
                            value = Some(v);
                            cause = None;
                            (event_text(r#"{"kind":"success""#), Sent::Success)
                        }
                        Err(e) => {
                            let draw = json_text(&(self.draw)());
                            let text = match &e {
                                // The request classify_exception sends, classified
                                // inside the step: one crossing instead of two.
                                // Its members in key order, as serde_json writes a map.
                                ToolError::Error { type_name, message, trace } => {
                                    classified = Some(draw.clone());
                                    format!(
                                        r#"{{"kind":"failure","classify":{{"exception":{{"message":{},"traceback":{},"type":{}}},"op":"classify_exception","tool":{}}},"draw":{draw}"#,
                                        json_text(message),
                                        json_text(trace),
                                        json_text(type_name),
                                        json_text(tool)
                                    )
                                }
                                ToolError::Envelope(_) => self.failed(&e, tool, &draw),
                            };
                            cause = Some(e);
                            (text, Sent::Ahead)
                        }
                    }
                }
                _ => {
                    self.clock.sleep(a.delay_ms.unwrap_or(0), &cancel);
                    if cancel.is_cancelled() {
                        (event_text(r#"{"kind":"cancelled""#), Sent::Plain)
                    } else {
                        (event_text(r#"{"kind":"slept""#), Sent::Success)
                    }
                }
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rounded up, never 0 for a positive Duration, saturated at 2^53 ms:
    /// `as_millis().max(1) as u64` truncated 1.5 ms to 1 and wrapped
    /// `Duration::MAX` to 2^64 - 1 ms, which the core refuses.
    #[test]
    fn whole_ms_rounds_up_and_saturates() {
        assert_eq!(whole_ms(Duration::from_nanos(1)), 1);
        assert_eq!(whole_ms(Duration::from_micros(1500)), 2);
        assert_eq!(whole_ms(Duration::from_millis(250)), 250);
        assert_eq!(whole_ms(Duration::ZERO), 0);
        assert_eq!(whole_ms(Duration::from_secs(u64::MAX / 1000)), 1 << 53);
        assert_eq!(whole_ms(Duration::MAX), 1 << 53);
    }
}
