// Package anthropic is the wire format of Anthropic's Messages API: one user
// message whose content holds a tool_result block per tool call, in call
// order.
//
// # Shapes
//
//	failure:  {"type":"tool_result","tool_use_id":id,"content":"<canonical envelope JSON>","is_error":true}
//	text:     {"type":"tool_result","tool_use_id":id,"content":"text"}
//	JSON:     {"type":"tool_result","tool_use_id":id,"content":"<canonical JSON text>"}
//	blocks:   {"type":"tool_result","tool_use_id":id,"content":[{"type":"text","text":..},
//	           {"type":"image","source":{"type":"base64","media_type":..,"data":..}},
//	           {"type":"image"|"document","source":{"type":"url","url":..}},
//	           {"type":"document","source":{"type":"base64","media_type":"application/pdf","data":..}}]}
//	empty:    {"type":"tool_result","tool_use_id":id}
//
// Every failed result carries is_error true, whatever its code, retryable or
// source: the rule of seed 000 and checklist item 3 wins over the seed's own
// sketch, which set it only for some failures (flags lost in the wild:
// microsoft/autogen#7428, maximhq/bifrost#5450). is_error is omitted on
// success (it defaults to false). Empty content is omitted rather than sent
// as an empty text block, which the API rejects ("text content blocks must
// be non-empty"; stacklok/mecatl#291); blank text blocks inside a blocks
// result are dropped. Images stay in the tool_result (BerriAI/litellm#6953).
//
// See https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls,
// anthropic-sdk-go ToolResultBlockParam and the README's wire-format table.
package anthropic

import (
	"strconv"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// Codec returns the anthropic codec: Serialize writes one user message of
// tool_result blocks, Parse reads them back.
//
// See https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls.
//
// Its Serialize returns one user message {"role":"user","content":[tool_result...]}
// holding every outcome in call order, as a value tree. It returns a
// *field.Error for a missing or malformed call id (results[i].call.id), an
// image Anthropic cannot take, or an outcome with neither or both of error and
// result.
//
// See anthropic-sdk-go ToolResultBlockParam.
//
// Its Parse reads tool_result blocks back into outcomes, in order. Each element
// of msgs is a user message ({"role":"user","content":[...]}) or a bare
// content block; blocks other than tool_result (a trailing text block) are
// skipped. A tool_result's content may be a string or a list of text and
// image blocks.
//
// With is_error true the content is read as an envelope when it is one, and
// otherwise becomes a TOOL_ERROR envelope with the text, sanitized, as its
// message (a result written by another library). Without it, a string is
// read by outcome.ReadText, a list as Blocks, no content as Empty. The call
// name is not on the wire and comes back "". Returns a *field.Error with the
// path for anything else, and when msgs hold no tool_result at all.
//
// See anthropic-sdk-go ToolResultBlockParam.
func Codec() outcome.TurnCodec {
	return outcome.TurnCodec{
		Turn: outcome.Turn{Head: `{"content":[`, Tail: `],"role":"user"}`, Elem: appendResult},
		Key:  "content", IsBlock: isBlock, ParseElem: parseBlock, None: "tool_result block",
	}
}

// AppendTurn appends the canonical JSON (RFC 8785) of the user message that
// Serialize returns to dst: the fast path that writes wire bytes directly.
// Errors are those of Serialize; on error dst may hold a partial message.
func AppendTurn(dst []byte, outs []outcome.Outcome) ([]byte, error) { return Codec().Append(dst, outs) }

// appendResult writes one tool_result block of an outcome that passed Check; keys in canonical order:
// content, is_error, tool_use_id, type.
func appendResult(dst []byte, i int, o *outcome.Outcome) ([]byte, error) {
	id := o.Call.ID
	if id == "" {
		return dst, field.NewError(outcome.Path(i, "call.id"), "is required: the id of the tool_use block this result answers")
	}
	// Anthropic validates tool_use ids against ^[a-zA-Z0-9_-]+$
	// (anthropic-sdk-go ToolResultBlockParam, BlockRunAI/ClawRouter#17).
	if !outcome.ValidToolID(id, 0) {
		return dst, field.NewError(outcome.Path(i, "call.id"), "must match ^[a-zA-Z0-9_-]+$ for Anthropic, got "+strconv.Quote(id))
	}
	dst = append(dst, '{')
	var err error
	if o.Error != nil {
		dst = append(dst, `"content":`...)
		if dst, err = outcome.AppendErrorString(dst, o); err != nil {
			return dst, err
		}
		// Every failed result: is_error true (seed 000 checklist item 3,
		// microsoft/autogen#7428).
		dst = append(dst, `,"is_error":true,"tool_use_id":`...)
	} else {
		if dst, err = appendContent(dst, i, o.Result); err != nil {
			return dst, err
		}
		dst = append(dst, `"tool_use_id":`...)
	}
	dst = canonical.AppendString(dst, id)
	return append(dst, `,"type":"tool_result"}`...), nil
}

// appendContent writes `"content":...,` for a success, or nothing for an
// empty one (stacklok/mecatl#291: never an empty text block).
func appendContent(dst []byte, i int, r *outcome.Result) ([]byte, error) {
	switch r.Kind {
	case outcome.Text:
		// The placeholder text means "empty" in every format (parsers read
		// it back as Empty), so it is written as Anthropic writes empty: no
		// content. That keeps serialize(parse(serialize(x))) == serialize(x).
		if outcome.IsBlank(r.Text) || r.Text == outcome.EmptyPlaceholder {
			return dst, nil
		}
		dst = append(dst, `"content":`...)
		dst = r.AppendText(dst)
	case outcome.JSON:
		if s, ok := r.JSON.(string); ok {
			return appendContent(dst, i, &outcome.Result{Kind: outcome.Text, Text: s})
		}
		dst = append(dst, `"content":`...)
		var err error
		if dst, err = outcome.AppendJSONString(dst, r.JSON); err != nil {
			return dst, field.NewError(outcome.Path(i, "result.json"), err.Error())
		}
	case outcome.Blocks:
		bs := outcome.NonBlank(r.Blocks)
		if len(bs) == 0 {
			return dst, nil
		}
		dst = append(dst, `"content":[`...)
		for j, b := range bs {
			if j > 0 {
				dst = append(dst, ',')
			}
			if b.IsMedia() {
				var err error
				if dst, err = appendMedia(dst, i, j, b); err != nil {
					return dst, err
				}
				continue
			}
			dst = append(dst, `{"text":`...)
			dst = canonical.AppendString(dst, b.Text)
			dst = append(dst, `,"type":"text"}`...)
		}
		dst = append(dst, ']')
	default:
		return dst, nil
	}
	return append(dst, ','), nil
}

// isBlock reports whether m is a bare block of a parse request rather than a
// message: a bare tool_result block has a type.
func isBlock(m map[string]any) bool { _, ok := m["type"]; return ok }

func parseBlock(outs []outcome.Outcome, m map[string]any, p string) ([]outcome.Outcome, error) {
	typ, err := field.RequiredString(m, "type", p)
	if err != nil {
		return outs, err
	}
	if typ != "tool_result" {
		return outs, nil
	}
	id, err := field.RequiredString(m, "tool_use_id", p)
	if err != nil {
		return outs, err
	}
	isErr, _, err := field.Get[bool](m, "is_error", p)
	if err != nil {
		return outs, err
	}
	o := outcome.Outcome{Call: outcome.Call{ID: id}}
	cv, has := m["content"]
	cp := field.Join(p, "content")
	var blocks []outcome.Block
	if has && cv != nil {
		if _, isStr := cv.(string); !isStr {
			if blocks, err = parseContent(cv, cp); err != nil {
				return outs, err
			}
		}
	}
	s, _ := cv.(string)
	switch {
	case isErr:
		if blocks != nil {
			s = outcome.JoinTexts(blocks)
		}
		e := outcome.FailureText(s)
		o.Error = &e
	case blocks != nil:
		bs := outcome.NonBlank(blocks)
		if len(bs) == 0 {
			o.Result = &outcome.Result{Kind: outcome.Empty}
		} else {
			o.Result = &outcome.Result{Kind: outcome.Blocks, Blocks: bs}
		}
	default:
		r := outcome.ReadText(s)
		o.Result = &r
	}
	return append(outs, o), nil
}

// appendMedia writes an image or document block of a tool_result:
// ToolResultBlockParam's content takes images (a base64 source of png,
// jpeg, gif or webp, or a url source) and documents (a base64 PDF source,
// or a url source).
//
// See anthropic-sdk-go ToolResultBlockParamContentUnion (ImageBlockParam,
// DocumentBlockParam: Base64PDFSourceParam, URLPDFSourceParam, URLImageSourceParam).
func appendMedia(dst []byte, i, j int, b outcome.Block) ([]byte, error) {
	if err := media().Error(i, j, b); err != nil {
		return dst, err
	}
	if b.URL != "" {
		dst = append(dst, `{"source":{"type":"url","url":`...)
		dst = canonical.AppendString(dst, b.URL)
		dst = append(dst, `},"type":"`...)
		dst = append(dst, b.Type...)
		return append(dst, `"}`...), nil
	}
	dst = append(dst, `{"source":{"data":`...)
	dst = canonical.AppendString(dst, b.Data)
	dst = append(dst, `,"media_type":`...)
	dst = canonical.AppendString(dst, b.MediaType)
	dst = append(dst, `,"type":"base64"},"type":"`...)
	dst = append(dst, b.Type...)
	return append(dst, `"}`...), nil
}

// Takes says why a tool_result cannot carry the media block b ("" when it
// can): an image of another type than png, jpeg, gif or webp, a document
// that is not a PDF, or data that is not standard base64.
func Takes(b outcome.Block) string { return media().Why(b) }

// media is what a tool_result takes: images and PDF documents, by URL or
// base64 (anthropic-sdk-go ToolResultBlockParamContentUnion).
func media() outcome.MediaRule {
	return outcome.MediaRule{
		ImageWhy:    "Anthropic takes png, jpeg, gif and webp images",
		Documents:   []string{"application/pdf"},
		Document:    "must be application/pdf: an Anthropic document in a tool result is a PDF",
		DocumentWhy: "Anthropic takes PDF documents in a tool result",
	}
}

// parseMedia reads an image or document block: a base64 source (media_type
// and data) or a url source.
func parseMedia(bm map[string]any, typ, bp string) (outcome.Block, error) {
	src, ok, err := field.Get[map[string]any](bm, "source", bp)
	if err != nil {
		return outcome.Block{}, err
	}
	sp := field.Join(bp, "source")
	if !ok {
		return outcome.Block{}, field.NewError(sp, "is required")
	}
	switch st, _, _ := field.Get[string](src, "type", sp); st {
	case "url":
		u, err := field.RequiredString(src, "url", sp)
		return outcome.Block{Type: typ, URL: u}, err
	case "base64":
		mt, err := field.RequiredString(src, "media_type", sp)
		if err != nil {
			return outcome.Block{}, err
		}
		data, err := field.RequiredString(src, "data", sp)
		return outcome.Block{Type: typ, MediaType: mt, Data: data}, err
	}
	return outcome.Block{}, field.NewError(field.Join(sp, "type"), "must be base64 or url")
}

// parseContent reads a content list of text, image and document blocks.
func parseContent(v any, p string) ([]outcome.Block, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, field.NewError(p, "must be a string or an array of blocks, got "+field.TypeName(v))
	}
	blocks := make([]outcome.Block, 0, len(arr))
	for j, bv := range arr {
		bp := field.Index(p, j)
		bm, typ, err := field.Tagged(bv, "type", bp)
		if err != nil {
			return nil, err
		}
		switch typ {
		case "text":
			t, _, err := field.Get[string](bm, "text", bp)
			if err != nil {
				return nil, err
			}
			blocks = append(blocks, outcome.Block{Type: "text", Text: canonical.ValidString(t)})
		case "image", "document":
			b, err := parseMedia(bm, typ, bp)
			if err != nil {
				return nil, err
			}
			blocks = append(blocks, b)
		default:
			return nil, field.NewError(field.Join(bp, "type"), "must be text, image or document, got "+strconv.Quote(typ))
		}
	}
	return blocks, nil
}
