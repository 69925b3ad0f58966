package openaichat

import (
	"strings"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// ResultText returns the one string a flagless text field (Chat content,
// Responses output) carries for success r:
//
//   - Empty, or blank text: outcome.EmptyPlaceholder (stacklok/mecatl#291: an
//     empty content or output is rejected and poisons the stored history).
//   - Text: the text unchanged.
//   - JSON: its canonical JSON text, non-ASCII characters literal (microsoft/autogen#7730).
//   - Blocks: the non-blank text blocks joined by "\n"; image blocks are left
//     to the caller (Serialize adds the BerriAI/litellm#6953 fallback).
//
// A text or JSON value that is itself an envelope is written as the canonical
// text of the sanitized envelope: on a flagless wire the model and every
// parser read it as a failure anyway, and writing it exactly as one keeps
// serialize(parse(serialize(x))) == serialize(x).
//
// See OpenAI OpenAPI ChatCompletionRequestToolMessage; OpenAI OpenAPI
// FunctionCallOutputItemParam; stacklok/mecatl#291, microsoft/autogen#7730.
func ResultText(r outcome.Result) string {
	s, _ := resultText(r)
	return s
}

// resultText is ResultText, with the canonical writer's error for a JSON value
// JSON cannot carry (NaN, ±Inf, a Go type outside the value tree).
func resultText(r outcome.Result) (string, error) {
	var s string
	switch r.Kind {
	case outcome.Text:
		s = r.Text
	case outcome.JSON:
		if e, err := envelope.FromValue(r.JSON, ""); err == nil {
			return outcome.EnvelopeText(outcome.Safe(e)), nil
		}
		b, err := canonical.Marshal(r.JSON)
		if err != nil {
			return "", err
		}
		s = string(b)
	case outcome.Blocks:
		s = outcome.JoinTexts(outcome.NonBlank(r.Blocks))
	}
	if outcome.IsBlank(s) {
		return outcome.EmptyPlaceholder, nil
	}
	if looksLikeEnvelope(s) {
		if e, ok := outcome.ParseEnvelopeText(s); ok {
			return outcome.EnvelopeText(outcome.Safe(e)), nil
		}
	}
	return s, nil
}

// looksLikeEnvelope is a cheap test run before ParseEnvelopeText's full
// parse, so that ordinary text results are not parsed as JSON.
func looksLikeEnvelope(s string) bool {
	t := strings.TrimSpace(s)
	return len(t) > 2 && t[0] == '{' && strings.Contains(t, `"retryable"`)
}

// Content returns the string a flagless text field carries for outcome i: the
// canonical JSON of the sanitized envelope for a failure (all five keys, no
// code fence: OpenAI has no error flag), ResultText for a success. Returns a
// *field.Error at results[i].result.json for a JSON value JSON cannot carry.
//
// See OpenAI OpenAPI ChatCompletionRequestToolMessage, the README's
// wire-format table and seed 000's checklist item 4 (no code fence).
func Content(i int, o outcome.Outcome) (string, error) {
	if o.Error != nil {
		return outcome.EnvelopeText(outcome.Safe(*o.Error)), nil
	}
	s, err := resultText(*o.Result)
	if err != nil {
		return "", field.NewError(outcome.Path(i, "result.json"), "cannot be written as JSON: "+err.Error())
	}
	return s, nil
}

// ReadContent reads a string written by Content back: an envelope (the
// whole string, surrounding white space allowed) is a failure; anything else
// is a success read by outcome.ReadText (placeholder or blank = Empty,
// canonical JSON object or array = JSON, else Text). The Call is left empty.
func ReadContent(s string) outcome.Outcome {
	if looksLikeEnvelope(s) {
		if e, ok := outcome.ParseEnvelopeText(s); ok {
			return outcome.Outcome{Error: &e}
		}
	}
	r := outcome.ReadText(s)
	return outcome.Outcome{Result: &r}
}
