//! The thin request builders: each reaches its op and maps the answer to Rust types.
use serde_json::{json, Value};
use toolerr::{ClassifyOptions, Envelope, Outcome};

fn timeout() -> Envelope {
    serde_json::from_value(json!({"code": "TIMEOUT", "message": "Search timed out after 10 s.", "retryable": true,
                                  "details": {"tool": "search"}, "source": "tool"})).unwrap()
}

#[test]
fn classify_http_reads_retry_after() {
    let opts = ClassifyOptions { tool: Some("get_weather".into()), ..Default::default() };
    let e = toolerr::classify_http(429, &[("Retry-After", "7")], None, &opts).unwrap();
    assert_eq!((e.code.as_str(), e.retryable, &e.details["retry_after_seconds"]), ("RATE_LIMITED", true, &json!(7)));
}

#[test]
fn classify_http_with_a_tool_is_the_tools_failure() {
    // One rule, in the core: naming a tool makes it the tool's failure unless source says otherwise.
    let tool = ClassifyOptions { tool: Some("search".into()), ..Default::default() };
    let e = toolerr::classify_http(503, &[], None, &tool).unwrap();
    assert_eq!((e.source.as_str(), e.message.as_str()), ("tool", "The search tool is unavailable (HTTP 503); retry later."));
    let body = json!({"error": {"message": "max_results must be at most 50"}});
    let e = toolerr::classify_http(400, &[], Some(body), &tool).unwrap();
    assert_eq!((e.code.as_str(), &e.details["tool_message"]), ("INVALID_ARGS", &json!("max_results must be at most 50.")));
    assert!(e.details.get("provider").is_none());
    let provider = ClassifyOptions { source: Some("provider".into()), ..tool };
    assert_eq!(toolerr::classify_http(503, &[], None, &provider).unwrap().source, "provider");
}

#[test]
fn classify_error_reads_a_rust_error_without_leaking_it() {
    let err = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "connection refused; key=sk-abcdefghijklmnopqrstuvwx");
    let e = toolerr::classify_error(&err, Some("search")).unwrap();
    assert_eq!(e.source, "tool");
    assert!(!e.message.contains("sk-abcdefghijklmnopqrstuvwx"), "{}", e.message);
}

#[test]
fn serialize_then_parse_gives_the_outcome_back() {
    for fmt in ["openai-chat", "openai-responses", "anthropic", "gemini", "bedrock", "mcp"] {
        let msgs: Vec<Value> = toolerr::serialize(fmt, &[Outcome::failed("call_1", "search", timeout())]).unwrap();
        let want = Outcome::failed(if fmt == "mcp" { "" } else { "call_1" }, if fmt == "gemini" { "search" } else { "" }, timeout());
        assert_eq!(toolerr::parse(fmt, &msgs).unwrap(), vec![want], "{fmt}");
    }
}

#[test]
fn to_functions_give_each_vendor_shape() {
    let o = [Outcome::failed("call_1", "search", timeout())];
    let msgs = toolerr::to_openai_chat(&o).unwrap();
    let chat = msgs[0].as_tool().unwrap();
    assert_eq!((chat.role.as_str(), chat.tool_call_id.as_str()), ("tool", "call_1"));
    let env: Envelope = serde_json::from_str(chat.content.as_str().unwrap()).unwrap();
    assert_eq!(env, timeout());
    assert_eq!(toolerr::to_openai_responses(&o).unwrap()[0].kind, "function_call_output");
    assert_eq!(toolerr::to_anthropic(&o).unwrap()[0].content[0].is_error, Some(true));
    assert!(toolerr::to_gemini(&o).unwrap()[0].parts[0].function_response.response.contains_key("error"));
    assert_eq!(toolerr::to_bedrock(&o).unwrap()[0].content[0].tool_result.status.as_deref(), Some("error"));
    assert_eq!(toolerr::to_mcp(&o).unwrap()[0].is_error, Some(true));
}

#[test]
fn retry_decision_never_retries_a_terminal_error() {
    let bad = toolerr::envelope("INVALID_ARGS", "city is required", None, None, None).unwrap();
    assert!(!toolerr::retry_decision(&bad, 1, 0.5, None).unwrap().retry);
    assert!(toolerr::retry_decision(&timeout(), 1, 0.5, None).unwrap().retry);
}

#[test]
fn breaker_opens_after_failures() {
    let mut state: Option<Value> = None;
    for t in 0..3 {
        let out = toolerr::breaker(state.as_ref(), "failure", 1000 + t, json!({"error": timeout()})).unwrap();
        state = Some(out["state"].clone());
    }
    assert_eq!(toolerr::breaker(state.as_ref(), "allow", 2000, json!({})).unwrap()["allowed"], false);
}

#[test]
fn an_answer_longer_than_the_threads_buffer_arrives_whole() {
    let text = "é".repeat(50_000); // 100,000 bytes of UTF-8, past the 64 KiB each thread answers into
    assert_eq!(toolerr::canonicalize(&serde_json::Value::from(text.clone())).unwrap(), serde_json::to_string(&text).unwrap());
    assert_eq!(toolerr::canonicalize(&serde_json::Value::from("short")).unwrap(), "\"short\"");
}

#[test]
fn convert_options_cannot_replace_from_or_to_and_null_members_are_left_out() {
    let msgs = vec![serde_json::json!({"role": "user", "content": "hi"})];
    let plain = toolerr::convert(&msgs, "openai-chat", "anthropic", serde_json::json!({})).unwrap();
    let with_null = toolerr::convert(&msgs, "openai-chat", "anthropic", serde_json::json!({"model": null})).unwrap();
    assert_eq!(plain, with_null);
    // `to` is the function's own argument: an option of that name is refused (as in Python and Node).
    let e = toolerr::convert(&msgs, "openai-chat", "anthropic", serde_json::json!({"to": "gemini"})).unwrap_err();
    assert_eq!((e.envelope.code.as_str(), &e.envelope.details["path"]), ("INVALID_INPUT", &serde_json::json!("to")));
    let to_gemini = toolerr::convert(&msgs, "openai-chat", "gemini", serde_json::json!({})).unwrap();
    assert_eq!(to_gemini["messages"][0]["parts"][0]["text"], "hi");
}

/// An error of conformance/exceptions: its message and, as its source, the
/// next cause (a Rust error has no type name of its own in the chain).
#[derive(Debug)]
struct Chained(String, Option<Box<Chained>>);

impl std::fmt::Display for Chained {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Chained {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.1.as_deref().map(|c| c as &(dyn std::error::Error + 'static))
    }
}

/// conformance/exceptions: the same chain built as each language's own
/// errors (here a source chain) gives the same decision in every binding;
/// a case resting on a cause's type name or code is skipped (a Rust source
/// chain carries neither), and one whose message holds a lone surrogate
/// (a Rust String cannot hold one): each case is read as raw JSON first and
/// its `needs` alone parsed (serde_json skips the other members' strings
/// without decoding them), since a lone surrogate fails serde_json's str.
#[test]
fn a_cause_chain_decides_as_in_every_language() {
    #[derive(serde::Deserialize)]
    struct Needs {
        #[serde(default)]
        needs: Vec<String>,
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance/exceptions");
    let mut paths: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "json")).collect();
    paths.sort();
    let mut ran = 0;
    for p in paths {
        let text = std::fs::read_to_string(&p).unwrap();
        let cases: Vec<&serde_json::value::RawValue> = serde_json::from_str(&text).unwrap();
        for raw in cases {
            let needs: Needs = serde_json::from_str(raw.get()).unwrap();
            if needs.needs.iter().any(|x| x == "type" || x == "code" || x == "lone_surrogate") {
                continue;
            }
            let c: Value = serde_json::from_str(raw.get()).unwrap();
            let mut all = vec![&c["error"]];
            all.extend(c["causes"].as_array().unwrap());
            let err = all.iter().rev().fold(None, |cause, e| Some(Box::new(Chained(e["message"].as_str().unwrap().to_string(), cause)))).unwrap();
            let e = toolerr::classify_error(&*err, Some("search")).unwrap();
            let want = &c["expect"];
            assert_eq!(
                (e.code.as_str(), e.retryable, e.details.get("cause").and_then(Value::as_str)),
                (want["code"].as_str().unwrap(), want["retryable"].as_bool().unwrap(), want["cause"].as_str()),
                "{}: {}", p.display(), c["description"]
            );
            ran += 1;
        }
    }
    assert!(ran >= 8, "{ran} cases");
}

/// A conformance/values value built as Rust's own: each `{"$nonfinite": name}`
/// as that f64 run through serde_json (a `Value` cannot hold a NaN or an
/// infinity: `Value::from(f64::NAN)` is `Null`), the rest as it stands.
fn native(v: &Value) -> Value {
    match v {
        Value::Object(m) if m.len() == 1 && m.contains_key("$nonfinite") => {
            let f = match m["$nonfinite"].as_str().unwrap() {
                "NaN" => f64::NAN,
                "Infinity" => f64::INFINITY,
                _ => f64::NEG_INFINITY,
            };
            Value::from(f)
        }
        Value::Object(m) => Value::Object(m.iter().map(|(k, x)| (k.clone(), native(x))).collect()),
        Value::Array(a) => Value::Array(a.iter().map(native).collect()),
        _ => v.clone(),
    }
}

/// conformance/values: a NaN or an infinity in the caller's value is sent as
/// null in every binding (serde_json's rule, as JSON.stringify's); a serde
/// type of the caller's own with an f64 NaN in it, sent through invoke_as,
/// is written as null by serde_json's Serializer too.
#[test]
fn a_nan_is_sent_as_null_as_in_every_language() {
    #[derive(serde::Serialize)]
    struct Canonicalize {
        op: &'static str,
        value: Vec<f64>,
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance/values");
    let mut ran = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let cases: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(e.unwrap().path()).unwrap()).unwrap();
        for c in cases {
            let value = native(&c["value"]);
            let sent = c["sent"].as_str().unwrap();
            assert_eq!(toolerr::canonicalize(&value).unwrap(), sent, "{}", c["description"]);
            if value.is_object() {
                let env = toolerr::envelope("TOOL_ERROR", "failed", None, Some(value.clone()), None).unwrap();
                assert_eq!(Value::Object(env.details.clone()), serde_json::from_str::<Value>(sent).unwrap(), "{}", c["description"]);
            }
            ran += 1;
        }
    }
    assert!(ran >= 4, "{ran} cases");
    let got: Value = toolerr::invoke_as(&Canonicalize { op: "canonicalize", value: vec![f64::NAN, 1.5, f64::INFINITY] }).unwrap();
    assert_eq!(got, json!([null, 1.5, null]));
}
