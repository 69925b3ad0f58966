package canonical

// Scanner reads one JSON text member by member, for a decoder that knows the
// shape it expects and wants no value tree for the parts it reads itself
// (the typed fast paths of Invoke). It reads strings exactly as Parse does
// (escapes decoded, invalid UTF-8 and lone surrogates made U+FFFD) and
// builds a value tree, with Parse's depth and memory bounds, only where
// Value is called.
//
// Every method reports false (or an error) when the text is not what it
// expected; the Scanner's position is then undefined, and the caller gives
// the whole text to Parse instead, which says what is wrong. A Scanner never
// accepts a text Parse refuses for the parts it read, so a decoder that
// falls back whenever it is unsure answers as Parse's caller would.
type Scanner struct {
	p parser
}

// NewScanner returns a Scanner at the start of data with the value-tree
// budget of a whole request (TreeBudget).
func NewScanner(data []byte) *Scanner {
	return &Scanner{p: parser{data: data, text: string(data), budget: TreeBudget(len(data))}}
}

// Next skips white space and returns the next byte without reading it, or
// 0 at the end of the text.
func (s *Scanner) Next() byte {
	s.p.skipSpace()
	if s.p.pos >= len(s.p.data) {
		return 0
	}
	return s.p.data[s.p.pos]
}

// Byte skips white space and reads c, reporting whether it was next.
func (s *Scanner) Byte(c byte) bool {
	if s.Next() != c {
		return false
	}
	s.p.pos++
	return true
}

// String skips white space and reads a string literal.
func (s *Scanner) String() (string, bool) {
	if s.Next() != '"' {
		return "", false
	}
	v, err := s.p.str()
	return v, err == nil
}

// Bool skips white space and reads true or false.
func (s *Scanner) Bool() (bool, bool) {
	switch s.Next() {
	case 't':
		_, err := s.p.literal("true", true)
		return true, err == nil
	case 'f':
		_, err := s.p.literal("false", false)
		return false, err == nil
	}
	return false, false
}

// Value skips white space and reads one value as a tree, as Parse would at
// nesting level depth (the number of arrays and objects around it), charged
// to the budget of the whole text.
func (s *Scanner) Value(depth int) (any, error) {
	s.p.skipSpace()
	return s.p.value(depth)
}

// End reports whether only white space is left.
func (s *Scanner) End() bool { return s.Next() == 0 && s.p.pos == len(s.p.data) }

// The budget is charged by the decoder for what it reads without Value, as
// Parse would charge the tree of it, so that a text is refused at the same
// bound either way. Each reports whether the budget still holds.

// Object charges an object of n members (n at most 8).
func (s *Scanner) Object(n int) bool {
	c := int64(costObject)
	if n > 0 {
		c += costObjectGroup
	}
	return s.p.charge(c)
}

// Array charges an array of n elements.
func (s *Scanner) Array(n int) bool { return s.p.charge(costArray + int64(n)*costElement) }

// Str charges the string value v (a member name costs nothing).
func (s *Scanner) Str(v string) bool {
	if v == "" {
		return true
	}
	return s.p.charge(costString)
}

// Member reads the next member name of an object whose '{' was read, after
// n members: more is false at the closing '}', ok false for anything but a
// name and its ':' (or the '}').
func (s *Scanner) Member(n int) (name string, more, ok bool) {
	if s.Byte('}') {
		return "", false, true
	}
	if n > 0 && !s.Byte(',') {
		return "", false, false
	}
	name, ok = s.String()
	if !ok || !s.Byte(':') {
		return "", false, false
	}
	return name, true, true
}
