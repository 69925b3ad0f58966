package canonical

import "unicode/utf8"

// Canonical reads one value at nesting level depth (the arrays and objects
// around it), as Value would but without building it, and returns its text
// when that text is already the canonical form (RFC 8785) of the value, so
// that Append would write exactly those bytes for the tree Value reads: no
// white space, object members in ascending order of their names
// (LessUTF16), strings without escapes, and numbers only as integers of at
// most 15 digits (read exactly, never -0). visit is called with every string
// in order, member names with name true; it may refuse one (false). The
// budget is charged as Value charges the tree.
//
// ok is false for a value that is not in that form, not JSON, nested past
// MaxDepth, past the budget or refused by visit: the Scanner is then where it
// was, nothing charged, and the caller may read the value with Value.
func (s *Scanner) Canonical(depth int, visit func(s string, name bool) bool) (raw string, ok bool) {
	s.p.skipSpace()
	pos, cost := s.p.pos, s.p.cost
	if !s.p.canonical(depth, visit) || s.p.cost > s.p.budget {
		s.p.pos, s.p.cost = pos, cost
		return "", false
	}
	return s.p.text[pos:s.p.pos], true
}

// canonical reads a value in canonical form at p.pos (see Scanner.Canonical),
// charging its tree, and reports whether it was one.
func (p *parser) canonical(depth int, visit func(string, bool) bool) bool {
	if p.pos >= len(p.text) {
		return false
	}
	switch c := p.text[p.pos]; {
	case c == '"':
		v, ok := p.plainString()
		if !ok || !visit(v, false) {
			return false
		}
		if v != "" {
			p.cost += costString
		}
		return true
	case c == '{':
		if depth >= MaxDepth {
			return false
		}
		p.pos++
		p.cost += costObject
		prev := ""
		for n := 0; ; n++ {
			if p.pos >= len(p.text) {
				return false
			}
			if p.text[p.pos] == '}' && n == 0 {
				p.pos++
				return true
			}
			k, ok := p.plainString()
			if !ok || n > 0 && !LessUTF16(prev, k) || !visit(k, true) ||
				p.pos >= len(p.text) || p.text[p.pos] != ':' {
				return false
			}
			switch {
			case n == 0:
				p.cost += costObjectGroup
			case n >= 8:
				p.cost += costObjectMember
			}
			p.pos++
			if !p.canonical(depth+1, visit) || p.pos >= len(p.text) {
				return false
			}
			prev = k
			switch p.text[p.pos] {
			case ',':
				p.pos++
			case '}':
				p.pos++
				return true
			default:
				return false
			}
		}
	case c == '[':
		if depth >= MaxDepth {
			return false
		}
		p.pos++
		p.cost += costArray
		if p.pos < len(p.text) && p.text[p.pos] == ']' {
			p.pos++
			return true
		}
		for {
			if !p.canonical(depth+1, visit) || p.pos >= len(p.text) {
				return false
			}
			p.cost += costElement
			switch p.text[p.pos] {
			case ',':
				p.pos++
			case ']':
				p.pos++
				return true
			default:
				return false
			}
		}
	case c == '-' || c >= '0' && c <= '9':
		return p.plainInteger()
	case c == 't':
		_, err := p.literal("true", true)
		return err == nil
	case c == 'f':
		_, err := p.literal("false", false)
		return err == nil
	case c == 'n':
		_, err := p.literal("null", nil)
		return err == nil
	}
	return false
}

// plainString reads a string literal at p.pos that has no escape and no
// control character and is valid UTF-8: its canonical form is itself.
func (p *parser) plainString() (string, bool) {
	if p.pos >= len(p.text) || p.text[p.pos] != '"' {
		return "", false
	}
	start := p.pos + 1
	ascii := true
	for i := start; i < len(p.text); i++ {
		if i = plainRun(p.text, i); i >= len(p.text) {
			break
		}
		switch c := p.text[i]; {
		case c == '"':
			s := p.text[start:i]
			if !ascii && !utf8.ValidString(s) {
				return "", false
			}
			p.pos = i + 1
			return s, true
		case c == '\\' || c < 0x20:
			return "", false
		case c >= 0x80:
			ascii = false
		}
	}
	return "", false
}

// plainInteger reads 0 or an integer of 1 to 15 digits without a leading
// zero (negative but not -0) at p.pos, charged as number charges it: the
// numbers Parse reads exactly and AppendFloat writes as they are.
func (p *parser) plainInteger() bool {
	u, neg, end, ok := p.integer()
	if !ok || neg && u == 0 {
		return false
	}
	p.pos = end
	if neg || u >= uint64(len(smallNumbers)) {
		p.cost += costNumber
	}
	return true
}

// NewTextScanner returns a Scanner at the start of s, a JSON text found
// inside a request, with the budget Parse holds such a text to
// (TextTreeBudget). Its strings without escapes are slices of s.
func NewTextScanner(s string) *Scanner {
	return &Scanner{p: parser{text: s, budget: TextTreeBudget(len(s))}}
}

// Literal reads the bytes lit exactly where the Scanner is, white space
// not skipped, reporting whether they were next: for a decoder that holds a
// text to one canonical form.
func (s *Scanner) Literal(lit string) bool {
	if len(s.p.text)-s.p.pos < len(lit) || s.p.text[s.p.pos:s.p.pos+len(lit)] != lit {
		return false
	}
	s.p.pos += len(lit)
	return true
}

// Plain reads a string literal exactly where the Scanner is (white space
// not skipped) that has no escape and no control character and is valid
// UTF-8, so that its canonical form (RFC 8785) is itself, and returns its
// value, nothing charged. ok is false for any other value, the Scanner
// then where it was.
func (s *Scanner) Plain() (string, bool) {
	return s.p.plainString()
}

// CanonicalValue is Canonical for a value exactly where the Scanner is
// (white space not skipped) that also reads it as Value does: its text in
// canonical form and its tree, charged to the budget once, as Value charges
// it. ok is false as Canonical reports it, the Scanner then where it was.
func (s *Scanner) CanonicalValue(depth int, visit func(s string, name bool) bool) (raw string, v any, ok bool) {
	pos, cost := s.p.pos, s.p.cost
	if !s.p.canonical(depth, visit) || s.p.cost > s.p.budget {
		s.p.pos, s.p.cost = pos, cost
		return "", nil, false
	}
	end := s.p.pos
	s.p.pos, s.p.cost = pos, cost
	v, err := s.p.value(depth)
	if err != nil || s.p.pos != end {
		s.p.pos, s.p.cost = pos, cost
		return "", nil, false // not reached: Value reads what canonical read
	}
	return s.p.text[pos:end], v, true
}
