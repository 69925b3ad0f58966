package openaichat

import (
	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// AppendToolMessage appends the canonical JSON (RFC 8785) of the tool message
// carrying failure e for tool call callID to dst and returns the extended
// slice: byte for byte what canonical.Marshal writes for the first message
// Codec.Serialize returns, without building a value tree. With enough
// capacity in dst it allocates nothing beyond what the sanitizer needs.
//
// callID must be non-empty (tool_call_id is required); AppendToolMessage
// does not check it. Returns dst unchanged and the error of the canonical
// writer when e.Details holds a value JSON cannot carry (NaN, ±Inf).
//
// See OpenAI OpenAPI ChatCompletionRequestToolMessage and
// OpenAI OpenAPI ChatCompletionRequestToolMessage.
func AppendToolMessage(dst []byte, callID string, e envelope.Envelope) ([]byte, error) {
	return appendToolMessage(dst, &outcome.Outcome{Call: outcome.Call{ID: callID}, Error: &e})
}

// appendToolMessage is AppendToolMessage for the failure of o, its envelope
// written by outcome.AppendErrorString.
func appendToolMessage(dst []byte, o *outcome.Outcome) ([]byte, error) {
	start := len(dst)
	dst = append(dst, `{"content":`...)
	dst, err := outcome.AppendErrorString(dst, o)
	if err != nil {
		return dst[:start], err
	}
	dst = append(dst, `,"role":"tool","tool_call_id":`...)
	dst = canonical.AppendString(dst, o.Call.ID)
	return append(dst, '}'), nil
}
