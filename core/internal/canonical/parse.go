package canonical

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// SyntaxError describes JSON text that Parse cannot read.
//
// Offset is the number of bytes of input read before the error was found.
type SyntaxError struct {
	Msg    string
	Offset int64
}

// Error returns "canonical: <msg> at byte offset N".
func (e *SyntaxError) Error() string {
	return "canonical: " + e.Msg + " at byte offset " + strconv.FormatInt(e.Offset, 10)
}

// Parse decodes one JSON text (RFC 8259) into a value tree of nil, bool,
// float64, string, []any and map[string]any.
//
// Leading and trailing white space is allowed; anything else after the value is
// an error. Invalid UTF-8 in strings and lone surrogate escapes become U+FFFD.
// Returns a *SyntaxError, with the byte offset, for malformed text, a number
// outside the float64 range or a duplicate object key; a *LimitError for
// nesting deeper than MaxDepth or a tree that would take more memory than
// TextTreeBudget(len(data)) allows.
//
// Strings without escapes share the memory of one copy of data, made once per
// call, instead of one allocation each: a string in the tree keeps that copy
// alive as long as it is referenced.
func Parse(data []byte) (any, error) {
	v, _, err := parse(string(data), TextTreeBudget(len(data)))
	return v, err
}

// ParseRequest is Parse for a whole request, with the request's budget:
// TreeBudget(len(data)) instead of TextTreeBudget, so that a short request
// may nest as deep as MaxDepth allows and a long one is held to
// MaxTreeBytes. Parse is for JSON text found inside a request.
func ParseRequest(data []byte) (any, error) {
	return ParseRequestText(string(data))
}

// ParseRequestText is ParseRequest for a request held as a string. Its
// strings without escapes are slices of text itself (no copy is made), so
// a tree of it keeps text alive as long as one of them is referenced.
func ParseRequestText(text string) (any, error) {
	v, _, err := parse(text, TreeBudget(len(text)))
	return v, err
}

// parse is Parse of text with the budget given; it also returns the tree's
// cost.
func parse(text string, budget int64) (any, int64, error) {
	p := parser{text: text, budget: budget}
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return nil, p.cost, err
	}
	p.skipSpace()
	if p.pos != len(p.text) {
		return nil, p.cost, p.fail("unexpected data after the JSON value")
	}
	return v, p.cost, nil
}

type parser struct {
	// text is the JSON text being read: strings without escapes are
	// sliced from it
	text   string
	pos    int
	cost   int64 // bytes of tree built so far (see the cost constants)
	budget int64 // the most cost may reach
	// discard: values are read, checked and charged as always but not
	// built or boxed (Scanner.Skip); value returns nil for them
	discard bool
	// shared, when not nil, is where strings with escapes are built, one
	// after another (see Scanner.ShareStrings)
	shared *sharedStrings
	// loose: the last string str read is not written in its literal as
	// AppendString writes it (an escape AppendString does not write, or
	// bytes it writes otherwise), so the literal is not its canonical form
	loose bool
}

// charAt names the byte of text at i that makes it invalid, for an error
// message: "character 'x'" for an ASCII character, "byte 0xEF" for a byte
// of 0x80 or more, which is not a character on its own (a UTF-8 lead or
// continuation byte: strconv.QuoteRune would decode it as Latin-1, 'ï'),
// and "byte 0xEF (a UTF-8 byte-order mark, U+FEFF)" when the bytes there
// are EF BB BF, text saved with a BOM.
func charAt(text string, i int) string {
	c := text[i]
	switch {
	case c < 0x80:
		return "character " + strconv.QuoteRune(rune(c))
	case strings.HasPrefix(text[i:], "\xEF\xBB\xBF"):
		return "byte 0xEF (a UTF-8 byte-order mark, U+FEFF)"
	default:
		return "byte 0x" + strings.ToUpper(strconv.FormatUint(uint64(c), 16))
	}
}

func (p *parser) fail(msg string) error {
	return &SyntaxError{Msg: msg, Offset: int64(p.pos)}
}

// charge adds n bytes to the tree's cost and reports whether it is still
// within the budget.
func (p *parser) charge(n int64) bool {
	p.cost += n
	return p.cost <= p.budget
}

func (p *parser) overBudget() error {
	return &LimitError{Bound: "value_bytes", Limit: p.budget, Count: p.cost, Offset: int64(p.pos)}
}

func (p *parser) skipSpace() {
	for p.pos < len(p.text) {
		switch p.text[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (any, error) {
	if p.pos >= len(p.text) {
		if len(p.text) == 0 {
			return nil, p.fail("empty input")
		}
		return nil, p.fail("unexpected end of input")
	}
	switch c := p.text[p.pos]; {
	case c == '{' || c == '[':
		if depth >= MaxDepth {
			return nil, &LimitError{Bound: "depth", Limit: MaxDepth, Count: int64(depth + 1), Offset: int64(p.pos)}
		}
		if c == '{' {
			return p.object(depth + 1)
		}
		return p.array(depth + 1)
	case c == '"':
		s, err := p.str()
		if err != nil || s == "" {
			return s, err // the empty string is boxed without allocating
		}
		if !p.charge(costString) {
			return nil, p.overBudget()
		}
		if p.discard {
			return nil, nil // not boxed: boxing a string allocates
		}
		return s, nil
	case c == '-' || (c >= '0' && c <= '9'):
		if p.discard {
			_, err := p.float() // charged as number charges it, not boxed
			return nil, err
		}
		return p.number()
	case c == 't':
		return p.literal("true", true)
	case c == 'f':
		return p.literal("false", false)
	case c == 'n':
		return p.literal("null", nil)
	default:
		return nil, p.fail("invalid " + charAt(p.text, p.pos) + " looking for a value")
	}
}

func (p *parser) literal(word string, v any) (any, error) {
	if len(p.text)-p.pos < len(word) || string(p.text[p.pos:p.pos+len(word)]) != word {
		return nil, p.fail("invalid literal, expected " + word)
	}
	p.pos += len(word)
	return v, nil
}

func (p *parser) object(depth int) (any, error) {
	p.pos++ // '{'
	if !p.charge(costObject) {
		return nil, p.overBudget()
	}
	var m map[string]any // discarding: nil, or the set of keys past the 8th
	if !p.discard {
		m = map[string]any{}
	}
	p.skipSpace()
	if p.pos < len(p.text) && p.text[p.pos] == '}' {
		p.pos++
		return m, nil
	}
	// The first keys are checked for duplicates against this list rather
	// than by a map lookup, which costs a hash per key.
	var first [8]string
	n := 0
	for {
		p.skipSpace()
		if p.pos >= len(p.text) || p.text[p.pos] != '"' {
			return nil, p.fail("expected a string object key")
		}
		keyAt := p.pos
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		dup := false
		if n < len(first) {
			for _, f := range first[:n] {
				if f == k {
					dup = true
					break
				}
			}
			first[n] = k
		} else {
			if m == nil { // discarding: the keys are counted from the 9th in a set
				m = make(map[string]any, 2*len(first))
				for _, f := range first {
					m[f] = nil
				}
			}
			_, dup = m[k]
		}
		n++
		if dup {
			return nil, &SyntaxError{Msg: "duplicate object key " + strconv.Quote(k), Offset: int64(keyAt)}
		}
		var c int64
		switch {
		case n == 1:
			c = costObjectGroup
		case n > len(first):
			c = costObjectMember
		}
		if !p.charge(c) {
			return nil, p.overBudget()
		}
		p.skipSpace()
		if p.pos >= len(p.text) || p.text[p.pos] != ':' {
			return nil, p.fail("expected ':' after object key")
		}
		p.pos++
		p.skipSpace()
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		if m != nil {
			m[k] = v
		}
		if done, err := p.next('}', "object"); err != nil {
			return nil, err
		} else if done {
			return m, nil
		}
	}
}

// next reads the white space and the ',' or the close byte that follows a
// member or an element of what ("object" or "array"): done is true after
// the close byte, err a *SyntaxError at the end of input or any other byte.
func (p *parser) next(close byte, what string) (done bool, err error) {
	p.skipSpace()
	if p.pos >= len(p.text) {
		return false, p.fail("unexpected end of input in " + what)
	}
	switch p.text[p.pos] {
	case ',':
		p.pos++
		return false, nil
	case close:
		p.pos++
		return true, nil
	}
	return false, p.fail("expected ',' or '" + string(close) + "' in " + what)
}

func (p *parser) array(depth int) (any, error) {
	p.pos++ // '['
	if !p.charge(costArray) {
		return nil, p.overBudget()
	}
	a := []any{}
	p.skipSpace()
	if p.pos < len(p.text) && p.text[p.pos] == ']' {
		p.pos++
		return arrayValue(a, p.discard), nil
	}
	for {
		p.skipSpace()
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		if !p.charge(costElement) {
			return nil, p.overBudget()
		}
		if !p.discard {
			a = append(a, v)
		}
		if done, err := p.next(']', "array"); err != nil {
			return nil, err
		} else if done {
			return arrayValue(a, p.discard), nil
		}
	}
}

// arrayValue is the value array returns for its elements a: nil when
// discarding (a slice boxed allocates), else a.
func arrayValue(a []any, discard bool) any {
	if discard {
		return nil
	}
	return a
}

// str reads a string literal starting at the opening quote.
func (p *parser) str() (string, error) {
	p.pos++ // opening quote
	start := p.pos
	p.loose = false
	// Fast path: no escapes or control characters, and valid UTF-8: the
	// string is a slice of p.text, no allocation. (The loop keeps its
	// position in a local and passes the bytes that need nothing eight at
	// a time, plainRun.)
	ascii := true
	text, i := p.text, start
	for {
		if i = plainRun(text, i); i >= len(text) {
			break
		}
		c := text[i]
		if c == '"' {
			s := text[start:i]
			if ascii || utf8.ValidString(s) {
				p.pos = i + 1
				return s, nil
			}
			i = start
			break
		}
		if c == '\\' || c < 0x20 {
			break
		}
		ascii = false // c >= 0x80
		i++
	}
	p.pos = i
	// The string is as long as its literal or shorter (escapes decode to
	// fewer bytes; only invalid UTF-8, made U+FFFD, grows): one allocation.
	// (bytes outside ASCII before the first escape are copied as they
	// are: the literal is canonical only if they are valid UTF-8)
	p.loose = !ascii && !utf8.ValidString(p.text[start:p.pos])
	if p.shared != nil {
		return p.sharedStr(start)
	}
	end := p.pos
	for end < len(p.text) && p.text[end] != '"' {
		if p.text[end] == '\\' {
			end++
		}
		end++
	}
	n := min(end, len(p.text)) - start
	var buf strings.Builder
	buf.Grow(n)
	buf.WriteString(p.text[start:p.pos])
	if _, err := p.unescape(&buf); err != nil {
		return "", err
	}
	p.cost += int64(buf.Cap()) // a string with escapes is built; the caller's next charge checks
	return buf.String(), nil
}

// plainByte holds, for each byte, whether a string literal may hold it as
// it is with nothing to check: ASCII from U+0020 on, but '"' and '\\'.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// unescape writes the rest of a string literal to buf, decoded, from p.pos
// to its closing quote (read), and reports whether it held invalid UTF-8
// (each such byte written as U+FFFD).
func (p *parser) unescape(buf *strings.Builder) (invalid bool, err error) {
	for p.pos < len(p.text) {
		c := p.text[p.pos]
		switch {
		case c == '"':
			p.pos++
			return invalid, nil
		case c < 0x20:
			return false, p.fail("control character in string")
		case c == '\\':
			if p.pos+1 >= len(p.text) {
				return false, p.fail("unexpected end of input in string escape")
			}
			e := p.text[p.pos+1]
			p.pos += 2
			switch e {
			case '/':
				buf.WriteByte(e)
				p.loose = true // AppendString writes '/' as itself
			case '"', '\\':
				buf.WriteByte(e)
			case 'b':
				buf.WriteByte('\b')
			case 'f':
				buf.WriteByte('\f')
			case 'n':
				buf.WriteByte('\n')
			case 'r':
				buf.WriteByte('\r')
			case 't':
				buf.WriteByte('\t')
			case 'u':
				r, err := p.unicodeEscape()
				if err != nil {
					return false, err
				}
				buf.WriteRune(r)
			default:
				return false, p.fail("invalid escape " + charAt(p.text, p.pos-1))
			}
		case c < 0x80:
			// the run of bytes up to the next escape, quote, control or
			// non-ASCII byte, at once
			j := plainRun(p.text, p.pos+1)
			buf.WriteString(p.text[p.pos:j])
			p.pos = j
		default:
			r, size := utf8.DecodeRuneInString(p.text[p.pos:])
			if r == utf8.RuneError && size <= 1 {
				buf.WriteString("\uFFFD")
				invalid, p.loose = true, true
				p.pos++
				continue
			}
			buf.WriteString(p.text[p.pos : p.pos+size])
			p.pos += size
		}
	}
	return false, p.fail("unexpected end of input in string")
}

// unicodeEscape reads the four hex digits of a \u escape at p.pos (after
// the "\u"), and the low half after a high surrogate's, and returns the
// code point (U+FFFD for a lone surrogate), setting loose where
// AppendString would write it otherwise.
func (p *parser) unicodeEscape() (rune, error) {
	r, ok := p.hex4()
	if !ok {
		return 0, p.fail("invalid \\u escape")
	}
	// AppendString writes \u00xx (lower-case hex) for a control
	// character without a short escape, and nothing else so
	if r >= 0x20 || r == '\b' || r == '\f' || r == '\n' || r == '\r' || r == '\t' ||
		p.text[p.pos-4] != '0' || p.text[p.pos-3] != '0' || p.text[p.pos-2] != hexDigits[r>>4] || p.text[p.pos-1] != hexDigits[r&0xF] {
		p.loose = true
	}
	if utf16.IsSurrogate(r) {
		r2 := utf8.RuneError
		if r < 0xDC00 && p.pos+1 < len(p.text) && p.text[p.pos] == '\\' && p.text[p.pos+1] == 'u' {
			save := p.pos
			p.pos += 2
			low, ok := p.hex4()
			if ok && low >= 0xDC00 && low <= 0xDFFF {
				r2 = utf16.DecodeRune(r, low)
			} else {
				p.pos = save // lone high surrogate; reread what follows
			}
		}
		r = r2
	}
	return r, nil
}

func (p *parser) hex4() (rune, bool) {
	if len(p.text)-p.pos < 4 {
		return 0, false
	}
	var r rune
	for i := 0; i < 4; i++ {
		c := p.text[p.pos+i]
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	p.pos += 4
	return r, true
}

// integer reads an integer of 1 to 15 digits at p.pos, without a leading
// zero and not followed by a fraction, an exponent or more digits: a number
// a float64 holds exactly. It returns its magnitude, its sign and where it
// ends, without moving p.pos; ok is false for any other number.
func (p *parser) integer() (u uint64, neg bool, end int, ok bool) {
	neg = p.text[p.pos] == '-'
	i := p.pos
	if neg {
		i++
	}
	d := i
	for d < len(p.text) && d-i < 16 && p.text[d] >= '0' && p.text[d] <= '9' {
		u = u*10 + uint64(p.text[d]-'0')
		d++
	}
	digits := d - i
	ok = digits > 0 && digits <= 15 && (digits == 1 || p.text[i] != '0') &&
		(d == len(p.text) || (p.text[d] != '.' && p.text[d] != 'e' && p.text[d] != 'E' && (p.text[d] < '0' || p.text[d] > '9')))
	return u, neg, d, ok
}

func (p *parser) number() (any, error) {
	if u, neg, d, ok := p.integer(); ok && !neg && u < uint64(len(smallNumbers)) {
		p.pos = d
		return smallNumbers[u], nil // preboxed: no cost
	}
	f, err := p.float()
	if err != nil {
		return nil, err
	}
	return f, nil
}

// float reads a number as number does, charged as number charges it, but
// unboxed.
func (p *parser) float() (float64, error) {
	start := p.pos
	// Fast path: an integer of at most 15 digits is exact as a float64, so
	// converting it directly gives what ParseFloat gives.
	if u, neg, d, ok := p.integer(); ok {
		p.pos = d
		if !neg && u < uint64(len(smallNumbers)) {
			return float64(u), nil
		}
		if !p.charge(costNumber) {
			return 0, p.overBudget()
		}
		if neg {
			return -float64(u), nil
		}
		return float64(u), nil
	}
	if p.text[p.pos] == '-' {
		p.pos++
	}
	digits := func() int {
		n := 0
		for p.pos < len(p.text) && p.text[p.pos] >= '0' && p.text[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.pos < len(p.text) && p.text[p.pos] == '0' {
		p.pos++
	} else if digits() == 0 {
		return 0, p.fail("invalid number")
	}
	if p.pos < len(p.text) && p.text[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return 0, p.fail("invalid number: no digits after '.'")
		}
	}
	if p.pos < len(p.text) && (p.text[p.pos] == 'e' || p.text[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.text) && (p.text[p.pos] == '+' || p.text[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return 0, p.fail("invalid number: no digits in exponent")
		}
	}
	f, err := strconv.ParseFloat(p.text[start:p.pos], 64)
	if err != nil {
		return 0, &SyntaxError{Msg: "number out of the float64 range", Offset: int64(start)}
	}
	if !p.charge(costNumber) {
		return 0, p.overBudget()
	}
	return f, nil
}
