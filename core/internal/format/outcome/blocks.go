package outcome

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/sanitize"
)

// Path returns the request path of member under outcome i of a serialize
// request, for example Path(1, "call.id") = "results[1].call.id". Codecs
// name the member they reject with it, so an Invoke error points at the input.
func Path(i int, member string) string {
	return field.Join(field.Index("results", i), member)
}

// Check reports an outcome that is neither a failure nor a result, or both,
// as a *field.Error at results[i], and a failure whose envelope's code is
// not an UPPER_SNAKE token or whose source is not one of the three (one
// built by hand in Go: the serialize op's reader refuses them already) at
// results[i].error.code or .source: Safe sanitizes the message and the
// details only, so free text there would reach the model as it is.
func Check(i int, o *Outcome) error {
	switch {
	case o.Error != nil && o.Result != nil:
		return field.NewError(field.Index("results", i), "give either error or result, not both")
	case o.Error == nil && o.Result == nil:
		return field.NewError(field.Index("results", i), "needs an error (an envelope) or a result")
	case o.Error != nil:
		return envelope.CheckTokens(*o.Error, Path(i, "error"))
	}
	return nil
}

// ValidToolID reports whether s is 1 to maxLen bytes of [a-zA-Z0-9_-] (the
// tool-use id pattern Anthropic enforces and Bedrock's API reference
// documents). maxLen <= 0 means no length limit.
//
// See anthropic-sdk-go ToolResultBlockParam; botocore bedrock-runtime ToolResultBlock.
func ValidToolID(s string, maxLen int) bool {
	if s == "" || (maxLen > 0 && len(s) > maxLen) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// ImageFormat returns the short image format ("png", "jpeg", "gif", "webp")
// of a media type, and false for any other media type. These four are the
// image types Anthropic's base64 source and Bedrock's ImageFormat accept.
//
// See botocore bedrock-runtime 2023-09-30 ImageFormat.
func ImageFormat(mediaType string) (string, bool) {
	switch mediaType {
	case "image/png":
		return "png", true
	case "image/jpeg":
		return "jpeg", true
	case "image/gif":
		return "gif", true
	case "image/webp":
		return "webp", true
	}
	return "", false
}

// ValidBase64 reports whether s is non-empty standard base64 (RFC 4648, section 4)
// with padding, the form every provider's image data takes.
func ValidBase64(s string) bool {
	if s == "" || len(s)%4 != 0 {
		return false
	}
	pad := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '=':
			pad++
			if i < len(s)-2 {
				return false
			}
		case pad > 0:
			return false
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '+', c == '/':
		default:
			return false
		}
	}
	return true
}

// CheckImage returns a *field.Error at results[i].result.blocks[j] when an
// image block has data that is not standard base64, or, with strict, a media
// type other than png, jpeg, gif or webp.
func CheckImage(i, j int, b Block, strict bool) error {
	p := Path(i, "result.blocks")
	if strict {
		if _, ok := ImageFormat(b.MediaType); !ok {
			return field.NewError(field.Join(field.Index(p, j), "media_type"), "must be image/png, image/jpeg, image/gif or image/webp for this format")
		}
	}
	if !ValidBase64(b.Data) {
		return field.NewError(field.Join(field.Index(p, j), "data"), "must be standard base64 with padding")
	}
	return nil
}

// NonBlank returns the blocks without blank text blocks (empty or only white
// space), which Anthropic rejects ("text content blocks must be non-empty",
// stacklok/mecatl#291). It returns bs itself when nothing is dropped, and nil
// when nothing remains.
func NonBlank(bs []Block) []Block {
	keep := 0
	for _, b := range bs {
		if b.IsMedia() || !IsBlank(b.Text) {
			keep++
		}
	}
	if keep == len(bs) {
		return bs
	}
	if keep == 0 {
		return nil
	}
	out := make([]Block, 0, keep)
	for _, b := range bs {
		if b.Type == "image" || !IsBlank(b.Text) {
			out = append(out, b)
		}
	}
	return out
}

// QuoteTail turns dst[start:], which holds canonical JSON text, into one
// canonical JSON string holding that text, in place: the way a text-only
// content field carries an envelope or a JSON value without a second buffer.
// Canonical JSON text holds no raw control character (RFC 8785 escapes them),
// so only '"' and '\\' need escaping; the result equals
// canonical.AppendString(dst[:start], string(dst[start:])).
func QuoteTail(dst []byte, start int) []byte {
	n := len(dst)
	dst = append(dst, '"')
	run := start
	for i := start; i < n; i++ {
		if c := dst[i]; c == '"' || c == '\\' {
			dst = append(dst, dst[run:i]...)
			dst = append(dst, '\\', c)
			run = i + 1
		}
	}
	dst = append(dst, dst[run:n]...)
	dst = append(dst, '"')
	m := copy(dst[start:], dst[n:])
	return dst[:start+m]
}

// AppendError appends the canonical JSON text of Safe(*o.Error), the
// envelope of a failure as every format writes it: o.Error with
// SafeDetails(o) when those are set (the reader sanitized it already),
// otherwise o.Error passed through Safe and encoded. Returns dst unchanged
// and the canonical writer's error when the details hold a value JSON
// cannot carry (NaN, ±Inf).
func AppendError(dst []byte, o *Outcome) ([]byte, error) {
	if o.safeDetails != "" {
		return o.Error.AppendCanonicalDetails(dst, o.safeDetails), nil
	}
	start := len(dst)
	dst, err := Safe(*o.Error).AppendCanonical(dst)
	if err != nil {
		return dst[:start], err
	}
	return dst, nil
}

// AppendErrorString appends what AppendError writes as one JSON string: the
// content of a text-only failure (Anthropic tool_result content, OpenAI
// content and output). Errors are AppendError's.
func AppendErrorString(dst []byte, o *Outcome) ([]byte, error) {
	start := len(dst)
	dst, err := AppendError(dst, o)
	if err != nil {
		return dst, err
	}
	return QuoteTail(dst, start), nil
}

// AppendEnvelopeString is AppendErrorString for the failure e.
func AppendEnvelopeString(dst []byte, e envelope.Envelope) ([]byte, error) {
	return AppendErrorString(dst, &Outcome{Error: &e})
}

// AppendJSONString appends the canonical JSON text of v as one JSON string.
func AppendJSONString(dst []byte, v any) ([]byte, error) {
	start := len(dst)
	dst, err := canonical.Append(dst, v)
	if err != nil {
		return dst[:start], err
	}
	return QuoteTail(dst, start), nil
}

// ReadText reads the content string of a successful text-only result: blank
// text or EmptyPlaceholder is Empty; text that is exactly the canonical JSON
// of an object or an array (what the serializers write for a JSON result) is
// JSON; anything else is Text. A JSON number, boolean or null result was
// written as its JSON text and comes back as Text: a text format does not
// carry that kind.
func ReadText(s string) Result {
	if IsBlank(s) || s == EmptyPlaceholder {
		return Result{Kind: Empty}
	}
	if n := len(s); n >= 2 && (s[0] == '{' && s[n-1] == '}' || s[0] == '[' && s[n-1] == ']') {
		if v, err := canonical.Parse([]byte(s)); err == nil {
			if b, err := canonical.Marshal(v); err == nil && string(b) == s {
				return Result{Kind: JSON, JSON: v}
			}
		}
	}
	return Result{Kind: Text, Text: canonical.ValidString(s)}
}

// Foreign builds the envelope of a failure that arrived without one: a
// provider's error flag set on plain text ("permission denied"), or Gemini's
// response.error holding a string. The code is TOOL_ERROR (not retryable,
// source tool) and the message is the text, sanitized; an empty text gets a
// message saying so.
func Foreign(text string) envelope.Envelope {
	msg := sanitize.Message(text)
	if msg == "" {
		msg = "The tool reported an error without a message."
	}
	return envelope.Envelope{Code: envelope.ToolError, Message: msg, Details: map[string]any{}, Source: envelope.SourceTool}
}

// ForeignValue is Foreign for a non-string error value: an object's string
// "message" member when it has one, otherwise the value's canonical JSON text.
func ForeignValue(v any) envelope.Envelope {
	switch x := v.(type) {
	case string:
		return Foreign(x)
	case map[string]any:
		if m, ok := x["message"].(string); ok {
			return Foreign(m)
		}
	case nil:
		return Foreign("")
	}
	return Foreign(JSONText(v))
}

// FailureText returns the envelope a flagged failure's text is
// (RecognizeText, Flagged), and otherwise Foreign(text).
func FailureText(text string) envelope.Envelope {
	if e, ok := RecognizeText(text, Flagged); ok {
		return e
	}
	return Foreign(text)
}

// JoinTexts joins the text of the text blocks with "\n".
func JoinTexts(bs []Block) string {
	var sb strings.Builder
	first := true
	for _, b := range bs {
		if b.Type != "text" {
			continue
		}
		if !first {
			sb.WriteByte('\n')
		}
		first = false
		sb.WriteString(b.Text)
	}
	return sb.String()
}

// RepeatedID returns the index of the first outcome before i whose call id
// equals outs[i]'s, and whether there is one. It scans the earlier outcomes
// of a short turn and keeps *seen (id -> first index, made on first use)
// for a long one; the caller calls it for i = 0, 1, ... in order.
func RepeatedID(outs []Outcome, i int, seen *map[string]int) (int, bool) {
	id := outs[i].Call.ID
	if len(outs) <= 16 {
		for j := range i {
			if outs[j].Call.ID == id {
				return j, true
			}
		}
		return 0, false
	}
	if *seen == nil {
		*seen = make(map[string]int, len(outs))
	}
	if j, dup := (*seen)[id]; dup {
		return j, true
	}
	(*seen)[id] = i
	return 0, false
}

// Values runs a codec's byte writer (its AppendSerialized) on outs and
// returns what it wrote as value trees: every codec writes its wire bytes
// once and derives the value form from them, so that the two can never
// disagree. Errors are the writer's.
func Values(outs []Outcome, write func(dst []byte, outs []Outcome) ([]byte, error)) ([]any, error) {
	b, err := write(make([]byte, 0, 256*len(outs)), outs)
	if err != nil {
		return nil, err
	}
	v, err := canonical.Parse(b)
	if err != nil {
		return nil, err
	}
	return v.([]any), nil
}

// AppendEach appends "[", one element per outcome written by one (each
// outcome first checked by CheckCall with ids), and "]": the writer of a
// codec that sends one message or item per outcome. Errors are CheckCall's
// and one's.
func AppendEach(dst []byte, outs []Outcome, ids CallIDs, one func(dst []byte, i int, o *Outcome) ([]byte, error)) ([]byte, error) {
	var seen map[string]int
	dst = append(dst, '[')
	for i := range outs {
		if err := CheckCall(outs, i, &seen, ids); err != nil {
			return dst, err
		}
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = one(dst, i, &outs[i]); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}

// CallIDs is how a codec whose calls need ids checks them (CheckCall):
// Required says why an id is needed (after "is required: "), MaxChars bounds
// its length in characters (0 = no bound) with TooLong the error past it,
// and Each names what every call gets exactly one of ("tool call gets
// exactly one result").
type CallIDs struct {
	Required string
	MaxChars int
	TooLong  string
	Each     string
}

// CheckCall returns the *field.Error of outcome i when it is malformed (see
// Check) or its call id is missing, too long, or repeats an earlier one's
// (see RepeatedID; seen carries the ids across calls).
func CheckCall(outs []Outcome, i int, seen *map[string]int, r CallIDs) error {
	o := &outs[i]
	if err := Check(i, o); err != nil {
		return err
	}
	id := o.Call.ID
	switch {
	case id == "":
		return field.NewError(Path(i, "call.id"), "is required: "+r.Required)
	case r.MaxChars > 0 && utf8.RuneCountInString(id) > r.MaxChars:
		return field.NewError(Path(i, "call.id"), r.TooLong)
	}
	if j, dup := RepeatedID(outs, i, seen); dup {
		return field.NewError(Path(i, "call.id"), "repeats the id of results["+strconv.Itoa(j)+"]; each "+r.Each)
	}
	return nil
}

// ReadMessages walks the messages of a parse request. Each element is either
// a bare block (isBlock reports it) or a message {"role":"user", key:[...]}
// whose role may be absent when roleOptional; a message whose key member is a
// string (a plain user text) is skipped. block is called for every block
// with its path; the caller checks that some outcome was found. Returns a
// *field.Error with the path for anything else.
func ReadMessages(msgs []any, key string, roleOptional bool, isBlock func(map[string]any) bool, block func(m map[string]any, path string) error) error {
	for i, mv := range msgs {
		p := field.Index("messages", i)
		m, err := field.As[map[string]any](mv, p)
		if err != nil {
			return err
		}
		if isBlock(m) {
			if err := block(m, p); err != nil {
				return err
			}
			continue
		}
		role, ok, err := field.Get[string](m, "role", p)
		if err != nil {
			return err
		}
		if (ok || !roleOptional) && role != "user" {
			return field.NewError(field.Join(p, "role"), "must be user: tool results travel in a user message, got "+strconv.Quote(role))
		}
		if _, isText := m[key].(string); isText {
			continue
		}
		arr, ok, err := field.Get[[]any](m, key, p)
		if err != nil {
			return err
		}
		if !ok {
			return field.NewError(field.Join(p, key), "is required")
		}
		kp := field.Join(p, key)
		for j, bv := range arr {
			bp := field.Index(kp, j)
			bm, err := field.As[map[string]any](bv, bp)
			if err != nil {
				return err
			}
			if err := block(bm, bp); err != nil {
				return err
			}
		}
	}
	return nil
}
