// Package canonical reads JSON into a plain value tree and writes it back in the
// JSON Canonicalization Scheme (RFC 8785, "JCS").
//
// Every byte string toolerr emits goes through this package, so that "the same
// bytes on every target" has a public definition that an independent JCS
// implementation can check.
//
// The value tree uses only these Go types: nil, bool, float64, string,
// []any and map[string]any. The writer also accepts int, int64, uint64 and the
// Appender interface, so callers can build output without converting first.
//
// # Notes
//
//   - Numbers are IEEE 754 doubles, as RFC 8785 section 3.2.2.3 requires: an
//     integer beyond 2^53 keeps only the precision a double has.
//   - Invalid UTF-8 and lone UTF-16 surrogates are replaced with U+FFFD, never
//     passed through and never rejected (RFC 8785 section 3.2.2.2 needs valid
//     Unicode; replacing keeps the rest of a tool's output).
//   - Duplicate object keys are an error (RFC 8785 section 3.1 builds on I-JSON,
//     RFC 7493, which forbids them).
//   - The package has no dependency beyond the standard library's strconv,
//     unicode/utf8 and unicode/utf16, and uses no reflection, which keeps the
//     WASI build small.
//
// See https://www.rfc-editor.org/rfc/rfc8785.
package canonical
