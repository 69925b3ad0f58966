//! toolerr::egress (feature `egress`): the middleware in a reqwest-middleware
//! client in front of a fake upstream on 127.0.0.1 (a real HTTP/1.1 server on
//! a TcpListener): upstream errors in the client's native shape with their
//! status and wait headers, the native failure flag at the upstream, unchanged
//! bodies byte for byte, stream error events rewritten and reported, events
//! passed one by one, a refused connection answered 502.
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use toolerr::egress::{endpoint_of, Egress, StreamError};

/// One scripted answer: a status, headers and a JSON body, or SSE events
/// (with a wait for the gate after the first when `gate` is set).
#[derive(Clone)]
enum Reply {
    Json(u16, Vec<(&'static str, &'static str)>, Value),
    Events(Vec<String>, bool),
    /// Gemini's streamGenerateContent without alt=sse: one JSON array, a piece a write.
    Array(Vec<String>),
}

struct Upstream {
    url: String,
    hits: Arc<Mutex<Vec<(String, Vec<u8>)>>>,
    gate: mpsc::SyncSender<()>,
    gate_timed_out: Arc<Mutex<bool>>,
}

fn upstream(reply: Reply) -> Upstream {
    let ln = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", ln.local_addr().unwrap());
    let hits = Arc::new(Mutex::new(Vec::new()));
    let (gate, gate_rx) = mpsc::sync_channel::<()>(1);
    let gate_rx = Arc::new(Mutex::new(gate_rx));
    let timed_out = Arc::new(Mutex::new(false));
    let (h, t) = (hits.clone(), timed_out.clone());
    std::thread::spawn(move || {
        for conn in ln.incoming() {
            let Ok(mut conn) = conn else { return };
            let mut r = BufReader::new(conn.try_clone().unwrap());
            let mut line = String::new();
            r.read_line(&mut line).unwrap();
            let path = line.split(' ').nth(1).unwrap_or("").to_string();
            let mut len = 0usize;
            loop {
                let mut l = String::new();
                r.read_line(&mut l).unwrap();
                if l == "\r\n" || l.is_empty() {
                    break;
                }
                if let Some((k, v)) = l.split_once(':') {
                    if k.eq_ignore_ascii_case("content-length") {
                        len = v.trim().parse().unwrap();
                    }
                }
            }
            let mut body = vec![0; len];
            r.read_exact(&mut body).unwrap();
            h.lock().unwrap().push((path, body));
            match &reply {
                Reply::Json(status, headers, v) => {
                    let b = v.to_string();
                    let mut head = format!("HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n", b.len());
                    for (k, v) in headers {
                        head.push_str(&format!("{k}: {v}\r\n"));
                    }
                    conn.write_all(format!("{head}\r\n{b}").as_bytes()).unwrap();
                }
                Reply::Array(pieces) => {
                    conn.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json; charset=UTF-8\r\nconnection: close\r\n\r\n").unwrap();
                    for p in pieces {
                        conn.write_all(p.as_bytes()).unwrap();
                        conn.flush().unwrap();
                    }
                }
                Reply::Events(events, gated) => {
                    conn.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n").unwrap();
                    for (i, ev) in events.iter().enumerate() {
                        if i == 1 && *gated {
                            let ok = gate_rx
                                .lock()
                                .unwrap()
                                .recv_timeout(Duration::from_secs(10))
                                .is_ok();
                            *t.lock().unwrap() = !ok;
                        }
                        conn.write_all(ev.as_bytes()).unwrap();
                        conn.flush().unwrap();
                    }
                }
            }
        }
    });
    Upstream {
        url,
        hits,
        gate,
        gate_timed_out: timed_out,
    }
}

async fn json_of(r: reqwest::Response) -> Value {
    serde_json::from_str(&r.text().await.unwrap()).unwrap()
}

fn client(eg: Egress) -> reqwest_middleware::ClientWithMiddleware {
    reqwest_middleware::ClientBuilder::new(reqwest::Client::new())
        .with(eg)
        .build()
}

fn envelope_text() -> String {
    let env = toolerr::envelope(
        "TIMEOUT",
        "Weather service timed out.",
        None,
        None,
        Some("tool"),
    )
    .unwrap();
    toolerr::canonicalize(&serde_json::to_value(env).unwrap()).unwrap()
}

fn sse(name: &str, data: Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

#[tokio::test]
async fn anthropic_429_keeps_status_wait_and_native_shape() {
    let up = upstream(Reply::Json(
        429,
        vec![("retry-after", "7"), ("request-id", "req_1")],
        json!({"type": "error", "error": {"type": "rate_limit_error", "message": "Number of request tokens has exceeded your per-minute rate limit"}}),
    ));
    let r = client(Egress::default())
        .post(format!("{}/v1/messages", up.url))
        .body(r#"{"model":"claude-sonnet-4-6","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 429);
    let h = r.headers().clone();
    assert_eq!(h["retry-after"], "7");
    assert_eq!(h["retry-after-ms"], "7000");
    assert_eq!(h["x-should-retry"], "true");
    assert_eq!(h["request-id"], "req_1");
    let body = json_of(r).await;
    assert_eq!(body["type"], "error");
    assert_eq!(body["error"]["type"], "rate_limit_error");
    assert_eq!(body["error"]["toolerr"]["code"], "RATE_LIMITED");
    let header_env: Value =
        serde_json::from_str(h["x-toolerr-envelope"].to_str().unwrap()).unwrap();
    assert_eq!(header_env, body["error"]["toolerr"]);
    assert_eq!(up.hits.lock().unwrap().len(), 1); // the middleware never retries
}

#[tokio::test]
async fn an_overloaded_529_stays_529() {
    let up = upstream(Reply::Json(
        529,
        vec![],
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
    ));
    let r = client(Egress::default())
        .post(format!("{}/v1/messages", up.url))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 529);
    let body = json_of(r).await;
    assert_eq!(
        [&body["error"]["type"], &body["error"]["toolerr"]["code"]],
        ["overloaded_error", "OVERLOADED"]
    );
}

#[tokio::test]
async fn the_envelope_reaches_the_upstream_with_is_error() {
    let up = upstream(Reply::Json(200, vec![], json!({"id": "msg_1"})));
    let env = envelope_text();
    let body = json!({"model": "claude-sonnet-4-6", "max_tokens": 8, "messages": [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"city": "Paris"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": env}]}]});
    let r = client(Egress::default())
        .post(format!("{}/v1/messages", up.url))
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let hits = up.hits.lock().unwrap();
    let sent: Value = serde_json::from_slice(&hits[0].1).unwrap();
    assert_eq!(
        sent["messages"][2]["content"][0],
        json!({"type": "tool_result", "tool_use_id": "toolu_01", "content": env, "is_error": true})
    );
}

#[tokio::test]
async fn an_unchanged_body_goes_byte_for_byte_and_an_unreadable_one_as_it_came() {
    let raw = "{ \"model\" : \"gpt-4o\",\n \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}], \"seed\": 12345678901234567890 }";
    for body in [raw, "{not json"] {
        let up = upstream(Reply::Json(200, vec![], json!({})));
        client(Egress::default())
            .post(format!("{}/v1/chat/completions", up.url))
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(up.hits.lock().unwrap()[0].1, body.as_bytes());
    }
}

/// A Gemini generateContent request through the middleware to `up`.
async fn generate(up: &Upstream) -> reqwest::Response {
    client(Egress::default())
        .post(format!(
            "{}/v1beta/models/gemini-2.5-flash:generateContent",
            up.url
        ))
        .body(r#"{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}"#)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_200_error_object_is_answered_as_its_failure_and_a_success_passes() {
    // Gemini's 200 {"error":{...}}: its code as the status, the native shape,
    // the envelope, the key in its message never passed (docs/egress.md, "An
    // error object under 200").
    let up = upstream(Reply::Json(
        200,
        vec![],
        json!({"error": {"code": 503, "message": "The model is overloaded. Please try again later. key=AIzaSyA-secret-key-0123456789abcdefghij", "status": "UNAVAILABLE"}}),
    ));
    let r = generate(&up).await;
    assert_eq!(r.status().as_u16(), 503);
    assert_eq!(r.headers()["x-should-retry"], "true");
    let env = json!({"code": "OVERLOADED", "details": {"provider": "gemini", "provider_type": "UNAVAILABLE", "status": 503},
        "message": "The Gemini API is overloaded (HTTP 503); retry later.", "retryable": true, "source": "provider"});
    let text = r.text().await.unwrap();
    assert!(!text.contains("AIzaSy"));
    let got: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        got,
        json!({"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE", "toolerr": env}})
    );
    for answer in [
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "hi"}]}, "finishReason": "STOP"}]}),
        json!({"id": "resp_1", "object": "response", "status": "failed", "error": {"code": "server_error", "message": "x"}, "output": []}),
        json!({"candidates": [{"content": {"parts": [{"text": "x".repeat(3 << 20)}]}}]}),
    ] {
        let r = generate(&upstream(Reply::Json(200, vec![], answer.clone()))).await;
        assert_eq!(r.status().as_u16(), 200);
        assert_eq!(r.text().await.unwrap(), answer.to_string());
    }
}

/// The success gate is the core's (`egress_error` with `http.head`): an
/// escaped member name still opens an error object. The binding's own
/// 64-byte gate, which looked for the bytes `"error"`, passed it as a 200.
#[tokio::test]
async fn a_200_error_object_with_an_escaped_name_is_still_its_failure() {
    let body = r#"{"\u0065rror": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}"#;
    let r = generate(&upstream(Reply::Array(vec![body.into()]))).await;
    assert_eq!(r.status().as_u16(), 503);
    let got: Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
    assert_eq!(got["error"]["toolerr"]["code"], "OVERLOADED", "{got}");
}

#[tokio::test]
async fn a_stream_error_event_is_rewritten_reported_and_events_pass_one_by_one() {
    let events = vec![
        sse(
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_1"}}),
        ),
        sse(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Par"}}),
        ),
        sse(
            "error",
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        ),
    ];
    let up = upstream(Reply::Events(events.clone(), true));
    let seen: Arc<Mutex<Vec<StreamError>>> = Arc::default();
    let s = seen.clone();
    let eg = Egress::default().on_stream_error(move |e| s.lock().unwrap().push(e.clone()));
    let mut r = client(eg)
        .post(format!("{}/v1/messages", up.url))
        .body("{}")
        .send()
        .await
        .unwrap();
    let first = r.chunk().await.unwrap().unwrap();
    assert_eq!(first, events[0].as_bytes()); // the first event alone, before the upstream wrote the next
    up.gate.send(()).unwrap();
    let mut rest = Vec::new();
    while let Some(c) = r.chunk().await.unwrap() {
        rest.extend_from_slice(&c);
    }
    assert!(!*up.gate_timed_out.lock().unwrap());
    let rest = String::from_utf8(rest).unwrap();
    assert!(rest.starts_with(&events[1]), "{rest}");
    let (head, data) = rest[events[1].len()..].split_once("data: ").unwrap();
    assert_eq!(head, "event: error\n");
    let data: Value = serde_json::from_str(data.trim_end()).unwrap();
    assert_eq!(data["error"]["toolerr"]["code"], "OVERLOADED");
    assert_eq!(data["error"]["toolerr"]["details"]["partial_output"], true);
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(
        (
            seen[0].endpoint.api.as_str(),
            seen[0].event.as_str(),
            seen[0].envelope.code.as_str()
        ),
        ("messages", "error", "OVERLOADED")
    );
}

#[tokio::test]
async fn a_refused_connection_is_a_native_502() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port(); // closed when dropped
    let r = client(Egress::default())
        .post(format!("http://127.0.0.1:{port}/v1/chat/completions"))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 502);
    assert_eq!(r.headers()["x-should-retry"], "true");
    let body = json_of(r).await;
    assert_eq!(body["error"]["toolerr"]["code"], "TRANSPORT");
}

#[tokio::test]
async fn other_requests_pass_untouched() {
    let up = upstream(Reply::Json(404, vec![], json!({"error": "nope"})));
    let r = client(Egress::default())
        .post(format!("{}/v1/embeddings", up.url))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 404);
    assert_eq!(json_of(r).await, json!({"error": "nope"}));
}

#[test]
fn endpoint_of_matches_the_provider_apis_by_the_end_of_the_path() {
    let cases: &[(&str, &str, Option<(&str, &str, &str)>)] = &[
        ("POST", "/v1/chat/completions", Some(("chat_completions", "openai-chat", ""))),
        ("POST", "/openai/deployments/d/chat/completions", Some(("chat_completions", "openai-chat", ""))),
        ("POST", "/v1/responses", Some(("responses", "openai-responses", ""))),
        ("POST", "/v1/messages", Some(("messages", "anthropic", ""))),
        ("POST", "/v1/messages/count_tokens", Some(("count_tokens", "anthropic", ""))),
        ("POST", "/v1beta/models/gemini-2.5-flash:generateContent", Some(("generate_content", "gemini", "gemini-2.5-flash"))),
        ("POST", "/v1/projects/p/locations/l/publishers/google/models/gemini-2.5-pro:streamGenerateContent", Some(("stream_generate_content", "gemini", "gemini-2.5-pro"))),
        ("POST", "/v1/threads/t/messages", None),
        ("POST", "/v1beta/models/gemini-2.5-flash:embedContent", None),
        ("GET", "/v1/chat/completions", None),
    ];
    for (m, p, want) in cases {
        let got = endpoint_of(m, p);
        assert_eq!(
            got.as_ref().map(|e| (e.api.as_str(), e.format.as_str(), e.model.as_str())),
            *want,
            "{p}"
        );
    }
}

const SECRET: &str = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD";

/// The body of a POST of `body` to `path` through the middleware.
async fn body_of(up: &Upstream, path: &str, body: &'static str) -> String {
    let eg = Egress::default().on_stream_error(|_| {});
    let r = client(eg)
        .post(format!("{}{path}", up.url))
        .body(body)
        .send()
        .await
        .unwrap();
    String::from_utf8(r.bytes().await.unwrap().to_vec()).unwrap()
}

#[tokio::test]
async fn an_error_element_of_a_gemini_array_stream_is_rewritten() {
    // streamGenerateContent without alt=sse: the element before passes byte
    // for byte, the error element becomes the error op's Gemini object.
    let ok = r#"[{"candidates":[{"content":{"parts":[{"text":"Par ] {"}]}}]}"#.to_string() + "\r\n";
    let err = format!(r#",{{"error":{{"code":503,"message":"{SECRET} The model is overloaded.","status":"UNAVAILABLE"}}}}"#);
    let up = upstream(Reply::Array(vec![ok.clone(), err, "\r\n]".into()]));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    let mut eg = Egress::default().on_stream_error(move |e| s.lock().unwrap().push(e.envelope.code.clone()));
    eg.drop_upstream_message = true;
    let r = client(eg)
        .post(format!("{}/v1beta/models/gemini-2.5-flash:streamGenerateContent", up.url))
        .body(r#"{"contents":[]}"#)
        .send()
        .await
        .unwrap();
    let text = String::from_utf8(r.bytes().await.unwrap().to_vec()).unwrap();
    assert!(!text.contains(SECRET), "{text}");
    assert!(text.starts_with(&format!("{ok},")) && text.ends_with("}\r\n]"), "{text}");
    let arr: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(arr[1]["error"]["status"], "UNAVAILABLE");
    assert_eq!(arr[1]["error"]["toolerr"]["code"], "OVERLOADED");
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn a_bom_before_the_first_event_hides_no_error_event() {
    let error = format!(r#"data: {{"error":{{"message":"{SECRET}","type":"server_error"}}}}"#);
    let up = upstream(Reply::Events(vec![format!("\u{feff}{error}\n\n")], false));
    let text = body_of(&up, "/v1/chat/completions", "{}").await;
    assert!(!text.contains(SECRET), "{text}");
    assert_eq!(text.matches("data: ").count(), 1);
    assert!(
        text.contains(r#""toolerr":{"code":"SERVER_ERROR""#),
        "{text}"
    );
    // Before an event passed through, the BOM stays.
    let first = "\u{feff}data: {\"choices\":[]}\n\n".to_string();
    let up = upstream(Reply::Events(
        vec![first.clone(), format!("{error}\n\n")],
        false,
    ));
    let text = body_of(&up, "/v1/chat/completions", "{}").await;
    assert!(text.starts_with(&first) && !text.contains(SECRET), "{text}");
}

#[tokio::test]
async fn a_stream_that_ends_inside_an_error_event_has_it_rewritten() {
    let event = format!(
        r#"event: error
data: {{"type":"error","error":{{"type":"overloaded_error","message":"{SECRET}"}}}}"#
    );
    for eol in ["", "\n", "\r\n"] {
        let ping = "event: ping\ndata: {}\n\n".to_string();
        let up = upstream(Reply::Events(
            vec![ping.clone(), format!("{event}{eol}")],
            false,
        ));
        let text = body_of(&up, "/v1/messages", "{}").await;
        let end = if eol.is_empty() { "\n" } else { eol };
        assert!(!text.contains(SECRET), "{text}");
        assert!(
            text.starts_with(&format!("{ping}event: error{end}data: {{")),
            "{text}"
        );
        assert!(text.ends_with(&format!("}}{end}{end}")), "{text}");
        assert!(text.contains(r#""toolerr":{"code":"OVERLOADED""#), "{text}");
    }
    // A tail that is no error event passes as it came.
    let cut = r#"data: {"choices":[{"delta":{"content":"cut"#.to_string();
    let up = upstream(Reply::Events(vec![cut.clone()], false));
    assert_eq!(body_of(&up, "/v1/chat/completions", "{}").await, cut);
}

#[tokio::test]
async fn an_unreadable_retry_after_does_not_reach_the_client() {
    for name in ["retry-after", "retry-after-ms"] {
        for value in ["-5", "abc", "1e9"] {
            let up = upstream(Reply::Json(
                503,
                vec![(name, value), ("x-request-id", "req_1")],
                json!({"error": {"message": "busy", "type": "server_error"}}),
            ));
            let r = client(Egress::default())
                .post(format!("{}/v1/chat/completions", up.url))
                .body("{}")
                .send()
                .await
                .unwrap();
            let h = r.headers();
            assert_eq!(
                (
                    r.status().as_u16(),
                    h.get("x-request-id").map(|v| v.to_str().unwrap()),
                    h.get("retry-after"),
                    h.get("retry-after-ms")
                ),
                (503, Some("req_1"), None, None),
                "{name}: {value}"
            );
        }
    }
}

#[tokio::test]
async fn a_rewritten_event_keeps_the_crlf_line_ends() {
    let ok = "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Par\"}]}}]}\r\n\r\n";
    let up = upstream(Reply::Events(
        vec![
            ok.to_string(),
            "data: {\"error\":{\"code\":503,\"message\":\"busy\",\"status\":\"UNAVAILABLE\"}}\r\n\r\n"
                .to_string(),
        ],
        false,
    ));
    let path = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse";
    let text = body_of(&up, path, "{}").await;
    assert!(
        text.starts_with(ok) && text.contains(r#""toolerr":{"code":""#),
        "{text}"
    );
    assert!(text.ends_with("\r\n\r\n"), "{text}");
    assert_eq!(
        (text.matches('\n').count(), text.matches("\r\n").count()),
        (4, 4)
    );
}
