package core

import (
	"errors"
	"testing"
)

// The failure a runtime reports to the step (a binding's classify hook's
// envelope, a Go Executor's Classify, a tool's hand-built one) is sanitized
// by the step op's readers (SafeFailure) before it is recorded and stopped
// with: the stop's error is what every runtime hands the model. Before,
// the step op stopped with "failed with sk-proj-..." as it came. A message
// already clean (no period) passes as it came.
func TestStep_theReportedFailureIsSanitized(t *testing.T) {
	const req = `{"op":"step","tool":"search","state":{"attempt":1,"phase":"call"},"event":{"kind":"failure","error":` +
		`{"code":"TOOL_ERROR","message":"failed with sk-proj-AbCdEf0123456789AbCdEf0123456789xyz","retryable":false,` +
		`"details":{"k":"token sk-proj-AbCdEf0123456789AbCdEf0123456789xyz","n":3},"source":"tool"},"draw":0.5,` +
		`"loaded":{"kind":"loaded","value":null}},"now_ms":1700000000000}`
	want := `{"ok":{"action":{"attempts":1,"error":{"code":"TOOL_ERROR","details":{"k":"token [REDACTED]","n":3},` +
		`"message":"failed with [REDACTED].","retryable":false,"source":"tool"},"kind":"stop"},` +
		`"decisions":[{"allowed":false,"attempt":1,"code":"TOOL_ERROR","kind":"call","level":"warn","retryable":false,"tool":"search"},` +
		`{"allowed":false,"attempt":1,"code":"TOOL_ERROR","delay_ms":0,"kind":"retry","level":"debug","reason":"not_retryable","retryable":false,"tool":"search"}],` +
		`"state":{"attempt":1,"phase":"done"}}}`
	if got := string(Invoke([]byte(req))); got != want {
		t.Errorf("step op:\n got %s\nwant %s", got, want)
	}

	// SafeFailure, what the Go Executor asks of an envelope it did not
	// classify: the same, and a message already clean kept as it came.
	for _, tc := range []struct{ in, want string }{
		{"failed with sk-proj-AbCdEf0123456789AbCdEf0123456789xyz", "failed with [REDACTED]."},
		{"Traceback (most recent call last):\n  File \"x.py\", line 1\nValueError: bad", "ValueError: bad."},
		{"boom", "boom"},
	} {
		env := Envelope{Code: CodeToolError, Message: tc.in, Source: SourceTool, Details: map[string]any{"k": "key sk-proj-AbCdEf0123456789AbCdEf0123456789xyz"}}
		got := SafeFailure(env)
		if got.Message != tc.want || got.Details["k"] != "key [REDACTED]" || got.Code != env.Code || got.Source != env.Source {
			t.Errorf("SafeFailure(%q) = %+v; want the message %q and the details redacted", tc.in, got, tc.want)
		}
		if env.Message != tc.in || env.Details["k"] == "key [REDACTED]" {
			t.Errorf("SafeFailure changed the caller's envelope: %+v", env)
		}
	}

	// A hand-built typed envelope whose code or source is free text is
	// refused at the member the step op's reader names for the same JSON.
	for path, env := range map[string]Envelope{
		"event.error.code":   {Code: "tool failed", Message: "m.", Source: SourceTool},
		"event.error.source": {Code: CodeToolError, Message: "m.", Source: "backend"},
	} {
		_, err := Step(StepInput{Config: StepConfig{Tool: "search", StoreKey: "k"}, State: StepState{Attempt: 1, Phase: PhaseCall},
			Event: StepEvent{Kind: EventCallFailed, Error: &env, Draw: 0.5}, NowMs: 1700000000000})
		var re *RequestError
		if !errors.As(err, &re) || re.Path != path {
			t.Errorf("Step(%+v) error = %v; want a *RequestError at %s", env, err, path)
		}
	}
}
