package canonical

// Keys is the set of member names an object reader takes (Scanner.Key,
// Scanner.EachKey), up to 64, made once (NewKeys) and looked up in a step
// or two: a name written as the bindings write it, plain bytes with its
// quotes and ':' straight after and no white space before, is found by its
// first byte and compared as two 64-bit words with its literal (`"name":`),
// where Member would scan it byte run by byte run and the reader compare
// the string it returned with each name in turn.
type Keys struct {
	names []string
	lits  []keyLit
	// first holds, for a name's first byte, 1 + the index of the first
	// name that starts with it (0: none); next, for each name, 1 + the
	// index of the next name with the same first byte.
	first [256]uint8
	next  []uint8
}

// keyLit is a name's literal (`"name":`) as the two little-endian words of
// its first sixteen bytes, each with the mask of the bytes it has; n is the
// literal's length. A name whose literal is longer than sixteen bytes has
// no keyLit (n 0) and is found by Member alone.
type keyLit struct {
	lo, hi, loMask, hiMask uint64
	n                      int
}

// NewKeys returns the Keys of names: each non-empty, of bytes a string
// literal holds as they are (plainByte: ASCII from U+0020 on but '"' and
// '\\'), none twice, at most 64 (Key's index is a bit of a uint64 in
// EachKey). It panics otherwise: the names are the reader's constants.
func NewKeys(names ...string) *Keys {
	if len(names) > 64 {
		panic("canonical.NewKeys: more than 64 names")
	}
	k := &Keys{names: names, lits: make([]keyLit, len(names)), next: make([]uint8, len(names))}
	for i, name := range names {
		if name == "" || plainRun(name, 0) != len(name) {
			panic("canonical.NewKeys: a name must be plain bytes: " + name)
		}
		for _, n := range names[:i] {
			if n == name {
				panic("canonical.NewKeys: a name twice: " + name)
			}
		}
		lit := `"` + name + `":`
		if len(lit) > 16 {
			continue
		}
		var b [16]byte
		copy(b[:], lit)
		e := keyLit{lo: load64(b[:], 0), hi: load64(b[:], 8), n: len(lit)}
		e.loMask, e.hiMask = byteMask(min(len(lit), 8)), byteMask(max(len(lit)-8, 0))
		k.lits[i] = e
		// appended to the chain of its first byte
		p := &k.first[name[0]]
		for *p != 0 {
			p = &k.next[*p-1]
		}
		*p = uint8(i + 1)
	}
	return k
}

// byteMask is the mask of the low n bytes of a word (n from 0 to 8).
func byteMask(n int) uint64 {
	if n == 8 {
		return ^uint64(0)
	}
	return 1<<(8*n) - 1
}

// load64 is the eight bytes of s from i as a little-endian word (one load
// on amd64, arm64 and wasm, as in plainRun).
func load64[T string | []byte](s T, i int) uint64 {
	t := s[i : i+8]
	return uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
		uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
}

// Index is the index of name in k, or -1 when k does not hold it.
func (k *Keys) Index(name string) int {
	for i, n := range k.names {
		if n == name {
			return i
		}
	}
	return -1
}

// Key reads the next member name of an object whose '{' was read, after n
// members, exactly as Member does (the same texts accepted, the Scanner in
// the same state after it), and returns the name's index in k, -1 for a
// name k does not hold: more is false at the closing '}', ok false for
// anything but a name and its ':' (or the '}').
func (s *Scanner) Key(n int, k *Keys) (i int, more, ok bool) {
	p := &s.p
	pos := p.pos
	if pos < len(p.text) && p.text[pos] == '}' {
		p.pos = pos + 1
		return -1, false, true
	}
	if n > 0 && pos < len(p.text) && p.text[pos] == ',' {
		pos++
	} else if n > 0 {
		pos = -1 // white space, or no ',': as Member reads it
	}
	if pos >= 0 && pos+16 <= len(p.text) && p.text[pos] == '"' {
		lo, hi := load64(p.text, pos), load64(p.text, pos+8)
		for j := k.first[p.text[pos+1]]; j != 0; j = k.next[j-1] {
			if e := &k.lits[j-1]; lo&e.loMask == e.lo && hi&e.hiMask == e.hi {
				// as Member's read of a plain name and its ':'
				s.lit, p.pos, p.loose = pos, pos+e.n, false
				return int(j - 1), true, true
			}
		}
	}
	name, more, ok := s.Member(n)
	if !ok || !more {
		return -1, more, ok
	}
	return k.Index(name), true, true
}

// EachKey reads an object at s as EachOnce does, its names looked up in k
// (Key): member(i) reads the value of k's i-th name and reports whether it
// takes it. It returns the set of the names read (bit i for name i), and ok
// false for a name k does not hold, a value member refuses, a duplicate
// (which Parse refuses too) or anything EachOnce refuses; the object is
// charged as Parse charges it (Object).
func (s *Scanner) EachKey(k *Keys, member func(i int) bool) (seen uint64, ok bool) {
	if !s.Byte('{') {
		return 0, false
	}
	n := 0
	for ; ; n++ {
		i, more, ok := s.Key(n, k)
		if !ok {
			return 0, false
		}
		if !more {
			break
		}
		if i < 0 || seen&(1<<i) != 0 || !member(i) {
			return 0, false
		}
		seen |= 1 << i
	}
	if !s.Object(n) {
		return 0, false
	}
	return seen, true
}
