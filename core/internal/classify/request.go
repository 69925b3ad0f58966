package classify

import (
	"strconv"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/field"
)

// The bounds of the numeric options, checked by Options.Check.
const (
	MaxAttempt = 1 << 31 // details.attempt
	MaxNowMs   = 1 << 53 // now_ms: integers up to it are exact in a float64
)

// Kind says which failure a Request holds.
type Kind int

// The kinds of Request, one per member of the classify op.
const (
	KindHTTP Kind = iota + 1 // "http": Status, Header, Body
	KindSSE                  // "sse_event": Event, Data, ContentEmitted
	KindText                 // "error_text": Text
)

// Request is one failure to classify: exactly one of an HTTP response, a
// stream error event or error text, with its Options. The classify op builds
// it with ReadRequest and the typed Go API from its arguments; both then call
// Check and Classify, so that one rule decides for both.
type Request struct {
	Kind           Kind
	Status         int    // HTTP: 100-599
	Header         Header // HTTP
	Body           any    // HTTP: a value tree, or a string (parsed when it holds JSON; see BodyValue)
	Event          string // SSE: "" means "error"
	Data           any    // SSE: as Body
	ContentEmitted bool   // SSE
	Text           string // error text
	Options
}

// Check reports the first member of r that is out of range, as an
// *field.Error whose path is under parent (the path of the request object, ""
// for the root): http.status outside 100-599, then Options.Check.
func (r *Request) Check(parent string) error {
	if r.Kind == KindHTTP && (r.Status < 100 || r.Status > 599) { // the path only on error: no allocation
		return field.InRange(field.Join(field.Join(parent, "http"), "status"), int64(r.Status), 100, 599)
	}
	return r.Options.Check(parent)
}

// Classify returns the envelope of r, which must have passed Check.
func (r *Request) Classify() envelope.Envelope {
	switch r.Kind {
	case KindHTTP:
		return HTTP(r.Status, r.Header, r.Body, r.Options)
	case KindSSE:
		event := r.Event
		if event == "" {
			event = "error"
		}
		return SSE(event, r.Data, r.ContentEmitted, r.Options)
	}
	return Text(r.Text, r.Options)
}

// Check reports the first option out of range, under parent: source other
// than "", provider or tool; attempt outside 0-MaxAttempt; now_ms outside
// 0-MaxNowMs.
func (o *Options) Check(parent string) error {
	switch o.Source {
	case "", envelope.SourceProvider, envelope.SourceTool:
	default:
		return field.NewError(field.Join(parent, "source"), "must be provider or tool, got "+strconv.Quote(string(o.Source)))
	}
	if o.HasAttempt {
		if err := field.InRange(field.Join(parent, "attempt"), o.Attempt, 0, MaxAttempt); err != nil {
			return err
		}
	}
	if o.HasNow {
		if err := field.InRange(field.Join(parent, "now_ms"), o.NowMs, 0, MaxNowMs); err != nil {
			return err
		}
	}
	return nil
}

// ReadRequest reads the members of a classify request from m, the object at
// path parent ("" for the request root, "failures[2]" for one inside a
// batch): exactly one of "http" {status, headers?, body?}, "sse_event"
// {event?, data?, content_emitted?} or "error_text", plus "source"?,
// "provider"?, "tool"?, "attempt"?, "now_ms"?. A member of the wrong type is
// an *field.Error at its path (http.headers.retry-after[1]); the request
// returned has passed Check.
func ReadRequest(m map[string]any, parent string) (Request, error) {
	var r Request
	opt, err := readOptions(m, parent, true)
	if err != nil {
		return r, err
	}
	r.Options = opt
	n := 0
	for _, k := range [...]string{"http", "sse_event", "error_text"} {
		if v, ok := m[k]; ok && v != nil {
			n++
		}
	}
	if n != 1 {
		return r, field.NewError(parent, "exactly one of http, sse_event or error_text is required, got "+strconv.Itoa(n))
	}
	if h, ok, err := field.Get[map[string]any](m, "http", parent); err != nil {
		return r, err
	} else if ok {
		hp := field.Join(parent, "http")
		status, ok, err := field.Int(h, "status", hp, 100, 599)
		if err != nil {
			return r, err
		}
		if !ok {
			return r, field.NewError(field.Join(hp, "status"), "is required")
		}
		hdr, err := readHeaders(h, hp)
		if err != nil {
			return r, err
		}
		r.Kind, r.Status, r.Header, r.Body = KindHTTP, int(status), hdr, h["body"]
		return r, r.Check(parent)
	}
	if s, ok, err := field.Get[map[string]any](m, "sse_event", parent); err != nil {
		return r, err
	} else if ok {
		sp := field.Join(parent, "sse_event")
		if r.Event, _, err = field.Get[string](s, "event", sp); err != nil {
			return r, err
		}
		if r.ContentEmitted, _, err = field.Get[bool](s, "content_emitted", sp); err != nil {
			return r, err
		}
		r.Kind, r.Data = KindSSE, s["data"]
		return r, r.Check(parent)
	}
	if r.Text, _, err = field.Get[string](m, "error_text", parent); err != nil {
		return r, err
	}
	r.Kind = KindText
	return r, r.Check(parent)
}

// readHeaders reads headers {name: string | [string, ...]} of the http
// object at path parent.
func readHeaders(h map[string]any, parent string) (Header, error) {
	m, ok, err := field.Get[map[string]any](h, "headers", parent)
	if err != nil || !ok {
		return nil, err
	}
	out := make(Header, len(m))
	// The one-value headers share one backing array (each slice capped at
	// its value). No path or sorted key list is built unless a header is bad.
	single := make([]string, 0, len(m))
	for name, v := range m {
		switch x := v.(type) {
		case string:
			single = append(single, x)
			n := len(single)
			out[name] = single[n-1 : n : n]
		case []any:
			vals := make([]string, 0, len(x))
			for _, e := range x {
				s, ok := e.(string)
				if !ok {
					return nil, headerError(m, field.Join(parent, "headers"))
				}
				vals = append(vals, s)
			}
			out[name] = vals
		default:
			return nil, headerError(m, field.Join(parent, "headers"))
		}
	}
	return out, nil
}

// headerError returns the error of the first bad header of m (the headers
// object at path) in sorted order, so that with several bad headers the
// error names the same one on every call and every target; nil when every
// header is good.
func headerError(m map[string]any, path string) error {
	for _, name := range canonical.SortedKeys(m) {
		v := m[name]
		p := field.Join(path, name)
		switch x := v.(type) {
		case string:
		case []any:
			for i, e := range x {
				if _, ok := e.(string); !ok {
					return field.NewError(field.Index(p, i), "must be a string, got "+field.TypeName(e))
				}
			}
		default:
			return field.NewError(p, "must be a string or an array of strings, got "+field.TypeName(v))
		}
	}
	return nil
}

// readOptions reads "source"?, "provider"?, "tool"?, "attempt"? and, when
// withNow, "now_ms"? from m, the object at path parent.
func readOptions(m map[string]any, parent string, withNow bool) (Options, error) {
	var opt Options
	src, _, err := field.Get[string](m, "source", parent)
	if err != nil {
		return opt, err
	}
	opt.Source = envelope.Source(src)
	if err := opt.Check(parent); err != nil { // the source's value, before the other members' types
		return opt, err
	}
	if opt.Provider, _, err = field.Get[string](m, "provider", parent); err != nil {
		return opt, err
	}
	if opt.Tool, _, err = field.Get[string](m, "tool", parent); err != nil {
		return opt, err
	}
	if opt.Attempt, opt.HasAttempt, err = field.Int(m, "attempt", parent, 0, MaxAttempt); err != nil {
		return opt, err
	}
	if withNow {
		if opt.NowMs, opt.HasNow, err = field.Int(m, "now_ms", parent, 0, MaxNowMs); err != nil {
			return opt, err
		}
	}
	return opt, nil
}

// ExceptionRequest is one exception a tool raised, as the classify_exception
// op's members and the typed Go API give it.
type ExceptionRequest struct {
	Type, Message, Traceback string
	Options
}

// Check reports the first member of r that the op refuses, under parent: a
// type or a traceback is required; source, when given, must be tool; then
// Options.Check.
func (r *ExceptionRequest) Check(parent string) error {
	if r.Type == "" && r.Traceback == "" {
		return field.NewError(field.Join(field.Join(parent, "exception"), "type"), "is required when there is no traceback")
	}
	if err := r.Options.Check(parent); err != nil {
		return err
	}
	if r.Source != "" && r.Source != envelope.SourceTool {
		return field.NewError(field.Join(parent, "source"), "must be tool for an exception")
	}
	return nil
}

// Classify returns the envelope of r, which must have passed Check.
func (r *ExceptionRequest) Classify() envelope.Envelope {
	return Exception(r.Type, r.Message, r.Traceback, r.Options)
}

// ReadExceptionRequest reads the members of a classify_exception request
// from m, the object at path parent: "exception" {type?, message?,
// traceback?} (required), "tool"?, "attempt"?, "source"? (tool). The
// request returned has passed Check.
func ReadExceptionRequest(m map[string]any, parent string) (ExceptionRequest, error) {
	var r ExceptionRequest
	ex, ok, err := field.Get[map[string]any](m, "exception", parent)
	if err != nil {
		return r, err
	}
	ep := field.Join(parent, "exception")
	if !ok {
		return r, field.NewError(ep, "is required")
	}
	for _, f := range [...]struct {
		key string
		dst *string
	}{{"type", &r.Type}, {"message", &r.Message}, {"traceback", &r.Traceback}} {
		if *f.dst, _, err = field.Get[string](ex, f.key, ep); err != nil {
			return r, err
		}
	}
	if r.Type == "" && r.Traceback == "" {
		return r, r.Check(parent)
	}
	if r.Options, err = readOptions(m, parent, false); err != nil {
		return r, err
	}
	return r, r.Check(parent)
}
