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
pub const MAX_REQUEST_BYTES: usize = crate::MAX_REQUEST_BYTES;
/// An upstream error body is read up to this many bytes (1 MiB), as the gateway reads it.
pub const MAX_ERROR_BYTES: usize = 1 << 20;
/// A stream event longer than this (4 MiB, an image chunk; the core's `MaxEventBytes`) passes unread,
/// but for a top-level "error" object in it, which the core's scan cuts and replaces.
pub const MAX_EVENT_BYTES: usize = 4 << 20;
/// How far a success outside a stream is read to tell whether it may be an
/// error object in place of the answer (Gemini's 200 `{"error":{...}}`), in
/// bytes: as `egress.RewriteSuccessError` holds in Go (`core.EgressSuccessHeadBytes`).
pub const SUCCESS_HEAD_BYTES: usize = 256;

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
        let events: Box<dyn Split + Send> = Box::new(Scan::new(self.clone(), ep, if is_sse { "sse" } else { "array" }));
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
                        && self.may_be_error_object(ep, resp.status().as_u16(), &held[..SUCCESS_HEAD_BYTES])
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
        if ended && self.may_be_error_object(ep, resp.status().as_u16(), &held[..held.len().min(SUCCESS_HEAD_BYTES)]) {
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

impl Egress {
    /// Whether `head`, the first [`SUCCESS_HEAD_BYTES`] of a success of
    /// `status` (or all of a shorter one), may open an error object in place
    /// of the answer, as the core tells it: the `egress_error` op with
    /// `http.head` answers `{"read": true}` or `{"pass": true}`
    /// (docs/egress.md, "The success-head gate"). Such a body is read whole
    /// and the core decides on it; an answer the op refuses passes.
    fn may_be_error_object(&self, ep: &Endpoint, status: u16, head: &[u8]) -> bool {
        let upstream = json!({"http": {"status": status, "head": String::from_utf8_lossy(head)}});
        invoke(&self.error_request(ep, upstream)).is_ok_and(|rep| rep["read"] == Value::Bool(true))
    }
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

/// What a stream's body passes through: `feed` returns what of the next
/// bytes is ready for the client, `flush` what it gets when the stream
/// ends.
trait Split {
    fn feed(&mut self, chunk: &[u8]) -> Vec<u8>;
    fn flush(&mut self) -> Vec<u8>;
}

/// Frames a stream as it arrives with the core (the `egress_scan` op),
/// which every transport of every binding and the gateway run: this only
/// moves bytes. Each chunk goes to the core after the bytes it held last
/// time (the frame in progress), with the state it answered; the core
/// answers which bytes pass, which are replaced (an error event or element,
/// by the error op's) and which it holds. `kind` is `sse` (a
/// text/event-stream) or `array` (Gemini's streamGenerateContent without
/// alt=sse). See docs/egress.md, "The scan op".
struct Scan {
    eg: Egress,
    ep: Endpoint,
    held: Vec<u8>,
    state: String,
    /// The request's members before the state: `{"op":"egress_scan",...,"state":"`.
    prefix: String,
    /// The core refused a chunk (not reached: the state is its own): the rest passes unread.
    passing: bool,
    /// The bytes of input given to the core so far (for the tests).
    sent: usize,
}

/// The start of the answer for a chunk without cuts.
const CLEAN: &[u8] = br#"{"ok":{"cuts":[],"hold":"#;

impl Scan {
    fn new(eg: Egress, ep: Endpoint, kind: &str) -> Scan {
        let mut members = json!({"ingress": ep.format, "provider": ep.format});
        if eg.drop_upstream_message {
            members["upstream_message"] = "drop".into();
        }
        let m = members.to_string();
        let prefix = format!(r#"{{"op":"egress_scan",{},"state":""#, &m[1..m.len() - 1]);
        Scan { eg, ep, held: Vec::new(), state: kind.to_string(), prefix, passing: false, sent: 0 }
    }

    fn scan(&mut self, chunk: &[u8], eof: bool) -> Vec<u8> {
        let mut data = std::mem::take(&mut self.held);
        data.extend_from_slice(chunk);
        if self.passing || (data.is_empty() && !eof) {
            return data;
        }
        // A long frame's held bytes go to the core once, not once per chunk:
        // only their last SCAN_TAIL go again with the chunk ("skip" leaves the
        // rest out), and the core asks for them all when it must read the frame.
        let held = data.len() - chunk.len();
        let skip = if held >= SCAN_LONG && !eof { held - SCAN_TAIL } else { 0 };
        let mut out = self.invoke(&data, skip, eof);
        if out == SCAN_RESEND {
            out = self.invoke(&data, 0, eof);
        }
        if let Some(rest) = out.strip_prefix(CLEAN) {
            // No cuts: {"ok":{"cuts":[],"hold":N,"state":"..."}}
            let rest = std::str::from_utf8(&rest[..rest.len().saturating_sub(3)]).unwrap_or("");
            if let Some((hold, state)) = rest.split_once(r#","state":""#) {
                if let Ok(hold) = hold.parse::<usize>() {
                    self.state = state.to_string();
                    self.held = data.split_off(hold.min(data.len()));
                    return data;
                }
            }
        }
        let rep: Value = serde_json::from_slice(&out).unwrap_or(Value::Null);
        let ok = &rep["ok"];
        let (Some(hold), Some(state), Some(cuts)) = (ok["hold"].as_u64(), ok["state"].as_str(), ok["cuts"].as_array()) else {
            self.passing = true;
            return data;
        };
        let hold = (hold as usize).min(data.len());
        let mut parts = Vec::with_capacity(hold);
        let mut at = 0;
        for cut in cuts {
            let start = (cut["start"].as_u64().unwrap_or(0) as usize).clamp(at, hold);
            parts.extend_from_slice(&data[at..start]);
            at = (cut["end"].as_u64().unwrap_or(0) as usize).clamp(start, hold);
            if let Some(write) = cut["write"].as_str() {
                parts.extend_from_slice(write.as_bytes());
                if let Ok(envelope) = serde_json::from_value::<Envelope>(cut["envelope"].clone()) {
                    self.eg.report(&StreamError {
                        endpoint: self.ep.clone(),
                        envelope,
                        event: cut["event"].as_str().unwrap_or("").to_string(),
                        data: cut["data"].as_str().unwrap_or("").to_string(),
                    });
                }
            }
        }
        parts.extend_from_slice(&data[at..hold]);
        self.state = state.to_string();
        self.held = data.split_off(hold);
        parts
    }
}

impl Scan {
    /// The core's answer for `data` (the held bytes, then the chunk) but its
    /// first `skip` bytes; `sent` counts the bytes given.
    fn invoke(&mut self, data: &[u8], skip: usize, eof: bool) -> Vec<u8> {
        let input = &data[skip..];
        let head = format!(
            r#"{}{}","now_ms":{}{}{},"input":"#,
            self.prefix,
            self.state,
            self.eg.now(),
            if skip > 0 { format!(r#","skip":{skip}"#) } else { String::new() },
            if eof { r#","eof":true"# } else { "" }
        );
        let tail = format!(r#","raw_len":{}}}"#, input.len());
        let mut req = Vec::with_capacity(head.len() + input.len() + tail.len());
        req.extend_from_slice(head.as_bytes());
        req.extend_from_slice(input);
        req.extend_from_slice(tail.as_bytes());
        self.sent += input.len();
        crate::invoke_bytes(&req)
    }
}

/// Held bytes from which a scan leaves their front out of its input, and
/// the held bytes it sends again with a chunk.
const SCAN_LONG: usize = 4096;
const SCAN_TAIL: usize = 16;

/// The answer of a scan that needs the held bytes it left out.
const SCAN_RESEND: &[u8] = br#"{"ok":{"resend":true}}"#;

impl Split for Scan {
    fn feed(&mut self, chunk: &[u8]) -> Vec<u8> {
        self.scan(chunk, false)
    }
    fn flush(&mut self) -> Vec<u8> {
        self.scan(&[], true)
    }
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
            let mut events = Scan::new(eg, endpoint_of("POST", path).unwrap(), "sse");
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
    /// the array scan in chunks of `step` bytes (the upstream's message
    /// dropped): what the client gets and the data of each reported error.
    fn through_array(src: &[u8], step: usize) -> (Vec<u8>, Vec<String>) {
        through("/v1beta/models/gemini-2.5-flash:streamGenerateContent", "array", true, src, step)
    }

    /// `src`, a stream of the API at `path`, through the scan of `kind` in
    /// chunks of `step` bytes: what the client gets and each reported
    /// error's data.
    fn through(path: &str, kind: &str, drop: bool, src: &[u8], step: usize) -> (Vec<u8>, Vec<String>) {
        let seen = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
        let s = seen.clone();
        let mut eg = Egress::default().on_stream_error(move |ev| s.lock().unwrap().push(ev.data.clone()));
        eg.drop_upstream_message = drop;
        let mut scan = Scan::new(eg, endpoint_of("POST", path).unwrap(), kind);
        let mut out = Vec::new();
        for chunk in src.chunks(step) {
            out.extend(scan.feed(chunk));
        }
        out.extend(scan.flush());
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
    /// error event's (it answers pass), and that holds no top-level "error"
    /// object (which the scan cuts: the shared fixtures), goes byte for
    /// byte, unreported.
    #[test]
    fn an_event_longer_than_max_event_bytes_that_is_no_error_passes() {
        let pad = "y".repeat(2 * MAX_EVENT_BYTES);
        for event in [
            format!("data: {{\"choices\":[{{\"delta\":{{\"content\":\"{pad}\"}}}}]}}\n\n"),
            format!("event: content_block_delta\ndata: {pad}\n\n"),
            format!("data: {{\"error\":\"{pad}\"}}\n\n"),
        ] {
            let seen = Arc::new(std::sync::Mutex::new(0));
            let s = seen.clone();
            let eg = Egress::default().on_stream_error(move |_| *s.lock().unwrap() += 1);
            let mut events = Scan::new(eg, endpoint_of("POST", "/v1/chat/completions").unwrap(), "sse");
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
    /// delta with escapes is content (the core's rule, through the scan).
    #[test]
    fn an_error_member_name_in_any_escaping_is_an_error_event() {
        for escaped in [r#"{"\u0065rror":{"message":"x"}}"#, r#"{"e\u0072ror":{}}"#, r#"{"err\u006Fr":{}}"#] {
            let (out, seen) = through_sse(format!("data: {escaped}\n\n").as_bytes(), 3);
            assert_eq!(seen.len(), 1, "{escaped}: serde_json reads the name as error");
            assert!(String::from_utf8(out).unwrap().contains("\"toolerr\":"));
        }
        let content = br#"data: {"choices":[{"delta":{"content":"caf\u00e9 \u0065rror"}}]}"#.to_vec();
        let (out, seen) = through_sse(&[content.as_slice(), b"\n\n"].concat(), 5);
        assert!(seen.is_empty() && out == [content.as_slice(), b"\n\n"].concat());
    }

    /// `src`, a text/event-stream of Chat Completions, through the scan in
    /// chunks of `step` bytes: what the client gets and each reported error's data.
    fn through_sse(src: &[u8], step: usize) -> (Vec<u8>, Vec<String>) {
        through("/v1/chat/completions", "sse", false, src, step)
    }

    /// The bytes of a fixture's pieces: a string's UTF-8, `{"b64"}`, `{"repeat", "times"}`.
    fn pieces(ps: &Value) -> Vec<u8> {
        let mut out = Vec::new();
        for p in ps.as_array().unwrap() {
            match p {
                Value::String(s) => out.extend_from_slice(s.as_bytes()),
                _ if p.get("b64").is_some() => out.extend(unbase64(p["b64"].as_str().unwrap())),
                _ => out.extend(p["repeat"].as_str().unwrap().repeat(p["times"].as_u64().unwrap() as usize).into_bytes()),
            }
        }
        out
    }

    /// `s` decoded from base64 (RFC 4648, padded).
    fn unbase64(s: &str) -> Vec<u8> {
        const ABC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let (mut out, mut acc, mut bits) = (Vec::new(), 0u32, 0);
        for c in s.bytes().filter(|&c| c != b'=') {
            acc = acc << 6 | ABC.iter().position(|&x| x == c).unwrap() as u32;
            bits += 6;
            if bits >= 8 {
                bits -= 8;
                out.push((acc >> bits) as u8);
            }
        }
        out
    }

    /// The shared stream fixtures (conformance/streams/*.json): each case's
    /// input, in each of its chunkings, gives the client the case's output
    /// bytes and reports its errors, as the Go readers and every binding do.
    /// A 1 MiB frame in 1 KiB chunks, clean or an error: the held bytes but
    /// their last few are left out ("skip") until the frame ends, when the
    /// core asks for them all, so each byte goes to the core about twice
    /// (537 MB went for it before, the held bytes again with every chunk).
    #[test]
    fn a_long_frame_in_small_chunks_goes_to_the_core_about_twice() {
        let long = "x".repeat(1 << 20);
        for (frame, errors) in [
            (format!(r#"data: {{"choices":[{{"delta":{{"content":"{long}"}}}}]}}"#), 0),
            (format!(r#"data: {{"error":{{"message":"sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD{long}","type":"server_error"}}}}"#), 1),
        ] {
            let src = format!("{frame}\n\ndata: [DONE]\n\n").into_bytes();
            let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
            let s = seen.clone();
            let mut eg = Egress::default().on_stream_error(move |ev| s.lock().unwrap().push(ev.data.clone()));
            eg.now_ms = Some(Arc::new(|| 1));
            let mut scan = Scan::new(eg, endpoint_of("POST", "/v1/chat/completions").unwrap(), "sse");
            let mut out = Vec::new();
            for ch in src.chunks(1024) {
                out.extend(scan.feed(ch));
            }
            out.extend(scan.flush());
            let seen = seen.lock().unwrap();
            assert_eq!(seen.len(), errors);
            let want = if errors == 0 { src.clone() } else { format!("data: {}\n\ndata: [DONE]\n\n", seen[0]).into_bytes() };
            assert!(out == want, "the client's bytes");
            assert!(scan.sent > src.len() && scan.sent < 2 * src.len() + (64 << 10), "{} bytes sent for {}", scan.sent, src.len());
        }
    }

    #[test]
    fn the_stream_fixtures_give_their_output_in_every_chunking() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance/streams");
        let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "json")).collect();
        files.sort();
        assert!(!files.is_empty());
        for file in files {
            let cases: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
            for c in cases.as_array().unwrap() {
                let (src, want) = (pieces(&c["input"]), pieces(&c["output"]));
                let size = c["chunk_size"].as_u64().unwrap_or(0) as usize;
                let mut chunkings: Vec<Vec<&[u8]>> = vec![if size > 0 { src.chunks(size).collect() } else { vec![&src[..]] }];
                if c["every_split"].as_bool().unwrap_or(false) {
                    for i in 1..src.len() {
                        chunkings.push(vec![&src[..i], &src[i..]]);
                    }
                    chunkings.push(src.chunks(1).collect());
                }
                let now = c["now_ms"].as_i64().unwrap();
                let path = match c["ingress"].as_str().unwrap() {
                    "openai-chat" => "/v1/chat/completions",
                    "openai-responses" => "/v1/responses",
                    "anthropic" => "/v1/messages",
                    _ => "/v1beta/models/gemini-2.5-flash:streamGenerateContent",
                };
                for chunks in chunkings {
                    let seen = Arc::new(std::sync::Mutex::new(0));
                    let s = seen.clone();
                    let mut eg = Egress::default().on_stream_error(move |_| *s.lock().unwrap() += 1);
                    eg.now_ms = Some(Arc::new(move || now));
                    let mut scan = Scan::new(eg, endpoint_of("POST", path).unwrap(), c["kind"].as_str().unwrap());
                    let mut out = Vec::new();
                    for ch in &chunks {
                        out.extend(scan.feed(ch));
                    }
                    out.extend(scan.flush());
                    let what = format!("{}: {}, {} chunks", file.display(), c["description"], chunks.len());
                    assert!(out == want, "{what}");
                    assert_eq!(*seen.lock().unwrap(), c["errors"].as_u64().unwrap(), "{what}");
                }
            }
        }
    }
}
