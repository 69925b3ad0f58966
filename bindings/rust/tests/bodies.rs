//! The body form of the transcript helpers: a whole request body in, the whole body out; JSON
//! text read by the core's parser; the provider table's aliases.
use serde_json::{json, Value};
use toolerr::Transcript;

fn body() -> Value {
    json!({"model": "claude-sonnet-4-5", "max_tokens": 100, "system": "Be brief.", "metadata": {"user_id": "u1"},
        "tools": [{"name": "get_weather", "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}],
        "messages": [{"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}]}]})
}

#[test]
fn repair_body_keeps_every_other_member() {
    let b = body();
    let r = toolerr::repair_body("anthropic", Transcript::Value(&b), json!({})).unwrap();
    assert_eq!(r["changes"]["synthesized"], 1);
    for k in ["model", "max_tokens", "system", "metadata", "tools"] {
        assert_eq!(r["body"][k], b[k], "{k}");
    }
    let c = toolerr::check_body("claude", Transcript::Value(&r["body"]), json!({})).unwrap();
    assert_eq!(c["findings"], json!([]));
}

#[test]
fn convert_body_places_system_prompt_and_tools() {
    let b = body();
    let r = toolerr::convert_body(Transcript::Value(&b), "anthropic", "google", json!({})).unwrap();
    assert_eq!(
        r["body"]["systemInstruction"],
        json!({"parts": [{"text": "Be brief."}]})
    );
    assert_eq!(
        r["body"]["tools"][0]["functionDeclarations"][0]["name"],
        "get_weather"
    );
    assert_eq!(
        r["body"]["generationConfig"],
        json!({"maxOutputTokens": 100})
    );
    assert!(r["notes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n.as_str().unwrap().contains("metadata")));
    let t = toolerr::trim_body(
        "anthropic",
        Transcript::Value(&b),
        json!({"max_messages": 5}),
    )
    .unwrap();
    assert_eq!(t["body"]["model"], "claude-sonnet-4-5");
    let n = toolerr::normalize_ids_body(
        "anthropic",
        Transcript::Value(&b),
        json!({"target": "mistral"}),
    )
    .unwrap();
    assert_eq!(n["body"]["system"], "Be brief.");
}

#[test]
fn json_text_is_read_by_the_core() {
    let text = r#"{"model":"m","max_tokens":9,"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"f","input":{}}]},
      {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"real","tool_use_id":"toolu_X"}]}]}"#;
    let e = toolerr::repair_body("anthropic", Transcript::Json(text), json!({})).unwrap_err();
    assert_eq!(e.envelope.code, "INVALID_INPUT");
    assert!(
        e.envelope.message.contains("duplicate object key"),
        "{}",
        e.envelope.message
    );
    let ok = toolerr::repair_body(
        "anthropic",
        Transcript::Json(&body().to_string()),
        json!({}),
    )
    .unwrap();
    assert_eq!(ok["body"]["system"], "Be brief.");
}

#[test]
fn both_members_is_a_bad_request_at_body() {
    let b = body();
    let e = toolerr::check_body("anthropic", Transcript::Value(&b), json!({"messages": []}))
        .unwrap_err();
    assert_eq!(e.envelope.details["path"], "body");
}

#[test]
fn aliases_name_formats() {
    let r = toolerr::invoke(&json!({"op": "serialize", "format": "openai", "call": {"id": "call_1", "name": "f"},
        "error": {"code": "TIMEOUT", "message": "Timed out.", "retryable": true, "details": {}, "source": "tool"}})).unwrap();
    assert_eq!(r[0]["role"], "tool");
}
