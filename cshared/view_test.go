package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"unsafe"
	"weak"

	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core"
)

// TestAppendInvoke_keepsNoViewOfTheRequest holds what request relies on
// when it hands core.AppendInvoke a string view of the caller's bytes: for
// every request of the conformance fixtures, the response is the one Invoke
// gives a copy, it does not change when the bytes are overwritten after the
// call, and once the test drops the bytes the collector frees them, so no
// part of the core (the fast paths' reused outcomes included) kept a string
// of them.
func TestAppendInvoke_keepsNoViewOfTheRequest(t *testing.T) {
	files, err := filepath.Glob("../conformance/fixtures/*/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		var groups []struct {
			Tests []struct {
				Request json.RawMessage `json:"request"`
			} `json:"tests"`
		}
		if json.Unmarshal(data, &groups) != nil {
			continue // not a list of groups (a runtime fixture)
		}
		for _, g := range groups {
			for _, tc := range g.Tests {
				if len(tc.Request) == 0 {
					continue
				}
				n++
				viewedOnce(t, tc.Request)
			}
		}
	}
	require.Greater(t, n, 500, "fixture requests read")
}

// viewedOnce runs request through AppendInvoke as a view of a buffer of its
// own, into a reused answer buffer as the C library does and into none as
// the wasm module does, and checks it.
func viewedOnce(t *testing.T, request []byte) {
	t.Helper()
	want := core.Invoke(request)
	viewedInto(t, request, want, make([]byte, 0, 16))
	viewedInto(t, request, want, nil)
}

// viewedInto is viewedOnce with the answer appended to answer.
func viewedInto(t *testing.T, request, want, answer []byte) {
	t.Helper()
	// (at least 64 bytes: a smaller block may share the tiny allocator's
	// 16 bytes with other objects, which would keep it alive)
	buf := append(make([]byte, 0, max(len(request), 64)), request...)
	w := weak.Make(&buf[0])
	got := core.AppendInvoke(answer, unsafe.String(&buf[0], len(buf)))
	keep := bytes.Clone(got)
	for i := range buf {
		buf[i] = 'x'
	}
	buf = nil
	require.Equal(t, string(want), string(got), "request %.300s", request)
	require.Equal(t, string(keep), string(got), "the response changed with the request's bytes: %.300s", request)
	// One collection: two would also empty a sync.Pool, and with it a
	// reused value that kept a view.
	runtime.GC()
	require.Nil(t, w.Value(), "the core kept a view of the request past the call: %.300s", request)
}
