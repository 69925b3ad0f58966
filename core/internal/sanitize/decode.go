package sanitize

import (
	"strings"
	"unicode/utf8"
)

// --- Pass 6: secrets in percent-encoded and base64-encoded text.
//
// A secret encoded as a URL carries it (api%5Fkey=sk%2Dproj...) or as a
// base64 blob (a Basic credential without its scheme, a Kubernetes secret, a
// JWT encoded again) is decoded, the decoded text goes through every pass,
// and when a pass finds a secret in it the encoded text is redacted.

// maxDecodeDepth is how many encodings deep a secret is looked for
// (base64 of a percent-encoded key is two).
const maxDecodeDepth = 2

// minEncodedChars is the shortest base64 run decoded, in characters: the
// shortest secret any pass finds takes more.
const minEncodedChars = 16

func redactEncoded(s string, depth int) string {
	if strings.IndexByte(s, '%') >= 0 {
		s = redactPercent(s, depth)
	}
	return redactBase64(s, depth)
}

// --- percent-encoding (RFC 3986, 2.1)

func isHex(c byte) bool { return hexDigit.has(c) }

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// hasEscape reports whether s holds a percent-escape (%XX) at i.
func hasEscape(s string, i int) bool {
	return i+2 < len(s) && s[i] == '%' && isHex(s[i+1]) && isHex(s[i+2])
}

// isURLRun is a byte of a run of URL text: anything but white space,
// quotes and angle brackets.
func isURLRun(c byte) bool { return urlRunSet().has(c) }

func urlRunSet() byteSet {
	return byteSet{^uint64(0) &^ (1<<33 - 1) &^ (1<<'"' | 1<<'\'' | 1<<'<' | 1<<'>'), (1<<63 - 1) &^ (1<<('\\'-64) | 1<<('`'-64))}
}

// redactPercent decodes each run of URL text that holds an escape and, when
// the decoded text holds a secret, replaces the part of the run that
// changed: the text around it keeps its encoding.
func redactPercent(s string, depth int) string {
	e := editor{src: s}
	// Only the runs that hold a '%' are looked at: find each '%', then its run.
	for from := 0; from < len(s); {
		k := strings.IndexByte(s[from:], '%')
		if k < 0 {
			break
		}
		i, end := from+k, from+k+1
		for i > from && isURLRun(s[i-1]) {
			i--
		}
		for end < len(s) && isURLRun(s[end]) {
			end++
		}
		if f, t, with, ok := percentSecret(s[i:end], depth); ok {
			e.replace(i+f, i+t, with)
		}
		from = end
	}
	return e.done()
}

// percentSecret decodes run (up to maxDecodeDepth times while escapes
// remain) and returns, when the decoded text holds a secret, the byte range
// of run to replace and its replacement: the decoded text between the
// first and the last byte redaction changed.
func percentSecret(run string, depth int) (from, to int, with string, ok bool) {
	dec, pos := percentDecode(run)
	if len(dec) == len(run) {
		return 0, 0, "", false
	}
	red := redactPasses(dec, depth+1)
	if red == dec {
		return 0, 0, "", false
	}
	p := 0
	for p < len(dec) && p < len(red) && dec[p] == red[p] {
		p++
	}
	q := 0
	for q < len(dec)-p && q < len(red)-p && dec[len(dec)-1-q] == red[len(red)-1-q] {
		q++
	}
	return pos[p], pos[len(dec)-q], red[p : len(red)-q], true
}

// percentDecode decodes every escape of s and returns the decoded text and,
// for each of its bytes (and its end), the offset in s it came from.
func percentDecode(s string) (string, []int) {
	b := make([]byte, 0, len(s))
	pos := make([]int, 0, len(s)+1)
	for i := 0; i < len(s); {
		pos = append(pos, i)
		if hasEscape(s, i) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 3
			continue
		}
		b = append(b, s[i])
		i++
	}
	pos = append(pos, len(s))
	return string(b), pos
}

// --- base64 (RFC 4648, 4 and 5)

func isB64Run(c byte) bool { return b64RunSet().has(c) }

func b64RunSet() byteSet {
	return byteSet{setDigits | 1<<'+' | 1<<'/' | 1<<'-', setUpper | setLower | 1<<('_'-64)}
}

// redactBase64 decodes each base64 run of at least minEncodedChars that
// decodes to text and replaces it when the text holds a secret.
func redactBase64(s string, depth int) string {
	e := editor{src: s}
	set := b64RunSet()
	for i := 0; i < len(s); {
		if !set.has(s[i]) {
			i++
			continue
		}
		end := i + 1
		for end < len(s) && set.has(s[end]) {
			end++
		}
		if end-i >= minEncodedChars && base64Secret(s[i:end], depth) {
			pad := end
			for pad < len(s) && pad < end+2 && s[pad] == '=' {
				pad++
			}
			e.replace(i, pad, Redacted)
		}
		i = end
	}
	return e.done()
}

// base64Secret reports whether run decodes (standard or URL alphabet, with
// or without padding) to text in which a pass finds a secret.
func base64Secret(run string, depth int) bool {
	if !hasUpperDigitOrSlash(run) {
		// A lower-case identifier (retry_after_seconds): the base64 of text
		// long enough to hold a secret always has one of these.
		return false
	}
	dec, ok := decodeText(run)
	return ok && redactPasses(dec, depth+1) != dec
}

func hasUpperDigitOrSlash(run string) bool {
	for i := 0; i < len(run); i++ {
		if c := run[i]; c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' {
			return true
		}
	}
	return false
}

// decodeText returns the decoding of run when it decodes to text: valid
// UTF-8 with no control character but tab and line breaks. run is base64 in
// the standard or the URL alphabet (not both), without padding.
func decodeText(run string) (string, bool) {
	url := strings.ContainsAny(run, "-_")
	if url && strings.ContainsAny(run, "+/") {
		return "", false // two alphabets: not base64
	}
	// A run that does not decode to text usually shows it in its first
	// bytes: decode a short head first (on the stack), then the whole.
	if !headTexty(run, url) {
		return "", false
	}
	b, ok := decodeB64(run, url)
	if !ok || !texty(b, false) {
		return "", false
	}
	return b, true
}

// decodeB64 decodes unpadded base64 (RFC 4648, 4, or 5 when url is set):
// a last group of one character is dropped, as it carries no whole byte.
func decodeB64(s string, url bool) (string, bool) {
	b := make([]byte, 0, len(s)*3/4)
	var acc uint32
	n := 0
	for i := 0; i < len(s); i++ {
		v, ok := b64Value(s[i], url)
		if !ok {
			return "", false
		}
		acc = acc<<6 | uint32(v)
		if n++; n == 4 {
			b = append(b, byte(acc>>16), byte(acc>>8), byte(acc))
			acc, n = 0, 0
		}
	}
	switch n {
	case 2:
		b = append(b, byte(acc>>4))
	case 3:
		b = append(b, byte(acc>>10), byte(acc>>2))
	}
	return string(b), true
}

// headTexty reports whether the first 16 characters of run (12 bytes)
// decode to text (texty; a UTF-8 sequence cut at the end counts), without
// allocating.
func headTexty(run string, url bool) bool {
	var b [12]byte
	n := 0
	for g := 0; g+4 <= min(len(run), 16); g += 4 {
		var acc uint32
		for k := 0; k < 4; k++ {
			v, ok := b64Value(run[g+k], url)
			if !ok {
				return false
			}
			acc = acc<<6 | uint32(v)
		}
		b[n], b[n+1], b[n+2] = byte(acc>>16), byte(acc>>8), byte(acc)
		n += 3
	}
	return texty(string(b[:n]), true) // a small buffer that does not escape: no allocation
}

// b64Value is the 6-bit value of a base64 character.
func b64Value(c byte, url bool) (byte, bool) {
	switch {
	case c >= 'A' && c <= 'Z':
		return c - 'A', true
	case c >= 'a' && c <= 'z':
		return c - 'a' + 26, true
	case c >= '0' && c <= '9':
		return c - '0' + 52, true
	case c == '+' && !url, c == '-' && url:
		return 62, true
	case c == '/' && !url, c == '_' && url:
		return 63, true
	}
	return 0, false
}

// texty reports whether b is valid UTF-8 with no control character other
// than tab, line feed and carriage return; with cut, a UTF-8 sequence cut
// off at the end of b counts as text.
func texty(b string, cut bool) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(b[i:])
		if r == utf8.RuneError && size == 1 {
			return cut && !utf8.FullRuneInString(b[i:])
		}
		i += size
	}
	return true
}
