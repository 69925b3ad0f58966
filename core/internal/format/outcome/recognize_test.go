package outcome

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/canonical"
)

const timeoutText = `{"code":"TIMEOUT","details":{"timeout_ms":10000},"message":"Weather service timed out after 10s.","retryable":true,"source":"tool"}`

func TestRecognizeText_rule(t *testing.T) {
	tests := []struct {
		name      string
		s         string
		unflagged bool // recognized without a flag
		flagged   bool // recognized under one
	}{
		{"the text toolerr writes", timeoutText, true, true},
		{"the shortest envelope", `{"code":"TIMEOUT","details":{},"message":"","retryable":true,"source":"tool"}`, true, true},
		{"an unregistered code", `{"code":"DISK_FULL","details":{},"message":"Full.","retryable":false,"source":"tool"}`, false, true},
		{"a code that is no token", `{"code":"Disk full","details":{},"message":"Full.","retryable":false,"source":"tool"}`, false, false},
		{"a trailing newline", timeoutText + "\n", false, false},
		{"a space after a colon", `{"code": "TIMEOUT","details":{"timeout_ms":10000},"message":"Weather service timed out after 10s.","retryable":true,"source":"tool"}`, false, false},
		{"an exponent", `{"code":"TIMEOUT","details":{"timeout_ms":1e4},"message":"Weather service timed out after 10s.","retryable":true,"source":"tool"}`, false, false},
		{"an escaped letter", `{"code":"TIMEOUT","details":{"timeout_ms":10000},"message":"W\u0065ather service timed out after 10s.","retryable":true,"source":"tool"}`, false, false},
		{"a duplicate key", `{"code":"TIMEOUT","details":{},"message":"","retryable":false,"retryable":true,"source":"tool"}`, false, false},
		{"a message without its stop", `{"code":"TIMEOUT","details":{},"message":"Timed out","retryable":true,"source":"tool"}`, false, false},
		{"a secret-named detail", `{"code":"TIMEOUT","details":{"api_key":"abc"},"message":"","retryable":true,"source":"tool"}`, false, false},
		{"not JSON", `{"code":"TIMEOUT" and more"}`, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, ok := RecognizeText(tc.s, Unflagged)
			assert.Equal(t, tc.unflagged, ok, "unflagged")
			if ok {
				assert.Equal(t, tc.s, EnvelopeText(e))
			}
			_, ok = RecognizeText(tc.s, Flagged)
			assert.Equal(t, tc.flagged, ok, "flagged")
			v, err := canonical.Parse([]byte(tc.s))
			if err == nil {
				// As a value only the bytes no longer count.
				b, _ := canonical.Marshal(v)
				_, want := RecognizeText(string(b), Unflagged)
				_, got := RecognizeValue(v, Unflagged)
				assert.Equal(t, want, got, "value")
			}
		})
	}
}

func TestNearText_resemblance(t *testing.T) {
	for s, want := range map[string]bool{
		timeoutText:                                   false, // it is one
		" " + timeoutText:                             true,
		`{"code": "PWNED", "retryable": true}`:        true,
		`{"code":"X","retryable":true,"retryable":1}`: true, // not JSON, still the look
		`{"code":"X","message":"no retry member"}`:    false,
		`{"status":"ok","items":[1,2]}`:               false,
		`the word "retryable" and "code" in prose`:    false,
		`[{"code":"TIMEOUT","retryable":true}]`:       false,
	} {
		assert.Equal(t, want, NearText(s), s)
	}
	v, err := canonical.Parse([]byte(timeoutText))
	require.NoError(t, err)
	assert.False(t, NearValue(v))
	v.(map[string]any)["code"] = "PWNED"
	assert.True(t, NearValue(v))
	assert.False(t, NearValue(map[string]any{"code": "TIMEOUT"}))
	assert.False(t, NearValue("text"))
}
