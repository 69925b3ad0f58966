package dialect

import (
	"strings"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// Clone returns a shallow copy of v when it is an object (the tree of v's
// text when it is a canonical.Text or a *canonical.Text holding one), else
// a new object.
func Clone(v any) map[string]any {
	switch t := v.(type) {
	case canonical.Text:
		v, _ = t.Tree()
	case *canonical.Text:
		v, _ = t.Tree()
	}
	src, _ := v.(map[string]any)
	m := make(map[string]any, len(src)+2)
	for k, x := range src {
		m[k] = x
	}
	return m
}

// OptString reads an optional string member; another type is a *field.Error.
func OptString(m map[string]any, key, p string) (string, error) {
	s, _, err := field.Get[string](m, key, p)
	return s, err
}

// PresentArray reads an optional array member that, when present, must be
// an array: null is a *field.Error like any other type (field.Get treats
// null as absent).
func PresentArray(m map[string]any, key, p string) ([]any, error) {
	if v, present := m[key]; present && v == nil {
		return nil, field.NewError(field.Join(p, key), "must be an array, got null")
	}
	a, _, err := field.Get[[]any](m, key, p)
	return a, err
}

// PresentObj reads an optional object member that, when present, must be an
// object: null is a *field.Error like any other type.
func PresentObj(m map[string]any, key, p string) (map[string]any, bool, error) {
	if v, present := m[key]; present && v == nil {
		return nil, false, field.NewError(field.Join(p, key), "must be an object, got null")
	}
	return field.Get[map[string]any](m, key, p)
}

// TextOutcome interprets a result's text read under flag f: an envelope
// (outcome.RecognizeText), else text (blank is Empty). The bool reports an
// envelope.
//
// An envelope is read as Safe makes it, with its details' text
// (outcome.RecognizeSafe): it passed the sanitizer once, here, and the
// writers copy it.
func TextOutcome(s string, f outcome.Flag) (outcome.Outcome, bool) {
	return (*Parts)(nil).TextOutcome(s, f)
}

// TextOutcome is the package's TextOutcome with the Result or the
// envelope in the arena (a nil *Parts allocates it).
func (a *Parts) TextOutcome(s string, f outcome.Flag) (outcome.Outcome, bool) {
	if e, details, clean, ok := outcome.RecognizeSafe(s, f); ok {
		return outcome.Recognized(a.Envelope(e), details, clean), true
	}
	if outcome.IsBlank(s) {
		return outcome.Outcome{Result: a.Result(outcome.Result{Kind: outcome.Empty})}, false
	}
	return outcome.Outcome{Result: a.Result(outcome.Result{Kind: outcome.Text, Text: s})}, false
}

// QuotedOutcome is TextOutcome for a text s read from its literal lit
// (quotes included) that is s's canonical JSON string
// (canonical.Scanner.Quoted; "" for one that is not): a text result keeps
// lit (outcome.Result.Quoted) for its writers to copy.
func (a *Parts) QuotedOutcome(s, lit string, f outcome.Flag) (outcome.Outcome, bool) {
	o, failed := a.TextOutcome(s, f)
	if lit != "" && o.Result != nil && o.Result.Kind == outcome.Text {
		o.Result.Quoted = outcome.Quoted{Of: s, Lit: lit}
	}
	return o, failed
}

// ValueOutcome interprets a JSON value carried as a result (Gemini output
// or error, Bedrock json block) under flag f: an envelope
// (outcome.RecognizeValue), a string as TextOutcome, anything else as JSON.
func ValueOutcome(v any, f outcome.Flag) (outcome.Outcome, bool) {
	if e, ok := outcome.RecognizeValue(v, f); ok {
		return outcome.Outcome{Error: &e}, true
	}
	if s, ok := v.(string); ok {
		return TextOutcome(s, f)
	}
	return outcome.Outcome{Result: &outcome.Result{Kind: outcome.JSON, JSON: v}}, false
}

// BlocksOutcome makes a content outcome out of text and image blocks read
// under flag f: one text block is TextOutcome, none is Empty.
func BlocksOutcome(bs []outcome.Block, f outcome.Flag) (outcome.Outcome, bool) {
	switch {
	case len(bs) == 0:
		return outcome.Outcome{Result: &outcome.Result{Kind: outcome.Empty}}, false
	case len(bs) == 1 && bs[0].Type == "text":
		return TextOutcome(bs[0].Text, f)
	}
	return outcome.Outcome{Result: &outcome.Result{Kind: outcome.Blocks, Blocks: bs}}, false
}

// ResultText returns the text form of a result's content for formats that
// carry one string (images are described by describeImages).
func ResultText(o outcome.Outcome) string {
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

// Images returns the image blocks of a result.
func Images(o outcome.Outcome) []outcome.Block {
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

// ParseDataURL splits "data:<media>;base64,<data>".
func ParseDataURL(u string) (Image, bool) {
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

// DataURL returns the data URL "data:<media>;base64,<data>".
func DataURL(media, data string) string { return "data:" + media + ";base64," + data }

// URLForm returns the URL form of an image (a data URL for inline bytes).
func (im Image) URLForm() string {
	if im.URL != "" {
		return im.URL
	}
	return DataURL(im.MediaType, im.Data)
}

// ArgsValue parses OpenAI's argument text into a value tree; text that is not
// JSON stays a string.
func ArgsValue(s string) any {
	if v, err := canonical.Parse([]byte(s)); err == nil {
		return v
	}
	return s
}

// ArgsText returns the canonical JSON text of arguments ("{}" for none).
func ArgsText(v any) string {
	if v == nil {
		return "{}"
	}
	if s, ok := v.(string); ok {
		return s
	}
	return outcome.JSONText(v)
}

// ArgsObject returns arguments as an object, for formats whose input must be
// one; anything else is wrapped under "value".
func ArgsObject(v any) (map[string]any, bool) {
	if v == nil {
		return map[string]any{}, true
	}
	if m, ok := v.(map[string]any); ok {
		return m, true
	}
	return map[string]any{"value": v}, false
}

// CanonicalText is the canonical JSON text of a value tree ("" if it cannot
// be encoded).
func CanonicalText(v any) string {
	b, err := canonical.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// DescribeImages replaces image blocks with a sentence naming them.
func DescribeImages(r *outcome.Result) *outcome.Result {
	if r == nil || r.Kind != outcome.Blocks {
		return r
	}
	bs := make([]outcome.Block, 0, len(r.Blocks))
	for _, b := range r.Blocks {
		if b.Type == "image" {
			b = outcome.Block{Type: "text", Text: "[" + b.MediaType + " image not carried: the target does not accept this image type]"}
		}
		bs = append(bs, b)
	}
	return &outcome.Result{Kind: outcome.Blocks, Blocks: bs}
}

// HasKind reports whether m has a part of kind k.
func HasKind(m Message, k Kind) bool {
	for _, p := range m.Parts {
		if p.Kind == k {
			return true
		}
	}
	return false
}
