//! The runtime's worked example against a real HTTP server on loopback: 503, 503, then 400.

#[path = "../examples/runtime_example.rs"]
mod example;

#[test]
fn runtime_example_retries_the_503s_and_hands_the_400_to_the_model() {
    let server = tiny_http::Server::http("127.0.0.1:0").expect("a loopback server");
    let port = server.server_addr().to_ip().expect("an IP address").port();
    let server = std::sync::Arc::new(server);
    let s = server.clone();
    let serving = std::thread::spawn(move || {
        let answers = [(503, r#"{"error":"search backend unavailable"}"#), (503, r#"{"error":"search backend unavailable"}"#),
            (400, r#"{"error":"invalid argument: 'max_results' must be at most 50"}"#)];
        let mut served = 0;
        for req in s.incoming_requests() {
            let (status, body) = answers[served.min(answers.len() - 1)];
            served += 1;
            let _ = req.respond(tiny_http::Response::from_string(body).with_status_code(status));
        }
        served
    });
    let lines = example::run(&format!("http://127.0.0.1:{port}/search?q=flights&max_results=500"));
    server.unblock();
    assert_eq!(serving.join().unwrap(), 3);
    let retried = |l: &str, n: u32| l.starts_with(&format!("attempt {n}: TRANSPORT -> retried silently after ")) && l.ends_with(" ms");
    assert!(retried(&lines[0], 1) && retried(&lines[1], 2), "{lines:?}");
    assert_eq!(lines[2..], ["attempt 3: INVALID_ARGS -> not retried (not_retryable)", "the model gets: INVALID_ARGS not retryable after 3 calls", "tool_result is_error: true"]);
}
