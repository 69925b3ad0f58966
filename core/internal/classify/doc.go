// Package classify turns a real failure into an envelope: an HTTP error
// response (status, headers, body), an error event inside a stream, error
// text, or an exception a tool raised.
//
// The rules, each with its vendor source, are in status.go (the HTTP status
// table), body.go (OpenAI, Anthropic, Google, Bedrock and Mistral error
// bodies), wait.go (wait hints and their precedence), text.go (statuses,
// history-repair phrases and transport causes in text) and exception.go
// (tracebacks). message.go writes the one sentence the model reads, from the
// code, status, tool and wait only: the provider's own message text never
// reaches the output.
//
// See shared/reference/wire-formats.md §2-§5 and shared/cases/field-reports.md.
package classify
