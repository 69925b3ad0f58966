package sanitize

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolerr/toolerr/core/internal/canonical"
)

// Marker text around the omitted count: "[… 1,976,000 characters omitted …]".
const (
	markerOpen  = "[… "
	markerClose = " characters omitted …]"
)

// markerChars is the length in characters of the marker for a count that
// takes width characters.
func markerChars(width int) int {
	return utf8.RuneCountInString(markerOpen) + width + utf8.RuneCountInString(markerClose)
}

// Cap shortens s to at most maxChars characters (code points), keeping a head
// and a tail and putting between them, on a line of its own, the marker
// "[… N characters omitted …]" with N the exact number of characters of s
// left out, written with thousands separators. The tail gets 60% of the room
// because it usually holds the error. Both cuts fall on code-point
// boundaries, and on line boundaries when a line break lies in the last
// quarter of the head's room or the first quarter of the tail's, so the
// result is valid UTF-8 (invalid input is repaired to U+FFFD first).
//
// A text of at most maxChars characters is returned as it is. When maxChars
// is too small to hold the marker (under about 40), the result is the first
// maxChars-1 characters and "…". A maxChars of 0 or less gives "". Cap does
// not redact: callers redact first (Text) and cut after, so that a cut
// secret cannot lose the shape it is recognised by.
//
// See https://github.com/charmbracelet/crush/issues/3480 (a multi-megabyte
// tool output sent uncapped).
func Cap(s string, maxChars int) (string, CapInfo) {
	s = canonical.ValidString(s)
	n := utf8.RuneCountInString(s)
	info := CapInfo{OriginalChars: n}
	if n <= maxChars {
		return s, info
	}
	info.Truncated = true
	if maxChars <= 0 {
		info.OmittedChars = n
		return "", info
	}
	kept := maxChars - markerChars(len(thousands(n))) - 2
	if kept < 2 {
		out := headChars(s, maxChars-1)
		info.OmittedChars = n - (maxChars - 1)
		return out + "…", info
	}
	headRoom := kept * 2 / 5
	tailRoom := kept - headRoom

	headEnd := len(headChars(s, headRoom))
	if i := strings.LastIndexByte(s[:headEnd], '\n'); i >= 0 && utf8.RuneCountInString(s[i:headEnd]) <= headRoom/4 {
		headEnd = i
	}
	head := strings.TrimSuffix(s[:headEnd], "\r")

	tailStart := len(s)
	for k := 0; k < tailRoom; k++ {
		_, size := utf8.DecodeLastRuneInString(s[:tailStart])
		tailStart -= size
	}
	if j := strings.IndexByte(s[tailStart:], '\n'); j >= 0 && utf8.RuneCountInString(s[tailStart:tailStart+j]) <= tailRoom/4 {
		tailStart += j + 1
	}
	tail := s[tailStart:]

	info.OmittedChars = n - utf8.RuneCountInString(head) - utf8.RuneCountInString(tail)
	var b strings.Builder
	b.Grow(len(head) + len(tail) + 64)
	b.WriteString(head)
	b.WriteString("\n" + markerOpen)
	b.WriteString(thousands(info.OmittedChars))
	b.WriteString(markerClose + "\n")
	b.WriteString(tail)
	return b.String(), info
}

// thousands formats n with a ',' every three digits: 1976000 -> "1,976,000".
func thousands(n int) string {
	d := strconv.Itoa(n)
	if n < 0 || len(d) <= 3 {
		return d
	}
	var b []byte
	for i := range len(d) {
		if i > 0 && (len(d)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, d[i])
	}
	return string(b)
}
