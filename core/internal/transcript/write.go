package transcript

import "github.com/toolerr/toolerr/core/internal/format/dialect"

// Write writes messages read from f (and perhaps changed) back in f: every
// unchanged message and part is emitted exactly as read.
func Write(f Format, msgs []Message) []any { return WriteWith(f, msgs, Options{}) }

// WriteWith is Write for the model opts names: a part toolerr made (a
// repaired result) is written as that model takes it (no Bedrock
// toolResult.status for a model that does not take one).
func WriteWith(f Format, msgs []Message, opts Options) []any {
	w := &dialect.Writer{D: dialectFor(f, opts), Same: true}
	return w.List(msgs)
}
