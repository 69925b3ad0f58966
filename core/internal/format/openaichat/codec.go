package openaichat

import (
	"strconv"
	"strings"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// Codec is the openai-chat codec; the zero value is ready to use.
//
// See OpenAI OpenAPI ChatCompletionRequestToolMessage.
type Codec struct{}

// Serialize returns one tool message per outcome, in call order, then, when
// any success holds images, one user message carrying them (field report
// BerriAI/litellm#6953: a tool message may hold only text).
//
// Returns a *field.Error naming results[i].call.id when a call has no id or
// repeats an earlier one (tool_call_id is required and pairs the message with
// one tool call), results[i] when an outcome holds neither or both of error
// and result, and results[i].result.blocks[j] for an image that is not png,
// jpeg, gif or webp with standard base64 data.
//
// See OpenAI OpenAPI ChatCompletionRequestToolMessage; the README's wire-format table.
func (Codec) Serialize(outs []outcome.Outcome) ([]any, error) {
	return outcome.Values(outs, Codec{}.AppendSerialized)
}

// AppendSerialized appends the canonical JSON of the messages to dst: the
// codec's one writer (Serialize parses what it writes). A failure's tool
// message is written by AppendToolMessage. Errors are those Serialize
// documents, and the canonical writer's for a failure whose details hold a
// value JSON cannot carry (NaN, ±Inf).
func (Codec) AppendSerialized(dst []byte, outs []outcome.Outcome) ([]byte, error) {
	var parts []any
	dst, err := outcome.AppendEach(dst, outs, callIDs(), func(dst []byte, i int, o *outcome.Outcome) ([]byte, error) {
		if o.Error != nil {
			return appendToolMessage(dst, o)
		}
		content, err := toolContent(i, o, &parts)
		if err != nil {
			return dst, err
		}
		dst = append(dst, `{"content":`...)
		dst = canonical.AppendString(dst, content)
		dst = append(dst, `,"role":"tool","tool_call_id":`...)
		dst = canonical.AppendString(dst, o.Call.ID)
		return append(dst, '}'), nil
	})
	if err != nil || len(parts) == 0 {
		return dst, err
	}
	// the user message carrying the turn's images goes inside the array
	if dst, err = canonical.Append(append(dst[:len(dst)-1], ','), userMessage(parts)); err != nil {
		return dst, err
	}
	return append(dst, ']'), nil
}

// toolContent returns the content of outcome i's tool message (Content, or
// for a success with images its text and ImageNote) and appends the caption
// and image_url parts of its images to *parts.
func toolContent(i int, o *outcome.Outcome, parts *[]any) (string, error) {
	content, err := Content(i, *o)
	if err != nil {
		return "", err
	}
	if o.Result != nil && o.Result.Kind == outcome.Blocks {
		imgs, err := images(i, o.Result.Blocks)
		if err != nil {
			return "", err
		}
		if n := len(imgs); n > 0 {
			content = withNote(o.Result.Blocks, n)
			for k, b := range imgs {
				*parts = append(*parts,
					map[string]any{"type": "text", "text": ImageCaption(o.Call.ID, k+1, n)},
					map[string]any{"type": "image_url", "image_url": map[string]any{"url": imageURL(b)}})
			}
		}
	}
	return content, nil
}

// userMessage is the user message that carries the images of a turn
// (BerriAI/litellm#6953).
func userMessage(parts []any) map[string]any {
	return map[string]any{"role": "user", "content": parts}
}

// callIDs is how tool_call_id is checked: required, unique in the turn.
func callIDs() outcome.CallIDs {
	return outcome.CallIDs{
		Required: "tool_call_id must echo the id of the assistant's tool call",
		Each:     "tool call gets exactly one result",
	}
}

// imageURL is the image_url of an image block: its URL, or its data URL.
func imageURL(b outcome.Block) string {
	if b.URL != "" {
		return b.URL
	}
	return DataURL(b)
}

// images returns the image blocks of outcome i's blocks, checked, and an
// *field.Error for a block of unknown type or an image OpenAI cannot take.
func images(i int, bs []outcome.Block) ([]outcome.Block, error) {
	var imgs []outcome.Block
	for j, b := range bs {
		switch b.Type {
		case "text":
		case "image":
			if b.URL == "" {
				if err := outcome.CheckImage(i, j, b, true); err != nil {
					return nil, err
				}
			}
			imgs = append(imgs, b)
		default:
			return nil, field.NewError(field.Join(field.Index(outcome.Path(i, "result.blocks"), j), "type"), "must be text or image")
		}
	}
	return imgs, nil
}

// withNote returns the tool message text of a Blocks result with n images:
// its text (ResultText rules) and ImageNote(n) on the last line, or the note
// alone when there is no text.
func withNote(bs []outcome.Block, n int) string {
	if outcome.IsBlank(outcome.JoinTexts(bs)) {
		return ImageNote(n)
	}
	return ResultText(outcome.Result{Kind: outcome.Blocks, Blocks: bs}) + "\n" + ImageNote(n)
}

// Parse reads tool messages, and the user message Serialize adds for
// images, back into outcomes in tool-message order. Content that is an
// envelope is a failure; images are re-attached to their call after its text.
//
// Returns a *field.Error naming messages[i] (and the member) for a message
// that is not a tool message or the image carrier, a missing or repeated
// tool_call_id, content that is neither a string nor text parts, and an image
// whose call has no tool message or failed.
//
// See OpenAI OpenAPI ChatCompletionRequestToolMessage.
func (Codec) Parse(msgs []any) ([]outcome.Outcome, error) {
	outs := make([]outcome.Outcome, 0, len(msgs))
	byID := make(map[string]int, len(msgs))
	var raw []string
	var imgIDs []string
	var imgs []outcome.Block
	var imgPaths []string
	for i, v := range msgs {
		p := field.Index("messages", i)
		m, role, err := field.Tagged(v, "role", p)
		if err != nil {
			return nil, err
		}
		switch role {
		case "tool":
			id, err := field.RequiredString(m, "tool_call_id", p)
			if err != nil {
				return nil, err
			}
			if _, dup := byID[id]; dup {
				return nil, field.NewError(field.Join(p, "tool_call_id"), "repeats the tool_call_id of an earlier tool message")
			}
			byID[id] = len(outs)
			name, _, err := field.Get[string](m, "name", p)
			if err != nil {
				return nil, err
			}
			s, err := readContent(m, p)
			if err != nil {
				return nil, err
			}
			o := ReadContent(s)
			o.Call = outcome.Call{ID: id, Name: name}
			outs = append(outs, o)
			raw = append(raw, s)
		case "user":
			ids, bs, paths, err := readCarrier(m, p)
			if err != nil {
				return nil, err
			}
			imgIDs = append(imgIDs, ids...)
			imgs = append(imgs, bs...)
			imgPaths = append(imgPaths, paths...)
		default:
			return nil, field.NewError(field.Join(p, "role"), "must be \"tool\" (or \"user\" for the message carrying tool-result images), got "+strconv.Quote(role))
		}
	}
	if err := attach(outs, byID, raw, imgIDs, imgs, imgPaths); err != nil {
		return nil, err
	}
	return outs, nil
}

// readContent returns a tool message's content as one string: the string
// itself, or the text of its text parts joined by "\n".
func readContent(m map[string]any, p string) (string, error) {
	cp := field.Join(p, "content")
	switch c := m["content"].(type) {
	case string:
		return c, nil
	case []any:
		if len(c) == 0 {
			return "", field.NewError(cp, "must hold at least one text part")
		}
		var sb strings.Builder
		for j, pv := range c {
			pp := field.Index(cp, j)
			pm, err := field.As[map[string]any](pv, pp)
			if err != nil {
				return "", err
			}
			if t, _, _ := field.Get[string](pm, "type", pp); t != "text" {
				return "", field.NewError(field.Join(pp, "type"), "must be \"text\": a tool message holds only text parts")
			}
			t, ok, err := field.Get[string](pm, "text", pp)
			if err != nil {
				return "", err
			}
			if !ok {
				return "", field.NewError(field.Join(pp, "text"), "is required")
			}
			if j > 0 {
				sb.WriteString("\n")
			}
			sb.WriteString(t)
		}
		return sb.String(), nil
	case nil:
		return "", field.NewError(cp, "is required (a string or text parts)")
	default:
		return "", field.NewError(cp, "must be a string or an array of text parts, got "+field.TypeName(c))
	}
}

// readCarrier reads the user message Serialize writes for images: pairs of an
// ImageCaption text part and an image_url part holding a base64 data URL.
func readCarrier(m map[string]any, p string) (ids []string, bs []outcome.Block, paths []string, err error) {
	cp := field.Join(p, "content")
	parts, ok, err := field.Get[[]any](m, "content", p)
	if err != nil {
		return nil, nil, nil, err
	}
	if !ok || len(parts) == 0 || len(parts)%2 != 0 {
		return nil, nil, nil, field.NewError(cp, "a user message is read only as the carrier of tool-result images: pairs of a caption text part and an image_url part")
	}
	for j := 0; j < len(parts); j += 2 {
		tp := field.Index(cp, j)
		tm, err := field.As[map[string]any](parts[j], tp)
		if err != nil {
			return nil, nil, nil, err
		}
		text, _, _ := field.Get[string](tm, "text", tp)
		typ, _, _ := field.Get[string](tm, "type", tp)
		id, ok := captionCallID(text)
		if typ != "text" || !ok {
			return nil, nil, nil, field.NewError(tp, "must be a caption text part (\"Image <k> of <n> from tool call <id>:\")")
		}
		ip := field.Index(cp, j+1)
		im, err := field.As[map[string]any](parts[j+1], ip)
		if err != nil {
			return nil, nil, nil, err
		}
		if t, _, _ := field.Get[string](im, "type", ip); t != "image_url" {
			return nil, nil, nil, field.NewError(field.Join(ip, "type"), "must be \"image_url\"")
		}
		u, ok, err := field.Get[map[string]any](im, "image_url", ip)
		if err != nil {
			return nil, nil, nil, err
		}
		if !ok {
			return nil, nil, nil, field.NewError(field.Join(ip, "image_url"), "is required")
		}
		url, _, err := field.Get[string](u, "url", field.Join(ip, "image_url"))
		if err != nil {
			return nil, nil, nil, err
		}
		b, ok := ParseDataURL(url)
		if !ok && (strings.HasPrefix(url, "https://") || strings.HasPrefix(url, "http://")) {
			b, ok = outcome.Block{Type: "image", URL: url}, true
		}
		if !ok {
			return nil, nil, nil, field.NewError(field.Join(ip, "image_url.url"), "must be an http(s) URL or a data:image/<type>;base64,<data> URL")
		}
		ids = append(ids, id)
		bs = append(bs, b)
		paths = append(paths, ip)
	}
	return ids, bs, paths, nil
}

// attach moves each carried image into the Blocks result of its call (byID:
// call id -> index in outs): the tool message's text without its ImageNote,
// then the images in order.
func attach(outs []outcome.Outcome, byID map[string]int, raw, ids []string, imgs []outcome.Block, paths []string) error {
	if len(ids) == 0 {
		return nil
	}
	own := make(map[int][]outcome.Block)
	for j, id := range ids {
		k, ok := byID[id]
		if !ok {
			return field.NewError(paths[j], "is an image for tool call "+strconv.Quote(id)+", which has no tool message")
		}
		if outs[k].Error != nil {
			return field.NewError(paths[j], "is an image for tool call "+strconv.Quote(id)+", whose result is a failure")
		}
		own[k] = append(own[k], imgs[j])
	}
	for k, bs := range own {
		text := raw[k]
		note := ImageNote(len(bs))
		switch {
		case text == note:
			text = ""
		case strings.HasSuffix(text, "\n"+note):
			text = text[:len(text)-len(note)-1]
		}
		blocks := make([]outcome.Block, 0, len(bs)+1)
		if !outcome.IsBlank(text) {
			blocks = append(blocks, outcome.Block{Type: "text", Text: text})
		}
		outs[k].Result = &outcome.Result{Kind: outcome.Blocks, Blocks: append(blocks, bs...)}
	}
	return nil
}
