package core

import (
	"bytes"
	"errors"
	"testing"

	"github.com/toolerr/toolerr/core/internal/canonical"
)

func TestInvoke_badInput(t *testing.T) {
	tests := []struct {
		name, req, want string
	}{
		{"not json", `{"op":`, `{"error":{"code":"INVALID_INPUT","details":{"offset":6,"path":""},"message":"toolerr: request is not valid JSON: unexpected end of input.","retryable":false,"source":"orchestrator"}}`},
		{"not an object", `[1]`, `{"error":{"code":"INVALID_INPUT","details":{"path":""},"message":"toolerr: request must be a JSON object, got array.","retryable":false,"source":"orchestrator"}}`},
		{"missing op", `{}`, `{"error":{"code":"INVALID_INPUT","details":{"path":"op"},"message":"toolerr: op: is required and must be a non-empty string.","retryable":false,"source":"orchestrator"}}`},
		{"unknown op", `{"op":"nope"}`, `{"error":{"code":"INVALID_INPUT","details":{"op":"nope","path":"op"},"message":"toolerr: op: unknown op \"nope\".","retryable":false,"source":"orchestrator"}}`},
		{"empty", ``, `{"error":{"code":"INVALID_INPUT","details":{"offset":0,"path":""},"message":"toolerr: request is not valid JSON: empty input.","retryable":false,"source":"orchestrator"}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Invoke([]byte(tc.req))
			if string(got) != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestInvoke_version(t *testing.T) {
	got := Invoke([]byte(`{"op":"version"}`))
	if string(got) != `{"ok":{"abi":1,"version":"0.1.0"}}` {
		t.Fatalf("got %s", got)
	}
}

func TestInvoke_outputIsCanonical(t *testing.T) {
	for _, req := range []string{`{"op":"codes"}`, `{"op":"canonicalize","value":{"b":[1.50,"\u00e9"],"a":null}}`, `{"op":"envelope","code":"TIMEOUT","message":"slow"}`} {
		got := Invoke([]byte(req))
		c, err := canonical.Canonicalize(got)
		if err != nil || !bytes.Equal(c, got) {
			t.Errorf("%s: response not canonical: %s", req, got)
		}
	}
}

func TestInvoke_envelopeDefaults(t *testing.T) {
	got := Invoke([]byte(`{"op":"envelope","code":"RATE_LIMITED","message":"Weather API returned 429 after 3 attempts.","details":{"status":429,"retry_after_seconds":12,"tool":"get_weather"},"source":"tool"}`))
	want := `{"ok":{"code":"RATE_LIMITED","details":{"retry_after_seconds":12,"status":429,"tool":"get_weather"},"message":"Weather API returned 429 after 3 attempts.","retryable":true,"source":"tool"}}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestRequestError_is(t *testing.T) {
	_, err := dispatch("nope", map[string]any{})
	if !errors.Is(err, ErrUnknownOp) || !errors.Is(err, ErrBadRequest) {
		t.Fatalf("errors.Is failed for %v", err)
	}
}

func TestInvoke_serializeShorthandPath(t *testing.T) {
	got := Invoke([]byte(`{"op":"serialize","format":"anthropic","call":{"id":"bad id"},"result":{"text":"x"}}`))
	if !bytes.Contains(got, []byte(`"path":"call.id"`)) {
		t.Fatalf("shorthand error path not rewritten: %s", got)
	}
	got = Invoke([]byte(`{"op":"serialize","format":"anthropic","results":[{"call":{"id":"bad id"},"result":{"text":"x"}}]}`))
	if !bytes.Contains(got, []byte(`"path":"results[0].call.id"`)) {
		t.Fatalf("results error path changed: %s", got)
	}
}
