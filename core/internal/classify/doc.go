// Package classify turns a real failure into an envelope: an HTTP error
// response (status, headers, body), an error event inside a stream, error
// text, or an exception a tool raised.
//
// The rules, each with its vendor source, are in status.go (the HTTP status
// table), body.go (OpenAI, Anthropic, Google, Bedrock and Mistral error
// bodies), wait.go (wait hints and their precedence), text.go (statuses,
// history-repair phrases and transport causes in text) and exception.go
// (tracebacks), toolbody.go (a tool service's own error shapes) and
// stream.go (raw text/event-stream bodies). classify.go runs the phases of one
// classification (read, decide, wait, details) and message.go writes the one
// sentence the model reads, from registry text and tokens (token.go) only: a
// provider's or a tool's own words never reach it. request.go reads and
// checks the members of the classify and classify_exception ops; the typed Go
// API in package core calls the same checks.
//
// Each rule cites its vendor source (an API reference, an SDK type, an RFC)
// beside it; docs/classify.md lists them all.
package classify
