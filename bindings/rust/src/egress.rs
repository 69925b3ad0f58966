//! The core's egress ops as a [reqwest-middleware] [`Middleware`] (feature
//! `egress`), for a `reqwest_middleware::ClientWithMiddleware`:
//!
//! ```no_run
//! let client = reqwest_middleware::ClientBuilder::new(reqwest::Client::new())
//!     .with(toolerr::egress::Egress::default())
//!     .build();
//! ```
//!
//! For each request of a provider API ([`endpoint_of`]: Chat Completions,
//! Responses, Anthropic Messages and count_tokens, Gemini generateContent and
//! streamGenerateContent), as docs/egress.md, "For the in-process
//! transports", says and the gateway (`gateway/`) does:
//!
//! 1. the body goes through the `egress_request` op (the format from the
//!    path, a Gemini model from the path): the op's body is sent when it
//!    changed something, else the very bytes given; a body the op cannot
//!    read (not JSON, not UTF-8, a stream, past the core's bounds) is sent
//!    as it came;
//! 2. an answer of status 400-599 becomes the `egress_error` op's reply: the
//!    status kept (529 stays 529), the native error body with the envelope
//!    under `error.toolerr`, `retry-after`, `retry-after-ms`,
//!    `x-should-retry` and `x-toolerr-envelope` replacing the upstream's
//!    headers of those names (an upstream `retry-after` or
//!    `retry-after-ms` the op gives none for, such as `-5`, `abc` or `1e9`,
//!    is dropped), every other header kept; the middleware never
//!    retries (a retry middleware after it reads `x-should-retry`);
//! 3. a `text/event-stream` answer passes event by event as it arrives; an
//!    error event inside it is replaced by the op's event for the client's
//!    API and reported to [`Egress::on_stream_error`] (default: a `log`
//!    warning with the code and retryable), and the stream goes on;
//! 4. a request the upstream never answered (a refused connection) gets the
//!    op's native 502; a timeout is the caller's own deadline and is
//!    returned as the error it is.
//!
//! Every decision is the core's; this module does I/O only.
//!
//! [reqwest-middleware]: https://docs.rs/reqwest-middleware

use std::sync::Arc;

use bytes::Bytes;
use futures_util::StreamExt;
use http::Extensions;
use reqwest::{Request, Response, ResponseBuilderExt};
use reqwest_middleware::{Middleware, Next};
use serde_json::{json, Map, Value};

use crate::{canonicalize, egress_request, invoke, invoke_as, Envelope, Transcript};

/// The core's request bound (`core.MaxRequestBytes`), in bytes: a larger body goes unread.
pub const MAX_REQUEST_BYTES: usize = 32 << 20;
/// An upstream error body is read up to this many bytes (1 MiB), as the gateway reads it.
pub const MAX_ERROR_BYTES: usize = 1 << 20;
/// A stream event longer than this (4 MiB, an image chunk) passes unread, as in the gateway.
pub const MAX_EVENT_BYTES: usize = 4 << 20;
/// How far a success outside a stream is read to tell whether it may be an
/// error object in place of the answer (Gemini's 200 `{"error":{...}}`), in
/// bytes: as `egress.RewriteSuccessError` holds in Go (`core.EgressSuccessHead`).
pub const SUCCESS_HEAD_BYTES: usize = 64;

/// The provider API a request calls, known from its method and URL path.
///
/// `api` names it as the gateway's routes do (`chat_completions`,
/// `responses`, `messages`, `count_tokens`, `generate_content`,
/// `stream_generate_content`); `format` is the wire format of its request
/// bodies and of the errors its client parses (`openai-chat`,
/// `openai-responses`, `anthropic`, `gemini`); `model` the model named in a
/// Gemini path (`""` for the others, whose bodies name it).
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct Endpoint {
    pub api: String,
    pub format: String,
    pub model: String,
}

/// Returns the endpoint a request of `method` to `path` calls, `None` for any
/// other, as the core decides it (the `egress_endpoint` op, which every
/// binding's transport and the gateway call).
///
/// `path` is the URL path percent-encoded, as [`reqwest::Url::path`] gives
/// it. It is matched by its end, so a base URL with a prefix is the
/// provider's own (Azure OpenAI's `/openai/deployments/d/chat/completions`,
/// Gemini's OpenAI-compatible `/v1beta/openai/chat/completions`, Vertex AI's
/// `.../publishers/google/models/m:generateContent`); the Assistants API's
/// `/v1/threads/t/messages` is not Anthropic's. Only POST. `None` too when
/// the core cannot be reached (its error is then the request's, as it came).
pub fn endpoint_of(method: &str, path: &str) -> Option<Endpoint> {
    #[derive(serde::Deserialize)]
    struct Answer {
        endpoint: Option<Endpoint>,
    }
    invoke_as::<_, Answer>(&json!({"op": "egress_endpoint", "method": method, "path": path}))
        .ok()?
        .endpoint
}

/// One error event inside a stream, as the client's stream now carries it:
/// `event` the event name written (`""` for a data-only event, as Chat
/// Completions and Gemini send errors), `data` its data (canonical JSON, the
/// envelope under `toolerr`), `envelope` the five fields.
#[derive(Debug, Clone)]
pub struct StreamError {
    pub endpoint: Endpoint,
    pub envelope: Envelope,
    pub event: String,
    pub data: String,
}

/// A reporter of stream error events.
pub type StreamErrorHook = Arc<dyn Fn(&StreamError) + Send + Sync>;

/// The egress middleware (see the module's doc). `Egress::default()` is ready
/// to use.
#[derive(Clone, Default)]
pub struct Egress {
    /// toolerr's own sentence in native error messages instead of the
    /// upstream's sanitized one (the error op's `upstream_message: "drop"`).
    pub drop_upstream_message: bool,
    /// Called with each error event of a stream after it was rewritten;
    /// `None` logs a warning (`log::warn!`: the API, code and retryable,
    /// never a body). A panic in it is not caught.
    pub on_stream_error: Option<StreamErrorHook>,
    /// Milliseconds since the Unix epoch (the error op's `now_ms`, for an
    /// HTTP-date `Retry-After`); `None` means the system clock.
    pub now_ms: Option<Arc<dyn Fn() -> i64 + Send + Sync>>,
}

impl std::fmt::Debug for Egress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Egress")
            .field("drop_upstream_message", &self.drop_upstream_message)
            .finish_non_exhaustive()
    }
}

impl Egress {
    /// Returns the middleware with `hook` as its stream error reporter.
    pub fn on_stream_error(mut self, hook: impl Fn(&StreamError) + Send + Sync + 'static) -> Self {
        self.on_stream_error = Some(Arc::new(hook));
        self
    }

    fn now(&self) -> i64 {
        match &self.now_ms {
            Some(f) => f(),
            None => std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_millis() as i64)
                .unwrap_or(0),
        }
    }

    fn error_request(&self, ep: &Endpoint, upstream: Value) -> Value {
        let mut up = Map::new();
        up.insert("provider".into(), ep.format.as_str().into());
        up.insert("now_ms".into(), self.now().into());
        if let Value::Object(m) = upstream {
            up.extend(m);
        }
        let mut req = json!({"op": "egress_error", "ingress": ep.format, "upstream": up});
        if self.drop_upstream_message {
            req["upstream_message"] = "drop".into();
        }
        req
    }

    fn report(&self, ev: &StreamError) {
        match &self.on_stream_error {
            Some(f) => f(ev),
            None => log::warn!(
                "toolerr egress: an error event inside a stream: api={} code={} retryable={}",
                ev.endpoint.api,
                ev.envelope.code,
                ev.envelope.retryable
            ),
        }
    }
}

/// The body to send for `raw`: the request op's when it changed something,
/// else `None` (send the bytes as they are).
fn prepare(ep: &Endpoint, raw: &[u8]) -> Option<Vec<u8>> {
    if raw.len() > MAX_REQUEST_BYTES {
        return None;
    }
    let text = std::str::from_utf8(raw).ok()?;
    let opts = if ep.model.is_empty() {
        json!({})
    } else {
        json!({"model": ep.model})
    };
    let rep = egress_request(&ep.format, Transcript::Json(text), opts).ok()?; // unreadable: sent as it came
    if rep["changed"] != Value::Bool(true) {
        return None;
    }
    canonicalize(&rep["body"]).ok().map(String::into_bytes)
}

fn reply(
    rep: &Value,
    upstream: Option<&reqwest::header::HeaderMap>,
    url: reqwest::Url,
) -> Response {
    let empty = Map::new();
    let replaced = rep["headers"].as_object().unwrap_or(&empty);
    let status = rep["status"].as_u64().unwrap_or(502) as u16;
    let mut b = http::Response::builder().status(status).url(url);
    if let Some(h) = upstream {
        for (k, v) in h {
            let name = k.as_str();
            // The body is new (length, encoding, type), and the wait hints
            // (RFC 9110, 10.2.3 Retry-After; the retry-after-ms the OpenAI
            // and Anthropic SDKs read first) go whatever the op says: it
            // gives the wait it read from them, and none for one it could
            // not read (-5, abc, 1e9).
            if matches!(
                name,
                "content-length"
                    | "content-encoding"
                    | "transfer-encoding"
                    | "content-type"
                    | "retry-after"
                    | "retry-after-ms"
            ) || replaced.contains_key(name)
            {
                continue;
            }
            b = b.header(k, v);
        }
    }
    for (k, v) in replaced {
        if let Some(v) = v.as_str() {
            b = b.header(k.as_str(), v);
        }
    }
    let body = canonicalize(&rep["body"]).unwrap_or_default();
    Response::from(
        b.body(body)
            .expect("toolerr: the error op's headers are valid header values"),
    )
}

#[async_trait::async_trait]
impl Middleware for Egress {
    async fn handle(
        &self,
        mut req: Request,
        extensions: &mut Extensions,
        next: Next<'_>,
    ) -> reqwest_middleware::Result<Response> {
        let Some(ep) = endpoint_of(req.method().as_str(), req.url().path()) else {
            return next.run(req, extensions).await;
        };
        let raw = req.body().and_then(|b| b.as_bytes()).map(<[u8]>::to_vec);
        if let Some(body) = raw.as_deref().and_then(|raw| prepare(&ep, raw)) {
            req.headers_mut()
                .insert(reqwest::header::CONTENT_LENGTH, body.len().into());
            *req.body_mut() = Some(body.into());
        }
        let url = req.url().clone();
        let resp = match next.run(req, extensions).await {
            Ok(resp) => resp,
            Err(reqwest_middleware::Error::Reqwest(e))
                if !e.is_timeout() && (e.is_connect() || e.is_request()) =>
            {
                let text = error_text(&e);
                let rep = invoke(&self.error_request(&ep, json!({ "error_text": text })))
                    .map_err(reqwest_middleware::Error::middleware)?;
                return Ok(reply(&rep, None, url));
            }
            Err(e) => return Err(e),
        };
        if resp.status().as_u16() >= 400 {
            let headers = resp.headers().clone();
            let resp_url = resp.url().clone();
            let hs = header_values(&headers);
            let status = resp.status().as_u16();
            let body = read_capped(resp).await;
            let rep = invoke(&self.error_request(
                &ep,
                json!({"http": {
                "status": status, "headers": hs, "body": String::from_utf8_lossy(&body)}}),
            ))
            .map_err(reqwest_middleware::Error::middleware)?;
            return Ok(reply(&rep, Some(&headers), resp_url));
        }
        let is_sse = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| {
                v.split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .eq_ignore_ascii_case("text/event-stream")
            })
            .unwrap_or(false);
        // Gemini's streamGenerateContent without alt=sse: one JSON array,
        // element by element (a body that is no array passes unread).
        let is_array = !is_sse && ep.api == "stream_generate_content";
        if !is_sse && !is_array {
            if !resp.status().is_success() {
                return Ok(resp);
            }
            return self.success(&ep, resp).await;
        }
        let mut b = http::Response::builder()
            .status(resp.status())
            .url(resp.url().clone());
        for (k, v) in resp.headers() {
            if !matches!(
                k.as_str(),
                "content-length" | "content-encoding" | "transfer-encoding"
            ) {
                b = b.header(k, v);
            }
        }
        let events: Box<dyn Split + Send> = if is_sse {
            Box::new(Events {
                eg: self.clone(),
                ep,
                pending: Vec::new(),
                scan: 0,
                skip: false,
                dropped: None,
                emitted: false,
                started: false,
            })
        } else {
            Box::new(Elements::new(self.clone(), ep))
        };
        // One event in flight: each is yielded as soon as its blank line has arrived.
        let state = Some((resp.bytes_stream(), events));
        let stream = futures_util::stream::unfold(state, |state| async move {
            let (mut upstream, mut events) = state?;
            loop {
                match upstream.next().await {
                    Some(Ok(chunk)) => {
                        let out = events.feed(&chunk);
                        if !out.is_empty() {
                            return Some((Ok(Bytes::from(out)), Some((upstream, events))));
                        }
                    }
                    Some(Err(e)) => return Some((Err(e), None)),
                    None => {
                        let rest = events.flush();
                        return (!rest.is_empty()).then(|| (Ok(Bytes::from(rest)), None));
                    }
                }
            }
        });
        let body = reqwest::Body::wrap_stream(stream);
        Ok(Response::from(
            b.body(body)
                .expect("toolerr: the upstream's headers are valid"),
        ))
    }
}

impl Egress {
    /// The response for `resp`, a success outside a stream: read as far as
    /// it takes to tell an error object in place of the answer (Gemini's
    /// 200 `{"error":{...}}`, at most [`SUCCESS_HEAD_BYTES`], then up to
    /// [`MAX_ERROR_BYTES`]), which the core answers as the failure it stands
    /// for (the error op's `http` status 200-299); any other passes as it
    /// came, the bytes read put back in front of the rest.
    async fn success(
        &self,
        ep: &Endpoint,
        mut resp: Response,
    ) -> reqwest_middleware::Result<Response> {
        let mut held = Vec::new();
        let (mut ended, mut limit) = (false, SUCCESS_HEAD_BYTES);
        while held.len() < limit {
            match resp
                .chunk()
                .await
                .map_err(reqwest_middleware::Error::Reqwest)?
            {
                Some(c) => {
                    let before = held.len();
                    held.extend_from_slice(&c);
                    if before < SUCCESS_HEAD_BYTES
                        && held.len() >= SUCCESS_HEAD_BYTES
                        && may_be_error_object(&held[..SUCCESS_HEAD_BYTES])
                    {
                        limit = MAX_ERROR_BYTES + 1;
                    }
                }
                None => {
                    ended = true;
                    break;
                }
            }
        }
        if ended && may_be_error_object(&held[..held.len().min(SUCCESS_HEAD_BYTES)]) {
            let upstream = json!({"http": {"status": resp.status().as_u16(),
                "headers": header_values(resp.headers()), "body": String::from_utf8_lossy(&held)}});
            if let Ok(rep) = invoke(&self.error_request(ep, upstream)) {
                if rep["pass"] != Value::Bool(true) {
                    return Ok(reply(&rep, Some(resp.headers()), resp.url().clone()));
                }
            }
        }
        let mut b = http::Response::builder()
            .status(resp.status())
            .url(resp.url().clone());
        for (k, v) in resp.headers() {
            b = b.header(k, v);
        }
        let body = if ended {
            reqwest::Body::from(held)
        } else {
            let first = futures_util::stream::once(async move {
                Ok::<Bytes, reqwest::Error>(Bytes::from(held))
            });
            reqwest::Body::wrap_stream(first.chain(resp.bytes_stream()))
        };
        Ok(Response::from(
            b.body(body)
                .expect("toolerr: the upstream's headers are valid"),
        ))
    }
}

/// The headers of an upstream response as the error op takes them: each
/// name's values, one string or an array of them.
fn header_values(headers: &reqwest::header::HeaderMap) -> Map<String, Value> {
    let mut hs = Map::new();
    for (k, v) in headers {
        let v = Value::from(String::from_utf8_lossy(v.as_bytes()).into_owned());
        match hs.get_mut(k.as_str()) {
            Some(Value::Array(a)) => a.push(v),
            Some(prev) => *prev = Value::Array(vec![prev.take(), v]),
            None => {
                hs.insert(k.as_str().into(), v);
            }
        }
    }
    hs
}

/// Whether `head`, the first [`SUCCESS_HEAD_BYTES`] of a success (or all of
/// a shorter one), may open an error object: `{` first, after a UTF-8 BOM
/// and JSON white space, and `"error"` named in it. A cheap gate, looser
/// than the core's rule, which decides on the whole body.
fn may_be_error_object(head: &[u8]) -> bool {
    let h = head.strip_prefix(UTF8_BOM).unwrap_or(head);
    let first = h
        .iter()
        .find(|c| !matches!(c, b' ' | b'\t' | b'\n' | b'\r'));
    first == Some(&b'{') && h.windows(7).any(|w| w == b"\"error\"")
}

/// The error text of a request that got no answer: the error's message and
/// its causes as [`crate::causes`] reads them (at most 8, each its first
/// line), joined by ": ".
fn error_text(e: &dyn std::error::Error) -> String {
    let mut s = crate::display_text(e);
    for c in crate::causes(e) {
        s.push_str(": ");
        s.push_str(&c);
    }
    s
}

async fn read_capped(mut resp: Response) -> Vec<u8> {
    let mut out = Vec::new();
    while out.len() < MAX_ERROR_BYTES {
        match resp.chunk().await {
            Ok(Some(c)) => out.extend_from_slice(&c),
            _ => break,
        }
    }
    out.truncate(MAX_ERROR_BYTES);
    out
}

/// Splits a stream into complete events as they arrive; `feed` returns what
/// is ready for the client.
struct Events {
    eg: Egress,
    ep: Endpoint,
    pending: Vec<u8>,
    scan: usize,
    skip: bool,
    /// With `skip`: the reply for an error event too long to hold, written at its end.
    dropped: Option<StreamError>,
    emitted: bool,
    /// The first event has been read (a BOM is stripped from it only).
    started: bool,
}

impl Events {
    fn feed(&mut self, chunk: &[u8]) -> Vec<u8> {
        self.pending.extend_from_slice(chunk);
        let mut out = Vec::new();
        loop {
            let (end, resume) = event_end(&self.pending, self.scan);
            if end == 0 {
                self.scan = resume;
                if self.pending.len() > MAX_EVENT_BYTES {
                    // Too long to hold: it passes as it arrives, unread. An
                    // error event (by the part held) is dropped instead, and at
                    // its end replaced as an event cut short at the end of the
                    // stream is (the Go StreamReader does the same): the
                    // upstream's text never passes.
                    if !self.skip {
                        let held = std::mem::take(&mut self.pending);
                        self.dropped = self.long_error(&held);
                        self.pending = held;
                    }
                    if self.dropped.is_none() {
                        out.append(&mut self.pending);
                    }
                    self.pending.clear();
                    self.scan = 0;
                    self.skip = true;
                }
                return out;
            }
            let ev: Vec<u8> = self.pending.drain(..end).collect();
            self.scan = 0;
            let first = !std::mem::replace(&mut self.started, true);
            if self.skip {
                self.skip = false;
                match self.dropped.take() {
                    Some(rep) => out.extend_from_slice(&self.write(rep, line_end(&ev))),
                    None => out.extend_from_slice(&ev),
                }
                continue;
            }
            out.extend_from_slice(&self.event(ev, first));
        }
    }

    /// Returns what the client gets for the bytes after the last complete
    /// event when the stream ends: an event with no blank line after it,
    /// which a WHATWG parser discards and a line reader may not, so an error
    /// event there is replaced as a complete one is (the Go StreamReader
    /// does the same); anything else, and the rest of an event too long to
    /// read, passes as it came.
    fn flush(&mut self) -> Vec<u8> {
        let rest = std::mem::take(&mut self.pending);
        self.scan = 0;
        if let Some(rep) = self.dropped.take() {
            return self.write(rep, line_end(&rest));
        }
        if rest.is_empty() || self.skip {
            return rest;
        }
        let first = !std::mem::replace(&mut self.started, true);
        self.event(rest, first)
    }

    /// Returns what the client gets for `raw`, one complete event (`first`:
    /// the stream's first). The first is read without one leading UTF-8
    /// BOM, which the WHATWG parser ignores ("One leading U+FEFF BYTE ORDER
    /// MARK character must be ignored if any are present",
    /// https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream),
    /// or "\u{feff}data" would hide an error event; a passed event keeps it.
    fn event(&mut self, raw: Vec<u8>, first: bool) -> Vec<u8> {
        let fields = match raw.strip_prefix(UTF8_BOM) {
            Some(rest) if first => rest,
            _ => &raw[..],
        };
        let (name, data) = parse_event(fields);
        if !is_error_event(&name, &data) {
            if !data.is_empty() && name != "ping" {
                self.emitted = true;
            }
            return raw;
        }
        match self.reply(json!({"event": name, "data": data})) {
            Some(ev) => self.write(ev, line_end(&raw)),
            None => raw,
        }
    }

    /// The error op's reply for `held`, the first `MAX_EVENT_BYTES` (about)
    /// of an event too long to hold, its last line cut, when the core tells
    /// it an error event (the op's `upstream.sse_event.head`; the reply is
    /// read without its data), else None.
    fn long_error(&mut self, held: &[u8]) -> Option<StreamError> {
        let fields = match held.strip_prefix(UTF8_BOM) {
            Some(rest) if !self.started => rest,
            _ => held,
        };
        self.started = true;
        self.reply(json!({"head": String::from_utf8_lossy(fields)}))
    }

    /// The error op's reply for an event (`{event, data}`, or `{head}` for
    /// one too long to hold), None when the op refused it or answered that
    /// the event passes.
    fn reply(&self, sse: Value) -> Option<StreamError> {
        stream_reply(&self.eg, &self.ep, self.emitted, sse)
    }

    /// Returns `ev`'s event, its lines ended by `eol`, and reports it.
    fn write(&self, ev: StreamError, eol: &str) -> Vec<u8> {
        self.eg.report(&ev);
        // Written with the line end of the event it replaces: a reader that
        // splits on one kind only (go-genai splits on "\n\n" before
        // "\r\n\r\n") would otherwise join a CRLF stream's previous event to it.
        let mut out = Vec::new();
        if !ev.event.is_empty() {
            out.extend_from_slice(format!("event: {}{eol}", ev.event).as_bytes());
        }
        out.extend_from_slice(format!("data: {}{eol}{eol}", ev.data).as_bytes());
        out
    }
}

/// The error op's reply for an event of a stream of `ep` (`sse`: `{event,
/// data}`, or `{head}` for one too long to hold), after output
/// (`emitted`) or none; None when the op refused it or answered that the
/// event passes.
fn stream_reply(eg: &Egress, ep: &Endpoint, emitted: bool, mut sse: Value) -> Option<StreamError> {
    sse["content_emitted"] = Value::Bool(emitted);
    let rep = invoke(&eg.error_request(ep, json!({"sse_event": sse}))).ok()?;
    if rep.get("pass").is_some() {
        return None;
    }
    let text = canonicalize(&rep["data"]).ok()?;
    let envelope: Envelope = serde_json::from_value(rep["envelope"].clone()).ok()?;
    let event = rep["event"].as_str().unwrap_or("").to_string();
    Some(StreamError {
        endpoint: ep.clone(),
        envelope,
        event,
        data: text,
    })
}

/// What a stream's body passes through: `feed` returns what of the next
/// bytes is ready for the client, `flush` what it gets when the stream
/// ends.
trait Split {
    fn feed(&mut self, chunk: &[u8]) -> Vec<u8>;
    fn flush(&mut self) -> Vec<u8>;
}

impl Split for Events {
    fn feed(&mut self, chunk: &[u8]) -> Vec<u8> {
        Events::feed(self, chunk)
    }
    fn flush(&mut self) -> Vec<u8> {
        Events::flush(self)
    }
}

impl Split for Elements {
    fn feed(&mut self, chunk: &[u8]) -> Vec<u8> {
        Elements::feed(self, chunk)
    }
    fn flush(&mut self) -> Vec<u8> {
        Elements::flush(self)
    }
}

/// Splits Gemini's JSON-array stream (streamGenerateContent without
/// alt=sse: `[{...}\r\n,{...}]`) into its elements as they arrive, as the
/// Go `egress.NewArrayStreamReader` does (docs/egress.md, "JSON-array
/// streams"): what lies outside the elements passes as it arrives, each
/// element once complete, an error element (the data test of an error
/// event) replaced by the error op's object for a data-only event of that
/// data. An element past `MAX_EVENT_BYTES` passes as it arrives, unread,
/// unless its head opens an "error" object: then it is dropped to its end
/// and replaced there. A body whose first byte (after white space and a BOM)
/// is not `[` passes unread.
struct Elements {
    eg: Egress,
    ep: Endpoint,
    /// 0: before the array opened, 1: inside it (or after it), 2: no array, passed unread.
    state: u8,
    /// Bytes scanned before the array opened, and how many of them are a leading BOM's.
    seen: usize,
    bom: usize,
    /// Nesting of arrays and objects, the outer array counted.
    depth: usize,
    in_str: bool,
    esc: bool,
    /// Inside an element, which began at depth `base`.
    elem: bool,
    base: usize,
    held: Vec<u8>,
    /// Inside an element too long to hold: passed to its end.
    skip: bool,
    /// Inside an error element too long to hold: dropped, then replaced by this.
    dropped: Option<StreamError>,
    emitted: bool,
}

impl Elements {
    fn new(eg: Egress, ep: Endpoint) -> Self {
        Elements {
            eg,
            ep,
            state: 0,
            seen: 0,
            bom: 0,
            depth: 0,
            in_str: false,
            esc: false,
            elem: false,
            base: 0,
            held: Vec::new(),
            skip: false,
            dropped: None,
            emitted: false,
        }
    }

    fn feed(&mut self, b: &[u8]) -> Vec<u8> {
        let mut i = 0;
        while self.state == 0 && i < b.len() {
            let c = b[i];
            match c {
                b' ' | b'\t' | b'\r' | b'\n' => {}
                b'[' => {
                    self.state = 1;
                    self.depth = 1;
                }
                _ if self.bom == self.seen && self.bom < UTF8_BOM.len() && c == UTF8_BOM[self.bom] => self.bom += 1,
                _ => self.state = 2,
            }
            self.seen += 1;
            i += 1;
        }
        if self.state != 1 {
            return b.to_vec(); // nothing is held before the array opens
        }
        let mut out = Vec::new();
        let mut start = 0;
        while i < b.len() {
            let c = b[i];
            i += 1;
            if self.in_str {
                if self.esc {
                    self.esc = false;
                } else if c == b'\\' {
                    self.esc = true;
                } else if c == b'"' {
                    self.in_str = false;
                }
                continue;
            }
            match c {
                b'"' => self.in_str = true,
                b'{' | b'[' => {
                    if !self.elem && (self.depth == 1 || (c == b'{' && self.depth == 0)) {
                        out.extend_from_slice(&b[start..i - 1]);
                        start = i - 1;
                        self.elem = true;
                        self.base = self.depth;
                    }
                    self.depth += 1;
                }
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.elem && self.depth == self.base {
                        let done = self.end(&b[start..i]);
                        out.extend(done);
                        start = i;
                    }
                }
                _ => {}
            }
        }
        let rest = &b[start..];
        if self.elem {
            let passed = self.hold(rest);
            out.extend(passed);
        } else {
            out.extend_from_slice(rest);
        }
        out
    }

    /// Returns what the client gets when the stream ends: an element it
    /// ended inside is handled as a complete one (an error element replaced).
    fn flush(&mut self) -> Vec<u8> {
        if self.elem {
            self.end(&[])
        } else {
            Vec::new()
        }
    }

    /// Takes the next bytes of an unfinished element; returns what passes of them now.
    fn hold(&mut self, b: &[u8]) -> Vec<u8> {
        if self.dropped.is_some() {
            return Vec::new();
        }
        if self.skip {
            return b.to_vec();
        }
        self.held.extend_from_slice(b);
        if self.held.len() <= MAX_EVENT_BYTES {
            return Vec::new();
        }
        let held = std::mem::take(&mut self.held);
        self.dropped = self.long_error(&held);
        if self.dropped.is_some() {
            return Vec::new();
        }
        self.skip = true;
        self.emitted = true;
        held
    }

    /// Returns what the client gets for the element that ends with `tail`.
    fn end(&mut self, tail: &[u8]) -> Vec<u8> {
        let dropped = self.dropped.take();
        let skip = std::mem::replace(&mut self.skip, false);
        let mut raw = std::mem::take(&mut self.held);
        self.elem = false;
        if let Some(ev) = dropped {
            return self.write(ev);
        }
        if skip {
            return tail.to_vec();
        }
        raw.extend_from_slice(tail);
        match self.error_reply(&raw) {
            Some(ev) => self.write(ev),
            None => {
                self.emitted = true;
                raw
            }
        }
    }

    /// The error op's reply for `raw`, a whole element, when it is an error
    /// element, else None. One serde_json refuses (cut by the stream's end)
    /// is told by its head, read without its data, as one too long to hold is.
    fn error_reply(&self, raw: &[u8]) -> Option<StreamError> {
        let data = String::from_utf8_lossy(raw);
        if is_error_event("", &data) {
            return stream_reply(&self.eg, &self.ep, self.emitted, json!({"event": "", "data": data}));
        }
        if (data.contains("\"error\"") || escapes_error_letter(&data)) && serde_json::from_str::<Value>(&data).is_err() {
            return self.long_error(raw);
        }
        None
    }

    /// The error op's reply for `held`, the start of an element, when it
    /// opens an "error" object, else None. The op's `upstream.sse_event.head`
    /// reads it as a data line: its CR and LF (JSON white space there, or
    /// bytes a JSON reader refuses) become spaces, so that the head is one
    /// line, and the answer is the Go `core.EgressElementHead`'s.
    fn long_error(&self, held: &[u8]) -> Option<StreamError> {
        let head = String::from_utf8_lossy(held).replace(['\r', '\n'], " ");
        stream_reply(&self.eg, &self.ep, self.emitted, json!({"head": format!("data: {head}")}))
    }

    /// Returns `ev`'s error object, in place of an element, and reports it.
    fn write(&self, ev: StreamError) -> Vec<u8> {
        self.eg.report(&ev);
        ev.data.into_bytes()
    }
}

/// U+FEFF in UTF-8.
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// The line end of `raw`, one complete event: the one that ends its last line.
fn line_end(raw: &[u8]) -> &'static str {
    if raw.ends_with(b"\r\n") {
        "\r\n"
    } else if raw.ends_with(b"\r") {
        "\r"
    } else {
        "\n"
    }
}

/// Returns `(end, resume)`: the length of `b`'s first complete event, its
/// blank line included, or 0 when `b` holds none yet, and the start of `b`'s
/// last unfinished line, where a later call resumes. See the WHATWG HTML
/// standard, "Server-sent events" (an event ends at a blank line; lines end
/// in CRLF, LF or CR).
fn event_end(b: &[u8], from: usize) -> (usize, usize) {
    let mut line = from;
    let mut i = from;
    while i < b.len() {
        let c = b[i];
        if c != b'\n' && c != b'\r' {
            i += 1;
            continue;
        }
        let mut next = i + 1;
        if c == b'\r' {
            if next == b.len() {
                return (0, line); // a CR at the end may be the first half of a CRLF
            }
            if b[next] == b'\n' {
                next += 1;
            }
        }
        if i == line {
            return (next, 0); // an empty line ends the event
        }
        line = next;
        i = next;
    }
    (0, line)
}

/// An event's name and its data (data lines joined by LF).
fn parse_event(raw: &[u8]) -> (String, String) {
    let text = String::from_utf8_lossy(raw);
    let mut name = String::new();
    let mut data: Vec<&str> = Vec::new();
    for line in text.split(['\n', '\r']) {
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "event" => name = value.to_string(),
            "data" => data.push(value),
            _ => {}
        }
    }
    (name, data.join("\n"))
}

/// An error event: named "error" (Anthropic, the Responses API), or data
/// that is a JSON object with an "error" object (Chat Completions and Gemini
/// chunks), parsed only when it names an "error" member; as
/// egress/stream.go tests it.
fn is_error_event(name: &str, data: &str) -> bool {
    if name == "error" {
        return true;
    }
    if !data.contains("\"error\"") && !escapes_error_letter(data) {
        return false;
    }
    matches!(serde_json::from_str::<Value>(data), Ok(Value::Object(m)) if m.get("error").is_some_and(Value::is_object))
}

/// Whether data holds a JSON escape of a letter of "error" (`\u0065`,
/// `\u0072`, `\u006f`, either case of hex digit): a member named
/// `"\u0065rror"` is "error" to serde_json and to the SDK, though the text
/// holds no "error".
fn escapes_error_letter(data: &str) -> bool {
    data.match_indices("\\u00").any(|(i, _)| {
        let b = data.as_bytes();
        i + 6 <= b.len() && matches!((b[i + 4], b[i + 5] | 0x20), (b'6', b'5' | b'f') | (b'7', b'2'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An error whose source is itself: the error text reads its chain as the
    /// runtime does, at most 8 causes (it was read until memory ran out).
    #[test]
    fn the_error_text_of_a_looping_source_chain_holds_8_causes() {
        #[derive(Debug)]
        struct Looping;
        impl std::fmt::Display for Looping {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("connect error: Connection refused\nsecond line")
            }
        }
        impl std::error::Error for Looping {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(self)
            }
        }
        let text = error_text(&Looping);
        assert_eq!(text, format!("connect error: Connection refused\nsecond line{}", ": connect error: Connection refused".repeat(8)));
    }

    #[test]
    fn event_end_finds_blank_lines_of_every_line_ending() {
        assert_eq!(event_end(b"data: a\n\ndata: b", 0), (9, 0));
        assert_eq!(event_end(b"data: a\r\n\r\n", 0), (11, 0));
        assert_eq!(event_end(b"data: a\r\rdata: b", 0), (9, 0));
        assert_eq!(event_end(b"data: a\r\n\r", 0).0, 0); // the CR may be half of a CRLF
        assert_eq!(event_end(b"data: a\ndata: b", 0), (0, 8));
        assert_eq!(event_end(b"\ndata: a", 0), (1, 0));
    }

    /// An error event longer than MAX_EVENT_BYTES is dropped and, at its end,
    /// replaced as an event cut short is (as the Go StreamReader does): the
    /// provider's text never passes; the events after it pass as they came.
    #[test]
    fn an_error_event_longer_than_max_event_bytes_is_replaced() {
        let secret = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD";
        let pad = "x".repeat(2 * MAX_EVENT_BYTES);
        let ping = "event: ping\ndata: {}\n\n";
        for (path, event, named, eol) in [
            ("/v1/messages", format!("event: error\ndata: {{\"type\":\"error\",\"error\":{{\"type\":\"overloaded_error\",\"message\":\"{secret}{pad}\"}}}}\n\n"), true, "\n"),
            ("/v1/chat/completions", format!("data: {{ \"error\" : {{\"message\":\"{secret}{pad}\",\"type\":\"server_error\"}}}}\r\n\r\n"), false, "\r\n"),
            ("/v1/messages", format!("event: error\ndata: {{\"type\":\"error\",\"error\":{{\"message\":\"{secret}{pad}"), true, "\n"),
        ] {
            let seen = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
            let s = seen.clone();
            let eg = Egress::default().on_stream_error(move |ev| s.lock().unwrap().push(ev.data.clone()));
            let mut events = Events { eg, ep: endpoint_of("POST", path).unwrap(), pending: Vec::new(), scan: 0, skip: false, dropped: None, emitted: false, started: false };
            let tail = if event.ends_with(&format!("{eol}{eol}")) { ping } else { "" };
            let src = format!("{ping}{event}{tail}").into_bytes();
            let mut out = Vec::new();
            for chunk in src.chunks(64 << 10) {
                out.extend(events.feed(chunk));
            }
            out.extend(events.flush());
            let out = String::from_utf8(out).unwrap();
            let seen = seen.lock().unwrap();
            assert!(!out.contains(secret) && !out.contains("xxxx"), "{path}");
            assert_eq!(seen.len(), 1);
            let head = if named { format!("event: error{eol}") } else { String::new() };
            assert_eq!(out, format!("{ping}{head}data: {}{eol}{eol}{tail}", seen[0]));
        }
    }

    /// `src`, Gemini's streamGenerateContent answer without alt=sse, through
    /// the array reader in chunks of `step` bytes: what the client gets and
    /// the data of each reported error.
    fn through_array(src: &[u8], step: usize) -> (Vec<u8>, Vec<String>) {
        let seen = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
        let s = seen.clone();
        let mut eg = Egress::default().on_stream_error(move |ev| s.lock().unwrap().push(ev.data.clone()));
        eg.drop_upstream_message = true;
        let ep = endpoint_of("POST", "/v1beta/models/gemini-2.5-flash:streamGenerateContent").unwrap();
        let mut elements = Elements::new(eg, ep);
        let mut out = Vec::new();
        for chunk in src.chunks(step) {
            out.extend(elements.feed(chunk));
        }
        out.extend(elements.flush());
        let seen = seen.lock().unwrap().clone();
        (out, seen)
    }

    /// An error element of a Gemini JSON-array stream is replaced by the
    /// error op's object, wherever the chunks split it; the elements before
    /// it pass byte for byte and the array goes on.
    #[test]
    fn an_error_element_of_a_gemini_array_stream_is_replaced() {
        let secret = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD";
        let before = r#"[{"candidates":[{"content":{"parts":[{"text":"a ] and \"{error}\""}]}}]}"#.to_string() + "\r\n,";
        let err = format!(r#"{{"error": {{"code": 503, "message": "{secret} overloaded", "status": "UNAVAILABLE"}}}}"#);
        let after = "\r\n,{\"candidates\":[]}]";
        for step in [1, 7, 1 << 16] {
            let (out, seen) = through_array(format!("{before}{err}{after}").as_bytes(), step);
            assert_eq!(seen.len(), 1, "{step}");
            let out = String::from_utf8(out).unwrap();
            assert!(!out.contains(secret));
            assert_eq!(out, format!("{before}{}{after}", seen[0]));
            let arr: Value = serde_json::from_str(&out).unwrap();
            assert_eq!(arr[1]["error"]["status"], "UNAVAILABLE");
            assert_eq!(arr[1]["error"]["toolerr"]["code"], "OVERLOADED");
            assert_eq!(arr[1]["error"]["toolerr"]["details"]["partial_output"], true);
        }
    }

    /// A cut error element is replaced, one past MAX_EVENT_BYTES by its head;
    /// content past it and a body that is no array pass byte for byte.
    #[test]
    fn a_gemini_array_stream_cut_long_and_content() {
        let (out, seen) = through_array(br#"[{},{"error":{"code":500,"message":"cut"#, 5);
        assert_eq!(seen.len(), 1);
        assert_eq!(String::from_utf8(out).unwrap(), format!("[{{}},{}", seen[0]));
        let pad = "x".repeat(MAX_EVENT_BYTES + 1000);
        let (out, seen) = through_array(format!(r#"[{{}},{{ "error" : {{"code":500,"message":"{pad}"}}}},{{}}]"#).as_bytes(), 64 << 10);
        assert_eq!(seen.len(), 1);
        assert_eq!(String::from_utf8(out).unwrap(), format!("[{{}},{},{{}}]", seen[0]));
        for src in [
            format!(r#"[{{"candidates":[{{"content":{{"parts":[{{"inlineData":{{"data":"{pad}"}}}}]}}}}]}},{{"usageMetadata":{{}}}}]"#),
            r#"{"error":{"code":500,"message":"not an array","status":"INTERNAL"}}"#.to_string(),
            r#"[{"candidates":[{"content":{"parts":[{"text":"the \"error\": {} word"}]}}]}]"#.to_string(),
        ] {
            let (out, seen) = through_array(src.as_bytes(), 64 << 10);
            assert!(seen.is_empty());
            assert!(out == src.as_bytes(), "{:.40} passes as it came", src);
        }
    }

    /// An event longer than MAX_EVENT_BYTES whose head the core tells no
    /// error event's (it answers pass) goes byte for byte, unreported.
    #[test]
    fn an_event_longer_than_max_event_bytes_that_is_no_error_passes() {
        let pad = "y".repeat(2 * MAX_EVENT_BYTES);
        for event in [
            format!("data: {{\"choices\":[{{\"delta\":{{\"content\":\"{pad}\"}}}}]}}\n\n"),
            format!("data: {{\"id\":\"{pad}\",\"error\":{{\"message\":\"late\"}}}}\n\n"),
            format!("event: content_block_delta\ndata: {pad}\n\n"),
            format!("data: {{\"error\":\"{pad}\"}}\n\n"),
        ] {
            let seen = Arc::new(std::sync::Mutex::new(0));
            let s = seen.clone();
            let eg = Egress::default().on_stream_error(move |_| *s.lock().unwrap() += 1);
            let mut events = Events { eg, ep: endpoint_of("POST", "/v1/chat/completions").unwrap(), pending: Vec::new(), scan: 0, skip: false, dropped: None, emitted: false, started: false };
            let src = format!("{event}data: [DONE]\n\n").into_bytes();
            let mut out = Vec::new();
            for chunk in src.chunks(64 << 10) {
                out.extend(events.feed(chunk));
            }
            out.extend(events.flush());
            assert_eq!(*seen.lock().unwrap(), 0);
            assert!(out == src, "{:.40} passes as it came", event);
        }
    }

    /// A member named "\u0065rror" is "error" to serde_json and the SDK: the
    /// chunk is an error chunk, though its text holds no "error"; a content
    /// delta with escapes is content.
    #[test]
    fn an_error_member_name_in_any_escaping_is_an_error_event() {
        for escaped in [r#"{"\u0065rror":{"message":"x"}}"#, r#"{"e\u0072ror":{}}"#, r#"{"err\u006Fr":{}}"#] {
            assert!(is_error_event("", escaped), "{escaped}: serde_json reads the name as error");
        }
        assert!(!is_error_event("", r#"{"choices":[{"delta":{"content":"caf\u00e9 \u0065rror"}}]}"#));
    }

    #[test]
    fn parse_event_joins_data_lines() {
        assert_eq!(
            parse_event(b"event: error\ndata: {\"a\":\ndata: 1}\n\n"),
            ("error".into(), "{\"a\":\n1}".into())
        );
        assert!(is_error_event("", r#"{"error":{"message":"x"}}"#));
        assert!(!is_error_event(
            "",
            r#"{"choices":[{"delta":{"content":"\"error\""}}],"error":"x"}"#
        ));
    }
}
