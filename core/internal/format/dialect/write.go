package dialect

import (
	"strings"
	"unicode/utf8"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
	"github.com/toolerr/toolerr/core/internal/sanitize"
)

// Writer builds one format's message list from neutral messages: D is the
// target's dialect; Same marks messages read from that same format, whose
// Raw trees are reused. What the target keeps outside its list (System), the
// messages that follow a run of openai-chat tool messages (Pending) and the
// parts it could not carry (Dropped, by description) collect on it.
type Writer struct {
	D       *Dialect
	Same    bool
	System  []string
	Pending []any
	Dropped map[string]int
	// Replaced counts the media blocks of tool results replaced by a text
	// placeholder, by the reason the target gave (Dialect.Takes).
	Replaced map[string]int
	// Wrapped counts the calls whose arguments were not a JSON object (text
	// that does not parse, an array) and were wrapped under "value" for a
	// target whose call input is an object.
	Wrapped int
	// list is the canonical JSON AppendList is writing (listing set), items
	// how many messages it holds, err the first value it could not encode.
	list    []byte
	listing bool
	items   int
	err     error
	// input holds the arguments inputText wrote last, until they are
	// copied into the list
	input []byte
	// result is the outcome appendResult has the codec write
	result outcome.Outcome
	// Cut counts the flagged failures whose text was longer than an
	// envelope's details keep (sanitize.MaxDetailChars) when they had to
	// travel as an envelope (a format without a flag), so that convert
	// can say so.
	Cut int
}

// List writes msgs as the target's list: every message read from the same
// format and unchanged as read, every other one through D.Write.
func (w *Writer) List(msgs []Message) []any {
	out := make([]any, 0, len(msgs)+2)
	for _, m := range msgs {
		if w.Same && m.Server {
			continue
		}
		if w.Same && !m.Dirty && m.Raw != nil {
			out = w.Flush(out)
			out = append(out, m.Raw)
			continue
		}
		for _, v := range w.D.Write(w, m) {
			if vm, ok := v.(map[string]any); !ok || vm["role"] != "tool" {
				out = w.Flush(out)
			}
			out = append(out, v)
		}
	}
	return w.Flush(out)
}

// Flush emits what openai-chat tool results could not carry (the user
// message with their images) after the run of tool messages.
func (w *Writer) Flush(out []any) []any {
	out = append(out, w.Pending...)
	w.Pending = nil
	return out
}

// AppendList writes msgs (of another format: Same false) as the canonical
// JSON of the list List returns, straight into dst, for a list encoded right
// away (Invoke's answer): each message a dialect writes through Message goes
// into it as bytes, element by element (ElemCodec.AppendText, AppendCall,
// the target's Dialect.Elem for a result), without a tree of it; any other
// element or message is the tree List holds, encoded in its place. The error
// is the first value canonical.Append refused (dst is then incomplete).
func (w *Writer) AppendList(dst []byte, msgs []Message) ([]byte, error) {
	w.list, w.listing, w.items, w.err = append(dst, '['), true, 0, nil
	for _, m := range msgs {
		for _, v := range w.D.Write(w, m) {
			if vm, ok := v.(map[string]any); !ok || vm["role"] != "tool" {
				w.flushList()
			}
			w.appendItem(v)
		}
	}
	w.flushList()
	dst, err := append(w.list, ']'), w.err
	w.list, w.listing = nil, false
	return dst, err
}

// flushList is Flush for AppendList.
func (w *Writer) flushList() {
	for _, v := range w.Pending {
		w.appendItem(v)
	}
	w.Pending = nil
}

// appendItem appends one message tree to AppendList's list.
func (w *Writer) appendItem(v any) {
	if w.items > 0 {
		w.list = append(w.list, ',')
	}
	w.items++
	var err error
	if w.list, err = canonical.Append(w.list, v); err != nil && w.err == nil {
		w.err = err
	}
}

// Drop records a part the target cannot carry.
func (w *Writer) Drop(p Part) {
	if w.Same && p.Raw != nil {
		return
	}
	if w.Dropped == nil {
		w.Dropped = map[string]int{}
	}
	w.Dropped[OtherName(p.Raw)+" content not carried across formats"]++
}

// Raw returns the part's original tree when it can be reused as is.
func (w *Writer) Raw(p Part) (any, bool) {
	if w.Same && !p.Dirty && p.Raw != nil {
		return p.Raw, true
	}
	return nil, false
}

// Base returns the starting object of a rebuilt element: a copy of the
// original in the same format, else a new object.
func (w *Writer) Base(raw any) map[string]any {
	if w.Same {
		return Clone(raw)
	}
	return map[string]any{}
}

// TextOf joins the text parts of parts with newlines.
func TextOf(parts []Part) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Kind == KindText {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// Split sorts parts into results, calls and the rest, each in order.
func Split(parts []Part) (results, calls, rest []Part) {
	for _, p := range parts {
		switch p.Kind {
		case KindResult:
			results = append(results, p)
		case KindCall:
			calls = append(calls, p)
		default:
			rest = append(rest, p)
		}
	}
	return
}

// Failure returns the envelope a flagless format carries for a failed result.
func Failure(r Result) envelope.Envelope {
	if r.Outcome.Error != nil {
		return outcome.Safe(*r.Outcome.Error)
	}
	text := strings.TrimSpace(ResultText(r.Outcome))
	msg := sanitize.Message(text)
	d := map[string]any{}
	if text == "" {
		msg = "The tool reported a failure without a message."
	} else if msg != text && msg != text+"." {
		d["output"] = text
	}
	if r.Outcome.Call.Name != "" {
		d["tool"] = r.Outcome.Call.Name
	}
	return envelope.Envelope{Code: envelope.ToolError, Message: msg, Details: sanitize.Details(d), Source: envelope.SourceTool}
}

// ElemCodec builds one format's elements (content blocks, parts) for the
// kinds of Part that differ between formats.
type ElemCodec struct {
	Text  func(t string) any
	Image func(im Image) any
	Call  func(p Part) any
	// AppendText and AppendCall, where set, write what Text and Call build
	// as its canonical JSON (AppendCall given the call's input as canonical
	// JSON, see Input), for AppendList.
	AppendText func(dst []byte, t string) []byte
	AppendCall func(dst []byte, p Part, input []byte) []byte
}

// Elements writes parts as a message's elements: each unchanged part as
// read, text (blank text only when writing back the same format), images
// and calls through c, results through w.Result; anything else is dropped
// and counted.
func (w *Writer) Elements(parts []Part, c ElemCodec) []any {
	out := make([]any, 0, len(parts))
	for _, p := range parts {
		if v, ok := w.element(p, c); ok {
			out = append(out, v)
		}
	}
	return out
}

// element is the element Elements writes for p; false for none (blank text
// of another format, a part dropped and counted).
func (w *Writer) element(p Part, c ElemCodec) (any, bool) {
	if v, ok := w.Raw(p); ok {
		return v, true
	}
	switch p.Kind {
	case KindText:
		if outcome.IsBlank(p.Text) && !w.Same {
			return nil, false
		}
		return c.Text(p.Text), true
	case KindImage:
		return c.Image(p.Image), true
	case KindCall:
		return c.Call(p), true
	case KindResult:
		return w.Result(p), true
	}
	w.Drop(p)
	return nil, false
}

// appendElement appends the canonical JSON of the element Elements writes
// for p (a part of another format) to dst: text, a call and a result as
// bytes where c and the target's codec write them, anything else as its
// tree; false when there is none.
func (w *Writer) appendElement(dst []byte, p Part, c ElemCodec) ([]byte, bool, error) {
	switch {
	case p.Kind == KindText && c.AppendText != nil && !outcome.IsBlank(p.Text):
		return c.AppendText(dst, p.Text), true, nil
	case p.Kind == KindCall && c.AppendCall != nil:
		if in, ok := w.inputText(p); ok {
			return c.AppendCall(dst, p, in), true, nil
		}
	case p.Kind == KindResult:
		b, err := w.appendResult(dst, p)
		return b, true, err
	}
	v, ok := w.element(p, c)
	if !ok {
		return dst, false, nil
	}
	b, err := canonical.Append(dst, v)
	return b, true, err
}

// URLText is the text element standing for an image given by URL in a
// format that takes only inline bytes (Gemini, Bedrock).
func URLText(im Image) any { return map[string]any{"text": "[image: " + im.URL + "]"} }

// ToSystem keeps the text of a system message for outside the list (the
// target takes system text as a parameter of its own) and writes nothing.
func (w *Writer) ToSystem(m Message) []any {
	if t := TextOf(m.Parts); t != "" {
		w.System = append(w.System, t)
	}
	return nil
}

// Others writes the parts of a message toolerr does not model as read (when
// writing back their own format) and drops them otherwise.
func (w *Writer) Others(m Message) []any {
	var out []any
	for _, p := range m.Parts {
		if v, ok := w.Raw(p); ok {
			out = append(out, v)
		} else {
			w.Drop(p)
		}
	}
	return out
}

// Wrap makes the message object holding built elements under key; a
// converted message left with nothing is dropped.
func (w *Writer) Wrap(m Message, role, key string, elems []any) []any {
	if len(elems) == 0 && !w.Same {
		return nil
	}
	b := w.Base(m.Raw)
	b["role"] = role
	b[key] = elems
	return []any{b}
}

// Message writes m as one message object {key: [elements], "role": role}:
// the tree Wrap makes of Elements(m.Parts, c), or, for AppendList, its
// canonical JSON straight into the list (and nothing returned). A converted
// message left with nothing is dropped.
func (w *Writer) Message(m Message, role, key string, c ElemCodec) []any {
	if !w.listing {
		return w.Wrap(m, role, key, w.Elements(m.Parts, c))
	}
	w.flushList()
	at := len(w.list)
	b := w.list
	if w.items > 0 {
		b = append(b, ',')
	}
	// the two members in RFC 8785 order
	keyFirst := canonical.LessUTF16(key, "role")
	b = append(b, '{')
	if !keyFirst {
		b = append(canonical.AppendString(append(b, `"role":`...), role), ',')
	}
	b = append(canonical.AppendString(b, key), ":["...)
	n := 0
	for _, p := range m.Parts {
		mark := len(b)
		if n > 0 {
			b = append(b, ',')
		}
		var ok bool
		var err error
		if b, ok, err = w.appendElement(b, p, c); err != nil {
			if w.err == nil {
				w.err = err
			}
			return nil
		}
		if !ok {
			b = b[:mark]
			continue
		}
		n++
	}
	if n == 0 {
		w.list = b[:at]
		return nil
	}
	b = append(b, ']')
	if keyFirst {
		b = canonical.AppendString(append(b, `,"role":`...), role)
	}
	w.list = append(b, '}')
	w.items++
	return nil
}

// Result returns the wire element of a result part in the target format:
// the tool message (openai-chat), the function_call_output item
// (openai-responses), the tool_result block (anthropic), the functionResponse
// part (gemini) or the toolResult block (bedrock). The content is encoded by
// the target's single-turn codec (D.Serialize), so a result reads the same in
// a transcript as when serialized alone. This is the one place that decides
// what a flagged failure that is not an envelope becomes: it keeps its own
// content where the format's flag sits beside it (D.Flag: Anthropic
// is_error, Bedrock status), and becomes its TOOL_ERROR envelope (Failure)
// everywhere else: OpenAI (no flag), Bedrock for a model that takes no
// status, Gemini (response.error holds the envelope object).
func (w *Writer) Result(p Part) any {
	if v, ok := w.Raw(p); ok {
		return v
	}
	o, flagOnly := w.resultOutcome(p)
	return w.resultElem(p, o, flagOnly)
}

// appendResult appends the canonical JSON of the element Result writes for
// p (a part of another format): the bytes the target's codec writes for the
// outcome (Dialect.Elem), where it has one and takes it, else the tree's.
func (w *Writer) appendResult(dst []byte, p Part) ([]byte, error) {
	o, flagOnly := w.resultOutcome(p)
	if !flagOnly && w.D.Elem != nil {
		// the codec reads the Writer's copy: a pointer to o would move o
		// to the heap for every result
		w.result = o
		if outcome.Check(0, &w.result) == nil {
			if b, err := w.D.Elem(dst, 0, &w.result); err == nil {
				w.result = outcome.Outcome{}
				return b, nil
			}
		}
		o, w.result = w.result, outcome.Outcome{}
	}
	return canonical.Append(dst, w.resultElem(p, o, flagOnly))
}

// resultOutcome is the outcome Result has the codec write for p, and
// whether the format's flag must mark it (a flagged failure that is not an
// envelope, for a format with a flag).
func (w *Writer) resultOutcome(p Part) (outcome.Outcome, bool) {
	r := p.Result
	o := r.Outcome
	flagOnly := r.Failed && o.Error == nil
	if flagOnly && w.D.Flag == nil {
		if utf8.RuneCountInString(strings.TrimSpace(ResultText(r.Outcome))) > sanitize.MaxDetailChars {
			w.Cut++
		}
		e := Failure(r)
		o.Error, o.Result, flagOnly = &e, nil, false
	}
	if o.Error == nil && o.Result == nil {
		o.Result = &outcome.Result{Kind: outcome.Empty}
	}
	o.Result = w.placeholders(o.Result)
	return o, flagOnly
}

// resultElem is the element tree the codec writes for o, the outcome of p,
// flagged when flagOnly.
func (w *Writer) resultElem(p Part, o outcome.Outcome, flagOnly bool) map[string]any {
	elem, extra := w.encode(o)
	if flagOnly {
		w.D.Flag(elem, p.Result.Outcome)
	}
	b := elem // a new element: the codec's own, as it wrote it
	if w.Same {
		b = w.Base(p.Raw) // the element as read, what the codec wrote over it
		for k, v := range elem {
			b[k] = v
		}
	}
	w.Pending = append(w.Pending, extra...)
	return b
}

// Input returns the arguments of call part p as the object a target's call
// input must be (Anthropic input, Gemini args, Bedrock input), counting a
// wrap (ArgsObject) so that convert can say so.
func (w *Writer) Input(p Part) map[string]any {
	in, whole := ArgsObject(p.Call.Value())
	if !whole {
		w.Wrapped++
	}
	return in
}

// placeholders replaces each media block of r that the target cannot carry
// (Dialect.Takes) with a text placeholder naming it, and counts it.
func (w *Writer) placeholders(r *outcome.Result) *outcome.Result {
	if r == nil || r.Kind != outcome.Blocks || w.D.Takes == nil {
		return r
	}
	var bs []outcome.Block
	for j, b := range r.Blocks {
		why := ""
		if b.IsMedia() {
			why = w.D.Takes(b)
		}
		if why == "" {
			if bs != nil {
				bs = append(bs, b)
			}
			continue
		}
		if bs == nil {
			bs = append(make([]outcome.Block, 0, len(r.Blocks)), r.Blocks[:j]...)
		}
		bs = append(bs, outcome.Block{Type: "text", Text: Placeholder(b, why)})
		if w.Replaced == nil {
			w.Replaced = map[string]int{}
		}
		w.Replaced[why]++
	}
	if bs == nil {
		return r
	}
	return &outcome.Result{Kind: outcome.Blocks, Blocks: bs}
}

// Placeholder is the text standing for a media block a target cannot
// carry: what it was (its URL, sanitized, when it had one) and why.
func Placeholder(b outcome.Block, why string) string {
	what := b.Type
	if b.MediaType != "" {
		what = b.MediaType + " " + b.Type
	}
	if b.URL != "" {
		what += " at " + sanitize.Text(b.URL)
	}
	return "[" + what + " not carried: " + why + "]"
}

// encode runs the codec on one outcome and returns its element and any
// messages that must follow the turn. A call id or name the codec refuses
// (repair keeps the ids it was given; check reports them) is encoded with a
// stand-in and put back; an image the target refuses is described in text.
func (w *Writer) encode(o outcome.Outcome) (map[string]any, []any) {
	msgs, err := w.D.Serialize([]outcome.Outcome{o})
	if err != nil {
		id, name := o.Call.ID, o.Call.Name
		o.Call.Name = "tool"
		if id != "" || !w.D.IDs.Optional() {
			o.Call.ID = "toolerr_call"
		}
		if msgs, err = w.D.Serialize([]outcome.Outcome{o}); err != nil {
			o.Result = DescribeImages(o.Result)
			msgs, err = w.D.Serialize([]outcome.Outcome{o})
		}
		if err == nil {
			elem, extra := w.D.Element(msgs)
			w.D.SetCall(elem, id, name)
			return elem, extra
		}
		return map[string]any{}, nil
	}
	return w.D.Element(msgs)
}

// FirstElement is the first element of the array member key of the first of
// msgs (the one result block of a single-turn serialization), taken out of
// msgs, not copied; an empty object when there is none.
func FirstElement(msgs []any, key string) map[string]any {
	first, _ := msgs[0].(map[string]any)
	content, _ := first[key].([]any)
	if len(content) > 0 {
		if m, ok := content[0].(map[string]any); ok {
			return m
		}
	}
	return map[string]any{}
}

// inputScratch is the least Writer.input grows to, in bytes, and
// inputKept the most Reset keeps of it.
const inputScratch, inputKept = 1 << 10, 64 << 10

// Reset makes w a new Writer for d (nil: none, for a Writer put away) that
// keeps the space its arguments were written in (bytes only, within
// 64 KiB), for a caller that writes one list after another: nothing else
// w held is kept, and nothing w handed out is written to again.
func (w *Writer) Reset(d *Dialect) {
	input := w.input[:0]
	if cap(input) > inputKept {
		input = nil
	}
	*w = Writer{D: d, input: input}
}

// inputText is what Input returns as canonical JSON, counted as Input
// counts it; false (nothing counted) when it cannot be encoded.
//
// Arguments given as the text of an object are written straight from it
// (canonical.AppendObjectText, the bytes the tree would give), without
// their tree.
func (w *Writer) inputText(p Part) ([]byte, bool) {
	if p.Call.Args == nil && p.Call.ArgsText != "" {
		if n := len(p.Call.ArgsText) + len(p.Call.ArgsText)/4; cap(w.input) < n {
			w.input = make([]byte, 0, max(n, inputScratch)) // one buffer for most lists' arguments
		}
		if b, ok := canonical.AppendObjectText(w.input[:0], p.Call.ArgsText, nil); ok {
			w.input = b
			return b, true
		}
	}
	in, whole := ArgsObject(p.Call.Value())
	b, err := canonical.Append(make([]byte, 0, len(p.Call.ArgsText)+16), in)
	if err != nil {
		return nil, false
	}
	if !whole {
		w.Wrapped++
	}
	return b, true
}
