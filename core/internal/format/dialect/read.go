package dialect

import (
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// Other is a part toolerr does not model, kept as its raw value tree.
func Other(v any) Part { return Part{Kind: KindOther, Raw: v} }

// UnknownRole is a message whose role its format does not know: kept as is
// (RoleOther) and reported by check.
func UnknownRole(v any) Message {
	return Message{Parts: []Part{Other(v)}, UnknownRole: true}
}

// ReadParts reads the elements of an array member (content blocks, parts)
// with one, each at its own path.
func ReadParts(arr []any, p string, one func(v any, p string) (Part, error)) ([]Part, error) {
	parts := make([]Part, 0, len(arr))
	for i, v := range arr {
		pt, err := one(v, field.Index(p, i))
		if err != nil {
			return nil, err
		}
		parts = append(parts, pt)
	}
	return parts, nil
}

// ReadArray reads the array member key of m (null refused, see PresentArray)
// element by element with one.
func ReadArray(m map[string]any, key, p string, one func(v any, p string) (Part, error)) ([]Part, error) {
	arr, err := PresentArray(m, key, p)
	if err != nil {
		return nil, err
	}
	return ReadParts(arr, field.Join(p, key), one)
}

// ObjectMember reads v as an object and its optional string member key (a
// message's role, a block's type).
func ObjectMember(v any, p, key string) (map[string]any, string, error) {
	m, err := field.As[map[string]any](v, p)
	if err != nil {
		return nil, "", err
	}
	s, err := OptString(m, key, p)
	return m, s, err
}

// TwoStrings reads two optional string members of m (an id and a name, say).
func TwoStrings(m map[string]any, p, k1, k2 string) (string, string, error) {
	a, err := OptString(m, k1, p)
	if err != nil {
		return "", "", err
	}
	b, err := OptString(m, k2, p)
	return a, b, err
}

// ImagePart is an image part for url: inline bytes for a data URL, the URL
// otherwise.
func ImagePart(u string, raw any) Part {
	im, ok := ParseDataURL(u)
	if !ok {
		im = Image{URL: u}
	}
	return Part{Kind: KindImage, Image: im, Raw: raw}
}

// media reads a document block of a tool result as the Messages API and the
// Responses API write one (Anthropic {"type":"document","source":{base64 or
// url}}; Responses {"type":"input_file","file_url"|"file_data"}), false for
// anything else.
func media(raw any) (outcome.Block, bool) {
	m, _ := raw.(map[string]any)
	switch m["type"] {
	case "document":
		src, _ := m["source"].(map[string]any)
		switch src["type"] {
		case "url":
			u, _ := src["url"].(string)
			return outcome.Block{Type: "document", URL: u}, u != ""
		case "base64":
			mt, _ := src["media_type"].(string)
			d, _ := src["data"].(string)
			return outcome.Block{Type: "document", MediaType: mt, Data: d}, mt != "" && d != ""
		}
	case "input_file":
		if u, _ := m["file_url"].(string); u != "" {
			return outcome.Block{Type: "document", URL: u}, true
		}
		d, _ := m["file_data"].(string)
		if im, ok := ParseDataURL(d); ok {
			return outcome.Block{Type: "document", MediaType: im.MediaType, Data: im.Data}, true
		}
	}
	return outcome.Block{}, false
}

// PartsBlocks turns text and image parts into result blocks, and documents
// (media); anything else is
// described in text so that nothing vanishes.
func PartsBlocks(parts []Part) []outcome.Block {
	bs := make([]outcome.Block, 0, len(parts))
	for _, pt := range parts {
		switch pt.Kind {
		case KindText:
			bs = append(bs, outcome.Block{Type: "text", Text: pt.Text})
		case KindImage:
			bs = append(bs, outcome.Block{Type: "image", MediaType: pt.Image.MediaType, Data: pt.Image.Data, URL: pt.Image.URL})
		default:
			if b, ok := media(pt.Raw); ok {
				bs = append(bs, b)
				continue
			}
			bs = append(bs, outcome.Block{Type: "text", Text: DescribeOther(pt.Raw)})
		}
	}
	return bs
}

// DescribeOther names a block toolerr cannot carry across formats.
func DescribeOther(v any) string { return "[" + OtherName(v) + " content not carried across formats]" }

// OtherName is the name of a block toolerr does not model: its "type", else
// its first member name in sorted order (deterministic), passed through
// displayName since it ends up in result text and notes ("unknown" when
// that leaves nothing).
func OtherName(v any) string {
	typ := ""
	if m, ok := v.(map[string]any); ok {
		if t, ok := m["type"].(string); ok {
			typ = t
		} else {
			first := true // "" is a member name too, and sorts first
			for k := range m {
				if first || k < typ {
					typ, first = k, false
				}
			}
		}
	}
	if typ = DisplayName(typ); typ == "" {
		typ = "unknown"
	}
	return typ
}
