package transcript

import "github.com/toolerr/toolerr/core/internal/format/dialect"

// Write writes messages read from f (and perhaps changed) back in f: every
// unchanged message and part is emitted exactly as read.
func Write(f Format, msgs []Message) []any {
	w := &dialect.Writer{D: dialectOf(f), Same: true}
	return w.List(msgs)
}
