package request

import (
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
	"github.com/toolerr/toolerr/core/internal/transcript"
)

// Body is one request body read for the transcript engine.
//
// Format is its transcript format; Shape its format's request-body shape;
// Raw the body as given (never changed: Write copies it); Path the body's
// path in the request ("body"), ListPath the list's ("body.contents");
// List the message list (a Responses string input made one user message
// item); Server the server-side state the body builds on
// (previous_response_id, conversation).
type Body struct {
	Format   transcript.Format
	Shape    *dialect.Request
	Raw      map[string]any
	Path     string
	ListPath string
	List     []any
	Server   dialect.Server

	text bool // the list was a string (Responses input)
}

// Read reads v, a whole request body of format f found at path in the
// request, without changing it. v must be an object; its list member
// (messages, input, contents) must be an array (a Responses input may also
// be a string, or absent when the body builds on server-side state). A
// missing or mistyped member is a *field.Error at its path under path.
func Read(f transcript.Format, v any, path string) (*Body, error) {
	shape := format.RequestShape(string(f))
	if shape == nil {
		return nil, field.NewError("format", "unknown transcript format "+string(f))
	}
	raw, err := field.As[map[string]any](v, path)
	if err != nil {
		return nil, err
	}
	b := &Body{Format: f, Shape: shape, Raw: raw, Path: path, ListPath: field.Join(path, shape.List)}
	lv, ok := raw[shape.List]
	switch x := lv.(type) {
	case []any:
		b.List = x
	case string:
		if shape.TextList == nil {
			return nil, field.NewError(b.ListPath, "must be an array (the message list), got string")
		}
		b.List, b.text = shape.TextList(x), true
	case nil:
		if shape.Required {
			return nil, field.NewError(b.ListPath, "is required (the message list of a "+string(f)+" request body)")
		}
		b.List = []any{}
	default:
		return nil, field.NewError(b.ListPath, "must be an array (the message list), got "+field.TypeName(lv))
	}
	if ok && lv == nil && shape.Required {
		return nil, field.NewError(b.ListPath, "must be an array (the message list), got null")
	}
	if shape.Server != nil {
		b.Server = shape.Server(copyMap(raw))
	}
	return b, nil
}

// Messages reads the list into the neutral model (errors at ListPath).
func (b *Body) Messages() ([]transcript.Message, error) {
	return transcript.ReadList(b.Format, b.List, b.ListPath)
}

// Write returns the body with its list replaced by list: a new object
// whose every other member is the value read. A string input that the
// engine left as it was comes back a string.
func (b *Body) Write(list []any) map[string]any {
	out := copyMap(b.Raw)
	out[b.Shape.List] = list
	return out
}

// result is the body an op returns: with list in place of the list read,
// except that a string input the op did not change stays a string.
func (b *Body) result(list []any, changed bool) map[string]any {
	if b.text && !changed {
		return b.Raw
	}
	return b.Write(list)
}

// Options returns o (the caller's options for the engine) completed from
// the body: the list's path, the server-side state the body builds on
// (previous_response_id, conversation), and the body's model when o names
// none, so that the body form reads them itself.
func (b *Body) Options(o transcript.Options) transcript.Options {
	o.Path = b.ListPath
	o.Server = o.Server || b.Server.Any()
	if o.Model == "" {
		o.Model, _ = b.Raw["model"].(string)
	}
	return o
}

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
