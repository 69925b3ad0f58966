//! The typed API represents every shape the core returns: every serialize,
//! parse and convert fixture with an "ok" answer goes through the typed
//! function (`to_openai_chat`, ..., `parse`, `convert`), the typed value is
//! written back with serde, and its canonical JSON equals the fixture's
//! answer byte for byte: no member dropped, no shape refused, no panic.
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use toolerr::{AnthropicMessage, BedrockMessage, GeminiContent, McpCallToolResult, OpenAIChatMessage, OpenAIResponsesOutput, Outcome};

fn fixture_files(op: &str) -> Vec<PathBuf> {
    let root = std::env::var_os("TOOLERR_FIXTURES").map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance/fixtures"));
    let mut out: Vec<PathBuf> = std::fs::read_dir(root.join(op)).unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "json")).collect();
    out.sort();
    out
}

/// (id, request, ok answer) of every test of op whose answer is "ok" (for
/// parse and convert, those with a message list: a whole request body goes
/// through invoke, not a typed function).
fn ok_tests(op: &str) -> Vec<(String, Map<String, Value>, Value)> {
    let mut out = Vec::new();
    for file in fixture_files(op) {
        let cases: Vec<Value> = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        for c in cases {
            for t in c["tests"].as_array().unwrap() {
                if let (Some(req), Some(ok)) = (t["request"].as_object(), t["response"].get("ok")) {
                    if op != "serialize" && !req.contains_key("messages") {
                        continue;
                    }
                    let id = format!("{}/{}/{}", file.file_stem().unwrap().to_string_lossy(), c["description"], t["description"]);
                    out.push((id, req.clone(), ok.clone()));
                }
            }
        }
    }
    out
}

fn canonical(v: &Value) -> String {
    toolerr::canonicalize(v).unwrap()
}

fn typed<T: DeserializeOwned + Serialize>(r: toolerr::Result<Vec<T>>) -> Result<Value, String> {
    r.map(|v| serde_json::to_value(v).unwrap()).map_err(|e| e.to_string())
}

/// The outcomes of a serialize request: its results, or its one shorthand outcome.
fn outcomes(req: &Map<String, Value>) -> Result<Vec<Outcome>, serde_json::Error> {
    match req.get("results") {
        Some(r) => serde_json::from_value(r.clone()),
        None => {
            let mut one = req.clone();
            one.retain(|k, _| k == "call" || k == "error" || k == "result");
            Ok(vec![serde_json::from_value(Value::Object(one))?])
        }
    }
}

fn check(failures: &mut Vec<String>, id: &str, got: Result<Value, String>, want: &Value) {
    match got {
        Ok(v) if canonical(&v) == canonical(want) => {}
        Ok(v) => failures.push(format!("{id}:\n  got:  {}\n  want: {}", canonical(&v), canonical(want))),
        Err(e) => failures.push(format!("{id}: {e}")),
    }
}

#[test]
fn serialize_fixtures_round_trip_through_the_typed_api() {
    let (mut failures, mut n, mut partial) = (Vec::new(), 0, 0);
    for (id, req, want) in ok_tests("serialize") {
        let Ok(outs) = outcomes(&req) else {
            partial += 1; // an envelope of fewer than five fields: the core completes it, the typed Envelope has all five
            continue;
        };
        let got = match req["format"].as_str().unwrap() {
            "openai-chat" => typed(toolerr::to_openai_chat(&outs)),
            "gemini-openai" => typed(toolerr::serialize::<OpenAIChatMessage>("gemini-openai", &outs)),
            "openai-responses" => typed::<OpenAIResponsesOutput>(toolerr::to_openai_responses(&outs)),
            "anthropic" => typed::<AnthropicMessage>(toolerr::to_anthropic(&outs)),
            "gemini" => typed::<GeminiContent>(toolerr::to_gemini(&outs)),
            "bedrock" => typed::<BedrockMessage>(toolerr::to_bedrock(&outs)),
            "mcp" => match req.get("output_schema").and_then(Value::as_bool) {
                Some(declared) => typed::<McpCallToolResult>(toolerr::to_mcp_with(&outs, declared)),
                None => typed::<McpCallToolResult>(toolerr::to_mcp(&outs)),
            },
            _ => typed::<Value>(toolerr::serialize(req["format"].as_str().unwrap(), &outs)), // an alias of one of the above
        };
        check(&mut failures, &id, got, &want);
        n += 1;
    }
    println!("{n} serialize fixtures through the typed API ({partial} with partial envelopes left to invoke)");
    assert!(n > 50, "only {n} fixtures");
    assert!(failures.is_empty(), "{} of {n} differ:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn parse_fixtures_round_trip_through_the_typed_api() {
    let (mut failures, mut n) = (Vec::new(), 0);
    for (id, req, want) in ok_tests("parse") {
        let msgs = req["messages"].as_array().unwrap();
        let got = toolerr::parse(req["format"].as_str().unwrap(), msgs).map(|o| serde_json::to_value(o).unwrap()).map_err(|e| e.to_string());
        check(&mut failures, &id, got, &want);
        n += 1;
    }
    assert!(n > 30, "only {n} fixtures");
    assert!(failures.is_empty(), "{} of {n} differ:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn convert_fixtures_round_trip_through_the_typed_api() {
    let (mut failures, mut n) = (Vec::new(), 0);
    for (id, req, want) in ok_tests("convert") {
        let mut options = req.clone();
        options.retain(|k, _| !["op", "from", "to", "messages"].contains(&k.as_str()));
        let got = toolerr::convert(req["messages"].as_array().unwrap(), req["from"].as_str().unwrap(), req["to"].as_str().unwrap(), Value::Object(options))
            .map_err(|e| e.to_string());
        check(&mut failures, &id, got, &want);
        n += 1;
    }
    assert!(n > 5, "only {n} fixtures");
    assert!(failures.is_empty(), "{} of {n} differ:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn an_answer_that_does_not_fit_is_an_error_not_a_panic() {
    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Narrow {
        no_such_member: String,
    }
    let e = toolerr::invoke_as::<_, Narrow>(&serde_json::json!({"op": "version"})).unwrap_err();
    assert_eq!((e.envelope.code.as_str(), e.envelope.source.as_str()), ("INTERNAL", "orchestrator"));
    assert!(e.envelope.details["reason"].as_str().unwrap().contains("no_such_member"), "{e:?}");
    assert_eq!(e.envelope.details["answer"], r#"{"ok":{"abi":1,"version":"0.1.0"}}"#);
}

#[test]
fn a_wire_type_reads_its_members_as_serde_derive_and_flatten_would() {
    // Unknown members (one with an escaped key) land in `other`; an optional
    // member given as null is None.
    let m: AnthropicMessage = serde_json::from_str(
        r#"{"content":[{"cache_control":{"type":"ephemeral"},"content":null,"tool_use_id":"t1","type":"tool_result","x\u0041":1}],"role":"user"}"#,
    ).unwrap();
    let block = &m.content[0];
    assert_eq!((block.kind.as_str(), block.tool_use_id.as_str(), &block.content, block.is_error), ("tool_result", "t1", &None, None));
    assert_eq!(Value::Object(block.other.clone()), serde_json::json!({"cache_control": {"type": "ephemeral"}, "xA": 1}));
    assert!(m.other.is_empty());
    // A required member missing, a member given twice and a member of the wrong type are serde's errors.
    let err = |s: &str| serde_json::from_str::<AnthropicMessage>(s).unwrap_err().to_string();
    assert!(err(r#"{"content":[]}"#).starts_with("missing field `role`"), "{}", err(r#"{"content":[]}"#));
    assert!(err(r#"{"role":"user","role":"user","content":[]}"#).starts_with("duplicate field `role`"));
    assert!(err(r#"{"role":1,"content":[]}"#).starts_with("invalid type: integer `1`, expected a string"));
    let g: GeminiContent = serde_json::from_str(r#"{"parts":[{"functionResponse":{"name":"f","response":{}}}],"role":"user"}"#).unwrap();
    assert_eq!((g.parts[0].function_response.name.as_str(), g.parts[0].function_response.id.as_ref()), ("f", None));
}
