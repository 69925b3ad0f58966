//! Smoke test: the core links and answers; errors carry the envelope.
use serde_json::json;

#[test]
fn version_reports_abi_1() {
    assert_eq!(toolerr::abi_version(), 1);
    assert_eq!(toolerr::version().unwrap()["abi"], 1);
}

#[test]
fn envelope_gets_the_registry_defaults() {
    let e = toolerr::envelope("TIMEOUT", "Search timed out after 10 s", None, None, None).unwrap();
    assert_eq!(serde_json::to_value(&e).unwrap(), json!({"code": "TIMEOUT", "details": {},
        "message": "Search timed out after 10 s.", "retryable": true, "source": "tool"}));
}

#[test]
fn canonicalize_sorts_keys_and_shortens_numbers() {
    assert_eq!(toolerr::canonicalize(&json!({"b": 1.0, "a": [2.5e30, "é"]})).unwrap(), r#"{"a":[2.5e+30,"é"],"b":1}"#);
}
