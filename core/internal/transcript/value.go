package transcript

import (
	"strings"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// clone returns a shallow copy of v when it is an object, else a new object.
func clone(v any) map[string]any {
	src, _ := v.(map[string]any)
	m := make(map[string]any, len(src)+2)
	for k, x := range src {
		m[k] = x
	}
	return m
}

// optString reads an optional string member; another type is a *field.Error.
func optString(m map[string]any, key, p string) (string, error) {
	s, _, err := field.Get[string](m, key, p)
	return s, err
}

// presentArray reads an optional array member that, when present, must be
// an array: null is a *field.Error like any other type (field.Array treats
// null as absent).
func presentArray(m map[string]any, key, p string) ([]any, error) {
	if v, present := m[key]; present && v == nil {
		return nil, field.NewError(field.Join(p, key), "must be an array, got null")
	}
	a, _, err := field.Get[[]any](m, key, p)
	return a, err
}

// presentObj reads an optional object member that, when present, must be an
// object: null is a *field.Error like any other type.
func presentObj(m map[string]any, key, p string) (map[string]any, bool, error) {
	if v, present := m[key]; present && v == nil {
		return nil, false, field.NewError(field.Join(p, key), "must be an object, got null")
	}
	return field.Get[map[string]any](m, key, p)
}

// textOutcome interprets a result's text: an envelope, else text (blank is
// Empty).
func textOutcome(s string) (outcome.Outcome, bool) {
	if mayBeEnvelope(s) {
		if e, ok := outcome.ParseEnvelopeText(s); ok {
			return outcome.Outcome{Error: &e}, true
		}
	}
	if outcome.IsBlank(s) {
		return outcome.Outcome{Result: &outcome.Result{Kind: outcome.Empty}}, false
	}
	return outcome.Outcome{Result: &outcome.Result{Kind: outcome.Text, Text: s}}, false
}

// valueOutcome interprets a JSON value carried as a result (Gemini output,
// Bedrock json block): an envelope (or {"error": envelope}), a string as text,
// anything else as JSON.
func valueOutcome(v any) (outcome.Outcome, bool) {
	if e, err := envelope.FromValue(v, ""); err == nil {
		return outcome.Outcome{Error: &e}, true
	}
	if s, ok := v.(string); ok {
		return textOutcome(s)
	}
	return outcome.Outcome{Result: &outcome.Result{Kind: outcome.JSON, JSON: v}}, false
}

// blocksOutcome makes a content outcome out of text and image blocks: one
// text block is Text (or an envelope), none is Empty.
func blocksOutcome(bs []outcome.Block) (outcome.Outcome, bool) {
	switch {
	case len(bs) == 0:
		return outcome.Outcome{Result: &outcome.Result{Kind: outcome.Empty}}, false
	case len(bs) == 1 && bs[0].Type == "text":
		return textOutcome(bs[0].Text)
	}
	return outcome.Outcome{Result: &outcome.Result{Kind: outcome.Blocks, Blocks: bs}}, false
}

// resultText returns the text form of a result's content for formats that
// carry one string (images are described by describeImages).
func resultText(o outcome.Outcome) string {
	if o.Error != nil {
		return outcome.EnvelopeText(*o.Error)
	}
	r := o.Result
	if r == nil {
		return ""
	}
	switch r.Kind {
	case outcome.Text:
		return r.Text
	case outcome.JSON:
		return outcome.JSONText(r.JSON)
	case outcome.Blocks:
		var b strings.Builder
		for _, bl := range r.Blocks {
			if bl.Type != "text" {
				continue
			}
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(bl.Text)
		}
		return b.String()
	}
	return ""
}

// images returns the image blocks of a result.
func images(o outcome.Outcome) []outcome.Block {
	if o.Result == nil || o.Result.Kind != outcome.Blocks {
		return nil
	}
	var out []outcome.Block
	for _, b := range o.Result.Blocks {
		if b.Type == "image" {
			out = append(out, b)
		}
	}
	return out
}

// parseDataURL splits "data:<media>;base64,<data>".
func parseDataURL(u string) (Image, bool) {
	if !strings.HasPrefix(u, "data:") {
		return Image{}, false
	}
	meta, data, ok := strings.Cut(u[5:], ",")
	media, isB64 := strings.CutSuffix(meta, ";base64")
	if !ok || !isB64 || media == "" {
		return Image{}, false
	}
	return Image{MediaType: media, Data: data}, true
}

func dataURL(media, data string) string { return "data:" + media + ";base64," + data }

// imageURL returns the URL form of an image (a data URL for inline bytes).
func (im Image) url() string {
	if im.URL != "" {
		return im.URL
	}
	return dataURL(im.MediaType, im.Data)
}

// argsValue parses OpenAI's argument text into a value tree; text that is not
// JSON stays a string.
func argsValue(s string) any {
	if v, err := canonical.Parse([]byte(s)); err == nil {
		return v
	}
	return s
}

// argsText returns the canonical JSON text of arguments ("{}" for none).
func argsText(v any) string {
	if v == nil {
		return "{}"
	}
	if s, ok := v.(string); ok {
		return s
	}
	return outcome.JSONText(v)
}

// argsObject returns arguments as an object, for formats whose input must be
// one; anything else is wrapped under "value".
func argsObject(v any) (map[string]any, bool) {
	if v == nil {
		return map[string]any{}, true
	}
	if m, ok := v.(map[string]any); ok {
		return m, true
	}
	return map[string]any{"value": v}, false
}

// mayBeEnvelope is a cheap test before the full parse: an envelope's JSON
// text names all five keys.
func mayBeEnvelope(s string) bool {
	return len(s) > 40 && strings.Contains(s, `"retryable"`) && strings.Contains(s, `"source"`) && strings.Contains(s, `"code"`)
}
