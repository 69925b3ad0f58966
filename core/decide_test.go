package core

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/canonical"
)

// TestDecide_fixtures runs conformance/fixtures/{retry,breaker,budget,replay}
// through Invoke and compares canonical bytes, as every build target does.
func TestDecide_fixtures(t *testing.T) {
	for _, op := range []string{"retry", "breaker", "budget", "replay"} {
		for _, ft := range fixtureTests(t, op) {
			t.Run(op+"/"+strings.TrimSuffix(ft.File, ".json")+"/"+ft.Case+"/"+ft.Test, func(t *testing.T) {
				req, err := canonical.Canonicalize(ft.Request)
				require.NoError(t, err)
				want, err := canonical.Canonicalize(ft.Response)
				require.NoError(t, err)
				got := Invoke(req)
				if op == "replay" && bytes.Contains(got, []byte("not implemented")) {
					t.Skipf("format codec not implemented yet: %s", got)
				}
				assert.Equal(t, string(want), string(got))
			})
		}
	}
}

func TestInvoke_decideBadInput(t *testing.T) {
	tests := []struct {
		name, req, path string
	}{
		{"retry without draw", `{"op":"retry","error":{"code":"TIMEOUT","message":"x","retryable":true,"details":{},"source":"tool"},"attempt":1}`, "draw"},
		{"retry draw of 1", `{"op":"retry","error":{"code":"TIMEOUT","message":"x","retryable":true,"details":{},"source":"tool"},"attempt":1,"draw":1}`, "draw"},
		{"retry attempt 0", `{"op":"retry","error":{"code":"TIMEOUT","message":"x","retryable":true,"details":{},"source":"tool"},"attempt":0,"draw":0.5}`, "attempt"},
		{"retry without error", `{"op":"retry","attempt":1,"draw":0.5}`, "error"},
		{"retry bad envelope", `{"op":"retry","error":{"code":"TIMEOUT"},"attempt":1,"draw":0.5}`, "error.message"},
		{"breaker bad event", `{"op":"breaker","state":null,"event":"probe","now_ms":1}`, "event"},
		{"breaker without now", `{"op":"breaker","state":null,"event":"allow"}`, "now_ms"},
		{"breaker error on success", `{"op":"breaker","state":null,"event":"success","now_ms":1,"error":{"code":"TIMEOUT","message":"x","retryable":true,"details":{},"source":"tool"}}`, "error"},
		{"breaker bad phase", `{"op":"breaker","state":{"phase":"ajar"},"event":"allow","now_ms":1}`, "state.phase"},
		{"breaker zero threshold", `{"op":"breaker","state":null,"event":"allow","now_ms":1,"settings":{"failure_threshold":0}}`, "settings.failure_threshold"},
		{"budget without limits", `{"op":"budget","now_ms":1}`, "limits"},
		{"budget negative charge", `{"op":"budget","limits":{},"charge":{"tokens":-1},"now_ms":1}`, "charge.tokens"},
		{"replay unknown format", `{"op":"replay","format":"nope","trace":{"bound":1,"steps":[{"result":{}}]}}`, "format"},
		{"replay without trace", `{"op":"replay","format":"openai-chat"}`, "trace"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := canonical.Parse(Invoke([]byte(tc.req)))
			require.NoError(t, err)
			e := v.(map[string]any)["error"].(map[string]any)
			assert.Equal(t, "INVALID_INPUT", e["code"])
			assert.Equal(t, tc.path, e["details"].(map[string]any)["path"])
		})
	}
}

// TestRetry_rejectsWhatTheOpRejects: a draw outside [0, 1) or an attempt
// below 1 is the same *RequestError the retry op returns.
func TestRetry_rejectsWhatTheOpRejects(t *testing.T) {
	e, err := NewEnvelope(CodeTimeout, "slow", nil, SourceTool)
	require.NoError(t, err)
	for _, tc := range []struct {
		attempt int
		draw    float64
		path    string
	}{{1, 7, "draw"}, {1, -1, "draw"}, {1, 1, "draw"}, {0, 0.5, "attempt"}} {
		_, err := Retry(e, tc.attempt, RetryPolicy{}, tc.draw)
		var re *RequestError
		require.ErrorAs(t, err, &re)
		assert.Equal(t, tc.path, re.Path)
		assert.Equal(t, "retry", re.Op)
	}
	d, err := Retry(e, 1, RetryPolicy{}, 0.999)
	require.NoError(t, err)
	assert.Equal(t, RetryDecision{Retry: true, DelayMs: 499, Reason: RetryBackoff}, d)
}

func TestParseTrace_errors(t *testing.T) {
	_, err := ParseTrace([]byte(`{"bound":0,"steps":[]}`))
	var re *RequestError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "trace.bound", re.Path)
	_, err = ParseTrace([]byte(`{`))
	require.ErrorIs(t, err, ErrBadRequest)
	_, err = Replay(Trace{Bound: 1}, "nope")
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "format", re.Path)
}

func TestParseBreakerState_error(t *testing.T) {
	_, err := ParseBreakerState([]byte(`{"phase":"ajar"}`))
	var re *RequestError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "state.phase", re.Path)
}

func BenchmarkInvoke_retry(b *testing.B) {
	req := []byte(`{"op":"retry","attempt":1,"draw":0.5,"error":{"code":"TRANSPORT","message":"503.","retryable":true,"details":{"status":503},"source":"tool"}}`)
	for i := 0; i < b.N; i++ {
		_ = Invoke(req)
	}
}

func BenchmarkInvoke_breaker(b *testing.B) {
	req := []byte(`{"op":"breaker","state":{"phase":"half_open","probe_until_ms":63000},"event":"allow","now_ms":34000,"tool":"search"}`)
	for i := 0; i < b.N; i++ {
		_ = Invoke(req)
	}
}

func BenchmarkInvoke_budget(b *testing.B) {
	req := []byte(`{"op":"budget","state":{"steps":1,"tokens":1200,"started_ms":1000},"limits":{"steps":10,"tokens":5000,"wall_ms":60000},"charge":{"steps":1,"tokens":100},"now_ms":2000}`)
	for i := 0; i < b.N; i++ {
		_ = Invoke(req)
	}
}
