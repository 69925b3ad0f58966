package core

import (
	"bytes"
	"testing"
)

// FuzzFastPaths_sameAsGeneral: whatever the bytes, Invoke (its serialize,
// list and step fast paths) answers as the general path does. Seeded with
// the request of every serialize, convert, check, repair and step fixture
// and the chained failure step of the benchmarks, so the mutations start from the shapes each fast path reads.
func FuzzFastPaths_sameAsGeneral(f *testing.F) {
	for _, tc := range fixtureTests(f, "serialize", "convert", "check", "repair", "step") {
		f.Add([]byte(tc.Request))
	}
	f.Add(benchStepFailureChained) // a runtime's failure step, its classify request and every answer ahead asked
	f.Fuzz(func(t *testing.T, req []byte) {
		var op string
		want := invokeTree(string(req), &op)
		if got := Invoke(req); !bytes.Equal(got, want) {
			t.Fatalf("request %.400q\nfast path: %.400s\ngeneral:   %.400s", req, got, want)
		}
		// AppendInvoke (cshared's path) into a buffer with room to spare
		// (the step path writes its answer there in place), after bytes
		// it must keep.
		dst := append(make([]byte, 0, 8192), "abc"...)
		if got := AppendInvoke(dst, string(req)); string(got) != "abc"+string(want) {
			t.Fatalf("request %.400q\nAppendInvoke after abc: %.400s\ngeneral: %.400s", req, got, want)
		}
	})
}

// FuzzPrepareScanned_sameAsTree: whatever the body, the request op's
// scanned path declines it or answers it as the tree path does (as
// TestPrepareScanned_sameAsTree, on fuzzed bodies), seeded with its seeds.
func FuzzPrepareScanned_sameAsTree(f *testing.F) {
	_, seeds := prepareSeeds(f)
	for _, s := range seeds {
		if len(s) <= 20000 {
			f.Add(s)
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		scannedSameAsTree(t, body, TranscriptOptions{})
	})
}
