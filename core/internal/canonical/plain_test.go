package canonical

import (
	"strings"
	"testing"
)

// plainRunSlow is plainRun's rule one byte at a time.
func plainRunSlow(s string, i int) int {
	for i < len(s) && plainByte[s[i]] {
		i++
	}
	return i
}

// TestPlainRun holds plainRun to plainByte: every byte value, at every
// offset of a word and of the text, with plain bytes of every value on
// either side (so that a borrow or a carry from a neighbour would show),
// for strings and byte slices alike.
func TestPlainRun(t *testing.T) {
	fills := []byte{' ', '!', '#', '[', ']', 'a', '~', 0x7f}
	for n := 0; n <= 24; n++ {
		for at := 0; at < n; at++ {
			for c := 0; c < 256; c++ {
				for _, f := range fills {
					b := []byte(strings.Repeat(string(f), n))
					b[at] = byte(c)
					s := string(b)
					for from := 0; from <= n; from++ {
						want := plainRunSlow(s, from)
						if got := plainRun(s, from); got != want {
							t.Fatalf("plainRun(%q, %d) = %d, want %d", s, from, got, want)
						}
						if got := plainRun(b, from); got != want {
							t.Fatalf("plainRun([]byte %q, %d) = %d, want %d", s, from, got, want)
						}
					}
				}
			}
		}
	}
	// two bytes that are not plain in one word: the first one counts
	for c1 := 0; c1 < 256; c1++ {
		for c2 := 0; c2 < 256; c2++ {
			b := []byte("abcdefghijklmnop")
			b[3], b[5] = byte(c1), byte(c2)
			if got, want := plainRun(b, 0), plainRunSlow(string(b), 0); got != want {
				t.Fatalf("plainRun(%q, 0) = %d, want %d", b, got, want)
			}
		}
	}
}
