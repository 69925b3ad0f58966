package canonical

import (
	"strings"
	"unicode/utf8"
)

// sharedBlock is the least a shared string buffer grows by, in bytes.
const sharedBlock = 4 << 10

// sharedStrings is where a Scanner that shares strings builds them: each
// string with escapes is decoded into scratch (room at first), then copied
// into b after the strings before it.
type sharedStrings struct {
	b       strings.Builder
	scratch []byte
	room    [512]byte
}

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
		sh := new(sharedStrings)
		sh.scratch = sh.room[:0]
		s.p.shared = sh
	}
}

// sharedStr is str for a literal from start whose first escape (or invalid
// byte) is at p.pos, built into p.shared: decoded into its scratch in one
// pass (which finds where the literal ends), then copied after the strings
// before it, in a new buffer when what is left of the last one is shorter
// than the literal.
func (p *parser) sharedStr(start int) (string, error) {
	sh := p.shared
	esc := p.pos
	invalid, err := p.decode(&sh.scratch)
	if err != nil {
		return "", err
	}
	n := p.pos - 1 - start // the literal, without its quotes
	b := &sh.b
	if b.Cap()-b.Len() < n {
		*b = strings.Builder{} // the strings built so far keep the last buffer
		b.Grow(max(n, sharedBlock))
	}
	at := b.Len()
	b.WriteString(p.text[start:esc])
	b.Write(sh.scratch)
	cost := int64(n + n/4 + 16)
	if invalid {
		cost = 3*int64(b.Len()-at) + 16
	}
	p.cost += cost
	return b.String()[at:], nil
}

// decode is unescape into *dst (emptied first, grown as needed): the rest
// of the literal from p.pos to its closing quote (read), decoded, with the
// same errors at the same offsets, loose set alike, and whether it held
// invalid UTF-8.
func (p *parser) decode(dst *[]byte) (invalid bool, err error) {
	text, i := p.text, p.pos
	b := (*dst)[:0]
	defer func() { *dst = b }()
	for i < len(text) {
		if j := plainRun(text, i); j > i {
			b = append(b, text[i:j]...)
			if i = j; i >= len(text) {
				break
			}
		}
		c := text[i]
		switch {
		case c == '"':
			p.pos = i + 1
			return invalid, nil
		case c < 0x20:
			p.pos = i
			return false, p.fail("control character in string")
		case c == '\\':
			if i+1 >= len(text) {
				p.pos = i
				return false, p.fail("unexpected end of input in string escape")
			}
			e := text[i+1]
			i += 2
			switch e {
			case '/':
				b = append(b, e)
				p.loose = true // AppendString writes '/' as itself
			case '"', '\\':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				p.pos = i
				r, err := p.unicodeEscape()
				if err != nil {
					return false, err
				}
				b = utf8.AppendRune(b, r)
				i = p.pos
			default:
				p.pos = i
				return false, p.fail("invalid escape " + charAt(text, i-1))
			}
		default:
			r, size := utf8.DecodeRuneInString(text[i:])
			if r == utf8.RuneError && size <= 1 {
				b = append(b, "\uFFFD"...)
				invalid, p.loose = true, true
				i++
				continue
			}
			b = append(b, text[i:i+size]...)
			i += size
		}
	}
	p.pos = i
	return false, p.fail("unexpected end of input in string")
}
