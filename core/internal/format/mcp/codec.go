package mcp

import (
	"strconv"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// Codec is the mcp codec; the zero value is ready to use and writes a
// failure without structuredContent.
//
// See MCP schema CallToolResult.
type Codec struct {
	// NoOutputSchema reports that the tool whose calls the results answer is
	// known to declare no outputSchema: a failure then also carries the
	// envelope as its structuredContent, which nothing constrains. False
	// (the tool declares one, or nothing is known of it) leaves
	// structuredContent out of a failure, since it must conform to a
	// declared outputSchema, the envelope does not, and
	// @modelcontextprotocol/sdk 1.x fails the call with -32602 when it does
	// not (modelcontextprotocol/typescript-sdk#2748). See the package doc.
	NoOutputSchema bool
}

// ResultTypeComplete is the resultType of a finished call, failed or not
// (MCP 2026-07-28: servers MUST send it; older clients ignore it).
const ResultTypeComplete = "complete"

// Serialize returns one CallToolResult per outcome, in call order. Calls need
// no id (see the package doc).
//
// Returns a *field.Error naming results[i] when an outcome holds neither or
// both of error and result, results[i].result.json for a value JSON cannot
// carry (NaN, ±Inf), and results[i].result.blocks[j] for a block of unknown
// type or an image whose data is not standard base64.
//
// See MCP schema CallToolResult; the README's wire-format table.
func (c Codec) Serialize(outs []outcome.Outcome) ([]any, error) {
	return outcome.Values(outs, c.AppendSerialized)
}

// AppendSerialized appends the canonical JSON of the CallToolResults to dst:
// the codec's one writer (Serialize parses what it writes); a failure's is
// written without building its value tree. Errors are those Serialize
// documents, and the canonical writer's for a failure whose details hold a
// value JSON cannot carry (NaN, ±Inf).
func (c Codec) AppendSerialized(dst []byte, outs []outcome.Outcome) ([]byte, error) {
	dst = append(dst, '[')
	for i := range outs {
		o := &outs[i]
		if err := outcome.Check(i, o); err != nil {
			return dst, err
		}
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if o.Error != nil {
			if dst, err = c.appendFailure(dst, o); err != nil {
				return dst, err
			}
			continue
		}
		m, err := success(i, *o.Result)
		if err != nil {
			return dst, err
		}
		if dst, err = canonical.Append(dst, m); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}

// appendFailure appends the CallToolResult of the failure of o: isError,
// the envelope's canonical JSON as the one text block, and with
// NoOutputSchema the same envelope as structuredContent (members in RFC 8785
// order). The envelope passes Safe once for both (not at all when
// outcome.SafeDetails says its reader did that).
func (c Codec) appendFailure(dst []byte, o *outcome.Outcome) ([]byte, error) {
	e, safe := *o.Error, outcome.SafeDetails(o)
	if safe == "" {
		e = outcome.Safe(e)
	}
	appendEnvelope := func(dst []byte) ([]byte, error) {
		if safe != "" {
			return e.AppendCanonicalDetails(dst, safe), nil
		}
		return e.AppendCanonical(dst)
	}
	dst = append(dst, `{"content":[{"text":`...)
	start := len(dst)
	dst, err := appendEnvelope(dst)
	if err != nil {
		return dst[:start], err
	}
	dst = outcome.QuoteTail(dst, start)
	dst = append(dst, `,"type":"text"}],"isError":true,"resultType":"`+ResultTypeComplete+`"`...)
	if c.NoOutputSchema {
		dst = append(dst, `,"structuredContent":`...)
		if dst, err = appendEnvelope(dst); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

func text(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

// placeholder is the content of an empty result: one text block holding the
// placeholder, never an empty text block (stacklok/mecatl#291: hosts replay MCP
// content into providers that reject empty text).
func placeholder() []any { return []any{text(outcome.EmptyPlaceholder)} }

// success returns the CallToolResult of a successful result r of outcome i.
func success(i int, r outcome.Result) (map[string]any, error) {
	m := map[string]any{"resultType": ResultTypeComplete}
	switch r.Kind {
	case outcome.Text:
		if outcome.IsBlank(r.Text) {
			m["content"] = placeholder()
		} else {
			m["content"] = []any{text(r.Text)}
		}
	case outcome.JSON:
		b, err := canonical.Marshal(r.JSON)
		if err != nil {
			return nil, field.NewError(outcome.Path(i, "result.json"), "cannot be written as JSON: "+err.Error())
		}
		m["content"] = []any{text(string(b))}
		if obj, ok := r.JSON.(map[string]any); ok {
			m["structuredContent"] = obj
		}
	case outcome.Blocks:
		content := make([]any, 0, len(r.Blocks))
		for j, b := range r.Blocks {
			switch b.Type {
			case "text":
				if !outcome.IsBlank(b.Text) {
					content = append(content, text(b.Text))
				}
			case "image":
				if b.URL != "" {
					return nil, field.NewError(field.Join(field.Index(outcome.Path(i, "result.blocks"), j), "url"), "must be inline data: an MCP ImageContent carries base64 data")
				}
				if err := outcome.CheckImage(i, j, b, false); err != nil {
					return nil, err
				}
				if b.MediaType == "" {
					return nil, field.NewError(field.Join(field.Index(outcome.Path(i, "result.blocks"), j), "media_type"), "is required (MCP mimeType)")
				}
				content = append(content, map[string]any{"type": "image", "data": b.Data, "mimeType": b.MediaType})
			default:
				return nil, field.NewError(field.Join(field.Index(outcome.Path(i, "result.blocks"), j), "type"), "must be text or image")
			}
		}
		if len(content) == 0 {
			content = placeholder()
		}
		m["content"] = content
	default:
		m["content"] = placeholder()
	}
	return m, nil
}

// Parse reads CallToolResults back into outcomes, in order (with an empty
// Call). isError with one text block holding an envelope is that failure
// (its structuredContent, if any, is not read: the text is the same envelope);
// isError otherwise is a TOOL_ERROR envelope built from the text (the failure
// flag is never lost, maximhq/bifrost#5450). A success with object
// structuredContent is JSON; otherwise no block or the placeholder is Empty,
// one text block is Text, anything else is Blocks.
//
// Returns a *field.Error naming messages[i] (and the member) for a result
// that is not an object, a content that is not an array of text and image
// blocks (audio, resource_link and resource blocks have no neutral form), or
// an isError or resultType of the wrong type.
//
// See MCP schema CallToolResult.
func (Codec) Parse(msgs []any) ([]outcome.Outcome, error) {
	outs := make([]outcome.Outcome, 0, len(msgs))
	for i, v := range msgs {
		p := field.Index("messages", i)
		m, err := field.As[map[string]any](v, p)
		if err != nil {
			return nil, err
		}
		isErr, _, err := field.Get[bool](m, "isError", p)
		if err != nil {
			return nil, err
		}
		if _, _, err := field.Get[string](m, "resultType", p); err != nil {
			return nil, err
		}
		arr, ok, err := field.Get[[]any](m, "content", p)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, field.NewError(field.Join(p, "content"), "is required (an array of content blocks)")
		}
		bs, err := readBlocks(arr, field.Join(p, "content"))
		if err != nil {
			return nil, err
		}
		if isErr {
			e := failure(bs)
			outs = append(outs, outcome.Outcome{Error: &e})
			continue
		}
		r := result(bs)
		if sc, ok := m["structuredContent"].(map[string]any); ok {
			r = outcome.Result{Kind: outcome.JSON, JSON: sc}
		}
		outs = append(outs, outcome.Outcome{Result: &r})
	}
	return outs, nil
}

// readBlocks reads text and image content blocks.
func readBlocks(arr []any, p string) ([]outcome.Block, error) {
	bs := make([]outcome.Block, 0, len(arr))
	for j, v := range arr {
		bp := field.Index(p, j)
		m, typ, err := field.Tagged(v, "type", bp)
		if err != nil {
			return nil, err
		}
		switch typ {
		case "text":
			t, ok, err := field.Get[string](m, "text", bp)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, field.NewError(field.Join(bp, "text"), "is required")
			}
			bs = append(bs, outcome.Block{Type: "text", Text: t})
		case "image":
			data, err := field.RequiredString(m, "data", bp)
			if err != nil {
				return nil, err
			}
			if !outcome.ValidBase64(data) {
				return nil, field.NewError(field.Join(bp, "data"), "must be standard base64 with padding")
			}
			mt, err := field.RequiredString(m, "mimeType", bp)
			if err != nil {
				return nil, err
			}
			bs = append(bs, outcome.Block{Type: "image", MediaType: mt, Data: data})
		default:
			return nil, field.NewError(field.Join(bp, "type"), "must be text or image ("+strconv.Quote(typ)+" blocks have no neutral form)")
		}
	}
	return bs, nil
}

// failure returns the envelope of an isError result.
func failure(bs []outcome.Block) envelope.Envelope {
	if len(bs) == 1 && bs[0].Type == "text" {
		return outcome.FailureText(bs[0].Text)
	}
	e := outcome.Foreign(outcome.JoinTexts(bs))
	if n := len(bs) - countText(bs); n > 0 {
		e.Details = map[string]any{"images_omitted": n}
	}
	return e
}

func countText(bs []outcome.Block) int {
	n := 0
	for _, b := range bs {
		if b.Type == "text" {
			n++
		}
	}
	return n
}

// result returns the success result of content blocks bs.
func result(bs []outcome.Block) outcome.Result {
	if len(bs) == 0 {
		return outcome.Result{Kind: outcome.Empty}
	}
	if len(bs) == 1 && bs[0].Type == "text" {
		t := bs[0].Text
		if t == outcome.EmptyPlaceholder || outcome.IsBlank(t) {
			return outcome.Result{Kind: outcome.Empty}
		}
		return outcome.Result{Kind: outcome.Text, Text: t}
	}
	return outcome.Result{Kind: outcome.Blocks, Blocks: bs}
}
