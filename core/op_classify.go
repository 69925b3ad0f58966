package core

import (
	"strconv"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/classify"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/field"
)

// opClassify: exactly one of "http" {status, headers?, body?}, "sse_event"
// {event?, data?, content_emitted?} or "error_text" (string), plus the
// options "source"?, "provider"?, "tool"?, "attempt"?, "now_ms"? -> the
// envelope.
func opClassify(req map[string]any) (any, error) {
	opt, err := classifyOptions(req, true)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, k := range [...]string{"http", "sse_event", "error_text"} {
		if v, ok := req[k]; ok && v != nil {
			n++
		}
	}
	if n != 1 {
		return nil, field.Errorf("", "exactly one of http, sse_event or error_text is required, got "+strconv.Itoa(n))
	}
	if h, ok, err := field.Obj(req, "http", ""); err != nil {
		return nil, err
	} else if ok {
		status, ok, err := field.Int(h, "status", "http", 100, 599)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, field.Errorf("http.status", "is required")
		}
		hdr, err := readHeaders(h)
		if err != nil {
			return nil, err
		}
		return classify.HTTP(int(status), hdr, h["body"], opt), nil
	}
	if s, ok, err := field.Obj(req, "sse_event", ""); err != nil {
		return nil, err
	} else if ok {
		event, _, err := field.String(s, "event", "sse_event")
		if err != nil {
			return nil, err
		}
		if event == "" {
			event = "error"
		}
		emitted, _, err := field.Bool(s, "content_emitted", "sse_event")
		if err != nil {
			return nil, err
		}
		return classify.SSE(event, s["data"], emitted, opt), nil
	}
	text, _, err := field.String(req, "error_text", "")
	if err != nil {
		return nil, err
	}
	return classify.Text(text, opt), nil
}

// readHeaders reads http.headers: {name: string | [string, ...]}.
func readHeaders(h map[string]any) (classify.Header, error) {
	m, ok, err := field.Obj(h, "headers", "http")
	if err != nil || !ok {
		return nil, err
	}
	out := make(classify.Header, len(m))
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
					return nil, headerError(m)
				}
				vals = append(vals, s)
			}
			out[name] = vals
		default:
			return nil, headerError(m)
		}
	}
	return out, nil
}

// headerError returns the error of the first bad header in sorted order, so
// that with several bad headers the error names the same one on every call
// and every target; nil when every header is good.
func headerError(m map[string]any) error {
	for _, name := range canonical.SortedKeys(m) {
		v := m[name]
		path := field.Join("http.headers", name)
		switch x := v.(type) {
		case string:
		case []any:
			for i, e := range x {
				if _, ok := e.(string); !ok {
					return field.Errorf(field.Index(path, i), "must be a string, got "+field.TypeName(e))
				}
			}
		default:
			return field.Errorf(path, "must be a string or an array of strings, got "+field.TypeName(v))
		}
	}
	return nil
}

// classifyOptions reads "source"?, "provider"?, "tool"?, "attempt"? and,
// when withNow, "now_ms"?.
func classifyOptions(req map[string]any, withNow bool) (classify.Options, error) {
	var opt classify.Options
	src, _, err := field.String(req, "source", "")
	if err != nil {
		return opt, err
	}
	switch src {
	case "": // the core decides: a tool when "tool" names one (classify.Options)
	case "provider":
		opt.Source = envelope.SourceProvider
	case "tool":
		opt.Source = envelope.SourceTool
	default:
		return opt, field.Errorf("source", "must be provider or tool, got "+strconv.Quote(src))
	}
	if opt.Provider, _, err = field.String(req, "provider", ""); err != nil {
		return opt, err
	}
	if opt.Tool, _, err = field.String(req, "tool", ""); err != nil {
		return opt, err
	}
	if opt.Attempt, opt.HasAttempt, err = field.Int(req, "attempt", "", 0, 1<<31); err != nil {
		return opt, err
	}
	if withNow {
		if opt.NowMs, opt.HasNow, err = field.Int(req, "now_ms", "", 0, 1<<53); err != nil {
			return opt, err
		}
	}
	return opt, nil
}

// opClassifyException: {"exception": {type?, message?, traceback?}, "tool"?,
// "attempt"?} -> the envelope (source tool).
func opClassifyException(req map[string]any) (any, error) {
	ex, ok, err := field.Obj(req, "exception", "")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, field.Errorf("exception", "is required")
	}
	var s [3]string
	for i, k := range [...]string{"type", "message", "traceback"} {
		if s[i], _, err = field.String(ex, k, "exception"); err != nil {
			return nil, err
		}
	}
	if s[0] == "" && s[2] == "" {
		return nil, field.Errorf("exception.type", "is required when there is no traceback")
	}
	opt, err := classifyOptions(req, false)
	if err != nil {
		return nil, err
	}
	if req["source"] != nil && opt.Source != envelope.SourceTool {
		return nil, field.Errorf("source", "must be tool for an exception")
	}
	return classify.Exception(s[0], s[1], s[2], opt), nil
}
