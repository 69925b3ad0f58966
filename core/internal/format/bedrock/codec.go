// Package bedrock is the wire format of the Amazon Bedrock Converse API: one
// user message whose content holds a toolResult block per tool call, in call
// order.
//
// # Shapes
//
//	failure:  {"toolResult":{"toolUseId":id,"status":"error","content":[{"json":<envelope object>}]}}
//	text:     {"toolResult":{"toolUseId":id,"content":[{"text":"text"}]}}
//	JSON:     {"toolResult":{"toolUseId":id,"content":[{"json":<the object> | {"output":v}}]}}
//	blocks:   {"toolResult":{"toolUseId":id,"content":[{"text":..},
//	           {"image":{"format":"png","source":{"bytes":"<base64>"}}}]}}
//	empty:    {"toolResult":{"toolUseId":id,"content":[{"text":"(empty result)"}]}}
//
// A failure carries status "error" (maximhq/bifrost#5450: never "success" for
// an error) and a self-describing json block holding the envelope, because
// status is honoured only by Amazon Nova and Anthropic Claude models (botocore
// bedrock-runtime ToolResultBlock). A success omits status: the service model
// makes it optional and AWS's own tool-use example sends none for a success. A
// json block must hold an object (Bedrock answers "Provide a json object for
// the field" otherwise), so a JSON result that is not an object, or an object
// whose only key is "output", goes under {"output": v}. An empty result is the
// placeholder text: the model allows an empty text, but Converse forwards to
// models that reject one (stacklok/mecatl#291). toolUseId must be 1 to 64
// characters of [a-zA-Z0-9_-], the stricter of the two published patterns
// (botocore bedrock-runtime ToolResultBlock). Image bytes are base64 text, the
// form blobs take in the JSON body: a boto3 caller passes
// base64.b64decode(bytes) instead.
//
// See the botocore service model bedrock-runtime 2023-09-30 (ToolResultBlock,
// ToolResultContentBlock, ToolResultStatus, ToolUseId), the README's
// wire-format table and
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolResultBlock.html.
package bedrock

import (
	"strconv"
	"strings"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// MaxToolUseIDLen is the longest toolUseId Bedrock accepts, in bytes.
//
// See botocore bedrock-runtime 2023-09-30 ToolUseId.
const MaxToolUseIDLen = 64

// Codec returns the bedrock codec: Serialize writes one user message of
// toolResult blocks, Parse reads them back.
//
// See botocore bedrock-runtime 2023-09-30 ToolResultBlock.
//
// Its Serialize returns one user message {"role":"user","content":[{"toolResult":...}]}
// holding every outcome in call order, as a value tree. It returns a
// *field.Error for a missing or malformed call id (results[i].call.id), an
// image Bedrock cannot take, or an outcome with neither or both of error and
// result.
//
// See botocore bedrock-runtime ToolResultBlock.
//
// Its Parse reads toolResult blocks back into outcomes, in order. Each element of
// msgs is a user message ({"role":"user","content":[...]}) or a bare content
// block {"toolResult":{...}}; content blocks without a toolResult are skipped.
//
// status "error" is a failure: the first json block holding an envelope is
// returned as is; otherwise the text (or JSON) of the blocks becomes a
// TOOL_ERROR envelope with that text, sanitized, as its message (a result
// written by another library, maximhq/bifrost#5450). Without status "error":
// one text block is Text (Empty when blank or the placeholder), one json block
// is JSON (with {"output": v} unwrapped), no block is Empty, several blocks or
// any image a Blocks result (a json block among them becomes text). The call
// name is not on the wire and comes back "". Returns a *field.Error with the
// path for anything else, and when msgs hold no toolResult at all.
//
// See botocore bedrock-runtime ToolResultBlock.
func Codec() outcome.TurnCodec {
	return outcome.TurnCodec{
		Turn: outcome.Turn{Head: `{"content":[`, Tail: `],"role":"user"}`, Elem: appendResult},
		Key:  "content", IsBlock: isBlock, ParseElem: parseBlock, None: "toolResult block",
	}
}

// AppendTurn appends the canonical JSON (RFC 8785) of the message that
// Serialize returns to dst, writing wire bytes directly. Errors are those of
// Serialize; on error dst may hold a partial message.
func AppendTurn(dst []byte, outs []outcome.Outcome) ([]byte, error) { return Codec().Append(dst, outs) }

// appendResult writes one toolResult block of an outcome that passed Check; keys in canonical order: content,
// status, toolUseId.
func appendResult(dst []byte, i int, o *outcome.Outcome) ([]byte, error) {
	id := o.Call.ID
	if !outcome.ValidToolID(id, MaxToolUseIDLen) {
		return dst, field.NewError(outcome.Path(i, "call.id"), "must be 1 to 64 characters of [a-zA-Z0-9_-] for Bedrock, got "+strconv.Quote(id))
	}
	dst = append(dst, `{"toolResult":{"content":[`...)
	var err error
	if o.Error != nil {
		dst = append(dst, `{"json":`...)
		if dst, err = outcome.AppendError(dst, o); err != nil {
			return dst, err
		}
		// status "error" on every failure (maximhq/bifrost#5450); the json
		// block keeps it self-describing (botocore bedrock-runtime
		// ToolResultBlock).
		dst = append(dst, `}],"status":"error","toolUseId":`...)
	} else {
		if dst, err = appendContent(dst, i, o.Result); err != nil {
			return dst, err
		}
		dst = append(dst, `],"toolUseId":`...)
	}
	dst = canonical.AppendString(dst, id)
	return append(dst, `}}`...), nil
}

func appendText(dst []byte, s string) []byte {
	dst = append(dst, `{"text":`...)
	dst = canonical.AppendString(dst, s)
	return append(dst, '}')
}

// wrapJSON reports whether a JSON result goes under {"output": v}: anything
// but an object, and an object whose only key is "output" (so that parsing
// can unwrap exactly what was wrapped).
func wrapJSON(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return true
	}
	_, out := m["output"]
	return out && len(m) == 1
}

// appendContent writes the ToolResultContentBlocks of a success.
func appendContent(dst []byte, i int, r *outcome.Result) ([]byte, error) {
	switch r.Kind {
	case outcome.Text:
		if outcome.IsBlank(r.Text) {
			break
		}
		return appendText(dst, r.Text), nil
	case outcome.JSON:
		if s, ok := r.JSON.(string); ok {
			return appendContent(dst, i, &outcome.Result{Kind: outcome.Text, Text: s})
		}
		wrap := wrapJSON(r.JSON)
		dst = append(dst, `{"json":`...)
		if wrap {
			dst = append(dst, `{"output":`...)
		}
		var err error
		if dst, err = canonical.Append(dst, r.JSON); err != nil {
			return dst, field.NewError(outcome.Path(i, "result.json"), err.Error())
		}
		if wrap {
			dst = append(dst, '}')
		}
		return append(dst, '}'), nil
	case outcome.Blocks:
		bs := outcome.NonBlank(r.Blocks)
		if len(bs) == 0 {
			break
		}
		for j, b := range bs {
			if j > 0 {
				dst = append(dst, ',')
			}
			if !b.IsMedia() {
				dst = appendText(dst, b.Text)
				continue
			}
			if err := media().Error(i, j, b); err != nil {
				return dst, err
			}
			if b.Type == "document" {
				// DocumentBlock: format, name (required), source
				dst = append(dst, `{"document":{"format":"pdf","name":"document","source":{"bytes":`...)
				dst = canonical.AppendString(dst, b.Data)
				dst = append(dst, `}}}`...)
				continue
			}
			f, _ := outcome.ImageFormat(b.MediaType)
			dst = append(dst, `{"image":{"format":"`...)
			dst = append(dst, f...)
			dst = append(dst, `","source":{"bytes":`...)
			dst = canonical.AppendString(dst, b.Data)
			dst = append(dst, `}}}`...)
		}
		return dst, nil
	}
	// Empty: the placeholder, never an empty text (stacklok/mecatl#291).
	return appendText(dst, outcome.EmptyPlaceholder), nil
}

// isBlock reports whether m is a bare block of a parse request rather than a
// message: a bare content block holds toolResult.
func isBlock(m map[string]any) bool { _, ok := m["toolResult"]; return ok }

// item is one ToolResultContentBlock read back.
type item struct {
	json   any
	isJSON bool // the json member, not a text or image block
	block  outcome.Block
}

func parseBlock(outs []outcome.Outcome, m map[string]any, p string) ([]outcome.Outcome, error) {
	tv, ok := m["toolResult"]
	if !ok {
		return outs, nil
	}
	tp := field.Join(p, "toolResult")
	tr, id, err := field.Tagged(tv, "toolUseId", tp)
	if err != nil {
		return outs, err
	}
	status, _, err := field.Get[string](tr, "status", tp)
	if err != nil {
		return outs, err
	}
	if status != "" && status != "success" && status != "error" {
		return outs, field.NewError(field.Join(tp, "status"), "must be success or error, got "+strconv.Quote(status))
	}
	content, _, err := field.Get[[]any](tr, "content", tp)
	if err != nil {
		return outs, err
	}
	items, err := parseItems(content, field.Join(tp, "content"))
	if err != nil {
		return outs, err
	}
	o := outcome.Outcome{Call: outcome.Call{ID: id}}
	if status == "error" {
		e := failure(items)
		o.Error = &e
	} else {
		r := success(items)
		o.Result = &r
	}
	return append(outs, o), nil
}

func parseItems(content []any, cp string) ([]item, error) {
	items := make([]item, 0, len(content))
	for j, cv := range content {
		jp := field.Index(cp, j)
		cm, err := field.As[map[string]any](cv, jp)
		if err != nil {
			return nil, err
		}
		if len(cm) != 1 {
			return nil, field.NewError(jp, "must hold exactly one of json, text, image (a union)")
		}
		for k, v := range cm {
			switch k {
			case "json":
				items = append(items, item{json: v, isJSON: true})
			case "text":
				t, _, err := field.Get[string](cm, "text", jp)
				if err != nil {
					return nil, err
				}
				items = append(items, item{block: outcome.Block{Type: "text", Text: canonical.ValidString(t)}})
			case "image":
				b, err := parseImage(v, field.Join(jp, "image"))
				if err != nil {
					return nil, err
				}
				items = append(items, item{block: b})
			case "document":
				b, err := parseDocument(v, field.Join(jp, "document"))
				if err != nil {
					return nil, err
				}
				items = append(items, item{block: b})
			default:
				return nil, field.NewError(field.Join(jp, k), "is not supported by toolerr (want json, text, image or document)")
			}
		}
	}
	return items, nil
}

func parseImage(v any, p string) (outcome.Block, error) {
	im, f, err := field.Tagged(v, "format", p)
	if err != nil {
		return outcome.Block{}, err
	}
	if _, ok := outcome.ImageFormat("image/" + f); !ok {
		return outcome.Block{}, field.NewError(field.Join(p, "format"), "must be png, jpeg, gif or webp, got "+strconv.Quote(f))
	}
	src, ok, err := field.Get[map[string]any](im, "source", p)
	if err != nil {
		return outcome.Block{}, err
	}
	if !ok {
		return outcome.Block{}, field.NewError(field.Join(p, "source"), "is required")
	}
	data, err := field.RequiredString(src, "bytes", field.Join(p, "source"))
	if err != nil {
		return outcome.Block{}, err
	}
	return outcome.Block{Type: "image", MediaType: "image/" + f, Data: data}, nil
}

// parseDocument reads a PDF document block of bytes (format pdf, source
// bytes); other formats and S3 locations have no neutral form.
func parseDocument(v any, p string) (outcome.Block, error) {
	d, err := field.As[map[string]any](v, p)
	if err != nil {
		return outcome.Block{}, err
	}
	if f, _, _ := field.Get[string](d, "format", p); f != "pdf" {
		return outcome.Block{}, field.NewError(field.Join(p, "format"), "must be pdf: toolerr carries PDF documents")
	}
	src, _, err := field.Get[map[string]any](d, "source", p)
	if err != nil {
		return outcome.Block{}, err
	}
	data, err := field.RequiredString(src, "bytes", field.Join(p, "source"))
	if err != nil {
		return outcome.Block{}, err
	}
	return outcome.Block{Type: "document", MediaType: "application/pdf", Data: data}, nil
}

// Takes says why a toolResult cannot carry the media block b ("" when it
// can): a URL (Bedrock's sources are bytes or an S3 location:
// ImageSource, DocumentSource), an image of another type than png, jpeg,
// gif or webp, a document that is not a PDF, data that is not base64.
//
// See the service model ToolResultContentBlock (image, document).
func Takes(b outcome.Block) string { return media().Why(b) }

// media is what a toolResult takes (ToolResultContentBlock): image and
// document bytes, png, jpeg, gif or webp images (ImageFormat), and the
// PDF documents toolerr writes.
func media() outcome.MediaRule {
	return outcome.MediaRule{
		NoURL:       "must be bytes: a Bedrock toolResult takes no URL (bytes or an S3 location)",
		NoURLWhy:    "a Bedrock toolResult takes bytes or an S3 location, no URL",
		ImageWhy:    "Bedrock takes png, jpeg, gif and webp images",
		Documents:   []string{"application/pdf"},
		Document:    "must be application/pdf: toolerr writes PDF documents to Bedrock",
		DocumentWhy: "toolerr writes PDF documents to Bedrock",
	}
}

// failure reads the envelope of a status "error" result.
func failure(items []item) envelope.Envelope {
	var texts []string
	for _, it := range items {
		switch {
		case it.isJSON:
			if e, ok := outcome.RecognizeValue(it.json, outcome.Flagged); ok {
				return e
			}
		case it.block.Type == "text":
			texts = append(texts, it.block.Text)
		}
	}
	if len(texts) > 0 {
		return outcome.FailureText(strings.Join(texts, "\n"))
	}
	for _, it := range items {
		if it.isJSON {
			return outcome.ForeignValue(it.json)
		}
	}
	return outcome.Foreign("")
}

// success reads the result of a toolResult without status "error".
func success(items []item) outcome.Result {
	if len(items) == 0 {
		return outcome.Result{Kind: outcome.Empty}
	}
	if len(items) == 1 {
		it := items[0]
		if it.isJSON {
			v := it.json
			if m, ok := v.(map[string]any); ok && len(m) == 1 {
				if out, has := m["output"]; has {
					v = out
				}
			}
			if s, isStr := v.(string); isStr {
				return textResult(s)
			}
			return outcome.Result{Kind: outcome.JSON, JSON: v}
		}
		if it.block.Type == "text" {
			return textResult(it.block.Text)
		}
	}
	bs := make([]outcome.Block, 0, len(items))
	for _, it := range items {
		if it.isJSON {
			bs = append(bs, outcome.Block{Type: "text", Text: outcome.JSONText(it.json)})
			continue
		}
		bs = append(bs, it.block)
	}
	if bs = outcome.NonBlank(bs); len(bs) == 0 {
		return outcome.Result{Kind: outcome.Empty}
	}
	return outcome.Result{Kind: outcome.Blocks, Blocks: bs}
}

func textResult(s string) outcome.Result {
	if outcome.IsBlank(s) || s == outcome.EmptyPlaceholder {
		return outcome.Result{Kind: outcome.Empty}
	}
	return outcome.Result{Kind: outcome.Text, Text: s}
}
