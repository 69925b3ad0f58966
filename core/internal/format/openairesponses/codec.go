package openairesponses

import (
	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/openaichat"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
	"strings"
)

// Codec is the openai-responses codec; the zero value is ready to use.
//
// See OpenAI OpenAPI FunctionCallOutputItemParam.
type Codec struct{}

// MaxCallIDChars is the longest call_id the Responses API accepts, in
// characters (FunctionCallOutputItemParam.call_id maxLength).
const MaxCallIDChars = 64

// Serialize returns one function_call_output item per outcome, in call order.
// output is the string openaichat.Content gives, except for a Blocks
// result with at least one image or non-blank text block, whose output is the
// array of input_text and input_image items.
//
// Returns a *field.Error naming results[i].call.id when a call id is missing,
// longer than MaxCallIDChars or repeats an earlier one, results[i] when an
// outcome holds neither or both of error and result, and
// results[i].result.blocks[j] for an image that is not png, jpeg, gif or webp
// with standard base64 data.
//
// See OpenAI OpenAPI FunctionCallOutputItemParam; the README's wire-format table.
func (Codec) Serialize(outs []outcome.Outcome) ([]any, error) {
	return outcome.Values(outs, Codec{}.AppendSerialized)
}

// AppendSerialized appends the canonical JSON of the items to dst: the
// codec's one writer (Serialize parses what it writes). A failure's item is
// written by AppendFunctionCallOutput. Errors are those Serialize documents,
// and the canonical writer's for a failure whose details hold a value JSON
// cannot carry (NaN, ±Inf).
func (Codec) AppendSerialized(dst []byte, outs []outcome.Outcome) ([]byte, error) {
	return outcome.AppendEach(dst, outs, callIDs(), func(dst []byte, i int, o *outcome.Outcome) ([]byte, error) {
		if o.Error != nil {
			return appendFunctionCallOutput(dst, o)
		}
		output, err := itemOutput(i, o)
		if err != nil {
			return dst, err
		}
		dst = append(dst, `{"call_id":`...)
		dst = canonical.AppendString(dst, o.Call.ID)
		if dst, err = canonical.Append(append(dst, `,"output":`...), output); err != nil {
			return dst, err
		}
		return append(dst, `,"type":"function_call_output"}`...), nil
	})
}

// callIDs is how call_id is checked: required, at most MaxCallIDChars,
// unique in the turn.
func callIDs() outcome.CallIDs {
	return outcome.CallIDs{
		Required: "call_id pairs the output with the model's function_call",
		MaxChars: MaxCallIDChars,
		TooLong:  "must be at most 64 characters (Responses API call_id)",
		Each:     "function_call gets exactly one output",
	}
}

// itemOutput returns the output of outcome i's item: the blockItems array
// of a Blocks result that has any, else the openaichat.Content string.
func itemOutput(i int, o *outcome.Outcome) (any, error) {
	if o.Result != nil && o.Result.Kind == outcome.Blocks {
		arr, err := blockItems(i, o.Result.Blocks)
		if err != nil {
			return nil, err
		}
		if len(arr) > 0 {
			return arr, nil
		}
	}
	s, err := openaichat.Content(i, *o)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// mediaItem is the output item of an image or document block: an
// input_image with the image's URL or data URL, an input_file with the
// document's file_url, or its file_data as a data URL and a file name.
//
// See the OpenAI OpenAPI spec, FunctionCallOutputItemParam.output
// (InputImageContentParamAutoParam, InputFileContentParam).
func mediaItem(b outcome.Block) map[string]any {
	if b.Type == "image" {
		u := b.URL
		if u == "" {
			u = openaichat.DataURL(b)
		}
		return map[string]any{"type": "input_image", "image_url": u}
	}
	if b.URL != "" {
		return map[string]any{"type": "input_file", "file_url": b.URL}
	}
	return map[string]any{"type": "input_file", "file_data": openaichat.DataURL(b), "filename": "document.pdf"}
}

// Takes says why a function_call_output cannot carry the media block b (""
// when it can): an inline image of another type than png, jpeg, gif or
// webp, an inline document that is not a PDF, data that is not standard
// base64.
func Takes(b outcome.Block) string { return media().Why(b) }

// media is what a function_call_output takes: input_image and input_file
// (a PDF) items, by URL or inline data (OpenAPI FunctionCallOutputItemParam).
func media() outcome.MediaRule {
	return outcome.MediaRule{
		ImageWhy:    "OpenAI takes png, jpeg, gif and webp images",
		Documents:   []string{"application/pdf"},
		Document:    "must be application/pdf: an input_file of a function_call_output takes a PDF",
		DocumentWhy: "a function_call_output takes PDF files",
	}
}

// blockItems returns the output array of a Blocks result: an input_text item
// per non-blank text block (stacklok/mecatl#291) and an input_image or
// input_file item per image or document (mediaItem), in order.
func blockItems(i int, bs []outcome.Block) ([]any, error) {
	arr := make([]any, 0, len(bs))
	for j, b := range bs {
		switch b.Type {
		case "text":
			if !outcome.IsBlank(b.Text) {
				arr = append(arr, map[string]any{"type": "input_text", "text": b.Text})
			}
		case "image", "document":
			if err := media().Error(i, j, b); err != nil {
				return nil, err
			}
			arr = append(arr, mediaItem(b))
		default:
			return nil, field.NewError(field.Join(field.Index(outcome.Path(i, "result.blocks"), j), "type"), "must be text, image or document")
		}
	}
	return arr, nil
}

// Parse reads function_call_output items back into outcomes, in order. A
// string output is read by openaichat.ReadContent (an envelope is a
// failure); an array output is a Blocks result (an empty array is Empty).
//
// Returns a *field.Error naming messages[i] (and the member) for an item
// that is not a function_call_output, a missing or repeated call_id, an
// output that is neither a string nor an array, and an array item other than
// input_text or an input_image with a base64 data URL (file ids, http URLs
// and input_file items have no neutral form).
//
// See OpenAI OpenAPI FunctionCallOutputItemParam.
func (Codec) Parse(msgs []any) ([]outcome.Outcome, error) {
	outs := make([]outcome.Outcome, 0, len(msgs))
	seen := make(map[string]bool, len(msgs))
	for i, v := range msgs {
		p := field.Index("messages", i)
		m, err := field.As[map[string]any](v, p)
		if err != nil {
			return nil, err
		}
		if t, _, _ := field.Get[string](m, "type", p); t != "function_call_output" {
			return nil, field.NewError(field.Join(p, "type"), "must be \"function_call_output\"")
		}
		id, err := field.RequiredString(m, "call_id", p)
		if err != nil {
			return nil, err
		}
		if seen[id] {
			return nil, field.NewError(field.Join(p, "call_id"), "repeats the call_id of an earlier item")
		}
		seen[id] = true
		name, _, err := field.Get[string](m, "name", p)
		if err != nil {
			return nil, err
		}
		var o outcome.Outcome
		op := field.Join(p, "output")
		switch out := m["output"].(type) {
		case string:
			o = openaichat.ReadContent(out)
		case []any:
			r, err := readItems(out, op)
			if err != nil {
				return nil, err
			}
			o.Result = &r
		case nil:
			return nil, field.NewError(op, "is required (a string or an array of input items)")
		default:
			return nil, field.NewError(op, "must be a string or an array, got "+field.TypeName(out))
		}
		o.Call = outcome.Call{ID: id, Name: name}
		outs = append(outs, o)
	}
	return outs, nil
}

// readItems reads an output array into a Blocks result (Empty when empty).
func readItems(arr []any, p string) (outcome.Result, error) {
	if len(arr) == 0 {
		return outcome.Result{Kind: outcome.Empty}, nil
	}
	bs := make([]outcome.Block, 0, len(arr))
	for j, v := range arr {
		ip := field.Index(p, j)
		m, err := field.As[map[string]any](v, ip)
		if err != nil {
			return outcome.Result{}, err
		}
		t, _, _ := field.Get[string](m, "type", ip)
		switch t {
		case "input_text":
			s, ok, err := field.Get[string](m, "text", ip)
			if err != nil {
				return outcome.Result{}, err
			}
			if !ok {
				return outcome.Result{}, field.NewError(field.Join(ip, "text"), "is required")
			}
			bs = append(bs, outcome.Block{Type: "text", Text: s})
		case "input_image":
			u, _, err := field.Get[string](m, "image_url", ip)
			if err != nil {
				return outcome.Result{}, err
			}
			b, ok := openaichat.ParseDataURL(u)
			switch {
			case ok:
			case strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://"):
				b = outcome.Block{Type: "image", URL: u}
			default:
				return outcome.Result{}, field.NewError(field.Join(ip, "image_url"), "must be an http(s) URL or a data:image/<type>;base64,<data> URL (file ids have no neutral form)")
			}
			bs = append(bs, b)
		case "input_file":
			b, err := readFile(m, ip)
			if err != nil {
				return outcome.Result{}, err
			}
			bs = append(bs, b)
		default:
			return outcome.Result{}, field.NewError(field.Join(ip, "type"), "must be input_text, input_image or input_file")
		}
	}
	return outcome.Result{Kind: outcome.Blocks, Blocks: bs}, nil
}

// readFile reads an input_file item: its file_url, or its file_data (a
// base64 data URL, or bare base64 of a PDF); a file_id has no neutral form.
func readFile(m map[string]any, ip string) (outcome.Block, error) {
	if u, ok, err := field.Get[string](m, "file_url", ip); err != nil || ok {
		return outcome.Block{Type: "document", URL: u}, err
	}
	data, ok, err := field.Get[string](m, "file_data", ip)
	if err != nil {
		return outcome.Block{}, err
	}
	if !ok {
		return outcome.Block{}, field.NewError(field.Join(ip, "file_data"), "is required (or file_url; file ids have no neutral form)")
	}
	if rest, isURL := strings.CutPrefix(data, "data:"); isURL {
		meta, d, _ := strings.Cut(rest, ",")
		return outcome.Block{Type: "document", MediaType: strings.TrimSuffix(meta, ";base64"), Data: d}, nil
	}
	return outcome.Block{Type: "document", MediaType: "application/pdf", Data: data}, nil
}

// AppendFunctionCallOutput appends the canonical JSON (RFC 8785) of the
// function_call_output item carrying failure e for call callID to dst and
// returns the extended slice: byte for byte what canonical.Marshal writes for
// the item Codec.Serialize returns, without building a value tree. With
// enough capacity in dst it allocates nothing beyond what the sanitizer
// needs.
//
// callID must be 1 to MaxCallIDChars characters; AppendFunctionCallOutput
// does not check it. Returns dst unchanged and the canonical writer's error
// when e.Details holds a value JSON cannot carry (NaN, ±Inf).
//
// See OpenAI OpenAPI FunctionCallOutputItemParam.
func AppendFunctionCallOutput(dst []byte, callID string, e envelope.Envelope) ([]byte, error) {
	return appendFunctionCallOutput(dst, &outcome.Outcome{Call: outcome.Call{ID: callID}, Error: &e})
}

// appendFunctionCallOutput is AppendFunctionCallOutput for the failure of o,
// its envelope written by outcome.AppendErrorString.
func appendFunctionCallOutput(dst []byte, o *outcome.Outcome) ([]byte, error) {
	start := len(dst)
	dst = append(dst, `{"call_id":`...)
	dst = canonical.AppendString(dst, o.Call.ID)
	dst = append(dst, `,"output":`...)
	dst, err := outcome.AppendErrorString(dst, o)
	if err != nil {
		return dst[:start], err
	}
	return append(dst, `,"type":"function_call_output"}`...), nil
}
