package canonical

import "strings"

// sharedBlock is the least a shared string buffer grows by, in bytes.
const sharedBlock = 4 << 10

// ShareStrings has the Scanner build every string with escapes it reads
// from then on into one buffer, one after another (a new buffer of at least
// 4 KiB when one is full), instead of one allocation each: the strings are
// the same, and they keep that buffer alive as long as any is referenced.
// Such a string is charged a little more than the copy Parse builds of it
// (its literal's length, a quarter more and 16 bytes, or three times what
// it decodes to and 16 bytes when it holds invalid UTF-8: the Go allocator
// and append round a copy up by less, see TestShareStrings_chargesAtLeastParse),
// so a text the Scanner keeps within the budget is one Parse keeps within
// it too.
func (s *Scanner) ShareStrings() {
	if s.p.shared == nil {
		s.p.shared = new(strings.Builder)
	}
}

// sharedStr is str for a literal of n bytes from start whose first escape
// (or invalid byte) is at p.pos, built into p.shared.
func (p *parser) sharedStr(start, n int) (string, error) {
	b := p.shared
	if b.Cap()-b.Len() < n {
		*b = strings.Builder{} // the strings built so far keep the last buffer
		b.Grow(max(n, sharedBlock))
	}
	at := b.Len()
	b.WriteString(p.text[start:p.pos])
	invalid, err := p.unescape(b)
	if err != nil {
		return "", err
	}
	cost := int64(n + n/4 + 16)
	if invalid {
		cost = 3*int64(b.Len()-at) + 16
	}
	p.cost += cost
	return b.String()[at:], nil
}
