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
	// lit is where the string String read last starts (see Quoted)
	lit int
}

// NewScanner returns a Scanner at the start of text, a whole request, with
// its value-tree budget (TreeBudget). Its strings without escapes, and the
// texts Canonical returns, are slices of text itself: no copy is made.
func NewScanner(text string) *Scanner {
	return &Scanner{p: parser{text: text, budget: TreeBudget(len(text))}}
}

// Mark is a Scanner's place in its text (Scanner.Mark), to read from again.
type Mark struct {
	pos, lit int
	cost     int64
}

// Mark returns the Scanner's place, to go back to with Back: a decoder that
// tries a faster reading of a value and gives up part way reads it again
// as before.
func (s *Scanner) Mark() Mark { return Mark{s.p.pos, s.lit, s.p.cost} }

// Back returns the Scanner to the place m that Mark returned (what it read
// since is charged no more).
func (s *Scanner) Back(m Mark) { s.p.pos, s.lit, s.p.cost = m.pos, m.lit, m.cost }

// Next skips white space and returns the next byte without reading it, or
// 0 at the end of the text.
func (s *Scanner) Next() byte {
	s.p.skipSpace()
	if s.p.pos >= len(s.p.text) {
		return 0
	}
	return s.p.text[s.p.pos]
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
	// the common string, straight after what was read: plain bytes to its
	// closing quote, read as str reads them (a slice of the text)
	p := &s.p
	if i := p.pos; i < len(p.text) && p.text[i] == '"' {
		if j := plainRun(p.text, i+1); j < len(p.text) && p.text[j] == '"' {
			s.lit, p.pos, p.loose = i, j+1, false
			return p.text[i+1 : j], true
		}
	}
	if s.Next() != '"' {
		return "", false
	}
	s.lit = s.p.pos
	v, err := s.p.str()
	return v, err == nil
}

// Quoted returns the literal of the string String (or StringMember) read
// last, its quotes included, and whether that literal is the string's
// canonical form (RFC 8785 section 3.2.2.2: exactly what AppendString
// writes for it, escapes included), so that a writer may copy the literal
// instead of encoding the string again. It is valid until the Scanner
// reads on.
func (s *Scanner) Quoted() (string, bool) {
	return s.p.text[s.lit:s.p.pos], !s.p.loose
}

// Again reads a string literal that is byte for byte lit, the literal of
// a string read before (Quoted's first answer after String) for which
// String and Str charged cost, without decoding it again: a decoder that
// meets the same string twice keeps what it made of the first. It charges
// cost, as String and Str would for the same literal, and reports whether
// it read lit; when lit is not next, or the budget would not hold the
// charge, it reads and charges nothing (String then reads what is there).
// Quoted is not to be asked after Again.
func (s *Scanner) Again(lit string, cost int64) bool {
	if len(lit) < 2 || s.Next() != '"' || len(s.p.text)-s.p.pos < len(lit) || s.p.text[s.p.pos:s.p.pos+len(lit)] != lit {
		return false
	}
	if s.p.cost+cost > s.p.budget {
		return false
	}
	s.lit = s.p.pos
	s.p.pos += len(lit)
	s.p.cost += cost
	return true
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

// Number skips white space and reads a number as Value would read it (the
// same checks and charges to the budget), unboxed: a decoder that wants a
// float64 gets it without the allocation boxing it into an any costs. ok is
// false when the next value is no number or not a valid one.
func (s *Scanner) Number() (float64, bool) {
	s.p.skipSpace()
	p := &s.p
	if p.pos >= len(p.text) || (p.text[p.pos] != '-' && (p.text[p.pos] < '0' || p.text[p.pos] > '9')) {
		return 0, false
	}
	f, err := p.float()
	return f, err == nil
}

// Skip reads one value as Value would (the same checks, errors and charges
// to the budget) without building its objects and arrays, for a member the
// decoder must hold to Parse's rules but does not use. A string with
// escapes is still decoded, as Value charges the copy it builds.
func (s *Scanner) Skip(depth int) error {
	s.p.skipSpace()
	s.p.discard = true
	_, err := s.p.value(depth)
	s.p.discard = false
	return err
}

// Rest returns how many bytes of the text are left to read, in bytes.
func (s *Scanner) Rest() int { return len(s.p.text) - s.p.pos }

// End reports whether only white space is left.
func (s *Scanner) End() bool { return s.Next() == 0 && s.p.pos == len(s.p.text) }

// The budget is charged by the decoder for what it reads without Value, as
// Parse would charge the tree of it, so that a text is refused at the same
// bound either way. Each reports whether the budget still holds.

// Object charges an object of n members.
func (s *Scanner) Object(n int) bool {
	c := int64(costObject)
	if n > 0 {
		c += costObjectGroup
	}
	if n > 8 {
		c += int64(n-8) * costObjectMember
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
	c := s.Next()
	if c == '}' {
		s.p.pos++
		return "", false, true
	}
	if n > 0 {
		if c != ',' {
			return "", false, false
		}
		s.p.pos++
		c = s.Next()
	}
	if c != '"' {
		return "", false, false
	}
	s.lit = s.p.pos
	// the common name: plain bytes, its quote and ':' straight after, read
	// as str and Byte(':') read it (no escape: nothing to decode or charge)
	p := &s.p
	if j := plainRun(p.text, p.pos+1); j+1 < len(p.text) && p.text[j] == '"' && p.text[j+1] == ':' {
		name = p.text[p.pos+1 : j]
		p.pos, p.loose = j+2, false
		return name, true, true
	}
	name, err := s.p.str()
	if err != nil || !s.Byte(':') {
		return "", false, false
	}
	return name, true, true
}

// Null skips white space and reads null, reporting whether it was next.
func (s *Scanner) Null() bool {
	if s.Next() != 'n' {
		return false
	}
	_, err := s.p.literal("null", nil)
	return err == nil
}

// Elem reads what comes before the next element of an array whose '[' was
// read, after n elements: more is false at the closing ']', ok false for
// anything but a ',' (or nothing, before the first) and the start of a value.
func (s *Scanner) Elem(n int) (more, ok bool) {
	if s.Byte(']') {
		return false, true
	}
	if n > 0 && !s.Byte(',') {
		return false, false
	}
	return true, s.Next() != 0
}

// InBudget reports whether what was read and charged so far is within the
// budget. Parse checks the budget at its next charge after a string with
// escapes (whose built copy it counts); a decoder that answers without
// Parse checks it once more at the end, so that it never accepts a text
// Parse might refuse.
func (s *Scanner) InBudget() bool { return s.p.cost <= s.p.budget }

// Cost is what was read and charged so far, in bytes of value tree: a
// decoder that holds the text to a smaller budget than TreeBudget (as Parse
// holds a JSON text found inside a request to TextTreeBudget) compares it.
func (s *Scanner) Cost() int64 { return s.p.cost }

// Members reads an object at its '{' member by member: each member's name
// and ':', then member(name), which reads the value and reports whether it
// was one the decoder takes; then the '}', the object charged as Parse
// charges one of that many members (Object). It reports false for anything
// else: a decoder's one loop over the members of an object.
func (s *Scanner) Members(member func(name string) bool) bool {
	_, ok := EachOnce(s, func(name string) (uint8, bool) { return 0, member(name) })
	return ok
}

// Bits is a set of an object's members, a bit each (EachOnce).
type Bits interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64
}

// EachOnce reads an object at s as Members does, for a decoder each member
// of which may come once: member reads the value of name and returns the
// bit that stands for it (0 for a member the decoder refuses a duplicate of
// itself), with ok false for a name it does not take or a value it refuses.
// It returns the bits of the members read, and ok false for anything
// Members refuses or a member whose bit was read already (a duplicate,
// which Parse refuses too).
func EachOnce[B Bits](s *Scanner, member func(name string) (bit B, ok bool)) (seen B, ok bool) {
	// (Members is EachOnce with no bits: this loop, with one call less per
	// member than a loop of Members would make)
	if !s.Byte('{') {
		return 0, false
	}
	n := 0
	for ; ; n++ {
		name, more, ok := s.Member(n)
		if !ok {
			return 0, false
		}
		if !more {
			break
		}
		bit, ok := member(name)
		if !ok || seen&bit != 0 {
			return 0, false
		}
		seen |= bit
	}
	if !s.Object(n) {
		return 0, false
	}
	return seen, true
}

// ReadObject reads an object at its '{' whose member names are among names
// (at most 64), each at most once, reading each member's value with
// member(i), i the index of its name in names (EachOnce). It returns the
// set of the names met (bit i for names[i]), and ok false for a name not in
// names, a duplicate name (which Parse refuses), a member whose member(i)
// reports false, or anything but an object.
func (s *Scanner) ReadObject(names []string, member func(i int) bool) (seen uint64, ok bool) {
	return EachOnce(s, func(key string) (uint64, bool) {
		i := 0
		for i < len(names) && names[i] != key {
			i++
		}
		if i == len(names) || i >= 64 {
			return 0, false
		}
		return 1 << i, member(i)
	})
}

// StringMember reads a string value into *v, charging it as Parse would.
func (s *Scanner) StringMember(v *string) bool {
	var ok bool
	*v, ok = s.String()
	return ok && s.Str(*v)
}
