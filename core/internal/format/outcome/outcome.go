// Package outcome is the provider-neutral form of one tool call's outcome,
// shared by every wire format: the call (id, name), and either a failure (an
// Envelope) or a success Result (empty, text, a JSON value, or text and image
// blocks). It also reads and writes that form as the members of the
// serialize and parse ops.
package outcome

import (
	"strings"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/sanitize"
)

// Call identifies the tool call an outcome answers. ID is the provider's call
// id (tool_call_id, call_id, tool_use_id, toolUseId, functionCall.id) and may
// be "" where the format has none (Gemini without ids, MCP). Name is the
// function name; Gemini requires it, other formats do not carry it.
type Call struct {
	ID   string
	Name string
}

// Kind is what a successful Result holds.
type Kind int

// The kinds of a successful result.
const (
	Empty  Kind = iota // nothing (or only white space): formats that reject empty text get EmptyPlaceholder
	Text               // a string
	JSON               // any JSON value other than a string (a JSON string is Text)
	Blocks             // text and image blocks, in order
)

// Block is one element of a Blocks result: Type "text" with Text; Type
// "image" with MediaType (image/png, image/jpeg, image/gif, image/webp) and
// Data, the image bytes in standard base64, or with URL (an image the
// provider fetches); Type "document" likewise (MediaType application/pdf
// and Data, or URL). Not every format takes every kind in a tool result
// (see each codec); Media says which a block is.
type Block struct {
	Type      string
	Text      string
	MediaType string
	Data      string
	URL       string
}

// IsMedia reports whether b is an image or a document.
func (b Block) IsMedia() bool { return b.Type == "image" || b.Type == "document" }

// Result is a successful outcome.
type Result struct {
	Kind   Kind
	Text   string
	JSON   any
	Blocks []Block

	// Quoted, when its Of is Text, holds Text's canonical JSON string
	// (RFC 8785) as the request held it (a reader that found its literal
	// in that form sets it), so that a writer copies it (AppendText)
	// instead of encoding the text again. A Result whose Text changes
	// keeps a Quoted that is not for it, which AppendText then ignores.
	Quoted Quoted
}

// Quoted is a text's canonical JSON string as a request held it: Lit, its
// quotes included, is what canonical.AppendString writes for Of.
type Quoted struct {
	Of, Lit string
}

// AppendText appends the canonical JSON string of r.Text to dst: the
// literal the request held it in (Quoted) when that is for this very text,
// else the text encoded (canonical.AppendString); the same bytes either
// way.
func (r *Result) AppendText(dst []byte) []byte {
	if r.Quoted.Lit != "" && r.Quoted.Of == r.Text {
		return append(dst, r.Quoted.Lit...)
	}
	return canonical.AppendString(dst, r.Text)
}

// Outcome is one call and what came of it: exactly one of Error and Result is
// set.
type Outcome struct {
	Call   Call
	Error  *envelope.Envelope
	Result *Result

	// safeDetails, when not "", says that Error is already what Safe makes
	// of it, and holds the canonical JSON (RFC 8785) of its details, which
	// Error.Details then need not hold: a reader that found the envelope's
	// details in that form and its strings clean (the serialize op's fast
	// path, RecognizeSafe) sets it (Recognized), and the writers
	// (AppendError) copy it instead of sanitizing the envelope and encoding
	// its details again. It is unexported, so that no caller of the public
	// API (core.Outcome is this type) can claim an envelope safe, and
	// core.Parse drops it from what it returns (Plain): a caller may change
	// the envelope after, and its writer must then see the change.
	safeDetails string

	// clean, set only beside safeDetails (Recognized), says further that
	// Error holds nothing the sanitizer removes (FoundClean). Whoever sets
	// Error anew makes a new Outcome.
	clean bool
}

// Recognized is the outcome of a failure whose envelope e a reader found
// by RecognizeSafe (or read as the serialize op's fast path does), with
// what that returned of it: details, the canonical JSON of its details
// (SafeDetails), and clean (FoundClean).
func Recognized(e *envelope.Envelope, details string, clean bool) Outcome {
	return Outcome{Error: e, safeDetails: details, clean: clean}
}

// SafeDetails returns the canonical JSON of o's envelope's details when
// its reader found the envelope as Safe makes it (Recognized), for a
// writer to copy; "" otherwise, when the writer passes Error through Safe.
func SafeDetails(o *Outcome) string { return o.safeDetails }

// Plain returns o without what its reader learnt of it (SafeDetails,
// FoundClean), for a caller who may change its envelope: whatever Error
// then holds is sanitized by the writer. Every reader's Error holds its
// details as a map as well (RecognizeSafe's), so nothing is lost.
func Plain(o Outcome) Outcome { return Outcome{Call: o.Call, Error: o.Error, Result: o.Result} }

// FoundClean reports whether o's envelope was found clean by the reader
// that recognized it (Recognized, RecognizeSafe's clean): sanitize.Clean
// holds for its message and sanitize.DetailsClean for its details, so a
// caller that makes failures safe (the transcript engine's safeFailures)
// need not scan them again. It is false for an Outcome made any other way.
func FoundClean(o *Outcome) bool { return o.clean && o.Error != nil && o.safeDetails != "" }

// EmptyPlaceholder is the text sent where a format rejects empty content
// (Anthropic text blocks, OpenAI content and output). Parsers map it back to
// an Empty result.
const EmptyPlaceholder = "(empty result)"

// EnvelopeText returns the canonical JSON text of e, the string form every
// text-only format carries.
func EnvelopeText(e envelope.Envelope) string {
	b, _ := e.AppendCanonical(make([]byte, 0, 192))
	return string(b)
}

// JSONText returns the canonical JSON text of a value tree.
func JSONText(v any) string {
	b, err := canonical.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// Safe returns e with its message and details sanitized again: whatever
// reaches a wire format has passed the sanitizer, even if the caller built
// the envelope by hand.
func Safe(e envelope.Envelope) envelope.Envelope {
	e.Message = sanitize.Message(e.Message)
	e.Details = sanitize.Details(e.Details)
	return e
}

// IsBlank reports whether s is empty or only white space.
func IsBlank(s string) bool { return strings.TrimSpace(s) == "" }

// Read reads the outcomes of a serialize request m, found at path parent
// ("" for a request's root): either "results", an array of {"call",
// "error"|"result"}, or the shorthand of one outcome as "call" and
// "error"|"result" members of m. Errors are *field.Error with paths under
// parent ("results[2].call.id").
func Read(m map[string]any, parent string) ([]Outcome, error) {
	if arr, ok, err := field.Get[[]any](m, "results", parent); err != nil {
		return nil, err
	} else if ok {
		rp := field.Join(parent, "results")
		if len(arr) == 0 {
			return nil, field.NewError(rp, "must hold at least one outcome")
		}
		outs := make([]Outcome, len(arr))
		slots := make([]slot, len(arr))
		for i, v := range arr {
			// Paths are built only for an error: on success reading with
			// the path "" allocates none; on failure the outcome is read
			// again with its path, which gives the same error with it.
			m, err := field.As[map[string]any](v, "")
			if err == nil {
				err = readOne(m, "", &outs[i], &slots[i])
			}
			if err != nil {
				p := field.Index(rp, i)
				if m, err = field.As[map[string]any](v, p); err == nil {
					err = readOne(m, p, &outs[i], &slots[i])
				}
				return nil, err
			}
		}
		return outs, nil
	}
	one := new(single)
	if err := readOne(m, parent, &one.out[0], &one.slot); err != nil {
		return nil, err
	}
	return one.out[:], nil
}

// slot holds what an Outcome points to, allocated with its neighbours.
type slot struct {
	e envelope.Envelope
	r Result
}

// single is the one outcome of a shorthand request, in one allocation.
type single struct {
	out  [1]Outcome
	slot slot
}

// readOne reads the outcome m into *o; its Error or Result points into s.
func readOne(m map[string]any, path string, o *Outcome, s *slot) error {
	*o = Outcome{}
	cm, ok, err := field.Get[map[string]any](m, "call", path)
	if err != nil {
		return err
	}
	if !ok {
		return field.NewError(field.Join(path, "call"), "is required ({\"id\": ..., \"name\": ...})")
	}
	cp := field.Join(path, "call")
	if o.Call.ID, _, err = field.Get[string](cm, "id", cp); err != nil {
		return err
	}
	if o.Call.Name, _, err = field.Get[string](cm, "name", cp); err != nil {
		return err
	}
	ev, hasErr := m["error"]
	rv, hasRes := m["result"]
	switch {
	case hasErr && hasRes:
		return field.NewError(path, "give either error or result, not both")
	case hasErr:
		e, err := envelope.FromValue(ev, field.Join(path, "error"))
		if err != nil {
			return err
		}
		s.e = e
		o.Error = &s.e
	case hasRes:
		r, err := ReadResult(rv, field.Join(path, "result"))
		if err != nil {
			return err
		}
		s.r = r
		o.Result = &s.r
	default:
		return field.NewError(path, "needs an error (an envelope) or a result")
	}
	return nil
}

// ReadResult reads a success result: {} (empty), {"text": s}, {"json": v} or
// {"blocks": [{"type":"text","text":s} | {"type":"image"|"document","media_type":m,"data":b64} |
// {"type":"image"|"document","url":u,"media_type"?:m}]}.
// A JSON string is read as text; blank text as empty.
func ReadResult(v any, path string) (Result, error) {
	m, err := field.As[map[string]any](v, path)
	if err != nil {
		return Result{}, err
	}
	if len(m) > 1 {
		return Result{}, field.NewError(path, "holds at most one of text, json, blocks")
	}
	if t, ok, err := field.Get[string](m, "text", path); err != nil {
		return Result{}, err
	} else if ok {
		return textResult(t), nil
	}
	if jv, ok := m["json"]; ok {
		if s, isStr := jv.(string); isStr {
			return textResult(s), nil
		}
		return Result{Kind: JSON, JSON: jv}, nil
	}
	if arr, ok, err := field.Get[[]any](m, "blocks", path); err != nil {
		return Result{}, err
	} else if ok {
		bp := field.Join(path, "blocks")
		blocks := make([]Block, 0, len(arr))
		for i, bv := range arr {
			ip := field.Index(bp, i)
			bm, err := field.As[map[string]any](bv, ip)
			if err != nil {
				return Result{}, err
			}
			typ, err := field.RequiredString(bm, "type", ip)
			if err != nil {
				return Result{}, err
			}
			switch typ {
			case "text":
				t, _, err := field.Get[string](bm, "text", ip)
				if err != nil {
					return Result{}, err
				}
				blocks = append(blocks, Block{Type: "text", Text: canonical.ValidString(t)})
			case "image", "document":
				b, err := readMedia(bm, typ, ip)
				if err != nil {
					return Result{}, err
				}
				blocks = append(blocks, b)
			default:
				return Result{}, field.NewError(field.Join(ip, "type"), "must be text, image or document")
			}
		}
		return Result{Kind: Blocks, Blocks: blocks}, nil
	}
	if len(m) == 1 {
		for k := range m {
			return Result{}, field.NewError(field.Join(path, k), "is not a result member (want text, json or blocks)")
		}
	}
	return Result{Kind: Empty}, nil
}

// readMedia reads an image or document block: {"url": u} (media_type
// optional), or {"media_type": m, "data": b64}.
func readMedia(bm map[string]any, typ, ip string) (Block, error) {
	u, hasURL, err := field.Get[string](bm, "url", ip)
	if err != nil {
		return Block{}, err
	}
	mt, _, err := field.Get[string](bm, "media_type", ip)
	if err != nil {
		return Block{}, err
	}
	if hasURL {
		if u == "" {
			return Block{}, field.NewError(field.Join(ip, "url"), "must be a non-empty string")
		}
		return Block{Type: typ, MediaType: mt, URL: u}, nil
	}
	if mt == "" {
		return Block{}, field.NewError(field.Join(ip, "media_type"), "is required and must be a non-empty string (or give url)")
	}
	data, err := field.RequiredString(bm, "data", ip)
	if err != nil {
		return Block{}, err
	}
	return Block{Type: typ, MediaType: mt, Data: data}, nil
}

// TextResult is the result of a request's {"text": t}: empty when t is
// blank, else t with invalid UTF-8 made U+FFFD (ReadResult's reading).
func TextResult(t string) Result { return textResult(t) }

func textResult(t string) Result {
	if IsBlank(t) {
		return Result{Kind: Empty}
	}
	return Result{Kind: Text, Text: canonical.ValidString(t)}
}

// Value returns o in the JSON form Read accepts (the parse op's result).
func Value(o Outcome) map[string]any {
	c := map[string]any{}
	if o.Call.ID != "" {
		c["id"] = o.Call.ID
	}
	if o.Call.Name != "" {
		c["name"] = o.Call.Name
	}
	out := map[string]any{"call": c}
	if o.Error != nil {
		out["error"] = *o.Error
		return out
	}
	r := map[string]any{}
	if o.Result != nil {
		switch o.Result.Kind {
		case Text:
			r["text"] = o.Result.Text
		case JSON:
			r["json"] = o.Result.JSON
		case Blocks:
			bs := make([]any, 0, len(o.Result.Blocks))
			for _, b := range o.Result.Blocks {
				switch {
				case b.IsMedia() && b.URL != "":
					m := map[string]any{"type": b.Type, "url": b.URL}
					if b.MediaType != "" {
						m["media_type"] = b.MediaType
					}
					bs = append(bs, m)
				case b.IsMedia():
					bs = append(bs, map[string]any{"type": b.Type, "media_type": b.MediaType, "data": b.Data})
				default:
					bs = append(bs, map[string]any{"type": "text", "text": b.Text})
				}
			}
			r["blocks"] = bs
		}
	}
	out["result"] = r
	return out
}
