package openaichat

import (
	"github.com/toolerr/toolerr/core/internal/canonical"
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
// A text or JSON value is written as it is even when it is envelope-shaped:
// only the exact bytes toolerr writes for a failure read back as one
// (outcome.RecognizeText), so a success is never rewritten into those bytes.
// A success whose text already is exactly those bytes cannot be told from
// that failure on a flagless wire and reads back as it, which keeps
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
	return s, nil
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

// ReadContent reads a string written by Content back: the exact text of an
// envelope (outcome.RecognizeText, Unflagged: no flag exists) is a failure;
// anything else is a success read by outcome.ReadText (placeholder or blank
// = Empty, canonical JSON object or array = JSON, else Text). The Call is
// left empty.
func ReadContent(s string) outcome.Outcome {
	if e, ok := outcome.RecognizeText(s, outcome.Unflagged); ok {
		return outcome.Outcome{Error: &e}
	}
	r := outcome.ReadText(s)
	return outcome.Outcome{Result: &r}
}
