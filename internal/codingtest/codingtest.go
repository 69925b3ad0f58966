// Package codingtest builds HTTP bodies in content codings for the tests
// of egress and the gateway.
package codingtest

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"io"
)

// Encode returns s in the content codings given, applied in that order
// (as a Content-Encoding header lists them, RFC 9110, 8.4): "gzip" and
// "x-gzip" (RFC 1952), "deflate" (zlib, RFC 1950). Any other name panics:
// it is a test's mistake.
func Encode(s string, codings ...string) string {
	for _, c := range codings {
		var b bytes.Buffer
		var w io.WriteCloser
		switch c {
		case "gzip", "x-gzip":
			w = gzip.NewWriter(&b)
		case "deflate":
			w = zlib.NewWriter(&b)
		default:
			panic("codingtest: no coding " + c)
		}
		_, _ = io.WriteString(w, s)
		_ = w.Close()
		s = b.String()
	}
	return s
}

// Gzip is Encode(s, "gzip").
func Gzip(s string) string { return Encode(s, "gzip") }

// Deflate is Encode(s, "deflate").
func Deflate(s string) string { return Encode(s, "deflate") }
