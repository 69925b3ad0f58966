package dialect

import (
	"github.com/toolerr/toolerr/core/internal/field"
)

// Response is how one provider's non-streaming response body holds the
// model's turn. A gateway that routes a request to another family reads
// the upstream's response with the upstream's Response and writes the
// client's with the client's, the message itself converted by the
// transcript engine between the two formats' lists.
type Response struct {
	// Read takes the model's turn out of a response body found at path p;
	// a modelled member of the wrong JSON type is a *field.Error.
	Read func(body map[string]any, p string) (Turn, error)
	// Write builds a response body from a turn whose Message is an
	// element of this format's list (nil: no message).
	Write func(t Turn) map[string]any
	// Members are the members a response body of this shape holds at
	// least one of (the ones its schema requires); a body with none of
	// them (an empty {}, an error object) is not a response of it.
	Members []string
}

// Turn is the model's turn of one response: Message is the assistant's
// element of the format's list (a Chat Completions message, an Anthropic
// message, a Gemini content), nil when the response holds none; Finish why
// the model stopped; Usage the tokens (nil: not given); ID and Model the
// response's id and model ("" when absent); CreatedSec its time in seconds
// since the Unix epoch (0: not given).
type Turn struct {
	Message    any
	Finish     Finish
	Usage      *Usage
	ID, Model  string
	CreatedSec int64
}

// Finish is why the model stopped, in neutral form.
type Finish string

// The neutral finish reasons; "" is one a format names but the others have
// no word for (written as the format's plain stop).
const (
	FinishStop      Finish = "stop"
	FinishToolCalls Finish = "tool_calls"
	FinishLength    Finish = "length"
	FinishFilter    Finish = "content_filter"
)

// Usage is the token counts of one response: Input (the prompt), Output
// (the completion).
type Usage struct {
	Input, Output int64
}

// ReadUsage reads two token counts, named in and out, of the object under
// key of m (at path p): nil when absent; a count that is not a whole
// number is a *field.Error.
func ReadUsage(m map[string]any, key, in, out, p string) (*Usage, error) {
	u, ok, err := field.Get[map[string]any](m, key, p)
	if err != nil || !ok {
		return nil, err
	}
	up := field.Join(p, key)
	i, _, err := field.Int(u, in, up, 0, 1<<53)
	if err != nil {
		return nil, err
	}
	o, _, err := field.Int(u, out, up, 0, 1<<53)
	if err != nil {
		return nil, err
	}
	return &Usage{Input: i, Output: o}, nil
}

// TurnHead names the members of a response body that hold the turn's id,
// model and token usage (Usage the object, In and Out its two counts).
type TurnHead struct {
	ID, Model, Usage, In, Out string
}

// ReadHead reads the id, model and usage of response body b at path p, as
// h names them, into a Turn.
func ReadHead(b map[string]any, p string, h TurnHead) (Turn, error) {
	var t Turn
	s, err := Strings(b, p, h.ID, h.Model)
	if err != nil {
		return t, err
	}
	t.ID, t.Model = s[0], s[1]
	t.Usage, err = ReadUsage(b, h.Usage, h.In, h.Out, p)
	return t, err
}

// Strings reads the optional string members keys of m at path p.
func Strings(m map[string]any, p string, keys ...string) ([]string, error) {
	out := make([]string, len(keys))
	for i, k := range keys {
		var err error
		if out[i], _, err = field.Get[string](m, k, p); err != nil {
			return nil, err
		}
	}
	return out, nil
}
