package transcript

import (
	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
)

// Read reads the message list of format f, the "messages" member of a
// request, into the neutral model; see ReadList.
func Read(f Format, msgs []any) ([]Message, error) { return ReadList(f, msgs, "messages") }

// ReadList reads the message list msgs of format f, found at path in the
// request, into the neutral model with f's dialect. A member toolerr models
// but of the wrong JSON type is a *field.Error whose path starts at path
// ("messages[2].content"); anything it does not model is kept as Other.
func ReadList(f Format, msgs []any, path string) ([]Message, error) {
	d := dialectOf(f)
	if d == nil {
		return nil, field.NewError("format", "unknown transcript format "+string(f))
	}
	out := make([]Message, 0, len(msgs))
	for i, v := range msgs {
		// Paths are built only for an error: the message is read again
		// with its own to report it.
		m, err := d.Read(v, field.Unnamed)
		if err != nil {
			if _, err2 := d.Read(v, field.Index(path, i)); err2 != nil {
				err = err2
			}
			return nil, err
		}
		m.Raw = v
		out = append(out, m)
	}
	safeFailures(out)
	return out, nil
}

// ScanList reads a message list of format f straight from s, at the '[' of
// the list, nested in depth arrays and objects, into the neutral model
// without a value tree, as ReadList reads the tree of the same bytes (each
// Raw it sets is dialect.Scanned; see Dialect.Scan). It reports false for a
// format without a Scan, or any element Scan is not sure of: the caller
// then reads the whole request as a tree, which answers or refuses it.
//
// raw says what each Raw holds for the op (dialect.ScanRaw): nothing for a
// conversion to another format, what Lint reads for check, the element's
// canonical JSON for repair and a same-format conversion, which write
// elements back as read.
//
// The messages' parts, texts and results, and the list itself, are taken
// from parts (dialect.NewParts, whose caller releases it when it has
// answered); a nil parts takes them from a new arena of their own, for a
// caller that keeps the messages.
func ScanList(f Format, s *canonical.Scanner, depth int, raw dialect.ScanRaw, parts *dialect.Parts) ([]Message, bool) {
	d := dialectOf(f)
	if d == nil || d.Scan == nil || !s.Byte('[') {
		return nil, false
	}
	if parts == nil {
		parts = new(dialect.Parts)
	}
	var out []Message
	if raw == dialect.RawText {
		// the elements' canonical JSON is about as long as their text, and
		// a turn's tool_calls are written twice (the array, then inside
		// its message)
		parts.SizeText(s.Rest() + s.Rest()/2)
	}
	for n := 0; ; n++ {
		more, ok := s.Elem(n)
		if !ok {
			return nil, false
		}
		if !more {
			if !s.Array(n) {
				return nil, false
			}
			break
		}
		m, ok := d.Scan(s, depth+1, raw, parts)
		if !ok {
			return nil, false
		}
		if out == nil {
			out = parts.Messages(32)
		}
		out = append(out, m)
	}
	parts.KeepMessages(out)
	if out == nil {
		out = []Message{}
	}
	safeFailures(out)
	return out, true
}
