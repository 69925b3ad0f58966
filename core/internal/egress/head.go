package egress

import "bytes"

// HeadError tells from head, the held start of a text/event-stream event
// too long to hold whole (its lines as they came, the last one cut where
// the holding stopped; the stream's leading UTF-8 BOM, if any, already
// stripped), whether the event is an error event as a whole one is told:
// named "error" (Anthropic, the Responses API), or with data that opens a
// JSON object whose first member is an "error" object (a Chat Completions
// or Gemini error chunk, `{"error":{`, JSON white space allowed between
// the tokens). name is the event's name, from its complete lines only: a
// cut "event:" line may go on past what was held. The data is the data
// lines joined by LF, as in a whole event, the cut line included; an
// "error" member after another (a long one) cannot be told from a head, and
// such an event is no error event here. Nothing is copied but the name.
//
// Lines end in CRLF, LF or CR; a field's value is what follows its first
// colon, one leading space dropped; a line without a colon is a field with
// an empty value. See the WHATWG HTML standard, "Server-sent events",
// https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation,
// https://docs.claude.com/en/docs/build-with-claude/streaming#error-events
// and https://platform.openai.com/docs/api-reference/responses-streaming/error.
func HeadError(head []byte) (name string, isError bool) {
	var open errorOpener
	data := false
	for len(head) > 0 {
		i := bytes.IndexAny(head, "\r\n")
		complete := i >= 0
		if !complete {
			i = len(head)
		}
		field, value, _ := bytes.Cut(head[:i], []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			if complete {
				name = string(value)
			}
		case "data":
			if data {
				open.feed([]byte("\n"))
			}
			open.feed(value)
			data = true
		}
		if !complete {
			break
		}
		if head[i] == '\r' && i+1 < len(head) && head[i+1] == '\n' {
			i++
		}
		head = head[i+1:]
	}
	return name, name == "error" || open.done()
}

// errorOpener matches the start of a JSON text against {"error":{, white
// space (RFC 8259, 2: space, tab, LF, CR) allowed between the tokens, fed
// a piece at a time.
type errorOpener struct {
	tok, at int  // the token being matched and how much of it has been
	failed  bool // a byte that is neither white space nor the token's came
}

var errorOpening = [...]string{"{", `"error"`, ":", "{"}

func (o *errorOpener) done() bool { return o.tok == len(errorOpening) }

func (o *errorOpener) feed(b []byte) {
	for _, c := range b {
		if o.failed || o.done() {
			return
		}
		t := errorOpening[o.tok]
		switch {
		case c == t[o.at]:
			if o.at++; o.at == len(t) {
				o.tok, o.at = o.tok+1, 0
			}
		case o.at == 0 && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
		default:
			o.failed = true
		}
	}
}

// ElementHeadError tells from head, the held start of an element of a
// JSON-array stream too long to hold whole (Gemini's streamGenerateContent
// without alt=sse: "[{...},{...}]"), from the element's first byte, the
// last one cut where the holding stopped, whether the element is an error
// element as a whole one is told: a JSON object whose first member is an
// "error" object (`{"error":{`, JSON white space allowed between the
// tokens). An "error" member after another cannot be told from a head,
// and such an element is no error element here. Nothing is copied.
func ElementHeadError(head []byte) bool {
	var open errorOpener
	open.feed(head)
	return open.done()
}

// SuccessHead tells from head, the start of the body of an upstream's
// success outside a stream (its first bytes as they came), whether the
// body opens as an error object in place of the answer does (`{"error":{`,
// JSON white space allowed between the tokens, after a UTF-8 BOM): only
// such a body may be one (SuccessError). decided is false while head is
// too short to tell (empty, white space, `{"err`): the caller reads on.
func SuccessHead(head []byte) (isError, decided bool) {
	var open errorOpener
	open.feed(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")))
	return open.done(), open.done() || open.failed
}
