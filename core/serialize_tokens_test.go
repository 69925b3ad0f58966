package core

import (
	"errors"
	"strings"
	"testing"
)

// A hand-built Go envelope (a struct literal, not NewEnvelope's) whose code
// or source is free text is refused by every writer, at the path the
// serialize op's reader gives the same envelope as JSON: Safe sanitizes the
// message and the details only, and the code and source were written as
// they came, a secret in them reaching the model.
func TestSerialize_handBuiltCodeAndSourceRefused(t *testing.T) {
	const secret = "sk-proj-AbCdEf0123456789AbCdEf0123456789xyz"
	rows := []struct {
		name string
		env  Envelope
		path string
	}{
		{"code free text", Envelope{Code: Code(secret), Message: "m", Source: SourceTool}, "results[0].error.code"},
		{"code empty", Envelope{Message: "m", Source: SourceTool}, "results[0].error.code"},
		{"code lower case", Envelope{Code: "tool_error", Message: "m", Source: SourceTool}, "results[0].error.code"},
		{"source free text", Envelope{Code: CodeToolError, Message: "m", Source: Source(secret)}, "results[0].error.source"},
		{"source empty", Envelope{Code: CodeToolError, Message: "m"}, "results[0].error.source"},
	}
	for _, f := range Formats() {
		for _, r := range rows {
			env := r.env
			msgs, err := Serialize(f, []Outcome{{Call: Call{ID: "call_1", Name: "t"}, Error: &env}})
			var re *RequestError
			if !errors.As(err, &re) || re.Path != r.path {
				t.Errorf("%s, %s: Serialize = %v, %v; want a *RequestError at %s", f, r.name, msgs, err, r.path)
			}
		}
	}
	for _, r := range rows {
		for _, declared := range []bool{false, true} {
			env := r.env
			if _, err := SerializeMCP([]Outcome{{Error: &env}}, MCPOptions{OutputSchema: declared}); err == nil {
				t.Errorf("SerializeMCP(%s, output schema %v) = nil error", r.name, declared)
			}
		}
	}
	// The serialize op refuses the same envelope as JSON at the same path.
	resp := string(Invoke([]byte(`{"op":"serialize","format":"openai-chat","results":[{"call":{"id":"call_1"},"error":` +
		`{"code":"` + secret + `","message":"m","retryable":false,"details":{},"source":"tool"}}]}`)))
	if !strings.Contains(resp, `"path":"results[0].error.code"`) {
		t.Errorf("serialize op: %s", resp)
	}
	// A well-formed envelope, an unregistered code among them, is written.
	for _, c := range []Code{CodeToolError, "SOME_NEWER_CODE"} {
		env := Envelope{Code: c, Message: "m", Source: SourceProvider}
		if _, err := Serialize(FormatAnthropic, []Outcome{{Call: Call{ID: "call_1"}, Error: &env}}); err != nil {
			t.Errorf("Serialize(%s) = %v", c, err)
		}
	}
}
