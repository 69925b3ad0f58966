package sanitize

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// visible returns s without the characters a reader cannot see but a model
// reads: terminal escape sequences, control characters, bidirectional
// controls, zero-width and other default-ignorable characters, and tag
// characters. s itself is returned (no copy) when it holds none. It runs
// before every redaction pass (redact), so a hidden character cannot split
// a secret the passes would find ("sk-proj-\u200b…").
//
// The rule, in order of the code points (docs/sanitize.md, "Invisible
// characters"):
//
//   - An escape sequence is removed whole (ECMA-48, 5th edition, 5.3-5.6
//     and 8.3): a control sequence, ESC '[' or CSI (U+009B), then parameter
//     bytes 0x30-0x3F, intermediate bytes 0x20-0x2F and a final byte
//     0x40-0x7E ("\x1b[31m"); a control string, ESC ']' ']' 'P' 'X' '^' '_'
//     or OSC, DCS, SOS, PM, APC (U+009D, U+0090, U+0098, U+009E, U+009F),
//     up to and with its terminator, ST (ESC '\' or U+009C) or BEL (xterm's
//     OSC terminator); any other ESC, intermediate bytes and a final byte
//     0x30-0x7E ("\x1b(B", "\x1b7"). A sequence that is cut short (a control
//     string with no terminator before the next ESC or C1 control or the
//     end) loses its introducer only: the text after it stays.
//   - C0 controls other than tab, LF and CR, DEL, and C1 controls
//     (U+0080-U+009F) are removed, except the line breaks among them,
//     VT, FF and NEL (U+0085), which become LF (The Unicode Standard 15.0,
//     5.8, R4; UAX #14 classes BK and NL).
//   - Every Default_Ignorable_Code_Point (Unicode DerivedCoreProperties.txt:
//     Other_Default_Ignorable_Code_Point + Cf + Variation_Selector -
//     White_Space - U+FFF9-U+FFFB - U+13430-U+1343F -
//     Prepended_Concatenation_Mark; the table of Go's unicode package) is
//     removed: the bidi controls U+061C, U+200E, U+200F, U+202A-U+202E,
//     U+2066-U+2069 (UAX #9, 2; the Trojan Source attack, Boucher and
//     Anderson 2021, CVE-2021-42574), the zero-width U+200B-U+200D,
//     U+2060-U+2064, U+FEFF, the soft hyphen U+00AD, the tag characters
//     U+E0000-U+E007F ("ASCII smuggling"), the variation selectors, the
//     Hangul fillers, and the unassigned ones (UTS #39, 3.1: none is
//     allowed in an identifier). Three are kept where text needs them:
//     ZWJ U+200D and ZWNJ U+200C between two visible non-ASCII characters
//     (an emoji ZWJ sequence, UTS #51, 1.4.9, ED-16; Persian, Indic,
//     The Unicode Standard 23.2), a variation selector U+FE00-U+FE0F or a
//     Mongolian one (U+180B-U+180D, U+180F) right after a visible non-ASCII
//     character (UTS #51 ED-8a, StandardizedVariants.txt) or between
//     [0-9#*] and U+20E3 (a keycap, ED-14c), and the tags of the three RGI
//     subdivision flags after U+1F3F4 (England, Scotland, Wales: UTS #51
//     ED-14a, emoji-test.txt). One of each at most: a run of selectors
//     or joiners keeps none after the first (the "emoji smuggling" of a
//     byte per selector). U+E0100-U+E01EF (ideographic variation
//     selectors, UTS #37) are always removed: they change a glyph, never
//     a character.
//
// The cost on text that holds none of them is one scan of its bytes that
// decodes only the lead bytes such characters start with (visibleGate).
func visible(s string) string {
	i := firstInvisible(s)
	if i < 0 {
		return s
	}
	return strip(s, i)
}

// visibleGate holds the first byte of every UTF-8 sequence visible may
// remove or change (TestVisibleGate_coversEveryCodePoint): C0 and DEL, C1
// and U+00AD (0xC2), U+034F (0xCD), U+061C (0xD8), U+115F-U+180F (0xE1),
// U+200B-U+206F (0xE2), U+3164 (0xE3), U+FE00-U+FFF8 (0xEF), U+1BCA0 and
// U+1D173 (0xF0), U+E0000-U+E0FFF (0xF3).
var visibleGate = func() (g [256]bool) {
	for c := 0; c < 0x20; c++ {
		g[c] = c != '\t' && c != '\n' && c != '\r'
	}
	g[0x7f] = true
	for _, c := range []byte{0xC2, 0xCD, 0xD8, 0xE1, 0xE2, 0xE3, 0xEF, 0xF0, 0xF3} {
		g[c] = true
	}
	return g
}()

// firstInvisible returns the offset of the first character of s visible
// changes, or -1.
func firstInvisible(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !visibleGate[c] {
			continue
		}
		if c < utf8.RuneSelf {
			return i
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r <= 0x9f || ignorable(r) {
			return i
		}
		if r == 0x1f3f4 {
			size += flagTagsAt(s, i+size) // kept as they are
		}
		i += size - 1
	}
	return -1
}

// flagTagsAt returns the length of the tags of an RGI subdivision flag at
// s[i:] (see flagTags), or 0.
func flagTagsAt(s string, i int) int {
	for _, t := range flagTags {
		if strings.HasPrefix(s[i:], t) {
			return len(t)
		}
	}
	return 0
}

// ignorable reports whether r is a Default_Ignorable_Code_Point, derived
// as DerivedCoreProperties.txt derives it from the properties Go's unicode
// package holds (see visible).
func ignorable(r rune) bool {
	switch {
	case r < 0xad:
		return false
	case r >= 0xfff9 && r <= 0xfffb, r >= 0x13430 && r <= 0x1343f:
		return false
	}
	return (unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) ||
		unicode.Is(unicode.Variation_Selector, r)) &&
		!unicode.Is(unicode.White_Space, r) && !unicode.Is(unicode.Prepended_Concatenation_Mark, r)
}

// base reports whether r is a visible non-ASCII character, one a joiner or
// variation selector may follow.
func base(r rune) bool { return r > 0x9f && r != utf8.RuneError && !ignorable(r) }

// The tags of the three RGI subdivision flags, after U+1F3F4 WAVING BLACK
// FLAG (emoji-test.txt: "flag: England", "flag: Scotland", "flag: Wales").
var flagTags = [...]string{tagged("gbeng"), tagged("gbsct"), tagged("gbwls")}

// tagged spells s in tag characters (U+E0000 + the ASCII code) and ends it
// with U+E007F CANCEL TAG.
func tagged(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		b = utf8.AppendRune(b, 0xe0000+rune(s[i]))
	}
	return string(utf8.AppendRune(b, 0xe007f))
}

// The kinds of the previous code point strip read: a joiner or selector
// is kept only after some of them.
const (
	prevOther  = iota
	prevBase   // a visible non-ASCII character
	prevSelect // a variation selector kept after a base
	prevKeycap // '0'-'9', '#', '*'
)

// strip is visible for s whose first changed character is at i.
func strip(s string, i int) string {
	b := make([]byte, 0, len(s))
	b = append(b, s[:i]...)
	prev := prevOther
	if i > 0 {
		r, _ := utf8.DecodeLastRuneInString(s[:i])
		prev = kindOf(r)
	}
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == 0x1b:
				i += escape(s, i, i+1)
				prev = prevOther
				continue
			case c == '\v' || c == '\f':
				b = append(b, '\n')
			case visibleGate[c]: // another C0 control or DEL
			default:
				b = append(b, c)
			}
			prev = kindOf(rune(c))
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		keep := true
		switch {
		case r == 0x85:
			b = append(b, '\n')
			keep = false
		case r <= 0x9f:
			if n := escape(s, i, i+size); n > size {
				i += n
				prev = prevOther
				continue
			}
			keep = false
		case r == 0x200c || r == 0x200d:
			n, _ := utf8.DecodeRuneInString(s[i+size:])
			keep = (prev == prevBase || prev == prevSelect) && base(n)
		case r >= 0xfe00 && r <= 0xfe0f, r >= 0x180b && r <= 0x180d, r == 0x180f:
			keep = prev == prevBase || prev == prevKeycap && strings.HasPrefix(s[i+size:], "\u20e3")
			if keep {
				b = append(b, s[i:i+size]...)
				prev = prevSelect
				i += size
				continue
			}
		case r == 0x1f3f4:
			n := size + flagTagsAt(s, i+size)
			b = append(b, s[i:i+n]...)
			i += n
			prev = prevBase
			continue
		default:
			keep = !ignorable(r)
		}
		if keep {
			b = append(b, s[i:i+size]...)
		}
		prev = kindOf(r)
		i += size
	}
	return string(b)
}

// kindOf is the prev kind of a code point strip kept or read.
func kindOf(r rune) int {
	switch {
	case r >= '0' && r <= '9', r == '#', r == '*':
		return prevKeycap
	case base(r):
		return prevBase
	}
	return prevOther
}

// escape returns the length of the escape sequence at s[i:] whose
// introducer (ESC, or a C1 control of 2 bytes) ends at j, by ECMA-48 (see
// visible): the whole sequence when it is complete, else the introducer
// alone. A C1 control that introduces nothing is its own length.
func escape(s string, i, j int) int {
	intro := j - i
	var c byte // the introducer's meaning: '[' CSI, ']' a control string
	if intro == 1 {
		if j == len(s) {
			return 1
		}
		c = s[j]
		switch {
		case c == '[':
			j++
		case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
			c = ']'
			j++
		case c >= 0x20 && c <= 0x2f: // intermediate bytes, then a final byte
			k := j
			for k < len(s) && s[k] >= 0x20 && s[k] <= 0x2f {
				k++
			}
			if k < len(s) && s[k] >= 0x30 && s[k] <= 0x7e {
				return k + 1 - i
			}
			return 1
		case c >= 0x30 && c <= 0x7e:
			return 2
		default:
			return 1
		}
	} else {
		switch s[i+1] {
		case 0x9b:
			c = '['
		case 0x9d, 0x90, 0x98, 0x9e, 0x9f:
			c = ']'
		default:
			return intro
		}
	}
	if c == '[' {
		k := j
		for k < len(s) && s[k] >= 0x30 && s[k] <= 0x3f {
			k++
		}
		for k < len(s) && s[k] >= 0x20 && s[k] <= 0x2f {
			k++
		}
		if k < len(s) && s[k] >= 0x40 && s[k] <= 0x7e {
			return k + 1 - i
		}
		return intro // cut short: the introducer alone
	}
	// A control string: up to BEL or ST; an ESC or a C1 control that is
	// not ST cuts it short, so each byte is read here at most once per
	// introducer before it and the scan stays linear.
	for k := j; k < len(s); k++ {
		switch s[k] {
		case 0x07:
			return k + 1 - i
		case 0x1b:
			if k+1 < len(s) && s[k+1] == '\\' {
				return k + 2 - i
			}
			return intro
		case 0xc2:
			if k+1 < len(s) && s[k+1] >= 0x80 && s[k+1] <= 0x9f {
				if s[k+1] == 0x9c {
					return k + 2 - i
				}
				return intro
			}
		}
	}
	return intro
}
