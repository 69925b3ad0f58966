//! toolerr: tool-call errors for LLM agents, over the one Go core.
//!
//! Every function builds one Invoke request, runs it through the statically
//! linked core (`libtoolerr.a`) and returns the `"ok"` value; an
//! `{"error": envelope}` response becomes `Err(ToolerrError)`. All rules
//! (codes, retryable defaults, messages, sanitizing, wire shapes, canonical
//! JSON) live in the core, so Rust gets the same bytes as Go, Python and Node.
//! Safe to call from any thread. See docs/bindings.md and the README's
//! "Invoke reference".

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::fmt;

mod wire;
pub use wire::*;

#[cfg(feature = "egress")]
pub mod egress;

pub mod runtime;

#[cfg(feature = "redis")]
pub mod redis_store;

mod ffi {
    extern "C" {
        pub fn toolerr_abi_version() -> u32;
        pub fn toolerr_invoke_into(req: *const u8, len: usize, buf: *mut u8, size: usize, out_len: *mut usize) -> *mut u8;
        pub fn toolerr_free(buf: *mut u8);
    }
}

/// The five-field error envelope (README, "The envelope"); fields in canonical key order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Envelope {
    /// UPPER_SNAKE registry token, e.g. `RATE_LIMITED`.
    pub code: String,
    /// Machine fields (status, retry_after_seconds, tool, path, ...); empty when none.
    pub details: Map<String, Value>,
    /// One sanitized sentence for the model.
    pub message: String,
    /// May the orchestrator retry without the model?
    pub retryable: bool,
    /// `tool` or `provider`: who made the failing call. Absent: `tool` when `tool` is set, else
    /// `provider` (the core's one rule).
    pub source: String,
}

/// An `{"error": envelope}` response: a bad request (`INVALID_INPUT`, with
/// `details.path` naming the member) or an internal failure (`INTERNAL`).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolerrError {
    /// All five fields of the error.
    pub envelope: Envelope,
}

impl fmt::Display for ToolerrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.envelope.code, self.envelope.message)
    }
}

impl std::error::Error for ToolerrError {}

/// The result of every call.
pub type Result<T> = std::result::Result<T, ToolerrError>;

/// Returns the ABI version of the linked core (1).
pub fn abi_version() -> u32 {
    unsafe { ffi::toolerr_abi_version() }
}

/// Runs one request (UTF-8 JSON bytes) and returns the response bytes unchanged.
pub fn invoke_bytes(request: &[u8]) -> Vec<u8> {
    with_response(request, <[u8]>::to_vec)
}

/// The bytes each thread's responses are written into (toolerr_invoke_into):
/// one crossing per call, no allocation for a response that fits.
const SCRATCH_BYTES: usize = 64 << 10;

thread_local! {
    static SCRATCH: std::cell::RefCell<Vec<u8>> = std::cell::RefCell::new(vec![0; SCRATCH_BYTES]);
}

thread_local! {
    static CROSSINGS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many requests this thread has sent to the core so far (each one
/// crossing into it: every op, every step of the runtime), for tests and
/// benchmarks that count a call's crossings.
pub fn crossings() -> u64 {
    CROSSINGS.with(|c| c.get())
}

/// Runs one request and hands the response bytes to `read`, straight from
/// the thread's buffer (or from the core's allocation when it is longer,
/// freed after). Empty only when the core could not allocate.
fn with_response<T>(request: &[u8], read: impl FnOnce(&[u8]) -> T) -> T {
    with_response_at(request.as_ptr(), request.len(), read)
}

/// The core's request limit (core.MaxRequestBytes, toolerr.h
/// TOOLERR_MAX_REQUEST_BYTES): a longer request is refused by its length
/// alone (INVALID_INPUT, `details.bound` "request_bytes", `details.count` its
/// length), the core reading no byte of it.
pub(crate) const MAX_REQUEST_BYTES: usize = 32 << 20;

/// The core's answer to a request of `len` bytes over [`MAX_REQUEST_BYTES`],
/// handed to `read` as [`with_response`] hands it, without the bytes: the
/// core answers such a length unread (toolerr_invoke_into(NULL, len)), so a
/// caller need not write them out first.
fn with_length<T>(len: usize, read: impl FnOnce(&[u8]) -> T) -> T {
    debug_assert!(len > MAX_REQUEST_BYTES);
    with_response_at(std::ptr::null(), len, read)
}

/// [`with_response`] on `len` bytes at `req`: the caller's bytes, or null
/// with a length the core refuses unread ([`with_length`]).
fn with_response_at<T>(req: *const u8, len: usize, read: impl FnOnce(&[u8]) -> T) -> T {
    CROSSINGS.with(|c| c.set(c.get() + 1));
    SCRATCH.with(|cell| {
        let mut n = 0usize;
        // A `read` that itself calls toolerr finds the buffer taken and goes the allocating way.
        let mut guard = cell.try_borrow_mut().ok();
        let (buf, size) = match guard.as_deref_mut() {
            Some(b) => (b.as_mut_ptr(), b.len()),
            None => (std::ptr::null_mut(), 0),
        };
        unsafe {
            let p = ffi::toolerr_invoke_into(req, len, buf, size, &mut n);
            if p.is_null() {
                return read(if n == 0 { &[] } else { &guard.as_deref().expect("toolerr: answered into no buffer")[..n] });
            }
            struct Free(*mut u8);
            impl Drop for Free {
                fn drop(&mut self) {
                    unsafe { ffi::toolerr_free(self.0) }
                }
            }
            let _free = Free(p);
            read(std::slice::from_raw_parts(p, n))
        }
    })
}

#[derive(Deserialize)]
struct Response<T> {
    ok: Option<T>, // None also for "ok": null
    error: Option<Envelope>,
}

/// Runs one Invoke request (`{"op": ..., ...}`: a `Value` or any serde type
/// that writes that object) and returns its `"ok"` value as `T`.
///
/// Never panics. An answer that does not fit `T` (a `T` of your own that
/// misses a shape the core returns, or a binding and core of different ABI
/// versions) and a request serde cannot write (a map with non-string keys)
/// are errors too: an `INTERNAL` envelope from the binding, `details.reason`
/// saying what did not fit and `details.answer` holding the core's answer as
/// JSON text (cut at 4 KiB).
pub fn invoke_as<R: Serialize + ?Sized, T: DeserializeOwned>(request: &R) -> Result<T> {
    with_request(request, |req| with_response(req, |out| answer(out)))
}

/// The most a thread keeps of the bytes its requests are written into; a
/// longer request's buffer is dropped after its call.
const REQUEST_KEEP_BYTES: usize = 64 << 10;

thread_local! {
    static REQUEST: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Writes `request` as JSON into the thread's request buffer (reused, so a
/// call allocates none once it has grown) and hands the bytes to `run`; a
/// `run` that itself writes a request finds the buffer taken and gets one
/// of its own.
fn with_request<R: Serialize + ?Sized, T>(request: &R, run: impl FnOnce(&[u8]) -> Result<T>) -> Result<T> {
    with_request_bytes(|buf| serde_json::to_writer(buf, request), run)
}

/// [`with_request`] with the request written by `write` into the thread's
/// (cleared) request buffer.
fn with_request_bytes<T>(write: impl FnOnce(&mut Vec<u8>) -> serde_json::Result<()>, run: impl FnOnce(&[u8]) -> Result<T>) -> Result<T> {
    REQUEST.with(|cell| {
        let mut own = Vec::new();
        let mut guard = cell.try_borrow_mut().ok();
        let buf = guard.as_deref_mut().unwrap_or(&mut own);
        buf.clear();
        write(&mut *buf).map_err(|e| binding_error("the request cannot be written as JSON", &e, b""))?;
        let r = run(buf);
        if buf.capacity() > REQUEST_KEEP_BYTES {
            *buf = Vec::new();
        }
        r
    })
}

/// The `"ok"` value of a response as `T`, or its error (see invoke_as).
///
/// The answer's UTF-8 is checked once, over the whole answer, and serde then
/// reads it as text (`from_str`), which checks no string again: `from_slice`
/// checks every string on its own (in the (b) benchmark `from_utf8` took 0.041-0.050M
/// instructions a call that way, 0.005M this way).
fn answer<T: DeserializeOwned>(out: &[u8]) -> Result<T> {
    let text = std::str::from_utf8(out).map_err(|e| {
        let e = <serde_json::Error as serde::de::Error>::custom(e);
        binding_error("the answer does not fit the Rust type", &e, out)
    })?;
    let resp: Response<T> = serde_json::from_str(text).map_err(|e| binding_error("the answer does not fit the Rust type", &e, out))?;
    match (resp.error, resp.ok) {
        (Some(envelope), _) => Err(ToolerrError { envelope }),
        (None, Some(ok)) => Ok(ok),
        (None, None) => serde_json::from_str("null").map_err(|e| binding_error("the answer does not fit the Rust type", &e, out)),
    }
}

/// The error of a call the binding could not complete (never a rule of the core).
fn binding_error(what: &str, e: &serde_json::Error, answer: &[u8]) -> ToolerrError {
    let text = String::from_utf8_lossy(&answer[..answer.len().min(4096)]).into_owned();
    let mut details = Map::new();
    details.insert("reason".into(), Value::from(e.to_string()));
    details.insert("answer".into(), Value::from(text));
    ToolerrError {
        envelope: Envelope { code: "INTERNAL".into(), details, message: format!("toolerr (Rust binding): {what}."), retryable: false, source: "orchestrator".into() },
    }
}

/// Runs one Invoke request and returns its `"ok"` value.
pub fn invoke(request: &Value) -> Result<Value> {
    invoke_as(request)
}

/// The members of a request no caller's option or member sets: the op's
/// name, and the framing of JSON text spliced into a request (`raw_len`).
const FRAME: [&str; 2] = ["op", "raw_len"];

/// Runs op `name` with `members`, the null ones left out; a member named
/// `op` or `raw_len` is refused (see [`request_members`]).
fn op<T: DeserializeOwned>(name: &str, members: Value) -> Result<T> {
    let mut req = Map::new();
    req.insert("op".into(), name.into());
    if let Value::Object(m) = members {
        if let Some(k) = m.keys().find(|k| FRAME.contains(&k.as_str())) {
            return Err(reserved_option(name, k));
        }
        req.extend(m.into_iter().filter(|(_, v)| !v.is_null()));
    }
    invoke_as(&Value::Object(req))
}

/// Returns `{"abi", "version"}` of the linked core.
pub fn version() -> Result<Value> {
    op("version", json!({}))
}

/// Returns the code registry rows.
pub fn codes() -> Result<Vec<Value>> {
    op("codes", json!({}))
}

/// Returns an envelope for `code` with the registry defaults and sanitized text;
/// `retryable`, `details` and `source` override them when given.
pub fn envelope(code: &str, message: &str, retryable: Option<bool>, details: Option<Value>, source: Option<&str>) -> Result<Envelope> {
    op("envelope", json!({"code": code, "message": message, "retryable": retryable, "details": details, "source": source}))
}

/// Returns `value` as RFC 8785 canonical JSON text, as the core writes it.
pub fn canonicalize(value: &Value) -> Result<String> {
    let out = invoke_bytes(&serde_json::to_vec(&json!({"op": "canonicalize", "value": value})).unwrap());
    if !out.starts_with(b"{\"ok\":") {
        return op("canonicalize", json!({ "value": value })); // the error, as every op gives it
    }
    Ok(String::from_utf8_lossy(&out[6..out.len() - 1]).into_owned())
}

/// Returns `{"text", "truncated", "original_chars"?}`: secrets redacted, traces cut, capped to `max_chars`.
pub fn sanitize(text: &str, max_chars: Option<u64>) -> Result<Value> {
    op("sanitize", json!({"text": text, "max_chars": max_chars}))
}

/// Optional members of a classify request.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ClassifyOptions {
    /// `openai`, `anthropic`, `gemini`, `bedrock`, ...: how to read the body.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// `tool` or `provider`: who made the failing call. Absent: `tool` when `tool` is set, else
    /// `provider` (the core's one rule).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The tool's name, copied into details; naming it makes the failure the tool's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// 1-based attempt number, copied into details.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attempt: Option<u32>,
    /// Milliseconds since the Unix epoch; only to turn an HTTP-date or reset time into a wait.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub now_ms: Option<i64>,
}

/// Classifies an HTTP failure: status, response headers (name, value), body (text or JSON).
pub fn classify_http(status: u16, headers: &[(&str, &str)], body: Option<Value>, opts: &ClassifyOptions) -> Result<Envelope> {
    let h: Map<String, Value> = headers.iter().map(|(k, v)| (k.to_string(), Value::from(*v))).collect();
    let mut req = serde_json::to_value(opts).unwrap();
    req["http"] = json!({"status": status, "headers": h, "body": body});
    op("classify", req)
}

/// Classifies a Rust error: its type name, its message and its source chain
/// (as "Caused by:" lines, at most 8 causes deep, each the first line of its
/// message, at most 4,096 characters). The core sanitizes the message.
pub fn classify_error<E: std::error::Error + 'static>(err: &E, tool: Option<&str>) -> Result<Envelope> {
    let trace = cause_chain(err);
    let exception = json!({"type": std::any::type_name::<E>(), "message": display_text(err), "traceback": trace});
    op("classify_exception", json!({"exception": exception, "tool": tool}))
}

/// The most causes of an error's source chain [`causes`] reads, as the Node
/// binding reads at most 8 of an Error.cause chain.
const MAX_CAUSES: usize = 8;

/// The most characters of a cause's message [`causes`] keeps, as the Node
/// binding cuts each cause's line: the op reads a cause by its text, and a
/// longer one would take the request past the core's limit.
const MAX_CAUSE_CHARS: usize = 4096;

/// The core's request limit (core.MaxRequestBytes): a message longer than
/// this cannot be sent in a request, so [`display_text`] stops writing there.
const MAX_TEXT_BYTES: usize = MAX_REQUEST_BYTES;

/// What `d`'s `Display` writes, as `to_string` gives it, except that a
/// `Display` that returns an error (which makes `to_string` panic) gives
/// what it wrote before, and one that writes past [`MAX_TEXT_BYTES`] (or
/// without end) is stopped there.
pub(crate) fn display_text(d: &dyn std::fmt::Display) -> String {
    bounded(d, MAX_TEXT_BYTES, false)
}

/// The first line of what `d`'s `Display` writes, at most [`MAX_CAUSE_CHARS`]
/// characters, written as [`display_text`] writes.
fn first_line(d: &dyn std::fmt::Display) -> String {
    bounded(d, MAX_CAUSE_CHARS, true)
}

/// What `d` writes up to `max` characters (bytes for a message, chars for a
/// line) or, with `line`, up to its first line end: the writer stops `d`
/// there, and an error `d` returns ends it with what it wrote.
fn bounded(d: &dyn std::fmt::Display, max: usize, line: bool) -> String {
    struct Capped {
        out: String,
        left: usize,
        line: bool,
    }
    impl std::fmt::Write for Capped {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            for (i, c) in s.char_indices() {
                let n = if self.line { 1 } else { c.len_utf8() };
                if (self.line && (c == '\n' || c == '\r')) || n > self.left {
                    self.out.push_str(&s[..i]);
                    return Err(std::fmt::Error);
                }
                self.left -= n;
            }
            self.out.push_str(s);
            Ok(())
        }
    }
    let mut w = Capped { out: String::new(), left: max, line };
    let _ = std::fmt::write(&mut w, format_args!("{d}"));
    w.out
}

/// The causes of err's source chain, the outer first, each the first line
/// of its message (at most [`MAX_CAUSE_CHARS`] characters), at most
/// [`MAX_CAUSES`] of them: an error whose source leads back to itself would
/// otherwise be read until memory ran out. The one reader of a source
/// chain: [`cause_chain`] and the egress transport's error text print it.
pub(crate) fn causes(err: &dyn std::error::Error) -> Vec<String> {
    let mut out = Vec::new();
    let mut cause = err.source();
    while let Some(c) = cause {
        out.push(first_line(c));
        if out.len() == MAX_CAUSES {
            break;
        }
        cause = c.source();
    }
    out
}

/// err's message and its [`causes`], each as a "Caused by:" block (the
/// traceback the classify_exception op reads for a transport cause,
/// docs/classify.md); "" for an error of no source, as the Python and Node
/// bindings send no traceback for an exception of no cause: a message that
/// itself holds "Caused by:" lines is read as a message in every language.
pub(crate) fn cause_chain(err: &dyn std::error::Error) -> String {
    let causes = causes(err);
    if causes.is_empty() {
        return String::new();
    }
    let mut trace = display_text(err);
    for c in causes {
        trace.push_str("\n\nCaused by:\n    ");
        trace.push_str(&c);
    }
    trace
}

/// Classifies an exception given as text: its type, message and printed traceback.
pub fn classify_exception(type_name: &str, message: &str, traceback: &str, tool: Option<&str>) -> Result<Envelope> {
    let exception = json!({"type": type_name, "message": message, "traceback": traceback});
    op("classify_exception", json!({"exception": exception, "tool": tool}))
}

#[derive(Serialize)]
struct SerializeRequest<'a> {
    op: &'static str,
    format: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_schema: Option<bool>,
    results: &'a [Outcome],
}

/// Returns the messages to append to `format`'s history for one turn of outcomes.
pub fn serialize<T: DeserializeOwned>(format: &str, outcomes: &[Outcome]) -> Result<Vec<T>> {
    invoke_as(&SerializeRequest { op: "serialize", format, output_schema: None, results: outcomes })
}

/// Reads the tool outcomes back from `format`'s messages (the failure flag restored).
pub fn parse<M: Serialize>(format: &str, messages: &[M]) -> Result<Vec<Outcome>> {
    op("parse", json!({"format": format, "messages": messages}))
}

/// Chat Completions messages: a tool message (role `tool`) per outcome, then
/// one user message with the results' images when they have any.
pub fn to_openai_chat(outcomes: &[Outcome]) -> Result<Vec<OpenAIChatMessage>> {
    serialize("openai-chat", outcomes)
}

/// Responses API `function_call_output` input items, one per outcome.
pub fn to_openai_responses(outcomes: &[Outcome]) -> Result<Vec<OpenAIResponsesOutput>> {
    serialize("openai-responses", outcomes)
}

/// One Anthropic user message holding a `tool_result` block per outcome.
pub fn to_anthropic(outcomes: &[Outcome]) -> Result<Vec<AnthropicMessage>> {
    serialize("anthropic", outcomes)
}

/// One Gemini user Content holding a `functionResponse` part per outcome.
pub fn to_gemini(outcomes: &[Outcome]) -> Result<Vec<GeminiContent>> {
    serialize("gemini", outcomes)
}

/// One Bedrock Converse user message holding a `toolResult` block per outcome.
pub fn to_bedrock(outcomes: &[Outcome]) -> Result<Vec<BedrockMessage>> {
    serialize("bedrock", outcomes)
}

/// MCP `CallToolResult` objects, one per outcome.
pub fn to_mcp(outcomes: &[Outcome]) -> Result<Vec<McpCallToolResult>> {
    serialize("mcp", outcomes)
}

/// `to_mcp` for a tool whose outputSchema is known: `false` (it declares
/// none) puts a failure's envelope in `structuredContent` too, `true` keeps
/// it in the text block alone, as `to_mcp` does when it is not known (the
/// serialize op's `output_schema` member).
pub fn to_mcp_with(outcomes: &[Outcome], output_schema: bool) -> Result<Vec<McpCallToolResult>> {
    invoke_as(&SerializeRequest { op: "serialize", format: "mcp", output_schema: Some(output_schema), results: outcomes })
}

/// `base` with `options` added; an option naming a member of `base` (one
/// the function writes itself) is refused (see [`request_members`]).
fn with(name: &str, mut base: Value, options: Value) -> Result<Value> {
    if let (Value::Object(b), Value::Object(o)) = (&mut base, options) {
        if let Some(k) = o.keys().find(|k| b.contains_key(*k)) {
            return Err(reserved_option(name, k));
        }
        b.extend(o);
    }
    Ok(base)
}

/// The members of a transcript op's request: `op`, `members`, then
/// `options` over them, the null ones left out (as in `op`). An option
/// named `op`, `raw_len` (the framing of JSON text) or one of `members`
/// (`format`, `from`, `to`) would make a silently different request: it is
/// an `INVALID_INPUT` error whose `details.path` names it, as the Python and
/// Node bindings refuse it (a TypeError there).
fn request_members(name: &str, members: &[(&str, &str)], options: Value) -> Result<Map<String, Value>> {
    let mut rest = Map::new();
    rest.insert("op".into(), name.into());
    for (k, v) in members {
        rest.insert((*k).into(), (*v).into());
    }
    if let Value::Object(o) = options {
        for k in o.keys() {
            if FRAME.contains(&k.as_str()) || members.iter().any(|(m, _)| m == k) {
                return Err(reserved_option(name, k));
            }
        }
        rest.extend(o);
    }
    rest.retain(|_, v| !v.is_null());
    Ok(rest)
}

/// The error of an option that names a member the binding writes itself.
fn reserved_option(op: &str, name: &str) -> ToolerrError {
    let mut details = Map::new();
    details.insert("path".into(), Value::from(name));
    ToolerrError {
        envelope: Envelope {
            code: "INVALID_INPUT".into(),
            details,
            message: format!("toolerr (Rust binding): {op}: {name:?} is a member of the request the binding writes; it cannot be an option."),
            retryable: false,
            source: "orchestrator".into(),
        },
    }
}

/// A request object: the members of `rest`, then `tail` under `key`, written
/// straight from the caller's value (never copied into a new `Value` first).
/// `key` comes last so that the core's fast path for lists, which wants `op`
/// and the formats before `messages`, takes the request.
struct WithTail<'a, V: ?Sized> {
    rest: &'a Map<String, Value>,
    key: &'a str,
    tail: &'a V,
}

impl<V: Serialize + ?Sized> Serialize for WithTail<'_, V> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.rest.len() + 1))?;
        for (k, v) in self.rest {
            m.serialize_entry(k, v)?;
        }
        m.serialize_entry(self.key, self.tail)?;
        m.end()
    }
}

/// Runs the request of `rest` with `input` written last under `key`
/// ("messages" or "body"), the answer read as `T`. A value is written
/// straight from the caller's value; JSON text is copied into the request as
/// it is, neither parsed nor checked by the binding (the core reads it, and
/// refuses a duplicate key, which `serde_json` would resolve to the last
/// value), framed by a last member `"raw_len": N`, its length in bytes, so
/// that the core refuses text that is not exactly one JSON value
/// (INVALID_INPUT at `key`) instead of reading extra request members from
/// it. `rest` holds `op` (see [`request_members`]). A framed request over
/// [`MAX_REQUEST_BYTES`] is counted, not written: the core answers its
/// length alone ([`with_length`]), so the text is never copied.
fn input_op<T: DeserializeOwned, V: Serialize + ?Sized>(rest: &Map<String, Value>, key: &str, input: Input<V>) -> Result<T> {
    match input {
        Input::Value(tail) => invoke_as(&WithTail { rest, key, tail }),
        Input::Json(text) => {
            let over = std::cell::Cell::new(None);
            with_request_bytes(
                |buf| {
                    serde_json::to_writer(&mut *buf, rest)?;
                    buf.pop(); // the closing brace; `rest` holds `op`, so a member came before
                    buf.push(b',');
                    serde_json::to_writer(&mut *buf, key)?;
                    buf.push(b':');
                    // the framing: the text's length, for the core to hold it to one JSON value
                    let tail = format!(",\"raw_len\":{}}}", text.len());
                    let len = buf.len() + text.len() + tail.len();
                    if len > MAX_REQUEST_BYTES {
                        over.set(Some(len)); // refused by its length: the text is not copied
                        return Ok(());
                    }
                    buf.extend_from_slice(text.as_bytes());
                    buf.extend_from_slice(tail.as_bytes());
                    Ok(())
                },
                |req| match over.get() {
                    Some(len) => with_length(len, |out| answer(out)),
                    None => with_response(req, |out| answer(out)),
                },
            )
        }
    }
}

/// What [`input_op`] writes under its key: a serde value or JSON text.
enum Input<'a, V: ?Sized> {
    Value(&'a V),
    Json(&'a str),
}

/// Runs the transcript op `name` on the list `messages`, written straight
/// from the caller's slice (see [`input_op`]).
/// Options that hold `messages` replace the list.
fn list_op<T: DeserializeOwned>(name: &str, members: &[(&str, &str)], messages: &[Value], options: Value) -> Result<T> {
    let rest = request_members(name, members, options)?;
    if rest.contains_key("messages") {
        return invoke_as(&rest); // options replace the list
    }
    input_op(&rest, "messages", Input::Value(messages))
}

/// The findings a provider would reject in a transcript (op `check`); `options` adds members.
pub fn check(format: &str, messages: &[Value], options: Value) -> Result<Value> {
    list_op("check", &[("format", format)], messages, options)
}

/// The repaired transcript and what changed (op `repair`).
pub fn repair(format: &str, messages: &[Value], options: Value) -> Result<Value> {
    list_op("repair", &[("format", format)], messages, options)
}

/// A transcript translated between formats, failure flags carried (op `convert`):
/// `{"messages", "id_map"?, "name_map"?, "notes"?, "system"?}`.
pub fn convert(messages: &[Value], from: &str, to: &str, options: Value) -> Result<Value> {
    convert_as(messages, from, to, options)
}

/// [`convert`] with the answer read as `T`: `Value`, a type of your own
/// (e.g. `struct { messages: Vec<MessageParam>, system: Option<String> }`),
/// or `Box<serde_json::value::RawValue>` to keep the core's bytes as they came
/// (serde checks them once and builds no tree: what to hold when the list goes
/// on into a request body). Errors as [`invoke_as`] gives them.
pub fn convert_as<T: DeserializeOwned>(messages: &[Value], from: &str, to: &str, options: Value) -> Result<T> {
    list_op("convert", &[("from", from), ("to", to)], messages, options)
}

/// [`convert_as`] for a list the caller holds as JSON text (`[{"role": ...}, ...]`):
/// the text goes into the request as it is, neither parsed nor checked by the
/// binding; the core reads it (JSON it cannot read is an `INVALID_INPUT` error,
/// `details.path` naming where, and a duplicate key is refused, not resolved).
pub fn convert_json_as<T: DeserializeOwned>(messages: &str, from: &str, to: &str, options: Value) -> Result<T> {
    let rest = request_members("convert", &[("from", from), ("to", to)], options)?;
    input_op::<T, Value>(&rest, "messages", Input::Json(messages)) // a `messages` option too: the core refuses the duplicate
}

/// A transcript trimmed to a size budget without separating calls from results (op `trim`).
pub fn trim(format: &str, messages: &[Value], options: Value) -> Result<Value> {
    list_op("trim", &[("format", format)], messages, options)
}

/// Call ids rewritten to the target's id rules, with the id map (op `normalize_ids`).
pub fn normalize_ids(format: &str, messages: &[Value], options: Value) -> Result<Value> {
    list_op("normalize_ids", &[("format", format)], messages, options)
}

/// A message list or a whole request body for the transcript ops: a value, or JSON text that goes
/// to the core unparsed (its parser refuses a duplicate key, which `serde_json` would resolve to the
/// last value: a real tool result could vanish).
#[derive(Debug, Clone, Copy)]
pub enum Transcript<'a> {
    /// The list (`messages`) or body as a value.
    Value(&'a Value),
    /// The list or body as JSON text.
    Json(&'a str),
}

/// Runs the transcript op `name` on `members` plus the body `input` (see [`input_op`]).
/// A body value replaces a `body` option (a null body is no member, as
/// `op` leaves nulls out); with body text, a `body` option is a duplicate
/// key the core refuses.
fn body_op<T: DeserializeOwned>(name: &str, members: &[(&str, &str)], options: Value, body: Transcript) -> Result<T> {
    let mut rest = request_members(name, members, options)?;
    match body {
        Transcript::Value(v) => {
            rest.remove("body");
            if v.is_null() {
                return invoke_as(&rest);
            }
            input_op(&rest, "body", Input::Value(v))
        }
        Transcript::Json(text) => input_op::<T, Value>(&rest, "body", Input::Json(text)),
    }
}

/// The findings in a whole request body of `format` (a Chat Completions, Responses, Anthropic,
/// Gemini or Bedrock request; op `check` with `body`); `options` adds members (`id_rules`,
/// `open_calls`, ...). The body's own `previous_response_id` and `model` are read by the core.
pub fn check_body(format: &str, body: Transcript, options: Value) -> Result<Value> {
    body_op("check", &[("format", format)], options, body)
}

/// A whole request body with its list repaired, every other member as given: `{"body", "changes"}`.
pub fn repair_body(format: &str, body: Transcript, options: Value) -> Result<Value> {
    body_op("repair", &[("format", format)], options, body)
}

/// A whole request body in another format (system prompt, tools and parameters in the target's
/// place): `{"body", "id_map"?, "notes"?}`.
pub fn convert_body(body: Transcript, from: &str, to: &str, options: Value) -> Result<Value> {
    convert_body_as(body, from, to, options)
}

/// [`convert_body`] with the answer read as `T` (`Value`, a type of your own,
/// or `Box<serde_json::value::RawValue>` to keep the core's bytes: see [`convert_as`]).
pub fn convert_body_as<T: DeserializeOwned>(body: Transcript, from: &str, to: &str, options: Value) -> Result<T> {
    body_op("convert", &[("from", from), ("to", to)], options, body)
}

/// A whole request body with the oldest turns of its list dropped: `{"body", "dropped"}`.
pub fn trim_body(format: &str, body: Transcript, options: Value) -> Result<Value> {
    body_op("trim", &[("format", format)], options, body)
}

/// A whole request body with its call ids rewritten: `{"body", "id_map"}`.
pub fn normalize_ids_body(format: &str, body: Transcript, options: Value) -> Result<Value> {
    body_op("normalize_ids", &[("format", format)], options, body)
}

/// A whole request body of `format` made ready to send (op `egress_request`, docs/egress.md,
/// "The request op"): `{"body", "changed", "changes", "id_map"?, "findings"}`; `options` adds
/// `model` (a Gemini body's model, from its URL), `id_rules`, `capabilities`, `open_calls`.
/// A body the op cannot read is an `INVALID_INPUT` error.
pub fn egress_request(format: &str, body: Transcript, options: Value) -> Result<Value> {
    body_op("egress_request", &[("format", format)], options, body)
}

/// Whether repeated failing calls form a loop (op `loop_guard`); `members` is the whole request.
pub fn loop_guard(members: Value) -> Result<Value> {
    op("loop_guard", members)
}

/// A retry decision (op `retry`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RetryDecision {
    /// Whether to retry.
    pub retry: bool,
    /// How long to wait first, in milliseconds.
    pub delay_ms: u64,
    /// Why, as a short token.
    pub reason: String,
}

/// Whether and when to retry after `attempt` (1-based) failed; `draw` is uniform in [0, 1).
pub fn retry_decision(error: &Envelope, attempt: u32, draw: f64, policy: Option<Value>) -> Result<RetryDecision> {
    op("retry", json!({"error": error, "attempt": attempt, "draw": draw, "policy": policy}))
}

/// Advances a circuit breaker for one event (`allow`, `success`, `failure`) at `now_ms`;
/// returns `{"state", "allowed"?, "error"?}`. `options` may add `settings`, `error`, `tool`.
pub fn breaker(state: Option<&Value>, event: &str, now_ms: i64, options: Value) -> Result<Value> {
    op("breaker", with("breaker", json!({"state": state, "event": event, "now_ms": now_ms}), options)?)
}

/// Charges a budget before spending: `{"allowed", "state", "remaining", "error"?}`.
pub fn budget(state: Option<&Value>, limits: &Value, now_ms: i64, charge: Option<&Value>) -> Result<Value> {
    op("budget", json!({"state": state, "limits": limits, "now_ms": now_ms, "charge": charge}))
}

/// Replays a recorded failure trace through `format` with the scripted model (op `replay`).
pub fn replay(trace: &Value, format: &str) -> Result<Value> {
    op("replay", json!({"trace": trace, "format": format}))
}
