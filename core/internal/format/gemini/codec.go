// Package gemini is the wire format of the Gemini API (generateContent): one
// user Content whose parts are one functionResponse per tool call, in call
// order, and nothing else (microsoft/semantic-kernel#12528: parallel responses
// split across contents, or with sibling parts, are rejected).
//
// # Shapes
//
//	failure:  {"functionResponse":{"id"?,"name":n,"response":{"error":<envelope object>}}}
//	text:     {"functionResponse":{"id"?,"name":n,"response":{"output":"text"}}}
//	          (text that is a JSON object goes as that object, see JSON; a
//	          JSON string as its string, decoded once)
//	JSON:     {"functionResponse":{"id"?,"name":n,"response":<the object> | {"output":v}}}
//	blocks:   {"functionResponse":{"id"?,"name":n,"response":{"output":"text"}?,
//	           "parts":[{"inlineData":{"mimeType":m,"data":b64}}]}}
//	empty:    {"functionResponse":{"id"?,"name":n,"response":{}}}
//
// response is always a JSON object (a google.protobuf.Struct;
// google/adk-js#347). Google's guidance: "output" for results, "error" for
// failures, and an object with neither counts as output. So a JSON object
// result passes through as-is unless it is empty or has an "error" or "output"
// key; then it is wrapped under "output", or Gemini would read it as a failure
// or unwrap it. Any other JSON value goes under "output". name is required; id
// is copied only when the call had one. Images go in FunctionResponse.parts as
// inlineData, the text of a blocks result in response.output (content.proto
// FunctionResponse: text is not sent as bytes).
//
// See content.proto FunctionResponse; the README's wire-format table, googleapis
// google/ai/generativelanguage/v1beta/content.proto (FunctionResponse) and
// google.golang.org/genai FunctionResponse.
package gemini

import (
	"strings"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// Codec returns the gemini codec: Serialize writes one user Content of
// functionResponse parts, Parse reads them back.
//
// See google/ai/generativelanguage/v1beta/content.proto, FunctionResponse.
//
// Its Serialize returns one Content {"role":"user","parts":[functionResponse...]}
// holding every outcome in call order, as a value tree. It returns a
// *field.Error for a call without a name (results[i].call.name), image data
// that is not base64, or an outcome with neither or both of error and result.
//
// See content.proto FunctionResponse.
//
// Its Parse reads functionResponse parts back into outcomes, in order. Each
// element of msgs is a Content ({"role":"user","parts":[...]}) or a bare
// part; parts without a functionResponse are skipped. The role, when
// present, must be user. Field names may be
// lowerCamelCase or snake_case, as proto JSON allows.
//
// A response with an "error" key is a failure: an envelope there is returned
// as is; anything else (a string, as other libraries and the Python SDK's MCP
// bridge write) becomes a TOOL_ERROR envelope whose message is that text,
// sanitized (an object's "message" member, or its JSON text). Otherwise
// {"output": s} is Text (Empty when blank), {"output": v} is JSON v, {} or no
// response is Empty, and any other object is a JSON result. inlineData parts
// make a Blocks result: the output text first, then the images. Returns a
// *field.Error with the path for anything else, and when msgs hold no
// functionResponse at all.
//
// See content.proto FunctionResponse.
func Codec() outcome.TurnCodec {
	return outcome.TurnCodec{
		Turn: outcome.Turn{Head: `{"parts":[`, Tail: `],"role":"user"}`, Elem: appendPart},
		Key:  "parts", RoleOptional: true, IsBlock: isPart, ParseElem: parsePart, None: "functionResponse part",
	}
}

// AppendTurn appends the canonical JSON (RFC 8785) of the Content that
// Serialize returns to dst, writing wire bytes directly. Errors are those of
// Serialize; on error dst may hold a partial message.
func AppendTurn(dst []byte, outs []outcome.Outcome) ([]byte, error) { return Codec().Append(dst, outs) }

// appendPart writes one functionResponse part of an outcome that passed
// Check; keys in canonical order: id, name, parts, response.
func appendPart(dst []byte, i int, o *outcome.Outcome) ([]byte, error) {
	if o.Call.Name == "" {
		return dst, field.NewError(outcome.Path(i, "call.name"), "is required: Gemini matches a functionResponse to its call by name")
	}
	dst = append(dst, `{"functionResponse":{`...)
	if o.Call.ID != "" { // id only when the call had one (content.proto FunctionResponse)
		dst = append(dst, `"id":`...)
		dst = canonical.AppendString(dst, o.Call.ID)
		dst = append(dst, ',')
	}
	dst = append(dst, `"name":`...)
	dst = canonical.AppendString(dst, o.Call.Name)
	var err error
	if o.Error != nil {
		dst = append(dst, `,"response":{"error":`...)
		if dst, err = outcome.AppendError(dst, o); err != nil {
			return dst, err
		}
		return append(dst, `}}}`...), nil
	}
	if dst, err = appendResponse(dst, i, o.Result); err != nil {
		return dst, err
	}
	return append(dst, `}}`...), nil
}

// jsonText reads a text result that is JSON: an object (the tool returned
// JSON as text, as OpenAI and Anthropic results carry it) is returned as
// that object, to go into response itself rather than as an escaped string
// under output. A JSON string is decoded once, to its string, unless that
// string is itself a JSON object or string: decoding it would let the next
// replay (parse, then serialize again) decode it a second time, so it stays
// the text it is. Anything else (plain text, a number, an array) is not
// read: ok false. So no replay adds an escape layer, and none takes more
// than one away.
//
// See https://ai.google.dev/api/caching#FunctionResponse ("response: the
// function response in JSON object format"; "output" for the output,
// "error" for errors, else the whole response is the output).
func jsonText(text string) (any, bool) {
	t := strings.TrimSpace(text)
	if t == "" || t[0] != '{' && t[0] != '"' {
		return nil, false
	}
	v, err := canonical.Parse([]byte(t))
	if err != nil {
		return nil, false
	}
	switch x := v.(type) {
	case map[string]any:
		return x, true
	case string:
		if _, again := jsonText(x); again {
			return nil, false
		}
		return x, true
	}
	return nil, false
}

// appendString writes a text result that is not to be read again: blank
// is {}, else {"output": s}.
func appendString(dst []byte, s string) []byte {
	if outcome.IsBlank(s) {
		return append(dst, `,"response":{}`...)
	}
	dst = append(dst, `,"response":{"output":`...)
	dst = canonical.AppendString(dst, s)
	return append(dst, '}')
}

// appendResponse writes `,"parts":[...]` for images and `,"response":{...}`.
func appendResponse(dst []byte, i int, r *outcome.Result) ([]byte, error) {
	switch r.Kind {
	case outcome.Text:
		if outcome.IsBlank(r.Text) {
			return append(dst, `,"response":{}`...), nil
		}
		if t := strings.TrimSpace(r.Text); t != "" && t[0] == '{' {
			// an object that response holds as it is: written straight
			// from its text, as the tree jsonText reads would be
			at := len(dst)
			dst = append(dst, `,"response":`...)
			if out, ok := canonical.AppendObjectText(dst, t, responseMember); ok && len(out) > len(dst)+len("{}") {
				return out, nil
			}
			dst = dst[:at]
		}
		if v, ok := jsonText(r.Text); ok {
			return appendResponse(dst, i, &outcome.Result{Kind: outcome.JSON, JSON: v})
		}
		dst = append(dst, `,"response":{"output":`...)
		dst = r.AppendText(dst)
		return append(dst, '}'), nil
	case outcome.JSON:
		if s, ok := r.JSON.(string); ok {
			return appendString(dst, s), nil
		}
		dst = append(dst, `,"response":`...)
		m, isObj := r.JSON.(map[string]any)
		_, hasErr := m["error"]
		_, hasOut := m["output"]
		wrap := !isObj || len(m) == 0 || hasErr || hasOut
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
		return dst, nil
	case outcome.Blocks:
		bs := outcome.NonBlank(r.Blocks)
		images := 0
		for j, b := range bs {
			if b.IsMedia() {
				if err := media().Error(i, j, b); err != nil {
					return dst, err
				}
				images++
			}
		}
		if images > 0 {
			dst = append(dst, `,"parts":[`...)
			n := 0
			for _, b := range bs {
				if !b.IsMedia() {
					continue
				}
				if n > 0 {
					dst = append(dst, ',')
				}
				n++
				dst = append(dst, `{"inlineData":{"data":`...)
				dst = canonical.AppendString(dst, b.Data)
				dst = append(dst, `,"mimeType":`...)
				dst = canonical.AppendString(dst, b.MediaType)
				dst = append(dst, `}}`...)
			}
			dst = append(dst, ']')
		}
		if images == len(bs) {
			return append(dst, `,"response":{}`...), nil
		}
		dst = append(dst, `,"response":{"output":`...)
		dst = canonical.AppendString(dst, outcome.JoinTexts(bs))
		return append(dst, '}'), nil
	}
	return append(dst, `,"response":{}`...), nil
}

// responseMember reports whether an object's member name leaves it the
// whole response: "error" and "output" say what response holds, so an
// object that has one is wrapped under output (appendResponse).
func responseMember(name string) bool { return name != "error" && name != "output" }

// isPart reports whether m is a bare block of a parse request rather than a
// message: a bare part is anything but a Content (which holds parts).
func isPart(m map[string]any) bool { _, ok := m["parts"]; return !ok }

// member returns m[camel], or m[snake] when camel is absent, with the key used.
func member(m map[string]any, camel, snake string) (any, string) {
	if v, ok := m[camel]; ok {
		return v, camel
	}
	if v, ok := m[snake]; ok {
		return v, snake
	}
	return nil, camel
}

func parsePart(outs []outcome.Outcome, part map[string]any, p string) ([]outcome.Outcome, error) {
	fv, key := member(part, "functionResponse", "function_response")
	if fv == nil {
		return outs, nil
	}
	fp := field.Join(p, key)
	fr, name, err := field.Tagged(fv, "name", fp)
	if err != nil {
		return outs, err
	}
	id, _, err := field.Get[string](fr, "id", fp)
	if err != nil {
		return outs, err
	}
	o := outcome.Outcome{Call: outcome.Call{ID: id, Name: name}}
	resp, _, err := field.Get[map[string]any](fr, "response", fp)
	if err != nil {
		return outs, err
	}
	if ev, isErr := resp["error"]; isErr {
		e, ok := outcome.RecognizeValue(ev, outcome.Flagged)
		if !ok {
			e = outcome.ForeignValue(ev)
		}
		o.Error = &e
		return append(outs, o), nil
	}
	r := readResponse(resp)
	images, err := parseImages(fr, fp)
	if err != nil {
		return outs, err
	}
	if len(images) > 0 {
		var bs []outcome.Block
		switch r.Kind {
		case outcome.Text:
			bs = append(bs, outcome.Block{Type: "text", Text: r.Text})
		case outcome.JSON:
			bs = append(bs, outcome.Block{Type: "text", Text: outcome.JSONText(r.JSON)})
		}
		r = outcome.Result{Kind: outcome.Blocks, Blocks: append(bs, images...)}
	}
	o.Result = &r
	return append(outs, o), nil
}

// readResponse reads a success response object.
func readResponse(resp map[string]any) outcome.Result {
	if len(resp) == 0 {
		return outcome.Result{Kind: outcome.Empty}
	}
	if out, ok := resp["output"]; ok && len(resp) == 1 {
		if s, isStr := out.(string); isStr {
			if outcome.IsBlank(s) {
				return outcome.Result{Kind: outcome.Empty}
			}
			return outcome.Result{Kind: outcome.Text, Text: s}
		}
		return outcome.Result{Kind: outcome.JSON, JSON: out}
	}
	return outcome.Result{Kind: outcome.JSON, JSON: resp}
}

// parseImages reads FunctionResponse.parts: inlineData blobs only (fileData is
// not supported by the Gemini API; content.proto FunctionResponse).
func parseImages(fr map[string]any, fp string) ([]outcome.Block, error) {
	parts, _, err := field.Get[[]any](fr, "parts", fp)
	if err != nil || len(parts) == 0 {
		return nil, err
	}
	pp := field.Join(fp, "parts")
	out := make([]outcome.Block, 0, len(parts))
	for j, pv := range parts {
		jp := field.Index(pp, j)
		pm, err := field.As[map[string]any](pv, jp)
		if err != nil {
			return nil, err
		}
		iv, key := member(pm, "inlineData", "inline_data")
		if iv == nil {
			return nil, field.NewError(jp, "must hold inlineData: toolerr carries inline images only")
		}
		ip := field.Join(jp, key)
		im, err := field.As[map[string]any](iv, ip)
		if err != nil {
			return nil, err
		}
		mv, mkey := member(im, "mimeType", "mime_type")
		mt, ok := mv.(string)
		if !ok || mt == "" {
			return nil, field.NewError(field.Join(ip, mkey), "is required and must be a non-empty string")
		}
		data, err := field.RequiredString(im, "data", ip)
		if err != nil {
			return nil, err
		}
		typ := "image"
		if !strings.HasPrefix(mt, "image/") {
			typ = "document"
		}
		out = append(out, outcome.Block{Type: typ, MediaType: mt, Data: data})
	}
	return out, nil
}

// Takes says why a functionResponse cannot carry the media block b (""
// when it can): a URL (FunctionResponse.parts take inline bytes,
// FunctionResponseBlob; fileData is not supported by the Gemini API), data
// that is not standard base64, or a document that is not a PDF or plain
// text.
//
// See https://ai.google.dev/gemini-api/docs/function-calling#multimodal
// (multimodal function responses) and content.proto FunctionResponsePart.
func Takes(b outcome.Block) string { return media().Why(b) }

// media is what a functionResponse's parts take (FunctionResponseBlob):
// inline data of any image type, PDF and plain-text documents.
func media() outcome.MediaRule {
	return outcome.MediaRule{
		NoURL:       "must be inline data: Gemini's functionResponse parts take no URL",
		NoURLWhy:    "Gemini's functionResponse parts take inline data, no URL",
		AnyImage:    true,
		Documents:   []string{"application/pdf", "text/plain"},
		Document:    "must be application/pdf or text/plain for a Gemini function response",
		DocumentWhy: "Gemini's functionResponse parts take images, PDF and plain text",
	}
}
