//! `convert_as`, `convert_json_as` and `convert_body_as`: the conversion's
//! answer read as the caller's type, a `Box<RawValue>` holding the core's own
//! bytes, and the list given as JSON text the core reads unparsed by Rust.
use serde::Deserialize;
use serde_json::{json, value::RawValue, Value};
use toolerr::Transcript;

/// Work item (b) of issue 12: 40 OpenAI Chat messages, 10 calls, 3 failures.
fn work_b() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../core/testdata/bench/transcript-b.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v.to_string() // compact
}

/// What the core answers the request `members` + `"messages": list`, without its `{"ok":...}`.
fn core_ok(members: &str, list: &str) -> String {
    let out = toolerr::invoke_bytes(format!("{{{members},\"messages\":{list}}}").as_bytes());
    let out = String::from_utf8(out).unwrap();
    assert!(out.starts_with("{\"ok\":") && out.ends_with('}'), "{out:.300}");
    out[6..out.len() - 1].to_string()
}

#[test]
fn raw_value_out_is_the_cores_bytes() {
    let text = work_b();
    let msgs: Vec<Value> = serde_json::from_str(&text).unwrap();
    for to in ["anthropic", "gemini", "bedrock"] {
        let want = core_ok(&format!(r#""op":"convert","from":"openai-chat","to":"{to}""#), &text);
        let from_values: Box<RawValue> = toolerr::convert_as(&msgs, "openai-chat", to, json!({})).unwrap();
        let from_text: Box<RawValue> = toolerr::convert_json_as(&text, "openai-chat", to, json!({})).unwrap();
        assert_eq!(from_values.get(), want, "{to}: values in");
        assert_eq!(from_text.get(), want, "{to}: JSON text in");
        let value = toolerr::convert(&msgs, "openai-chat", to, json!({})).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&want).unwrap(), value, "{to}: the Value is the same answer");
    }
    let want = core_ok(r#""op":"convert","from":"openai-chat","to":"anthropic""#, &text);
    assert_eq!(want.matches("\"is_error\":true").count(), 3, "the three failures keep their flag");
}

#[test]
fn a_type_of_your_own_reads_the_answer() {
    #[derive(Deserialize)]
    struct Converted {
        messages: Vec<Box<RawValue>>,
        system: Option<String>,
    }
    let msgs = vec![json!({"role": "system", "content": "Be brief."}), json!({"role": "user", "content": "hi"})];
    let c: Converted = toolerr::convert_as(&msgs, "openai-chat", "anthropic", json!({})).unwrap();
    assert_eq!(c.system.as_deref(), Some("Be brief."));
    assert_eq!(c.messages.len(), 1);
    assert_eq!(c.messages[0].get(), r#"{"content":[{"text":"hi","type":"text"}],"role":"user"}"#);
    // a type that does not fit the answer is the binding's INTERNAL error, never a panic
    let e = toolerr::convert_as::<Vec<String>>(&msgs, "openai-chat", "anthropic", json!({})).unwrap_err();
    assert_eq!(e.envelope.code, "INTERNAL");
    assert!(e.envelope.details["reason"].as_str().unwrap().contains("invalid type"), "{:?}", e.envelope.details);
    assert!(e.envelope.details["answer"].as_str().unwrap().starts_with("{\"ok\":{\"messages\":"));
}

#[test]
fn json_text_goes_to_the_core_unparsed() {
    // a duplicate key serde_json would resolve to the last value: the core refuses it
    let dup = r#"[{"role":"tool","tool_call_id":"call_1","content":"real","tool_call_id":"call_X"}]"#;
    let e = toolerr::convert_json_as::<Value>(dup, "openai-chat", "anthropic", json!({})).unwrap_err();
    assert_eq!(e.envelope.code, "INVALID_INPUT");
    assert!(e.envelope.message.contains("duplicate object key"), "{}", e.envelope.message);
    // text that is no JSON at all, and a list whose end is missing
    for bad in ["not json", r#"[{"role":"user","content":"hi"}"#, ""] {
        let e = toolerr::convert_json_as::<Value>(bad, "openai-chat", "anthropic", json!({})).unwrap_err();
        assert_eq!(e.envelope.code, "INVALID_INPUT", "{bad:?}");
    }
    // a `messages` option beside the text is a duplicate member too
    let e = toolerr::convert_json_as::<Value>("[]", "openai-chat", "anthropic", json!({"messages": []})).unwrap_err();
    assert_eq!(e.envelope.code, "INVALID_INPUT");
    // an option cannot replace the function's own `to` (INVALID_INPUT naming it), and null ones are left out
    let hi = r#"[{"role":"user","content":"hi"}]"#;
    let e = toolerr::convert_json_as::<Value>(hi, "openai-chat", "anthropic", json!({"to": "gemini"})).unwrap_err();
    assert_eq!((e.envelope.code.as_str(), &e.envelope.details["path"]), ("INVALID_INPUT", &json!("to")));
    let g: Value = toolerr::convert_json_as(hi, "openai-chat", "gemini", json!({"model": null})).unwrap();
    assert_eq!(g["messages"][0]["parts"][0]["text"], "hi");
}

#[test]
fn json_text_must_be_one_value_else_the_member_is_named() {
    let call = r#"{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]}"#;
    // a member added after the list, the framing forged, two values, trailing bytes
    let added = format!(r#"[{call}],"id_rules":"mistral""#);
    for bad in [added.as_str(), r#"[],"raw_len":2"#, "[] []", "[]x"] {
        let e = toolerr::convert_json_as::<Value>(bad, "openai-chat", "anthropic", json!({})).unwrap_err();
        assert_eq!(e.envelope.code, "INVALID_INPUT", "{bad:?}");
        assert_eq!(e.envelope.details["path"], "messages", "{bad:?}");
        assert!(e.envelope.message.contains("must be exactly one JSON value"), "{}", e.envelope.message);
    }
    for bad in [r#"{"messages":[]},"open_calls":["call_1"]"#, r#"{"messages":[]}}"#] {
        for e in [
            toolerr::check_body("openai-chat", Transcript::Json(bad), json!({})).unwrap_err(),
            toolerr::convert_body_as::<Value>(Transcript::Json(bad), "openai-chat", "anthropic", json!({})).unwrap_err(),
        ] {
            assert_eq!(e.envelope.code, "INVALID_INPUT", "{bad:?}");
            assert_eq!(e.envelope.details["path"], "body", "{bad:?}");
        }
    }
    // white space around the value, and quoted commas inside it, are the value
    let text = format!(" \n[{call},{{\"role\":\"user\",\"content\":\"\\\",\\\"id_rules\\\":\\\"x\"}}]\t ");
    let from_text: Value = toolerr::convert_json_as(&text, "openai-chat", "anthropic", json!({})).unwrap();
    let value: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert_eq!(from_text, toolerr::convert(&value, "openai-chat", "anthropic", json!({})).unwrap());
    assert_eq!(from_text["messages"][0]["content"][0]["id"], "call_1");
}

#[test]
fn convert_body_as_keeps_the_cores_bytes() {
    let text = r#"{"model":"m","max_tokens":9,"system":"Be brief.","messages":[{"role":"user","content":"hi"}]}"#;
    let out = String::from_utf8(toolerr::invoke_bytes(
        format!(r#"{{"op":"convert","from":"anthropic","to":"gemini","body":{text}}}"#).as_bytes(),
    ))
    .unwrap();
    let raw: Box<RawValue> = toolerr::convert_body_as(Transcript::Json(text), "anthropic", "gemini", json!({})).unwrap();
    assert_eq!(raw.get(), &out[6..out.len() - 1]);
    let b: Value = serde_json::from_str(text).unwrap();
    let from_value: Box<RawValue> = toolerr::convert_body_as(Transcript::Value(&b), "anthropic", "gemini", json!({})).unwrap();
    assert_eq!(from_value.get(), raw.get());
    // the body given wins over a `body` option, as it always did
    let v = toolerr::convert_body(Transcript::Value(&b), "anthropic", "gemini", json!({"body": {"messages": []}})).unwrap();
    assert_eq!(v["body"]["systemInstruction"], json!({"parts": [{"text": "Be brief."}]}));
    // a null body is no member: the core says the list is missing
    let e = toolerr::convert_body(Transcript::Value(&Value::Null), "anthropic", "gemini", json!({})).unwrap_err();
    assert_eq!(e.envelope.code, "INVALID_INPUT");
}
