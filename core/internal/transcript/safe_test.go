package transcript

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// invalidArgsText is work item (b)'s INVALID_ARGS failure: a message with a
// ':' and a pattern, which the sanitizer's quick check (quiet) refuses, so
// that only the full passes find it clean.
const invalidArgsText = `{"code":"INVALID_ARGS","details":{"fields":["/frequent_flyer"],"tool":"book_flight"},"message":"The arguments for book_flight are invalid: /frequent_flyer must match the pattern ^[A-Z]{2}-[0-9]{9}$.","retryable":false,"source":"tool"}`

// TestSafeFailures_cleanAsRead: an envelope its reader found clean in the
// pass that recognized it (outcome.FoundClean) is left as read, not
// scanned again; one made any other way is asked here, and a dirty one is
// rewritten as outcome.Safe makes it, its SafeDetails and found-clean mark
// dropped.
func TestSafeFailures_cleanAsRead(t *testing.T) {
	list := `[{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"book_flight","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"call_1","content":` + quoteJSON(t, invalidArgsText) + `}]`
	msgs := read(t, "openai-chat", list)
	r := &msgs[1].Parts[0].Result
	require.NotNil(t, r.Outcome.Error)
	assert.True(t, outcome.FoundClean(&r.Outcome), "the reader found it clean")
	was := r.Outcome.Error
	safeFailures(msgs)
	assert.False(t, msgs[1].Dirty || msgs[1].Parts[0].Dirty)
	assert.Same(t, was, r.Outcome.Error)

	// The mark is what spares the scan: only the readers set it, and with
	// it safeResult does not look at the message again.
	secret := envelope.Envelope{Code: "TIMEOUT", Message: "Failed with key=sk-abcdefghijklmnopqrstuvwxyz012345.", Details: map[string]any{}, Source: envelope.SourceTool}
	marked := Result{Outcome: outcome.Recognized(&secret, "{}", true), Failed: true}
	assert.False(t, safeResult(&marked))
	unmarked := Result{Outcome: outcome.Recognized(&secret, "{}", false), Failed: true}
	unmarked.Outcome.Call = outcome.Call{ID: "call_1", Name: "f"}
	require.True(t, safeResult(&unmarked))
	o := unmarked.Outcome
	assert.Equal(t, "Failed with key=[REDACTED].", o.Error.Message)
	assert.Equal(t, outcome.Call{ID: "call_1", Name: "f"}, o.Call)
	assert.Equal(t, "", outcome.SafeDetails(&o))
	assert.False(t, outcome.FoundClean(&o))
}

// quoteJSON is s as a JSON string.
func quoteJSON(t *testing.T, s string) string { return text(t, s) }
