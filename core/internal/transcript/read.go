package transcript

import (
	"github.com/toolerr/toolerr/core/internal/field"
)

// Read reads the message list of format f, the "messages" member of a
// request, into the neutral model; see ReadList.
func Read(f Format, msgs []any) ([]Message, error) { return ReadList(f, msgs, "messages") }

// ReadList reads the message list msgs of format f, found at path in the
// request, into the neutral model with f's dialect. A member toolerr models
// but of the wrong JSON type is a *field.Error whose path starts at path
// ("messages[2].content"); anything it does not model is kept as Other.
func ReadList(f Format, msgs []any, path string) ([]Message, error) {
	d := dialectOf(f)
	if d == nil {
		return nil, field.NewError("format", "unknown transcript format "+string(f))
	}
	out := make([]Message, 0, len(msgs))
	for i, v := range msgs {
		// Paths are built only for an error: the message is read again
		// with its own to report it.
		m, err := d.Read(v, field.Unnamed)
		if err != nil {
			if _, err2 := d.Read(v, field.Index(path, i)); err2 != nil {
				err = err2
			}
			return nil, err
		}
		m.Raw = v
		out = append(out, m)
	}
	safeFailures(out)
	return out, nil
}
