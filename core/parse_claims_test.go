package core_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core"
)

// TestParse_changedEnvelopeIsSerializedAsChanged: what Parse returns is the
// caller's to change, and Serialize writes the change, sanitized. A parsed
// envelope once carried its reader's "already safe" mark out of Parse, so a
// message changed after (a secret put in it) was written as it was, and
// changed details were dropped for the details as read.
func TestParse_changedEnvelopeIsSerializedAsChanged(t *testing.T) {
	const secret = "sk-abcdefghijklmnopqrstuvwxyz012345"
	for _, f := range core.Formats() {
		t.Run(string(f), func(t *testing.T) {
			env := core.Envelope{Code: core.CodeTimeout, Message: "Weather service timed out after 10 s.", Retryable: true,
				Details: map[string]any{"timeout_ms": int64(10000)}, Source: core.SourceTool}
			msgs, err := core.Serialize(f, []core.Outcome{{Call: core.Call{ID: "call_1", Name: "weather"}, Error: &env}})
			require.NoError(t, err)
			outs, err := core.Parse(f, msgs)
			require.NoError(t, err)
			require.Len(t, outs, 1)
			require.NotNil(t, outs[0].Error)
			outs[0].Error.Message = "Failed: token=" + secret
			outs[0].Error.Details = map[string]any{"timeout_ms": int64(20000)}
			again, err := core.Serialize(f, outs)
			require.NoError(t, err)
			b, err := json.Marshal(again)
			require.NoError(t, err)
			assert.NotContains(t, string(b), secret, "a secret put in a parsed envelope reaches the wire")
			assert.Contains(t, string(b), "20000", "the changed details are written")
			assert.NotContains(t, string(b), "10000", "the details as read are written instead of the changed ones")
		})
	}
}

// TestOutcome_noClaimOfSafety: a caller cannot mark an Outcome's envelope
// as already sanitized. Outcome once exported SafeDetails, and a caller who
// set it had its text copied to the wire unsanitized (a details member
// {"api_key": "sk-..."} reached the model) with the message unsanitized too.
func TestOutcome_noClaimOfSafety(t *testing.T) {
	var exported []string
	typ := reflect.TypeOf(core.Outcome{})
	for i := 0; i < typ.NumField(); i++ {
		if typ.Field(i).IsExported() {
			exported = append(exported, typ.Field(i).Name)
		}
	}
	assert.Equal(t, []string{"Call", "Error", "Result"}, exported)
}
