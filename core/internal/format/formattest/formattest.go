// Package formattest holds the sample values the wire-format codecs' tests
// share: the running example envelope of the README's wire-format table,
// its canonical text, BerriAI/litellm#6953's 1x1 PNG, and small builders. Only
// test files import it.
package formattest

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// PNG1x1 is a 1x1 PNG in standard base64 (BerriAI/litellm#6953's repro image).
const PNG1x1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

// TimeoutEnv returns the running example envelope with the given code
// (already sanitized): "Weather service timed out after 10s.", retryable,
// details {"timeout_ms": 10000}, source tool.
func TimeoutEnv(code envelope.Code) *envelope.Envelope {
	return &envelope.Envelope{Code: code, Message: "Weather service timed out after 10s.", Retryable: true,
		Details: map[string]any{"timeout_ms": 10000.0}, Source: envelope.SourceTool}
}

// TimeoutText returns the canonical JSON of TimeoutEnv(code).
func TimeoutText(code envelope.Code) string {
	return `{"code":"` + string(code) + `","details":{"timeout_ms":10000},"message":"Weather service timed out after 10s.","retryable":true,"source":"tool"}`
}

// Res returns a pointer to r.
func Res(r outcome.Result) *outcome.Result { return &r }

// OK returns a successful outcome of the call id, name.
func OK(id, name string, r outcome.Result) outcome.Outcome {
	return outcome.Outcome{Call: outcome.Call{ID: id, Name: name}, Result: &r}
}

// Marshal returns the canonical JSON of v, failing the test on error.
func Marshal(t testing.TB, v any) string {
	t.Helper()
	b, err := canonical.Marshal(v)
	if err != nil {
		t.Fatalf("canonical.Marshal: %v", err)
	}
	return string(b)
}

// ErrorAt fails the test unless err is a *field.Error at path: every codec
// reports a bad outcome or message with the path of the member.
func ErrorAt(t testing.TB, err error, path string) {
	t.Helper()
	var fe *field.Error
	if !errors.As(err, &fe) {
		t.Fatalf("want a *field.Error at %s, got %v", path, err)
	}
	if fe.Path != path {
		t.Fatalf("error at %q, want %q: %v", fe.Path, path, err)
	}
}

// Messages parses s, a JSON array of messages, for a codec's Parse, failing
// the test when it is not one.
func Messages(t testing.TB, s string) []any {
	t.Helper()
	v, err := canonical.Parse([]byte(s))
	if err != nil {
		t.Fatalf("canonical.Parse: %v", err)
	}
	a, ok := v.([]any)
	if !ok {
		t.Fatalf("not a JSON array: %s", s)
	}
	return a
}

// Canonical fails the test unless b is already canonical JSON (RFC 8785).
func Canonical(t testing.TB, b []byte) {
	t.Helper()
	c, err := canonical.Canonicalize(b)
	if err != nil {
		t.Fatalf("canonical.Canonicalize: %v", err)
	}
	if string(c) != string(b) {
		t.Fatalf("output is not canonical:\n got  %s\n want %s", b, c)
	}
}

// Codec is the part of a format's codec the helpers below exercise.
type Codec interface {
	Serialize(outs []outcome.Outcome) ([]any, error)
	Parse(msgs []any) ([]outcome.Outcome, error)
}

// RoundTrip fails the test unless c reads back what it writes for in as
// want, and writes what it read as the same messages again
// (serialize(parse(serialize(x))) = serialize(x)).
func RoundTrip(t testing.TB, c Codec, in, want outcome.Outcome) {
	t.Helper()
	msgs, err := c.Serialize([]outcome.Outcome{in})
	require.NoError(t, err)
	got, err := c.Parse(msgs)
	require.NoError(t, err)
	require.Equal(t, []outcome.Outcome{want}, got)
	again, err := c.Serialize(got)
	require.NoError(t, err)
	assert.Equal(t, Marshal(t, msgs), Marshal(t, again), "serialize(parse(serialize(x))) != serialize(x)")
}

// Wire fails the test unless a byte writer returned want, without error,
// as canonical JSON.
func Wire(t testing.TB, got []byte, err error, want string) {
	t.Helper()
	require.NoError(t, err)
	assert.Equal(t, want, string(got))
	Canonical(t, got)
}

// Parses fails the test unless c reads msgs (a JSON array of messages) as
// want.
func Parses(t testing.TB, c Codec, msgs string, want []outcome.Outcome) {
	t.Helper()
	got, err := c.Parse(Messages(t, msgs))
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

// ParseErrorAt fails the test unless c refuses msgs (a JSON array of
// messages) with a *field.Error at path.
func ParseErrorAt(t testing.TB, c Codec, msgs, path string) {
	t.Helper()
	_, err := c.Parse(Messages(t, msgs))
	ErrorAt(t, err, path)
}

// Writes is one row of a serialize table: a turn of outcomes and the
// canonical JSON (RFC 8785) of the message it is written as.
type Writes struct {
	Name string
	Outs []outcome.Outcome
	Want string
}

// TurnTable runs each row as a subtest of a format whose turn is one
// message (an outcome.TurnCodec): its byte writer (Append) writes the
// row's outcomes as Want, canonical, and its value form (Serialize) is the
// same one message.
func TurnTable(t *testing.T, c outcome.TurnCodec, rows []Writes) {
	t.Helper()
	for _, row := range rows {
		t.Run(row.Name, func(t *testing.T) {
			got, err := c.Append(nil, row.Outs)
			Wire(t, got, err, row.Want)
			msgs, err := c.Serialize(row.Outs)
			require.NoError(t, err)
			require.Len(t, msgs, 1)
			assert.Equal(t, row.Want, Marshal(t, msgs[0]), "Serialize equals Append")
		})
	}
}

// Item is one row of a serialize table of a format that writes one message
// per outcome: the outcome In and the canonical JSON of its message.
type Item struct {
	Name string
	In   outcome.Outcome
	Want string
}

// ItemTable runs each row as a subtest: c serializes the row's outcome as
// the one message Want.
func ItemTable(t *testing.T, c Codec, rows []Item) {
	t.Helper()
	for _, row := range rows {
		t.Run(row.Name, func(t *testing.T) {
			got, err := c.Serialize([]outcome.Outcome{row.In})
			require.NoError(t, err)
			require.Len(t, got, 1)
			assert.Equal(t, row.Want, Marshal(t, got[0]))
		})
	}
}

// Refuses is one row of an error table: a turn of outcomes that Serialize
// refuses with a *field.Error at Path.
type Refuses struct {
	Name, Path string
	Outs       []outcome.Outcome
}

// RefuseTable runs each row as a subtest: c.Serialize fails with a
// *field.Error at the row's Path.
func RefuseTable(t *testing.T, c Codec, rows []Refuses) {
	t.Helper()
	for _, row := range rows {
		t.Run(row.Name, func(t *testing.T) {
			_, err := c.Serialize(row.Outs)
			ErrorAt(t, err, row.Path)
		})
	}
}
