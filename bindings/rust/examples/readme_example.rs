use toolerr::{ClassifyOptions, Outcome};

fn main() -> Result<(), toolerr::ToolerrError> {
    // A tool's HTTP call failed: classify it, then tell Claude in its own wire shape.
    let err = toolerr::classify_http(429, &[("retry-after", "7")], None, &ClassifyOptions { tool: Some("get_weather".into()), ..Default::default() })?;
    println!("{} {} {}", err.code, err.retryable, err.details["retry_after_seconds"]);
    let msg = &toolerr::to_anthropic(&[Outcome::failed("toolu_01", "get_weather", err)])?[0];
    println!("{} {}", msg.content[0].kind, msg.content[0].is_error == Some(true));
    let bad = toolerr::invoke(&serde_json::json!({"op": "no_such_op"})).unwrap_err();
    println!("{} {}", bad.envelope.code, bad.envelope.details["path"].as_str().unwrap_or(""));
    Ok(())
}
