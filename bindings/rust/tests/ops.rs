//! Every op of the core's op table (conformance/ops.json, generated from
//! core.Ops()) is reachable through this crate's typed API, so a new op of
//! the core fails here until the crate says how it is reached.
use std::collections::BTreeSet;
use std::path::Path;

/// Ops a caller reaches only through `invoke`, each with its reason.
const INVOKE_ONLY: &[(&str, &str)] = &[
    ("args_error", "no typed wrapper yet: validation failures are handed over as a request"),
    ("egress_error", "the egress transports (issue 10, part 2) wrap it; until then through invoke"),
    ("egress_request", "the egress transports (issue 10, part 2) wrap it; until then through invoke"),
    ("egress_response", "the egress transports (issue 10, part 2) wrap it; until then through invoke"),
    ("egress_scan", "the egress middleware (toolerr::egress) calls it for each chunk of a stream, its input raw bytes"),
];

/// The op names in `text` after each of the markers (`op("`, `"op": "`, ...).
fn names_after(text: &str, marker: &str) -> Vec<String> {
    text.match_indices(marker)
        .map(|(i, _)| text[i + marker.len()..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect())
        .filter(|s: &String| !s.is_empty())
        .collect()
}

#[test]
fn every_op_of_the_table_is_reachable() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ops_json = std::fs::read_to_string(crate_dir.join("../../conformance/ops.json")).unwrap();
    let ops: Vec<String> = serde_json::from_str::<serde_json::Value>(&ops_json).unwrap()["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    let mut called = BTreeSet::new();
    for entry in std::fs::read_dir(crate_dir.join("src")).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        for marker in ["op(\"", "op: \"", "\"op\": \"", "\"op\".into(), \""] {
            called.extend(names_after(&text, marker));
        }
    }
    let missing: Vec<&String> =
        ops.iter().filter(|op| !called.contains(*op) && !INVOKE_ONLY.iter().any(|(o, _)| o == op)).collect();
    assert!(missing.is_empty(), "ops of the core with no wrapper in the Rust crate: {missing:?}");
    let unknown: Vec<&String> = called.iter().filter(|op| !ops.contains(op)).collect();
    assert!(unknown.is_empty(), "the crate calls ops the core does not have: {unknown:?}");
    assert!(INVOKE_ONLY.iter().all(|(o, _)| ops.iter().any(|x| x == o)), "INVOKE_ONLY names an op the core does not have");
}
