package sanitize

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cleanCandidates joins fragments of everyday and secret-holding text into
// strings a quick check must judge: clean prose, every kind the passes key
// on, and the sentence rules' edge cases.
func cleanCandidates() []string {
	parts := []string{
		"Weather service timed out after 10s.", "The get_weather tool timed out after 10 seconds.",
		"retry later", "HTTP 503", "token sk-abcdefghijklmnopqrstuvwxyz012345", "password hunter2",
		"Bearer abc.def.ghi", "key=value", "a:b", "https://user:pw@x.test/", "%41%42", "two  spaces",
		" leading", "trailing ", "First. Second one.", "Done!", "Why?", "e.g. this", "caf\u00e9",
		"AKIAIOSFODNN7EXAMPLE", "ghp_" + strings.Repeat("a", 36), "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig",
		"panicked at src/main.rs:1", "Traceback (most recent call last):", "line\nbreak", "tab\there",
		strings.Repeat("word ", 70) + "end.", "dGhpcyBpcyBhIHNlY3JldCBrZXkgc2stYWJjZGVm", "-p s3cr3t",
		"timeout_ms", "api_key", "retry_after_seconds", "x", "", "...", "ok.", "A\\b",
	}
	var out []string
	for _, a := range parts {
		out = append(out, a)
		for _, b := range parts[:12] {
			out = append(out, a+" "+b, a+b)
		}
	}
	return out
}

// TestCleanMessage_impliesMessageKeepsIt: whatever CleanMessage accepts,
// Message returns unchanged; and it accepts the common finished sentence.
func TestCleanMessage_impliesMessageKeepsIt(t *testing.T) {
	accepted := 0
	for _, s := range cleanCandidates() {
		if CleanMessage(s) {
			accepted++
			assert.Equal(t, s, Message(s), "CleanMessage(%q)", s)
		}
	}
	assert.True(t, CleanMessage("Weather service timed out after 10s."))
	assert.False(t, CleanMessage("token sk-abcdefghijklmnopqrstuvwxyz012345."))
	assert.False(t, CleanMessage("no period"))
	assert.Greater(t, accepted, 10)
}

// TestQuietDetail_impliesDetailsKeepsIt: a details tree whose every name and
// string QuietDetail accepts comes back from Details unchanged.
func TestQuietDetail_impliesDetailsKeepsIt(t *testing.T) {
	accepted := 0
	for _, s := range cleanCandidates() {
		for _, name := range []string{"tool", "note", s} {
			if !QuietDetail(name, true) || !QuietDetail(s, false) {
				continue
			}
			accepted++
			d := map[string]any{name: s, "n": []any{s, map[string]any{name: 1.0}}}
			assert.True(t, reflect.DeepEqual(Details(d), d), "Details(%q: %q)", name, s)
		}
	}
	assert.False(t, QuietDetail("api_key", true), "a secret-named key")
	assert.False(t, QuietDetail(strings.Repeat("k", MaxKeyChars+1), true))
	assert.False(t, QuietDetail(strings.Repeat("v", MaxDetailChars+1), false))
	assert.Greater(t, accepted, 10)
}

// TestMessageClean_isMessageAndClean: MessageClean answers what Message and
// Clean answer, for every text of the fast paths' corpus (secrets, traces,
// encodings, invalid UTF-8, the sentence rules' edges), and it finds the
// work item (b)'s INVALID_ARGS message, which quiet refuses for its ':',
// kept and clean.
func TestMessageClean_isMessageAndClean(t *testing.T) {
	kept, unclean := 0, 0
	for _, s := range append(fastPathCorpus(t, 3000), cleanCandidates()...) {
		m, clean := MessageClean(s)
		if m != Message(s) || clean != Clean(s) {
			t.Fatalf("MessageClean(%q) = %q, %v; Message %q, Clean %v", s, m, clean, Message(s), Clean(s))
		}
		if m == s && clean {
			kept++
		}
		if !clean {
			unclean++
		}
	}
	assert.Greater(t, kept, 50)
	assert.Greater(t, unclean, 500)
	const invalidArgs = "The arguments for book_flight are invalid: /frequent_flyer must match the pattern ^[A-Z]{2}-[0-9]{9}$."
	m, clean := MessageClean(invalidArgs)
	assert.False(t, quiet(invalidArgs))
	assert.Equal(t, invalidArgs, m)
	assert.True(t, clean)
	m, clean = MessageClean("Failed: token=sk-abcdefghijklmnopqrstuvwxyz012345")
	assert.Equal(t, "Failed: token=[REDACTED].", m)
	assert.False(t, clean)
	m, clean = MessageClean("caf\xff: done.")
	assert.Equal(t, "caf\ufffd: done.", m)
	assert.False(t, clean, "invalid UTF-8 is repaired")
}

// FuzzMessageClean: whatever the text, MessageClean is Message and Clean.
func FuzzMessageClean(f *testing.F) {
	for _, s := range cleanCandidates() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, clean := MessageClean(s)
		require.Equal(t, Message(s), m)
		require.Equal(t, Clean(s), clean, "Clean(%q)", s)
	})
}
