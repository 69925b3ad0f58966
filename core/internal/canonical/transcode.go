package canonical

import (
	"slices"
	"sync"
)

// AppendObjectText appends the canonical JSON (RFC 8785) of the JSON text
// text to dst, exactly what Append writes for the tree Parse reads from it,
// but without the tree: strings are decoded as Parse decodes them (escapes,
// U+FFFD for invalid UTF-8 and lone surrogates) and written as AppendString
// writes them, numbers read as float64 and written by AppendFloat, object
// members sorted by name in dst itself. It reports false, with dst's length
// unchanged, for a text Parse refuses (a syntax error, a duplicate member
// name, a depth or value-bytes bound of Parse, the budget of the same text),
// for one whose value is not an object, and where top (when not nil)
// refuses one of the object's own member names: the caller then takes the
// tree, which says what the text is.
//
// It is how a converter writes a tool call's arguments or a tool's JSON
// result, given as text, as the object a target holds in place (Anthropic's
// input, Gemini's args and response), without a map per object.
//
// It takes a Transcoder from a pool and puts it back, so that its scratch
// space serves the next call (a codec writing one result after another);
// scratch past transcodeKept bytes or transcodeKeptSpans members is left
// to the collector.
func AppendObjectText(dst []byte, text string, top func(name string) bool) ([]byte, bool) {
	t := TakeTranscoder()
	defer PutTranscoder(t)
	return t.AppendObject(dst, text, top)
}

// TakeTranscoder returns a Transcoder from the pool AppendObjectText draws
// on, for a reader that transcodes several values of one text
// (Scanner.AppendCanonical) without scratch space of its own;
// PutTranscoder gives it back.
func TakeTranscoder() *Transcoder { return transcoders.Get().(*Transcoder) }

// PutTranscoder puts t, which TakeTranscoder returned and nothing uses any
// more, back in the pool, its scratch past transcodeKept bytes or
// transcodeKeptSpans members left to the collector.
func PutTranscoder(t *Transcoder) {
	if cap(t.tmp) > transcodeKept {
		t.tmp = nil
	}
	if cap(t.spans) > transcodeKeptSpans {
		t.spans = nil
	}
	transcoders.Put(t)
}

// transcoders are AppendObjectText's Transcoders.
var transcoders = sync.Pool{New: func() any { return new(Transcoder) }}

// transcodeScratch is the least a Transcoder's byte scratch grows to, in
// bytes: a tool call's arguments or a JSON result, most of them in one.
const transcodeScratch = 1 << 10

// The most scratch a Transcoder keeps when AppendObjectText puts it back in
// the pool: the bytes of one 64 KiB object and 512 members (as the list
// arena's and the engine room's bounds), so that one huge object does not
// keep its size of memory for the calls after it.
const (
	transcodeKept      = 64 << 10
	transcodeKeptSpans = 512
)

// Transcoder is AppendObjectText that keeps its scratch space (where it
// sorts members) from one call to the next, for a writer that calls it
// often. The zero value is ready; one Transcoder serves one goroutine.
type Transcoder struct {
	spans []memberSpan
	tmp   []byte
}

// AppendObject is AppendObjectText.
func (tc *Transcoder) AppendObject(dst []byte, text string, top func(name string) bool) ([]byte, bool) {
	t := transcoder{p: parser{text: text, budget: TextTreeBudget(len(text))}, spans: tc.spans[:0], tmp: tc.tmp[:0], top: top}
	defer func() { tc.spans, tc.tmp = t.spans[:0], t.tmp[:0] }()
	t.p.skipSpace()
	if t.p.pos >= len(t.p.text) || t.p.text[t.p.pos] != '{' {
		return dst, false
	}
	out, ok := t.value(dst, 0)
	t.p.skipSpace()
	if !ok || t.p.pos != len(t.p.text) {
		return dst, false
	}
	return out, true
}

// transcoder writes the canonical JSON of the text its parser reads (see
// AppendObjectText).
type transcoder struct {
	p parser
	// spans are the members of the objects being written, innermost last.
	spans []memberSpan
	// tmp holds an object's members while they are written back sorted.
	tmp []byte
	// names holds the member names that were not their own literal.
	names []byte
	// top, when not nil, may refuse a member name of the outermost object.
	top func(name string) bool
}

// memberSpan is one member written to dst: where its name is in the text
// (a name without escapes: itself) and where its bytes ("name":value) start
// and end in dst. It holds no pointer, so that keeping it costs the
// collector nothing.
type memberSpan struct {
	from, to   int
	start, end int
	// decoded: the name had an escape (or invalid UTF-8), and from and to
	// are where it is decoded in the transcoder's names
	decoded bool
}

// name is the member name of m.
func (t *transcoder) name(m memberSpan) string {
	if m.decoded {
		return string(t.names[m.from:m.to])
	}
	return t.p.text[m.from:m.to]
}

// value appends the canonical JSON of the value at t.p.pos, at nesting
// level depth, charged and bounded as parser.value reads it.
func (t *transcoder) value(dst []byte, depth int) ([]byte, bool) {
	p := &t.p
	if p.pos >= len(p.text) {
		return dst, false
	}
	switch c := p.text[p.pos]; {
	case c == '{':
		if depth >= MaxDepth {
			return dst, false
		}
		return t.object(dst, depth+1)
	case c == '[':
		if depth >= MaxDepth {
			return dst, false
		}
		return t.array(dst, depth+1)
	case c == '"':
		at := p.pos
		if s, ok := p.plainString(); ok {
			// no escape, no control character, valid UTF-8: what
			// AppendString writes is the literal itself
			if s != "" && !p.charge(costString) {
				return dst, false
			}
			return append(dst, p.text[at:p.pos]...), true
		}
		s, err := p.str()
		if err != nil || s != "" && !p.charge(costString) {
			return dst, false
		}
		return AppendString(dst, s), true
	case c == '-' || c >= '0' && c <= '9':
		if u, neg, end, ok := p.integer(); ok && !(neg && u == 0) {
			// an integer of at most 15 digits without a leading zero, not
			// -0: what AppendFloat writes of it is its literal, charged as
			// float charges it
			at := p.pos
			p.pos = end
			if (neg || u >= uint64(len(smallNumbers))) && !p.charge(costNumber) {
				return dst, false
			}
			return append(dst, p.text[at:end]...), true
		}
		f, err := p.float()
		if err != nil {
			return dst, false
		}
		out, err := AppendFloat(dst, f)
		return out, err == nil
	case c == 't', c == 'f', c == 'n':
		word := "null"
		switch c {
		case 't':
			word = "true"
		case 'f':
			word = "false"
		}
		if _, err := p.literal(word, nil); err != nil {
			return dst, false
		}
		return append(dst, word...), true
	}
	return dst, false
}

// object appends the canonical JSON of the object at t.p.pos: its members
// as they come, then, when they did not come in order, sorted.
func (t *transcoder) object(dst []byte, depth int) ([]byte, bool) {
	p := &t.p
	p.pos++ // '{'
	if !p.charge(costObject) {
		return dst, false
	}
	dst = append(dst, '{')
	at, base := len(dst), len(t.spans)
	defer func() { t.spans = t.spans[:base] }()
	sorted := true
	for n := 0; ; n++ {
		p.skipSpace()
		if p.pos < len(p.text) && p.text[p.pos] == '}' && n == 0 {
			p.pos++
			return append(dst, '}'), true
		}
		if p.pos >= len(p.text) || p.text[p.pos] != '"' {
			return dst, false
		}
		from, decoded := p.pos+1, false
		k, ok := p.plainString()
		if !ok {
			// a name with an escape: kept decoded
			var err error
			if k, err = p.str(); err != nil {
				return dst, false
			}
			from, decoded = len(t.names), true
			t.names = append(t.names, k...)
		}
		if depth == 1 && t.top != nil && !t.top(k) {
			return dst, false
		}
		var c int64
		switch {
		case n == 0:
			c = costObjectGroup
		case n >= 8:
			c = costObjectMember
		}
		if !p.charge(c) {
			return dst, false
		}
		p.skipSpace()
		if p.pos >= len(p.text) || p.text[p.pos] != ':' {
			return dst, false
		}
		p.pos++
		p.skipSpace()
		if n > 0 {
			dst = append(dst, ',')
			if prev := t.name(t.spans[len(t.spans)-1]); !LessUTF16(prev, k) {
				sorted = false
			}
		}
		start := len(dst)
		if decoded {
			dst = append(AppendString(dst, k), ':')
		} else {
			dst = append(append(append(append(dst, '"'), k...), '"'), ':')
		}
		if dst, ok = t.value(dst, depth); !ok {
			return dst, false
		}
		if cap(t.spans) == 0 {
			t.spans = make([]memberSpan, 0, 32)
		}
		t.spans = append(t.spans, memberSpan{from: from, to: from + len(k), start: start, end: len(dst), decoded: decoded})
		if done, err := p.next('}', "object"); err != nil {
			return dst, false
		} else if !done {
			continue
		}
		if sorted {
			return append(dst, '}'), true
		}
		return t.sort(dst, at, t.spans[base:])
	}
}

// sort writes the members ms of the object whose members start at dst[at:]
// back in RFC 8785 order, and closes it; a duplicate name (which Parse
// refuses) reports false.
func (t *transcoder) sort(dst []byte, at int, ms []memberSpan) ([]byte, bool) {
	if len(ms) <= 16 {
		for i := 1; i < len(ms); i++ {
			for j := i; j > 0 && LessUTF16(t.name(ms[j]), t.name(ms[j-1])); j-- {
				ms[j], ms[j-1] = ms[j-1], ms[j]
			}
		}
	} else {
		slices.SortFunc(ms, func(a, b memberSpan) int { return compareUTF16(t.name(a), t.name(b)) })
	}
	for i := 1; i < len(ms); i++ {
		if t.name(ms[i]) == t.name(ms[i-1]) {
			return dst, false
		}
	}
	if cap(t.tmp) < len(dst)-at {
		t.tmp = make([]byte, 0, max(len(dst)-at, transcodeScratch))
	}
	t.tmp = append(t.tmp[:0], dst[at:]...)
	dst = dst[:at]
	for i, m := range ms {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, t.tmp[m.start-at:m.end-at]...)
	}
	return append(dst, '}'), true
}

// array appends the canonical JSON of the array at t.p.pos.
func (t *transcoder) array(dst []byte, depth int) ([]byte, bool) {
	p := &t.p
	p.pos++ // '['
	if !p.charge(costArray) {
		return dst, false
	}
	dst = append(dst, '[')
	p.skipSpace()
	if p.pos < len(p.text) && p.text[p.pos] == ']' {
		p.pos++
		return append(dst, ']'), true
	}
	for n := 0; ; n++ {
		if n > 0 {
			dst = append(dst, ',')
		}
		p.skipSpace()
		var ok bool
		if dst, ok = t.value(dst, depth); !ok || !p.charge(costElement) {
			return dst, false
		}
		if done, err := p.next(']', "array"); err != nil {
			return dst, false
		} else if done {
			return append(dst, ']'), true
		}
	}
}

// AppendCanonical reads one value at nesting level depth (the arrays and
// objects around it) as Skip would, with the same checks and charges to the
// budget of the whole text, and appends its canonical JSON (RFC 8785) to
// dst, written as AppendObjectText writes a text's: what Append writes for
// the tree Value would build, without the tree. tc keeps the scratch space
// where objects are sorted from one call to the next (nil: scratch of this
// call's own). It reports false for a value Skip refuses (or a duplicate
// member name, which Parse refuses): the Scanner is then somewhere in the
// value and the caller gives up on the text, for the tree to say what it
// is.
func (s *Scanner) AppendCanonical(dst []byte, depth int, tc *Transcoder) ([]byte, bool) {
	if tc == nil {
		tc = new(Transcoder)
	}
	s.p.skipSpace()
	t := transcoder{p: s.p, spans: tc.spans[:0], tmp: tc.tmp[:0]}
	out, ok := t.value(dst, depth)
	s.p = t.p
	tc.spans, tc.tmp = t.spans[:0], t.tmp[:0]
	return out, ok
}
