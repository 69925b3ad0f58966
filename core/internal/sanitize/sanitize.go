// Package sanitize makes text safe to hand to a model: secrets redacted,
// stack traces reduced to their final exception line, one sentence, capped.
//
// STUB: the sanitize helper replaces this file (see issue 2, item 4).
package sanitize

import (
	"strings"

	"github.com/toolerr/toolerr/core/internal/canonical"
)

// MaxMessageChars is the longest Message result, in characters (code points).
const MaxMessageChars = 300

// MaxDetailChars is the longest string Details keeps, in characters.
const MaxDetailChars = 1000

// CapInfo reports what Cap did.
type CapInfo struct {
	Truncated     bool
	OriginalChars int
	OmittedChars  int
}

// Text redacts secrets in s and replaces invalid UTF-8.
func Text(s string) string { return canonical.ValidString(s) }

// Message turns error text into one sanitized sentence.
func Message(s string) string {
	s = strings.TrimSpace(Text(s))
	if s != "" && !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// Cap truncates s to at most maxChars characters, keeping head and tail.
func Cap(s string, maxChars int) (string, CapInfo) { return s, CapInfo{OriginalChars: len([]rune(s))} }

// Details returns a copy of d with every string sanitized by Text and capped.
func Details(d map[string]any) map[string]any { return d }
