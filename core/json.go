package core

import "github.com/toolerr/toolerr/core/internal/canonical"

// ParseJSON reads one JSON text (RFC 8259) into a value tree of nil, bool,
// float64, string, []any and map[string]any, exactly as Invoke reads a
// request: a duplicate object key is an error (encoding/json and most JSON
// libraries keep the last one silently, so a front end that read a
// transcript with them could lose a real tool result that Invoke would
// refuse), invalid UTF-8 and lone surrogates become U+FFFD, and nesting
// deeper than the core's limit is refused. A front end (the CLI, a binding
// helper given JSON text) reads user data through it so that it sees what
// the core sees. The error says what is wrong and at which byte offset.
//
// See RFC 8259, 4 (names within an object should be unique) and RFC 8785.
func ParseJSON(data []byte) (any, error) { return canonical.ParseRequest(data) }

// AppendJSON appends the canonical JSON (RFC 8785) of v, a value tree as
// ParseJSON returns it (int, int64 and []string are also taken), to dst:
// the writer of every Invoke response. ParseJSON(AppendJSON(nil, v)) is v
// again. An unsupported type, NaN or an infinity is an error.
func AppendJSON(dst []byte, v any) ([]byte, error) { return canonical.Append(dst, v) }
