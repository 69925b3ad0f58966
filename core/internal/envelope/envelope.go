// Package envelope holds toolerr's one internal type, the five-field error
// envelope, its code registry, and its canonical JSON form. Package core
// re-exports everything here under the same names.
package envelope

import (
	"strconv"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/field"
)

// Source says where a failure happened; the orchestrator routes on it.
type Source string

// The three sources of the envelope contract.
const (
	SourceTool         Source = "tool"         // the tool itself or the service it called
	SourceProvider     Source = "provider"     // the model provider's API
	SourceOrchestrator Source = "orchestrator" // the agent loop: budgets, breakers, toolerr's own input checks
)

// Valid reports whether s is one of the three sources.
func (s Source) Valid() bool {
	return s == SourceTool || s == SourceProvider || s == SourceOrchestrator
}

// Envelope is the five-field description of one failure.
//
// Code is an UPPER_SNAKE token from the registry (see Codes); Message is one
// sanitized sentence the model reads; Retryable says whether the orchestrator
// may retry without involving the model; Details carries machine fields
// (status, retry_after_seconds, tool, attempt, path, ...) as a value tree of
// package canonical (nil serializes as {}); Source is tool, provider or
// orchestrator.
type Envelope struct {
	Code      Code
	Message   string
	Retryable bool
	Details   map[string]any
	Source    Source
}

// AppendCanonical appends the RFC 8785 JSON of e to dst: all five keys, in the
// order code, details, message, retryable, source.
func (e Envelope) AppendCanonical(dst []byte) ([]byte, error) {
	dst, _, _, err := e.AppendCanonicalSpan(dst)
	return dst, err
}

// AppendCanonicalSpan is AppendCanonical that also says where the details'
// canonical JSON is in what it appended: dst[from:to], the text
// AppendCanonicalDetails takes.
func (e Envelope) AppendCanonicalSpan(dst []byte) (out []byte, from, to int, err error) {
	dst = e.appendHead(dst)
	from = len(dst)
	if len(e.Details) == 0 {
		dst = append(dst, "{}"...)
	} else if dst, err = canonical.Append(dst, e.Details); err != nil {
		return dst, 0, 0, err
	}
	to = len(dst)
	return e.appendTail(dst), from, to, nil
}

// AppendCanonicalDetails is AppendCanonical with the details given as
// details, their canonical JSON text, which it copies as it is (e.Details is
// not read): for a writer that holds that text already.
func (e Envelope) AppendCanonicalDetails(dst []byte, details string) []byte {
	return e.appendTail(append(e.appendHead(dst), details...))
}

// appendHead appends the envelope's text up to its details.
func (e Envelope) appendHead(dst []byte) []byte {
	dst = append(dst, `{"code":`...)
	dst = canonical.AppendString(dst, string(e.Code))
	return append(dst, `,"details":`...)
}

// appendTail appends the envelope's text after its details.
func (e Envelope) appendTail(dst []byte) []byte {
	dst = append(dst, `,"message":`...)
	dst = canonical.AppendString(dst, e.Message)
	if e.Retryable {
		dst = append(dst, `,"retryable":true,"source":`...)
	} else {
		dst = append(dst, `,"retryable":false,"source":`...)
	}
	dst = canonical.AppendString(dst, string(e.Source))
	return append(dst, '}')
}

// MarshalJSON returns the canonical JSON of e (see AppendCanonical).
func (e Envelope) MarshalJSON() ([]byte, error) {
	return e.AppendCanonical(make([]byte, 0, 160))
}

// UnmarshalJSON reads an envelope strictly; see FromValue.
func (e *Envelope) UnmarshalJSON(b []byte) error {
	v, err := canonical.Parse(b)
	if err != nil {
		return err
	}
	got, err := FromValue(v, "")
	if err != nil {
		return err
	}
	*e = got
	return nil
}

// Value returns e as a value tree (map with the five keys).
func (e Envelope) Value() map[string]any {
	d := e.Details
	if d == nil {
		d = map[string]any{}
	}
	return map[string]any{
		"code":      string(e.Code),
		"message":   e.Message,
		"retryable": e.Retryable,
		"details":   d,
		"source":    string(e.Source),
	}
}

// FromValue reads an envelope from a value tree, strictly: exactly the five
// keys, code an UPPER_SNAKE token, message a string, retryable a boolean,
// details an object, source one of the three sources. path prefixes the
// *field.Error it returns. The code need not be registered: a newer peer may
// know codes this build does not.
func FromValue(v any, path string) (Envelope, error) {
	m, err := field.As[map[string]any](v, path)
	if err != nil {
		return Envelope{}, err
	}
	// The smallest unknown member is named, so the error does not depend on
	// map order (no sort, no allocation on the common path).
	bad, found := "", false
	for k := range m {
		switch k {
		case "code", "message", "retryable", "details", "source":
		default:
			if !found || k < bad {
				bad, found = k, true
			}
		}
	}
	if found {
		return Envelope{}, field.NewError(field.Join(path, bad), "is not an envelope field (want code, message, retryable, details, source)")
	}
	code, err := field.RequiredString(m, "code", path)
	if err != nil {
		return Envelope{}, err
	}
	if err := checkCode(Code(code), path); err != nil {
		return Envelope{}, err
	}
	msg, ok, err := field.Get[string](m, "message", path)
	if err != nil {
		return Envelope{}, err
	}
	if !ok {
		return Envelope{}, field.NewError(field.Join(path, "message"), "is required")
	}
	retry, ok, err := field.Get[bool](m, "retryable", path)
	if err != nil {
		return Envelope{}, err
	}
	if !ok {
		return Envelope{}, field.NewError(field.Join(path, "retryable"), "is required")
	}
	details, ok, err := field.Get[map[string]any](m, "details", path)
	if err != nil {
		return Envelope{}, err
	}
	if !ok {
		return Envelope{}, field.NewError(field.Join(path, "details"), "is required (use {} when empty)")
	}
	src, err := field.RequiredString(m, "source", path)
	if err != nil {
		return Envelope{}, err
	}
	if err := checkSource(Source(src), path); err != nil {
		return Envelope{}, err
	}
	return Envelope{Code: Code(code), Message: msg, Retryable: retry, Details: details, Source: Source(src)}, nil
}

// CheckNew checks the code and source of an envelope about to be built, as
// the envelope op and core.NewEnvelope both take them: code a non-empty
// UPPER_SNAKE token (a *field.Error at "code"; an unregistered token is
// accepted, a newer peer may know codes this build does not) and source ""
// (the code's usual source) or one of the three (at "source").
func CheckNew(code Code, source Source) error {
	if code == "" {
		return field.NewError("code", "is required and must be a non-empty string")
	}
	if err := checkCode(code, ""); err != nil {
		return err
	}
	if source == "" {
		return nil
	}
	return checkSource(source, "")
}

// CheckTokens is the *field.Error at parent's "code" or "source" for an
// envelope whose code is not an UPPER_SNAKE token or whose source is not
// one of the three, as FromValue reports them: what a writer or the step
// asks of an envelope built by hand (a Go struct literal) before its code
// and source, which no sanitizer reads, reach the model.
func CheckTokens(e Envelope, parent string) error {
	if err := checkCode(e.Code, parent); err != nil {
		return err
	}
	return checkSource(e.Source, parent)
}

// checkCode is the *field.Error at parent's "code" for a code that is not
// an UPPER_SNAKE token.
func checkCode(c Code, parent string) error {
	if !ValidCodeToken(string(c)) {
		return field.NewError(field.Join(parent, "code"), "must be an UPPER_SNAKE token, got "+strconv.Quote(string(c)))
	}
	return nil
}

// checkSource is the *field.Error at parent's "source" for a source other
// than the three.
func checkSource(s Source, parent string) error {
	if !s.Valid() {
		return field.NewError(field.Join(parent, "source"), "must be tool, provider or orchestrator, got "+strconv.Quote(string(s)))
	}
	return nil
}

// IsEnvelope reports whether v has exactly the shape FromValue accepts. Parsers
// use it to recognise an envelope inside a provider's content string.
func IsEnvelope(v any) bool {
	_, err := FromValue(v, "")
	return err == nil
}

// ValidCodeToken reports whether s is an UPPER_SNAKE token: A-Z first, then
// A-Z, 0-9 and single underscores, at most 64 bytes.
func ValidCodeToken(s string) bool {
	if len(s) == 0 || len(s) > 64 || s[0] < 'A' || s[0] > 'Z' || s[len(s)-1] == '_' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '_' && s[i-1] != '_':
		default:
			return false
		}
	}
	return true
}
