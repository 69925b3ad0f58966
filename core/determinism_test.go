package core

import (
	"bytes"
	"testing"
)

// TestInvoke_sameBytesEveryRun: every conformance fixture request gives one
// answer over 20 runs. Go randomizes map order on every range, so a rule
// that reads a request's members in map order (a note list, the first
// member name, which of two spellings wins) shows here as a second answer
// long before a target runs it.
func TestInvoke_sameBytesEveryRun(t *testing.T) {
	for _, tc := range fixtureTests(t, "*") {
		first := Invoke(tc.Request)
		for range 20 {
			if got := Invoke(tc.Request); !bytes.Equal(got, first) {
				t.Fatalf("%s / %s: two answers for one request:\n%.600s\n%.600s", tc.File, tc.Test, first, got)
			}
		}
	}
}
