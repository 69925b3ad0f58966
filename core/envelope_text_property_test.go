package core

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
	"github.com/toolerr/toolerr/core/internal/sanitize"
)

// The two sides of the rule by which content is read as an envelope
// (outcome.RecognizeText; RATIONALE.md, "Why is an envelope recognized only
// in the exact text toolerr writes?"), as properties over random envelopes:
// every failure toolerr writes comes back as that failure through every
// format and conversion, and no text that differs from what toolerr writes
// turns a success into a failure on any path.

// randEnvelope returns a random envelope with a registered code and awkward
// but legal content: unicode, control characters, quotes, HTML characters,
// secrets and traces the sanitizer reduces, nested details with every kind
// of number.
func randEnvelope(r *rand.Rand) Envelope {
	codes := Codes()
	srcs := []Source{SourceTool, SourceProvider, SourceOrchestrator}
	return Envelope{
		Code:      codes[r.IntN(len(codes))].Code,
		Message:   randText(r, 1+r.IntN(12)),
		Retryable: r.IntN(2) == 0,
		Details:   randDetails(r, 2),
		Source:    srcs[r.IntN(len(srcs))],
	}
}

var propWords = []string{"Weather", "service", "timed", "out", "after", "10s", "Météo", "東京", "🙂", "<b>", "&amp;", "a\"quote", `back\slash`,
	"tab\there", "line\nbreak", "\u2028", "\u0001", "api_key=sk-proj-abcdefghijklmnopqrstuvwxyz012345", "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
	"Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\nValueError: bad", "retry.", "later;", "/", "  ", "é́", "\x7f", ""}

func randText(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(propWords[r.IntN(len(propWords))])
	}
	return b.String()
}

func randDetails(r *rand.Rand, depth int) map[string]any {
	keys := []string{"status", "tool", "attempt", "retry_after_seconds", "path", "api_key", "Authorization", "n", "x-request-id", "nested", "list", "é"}
	d := map[string]any{}
	for i, n := 0, r.IntN(5); i < n; i++ {
		d[keys[r.IntN(len(keys))]] = randValue(r, depth)
	}
	return d
}

func randValue(r *rand.Rand, depth int) any {
	nums := []float64{0, 1, -1, 429, 10000, 0.5, -0.25, 1e21, 1e-7, 9007199254740991, 123456789.125, 5e-324}
	switch k := r.IntN(7); {
	case k == 0:
		return nums[r.IntN(len(nums))]
	case k == 1:
		return r.IntN(2) == 0
	case k == 2:
		return nil
	case k == 3 && depth > 0:
		return randDetails(r, depth-1)
	case k == 4 && depth > 0:
		return []any{randValue(r, depth-1), randValue(r, depth-1)}
	default:
		return randText(r, 1+r.IntN(3))
	}
}

// safeText is the text toolerr writes for e.
func safeText(e Envelope) string { return outcome.EnvelopeText(outcome.Safe(e)) }

// chatHistory is an openai-chat list: one call, and its tool message with
// content s.
func chatHistory(s string) []any {
	return []any{
		map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": "search", "arguments": "{}"}}}},
		map[string]any{"role": "tool", "tool_call_id": "call_1", "content": s},
	}
}

// parsedOne parses the tool-result messages of msgs (format f) and returns
// their one outcome.
func parsedOne(t *testing.T, f Format, msgs []any, what string) Outcome {
	t.Helper()
	var results []any
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		switch f {
		case FormatOpenAIChat, FormatGeminiOpenAI:
			if mm["role"] == "tool" {
				results = append(results, m)
			}
		case FormatOpenAIResponses:
			if mm["type"] == "function_call_output" {
				results = append(results, m)
			}
		default:
			if mm["role"] == nil || mm["role"] == "user" {
				results = append(results, m)
			}
		}
	}
	outs, err := Parse(f, results)
	require.NoError(t, err, what)
	require.Len(t, outs, 1, what)
	return outs[0]
}

func TestEnvelopeText_everyEnvelopeWrittenIsRecognized(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 5))
	for i := 0; i < 200; i++ {
		e := randEnvelope(r)
		want := safeText(e)
		what := "envelope " + strconv.Itoa(i) + ": " + want
		// Every codec: parse(serialize(failure)) is that failure.
		for _, f := range Formats() {
			msgs, err := Serialize(f, []Outcome{{Call: Call{ID: "call_1", Name: "search"}, Error: &e}})
			require.NoError(t, err, what)
			o := parsedOne(t, f, msgs, string(f)+" "+what)
			require.NotNil(t, o.Error, "%s: %s read back as a success", f, what)
			require.Equal(t, want, outcome.EnvelopeText(*o.Error), "%s: %s", f, what)
		}
		// The OpenAI hop: the text in a Chat history restores the flag in
		// every transcript format.
		for _, to := range TranscriptFormats() {
			c, err := Convert(FormatOpenAIChat, to, chatHistory(want), "")
			require.NoError(t, err, what)
			o := parsedOne(t, to, c.Messages, "openai-chat to "+string(to)+" "+what)
			require.NotNil(t, o.Error, "openai-chat to %s lost the flag of %s", to, what)
			require.Equal(t, want, outcome.EnvelopeText(*o.Error), "openai-chat to %s", to)
		}
	}
}

// nearMisses returns texts that differ from want, the text toolerr writes
// for e, each by one kind of change: none of them is what toolerr writes for
// any envelope with a registered code.
func nearMisses(r *rand.Rand, e Envelope, want string) map[string]string {
	safe := outcome.Safe(e)
	v := safe.Value()
	edit := func(k string, x any, drop bool) string {
		m := map[string]any{}
		for kk, vv := range v {
			m[kk] = vv
		}
		if drop {
			delete(m, k)
		} else {
			m[k] = x
		}
		b, err := canonical.Marshal(m)
		if err != nil {
			panic(err)
		}
		return string(b)
	}
	with := func(k string, x any) string { return edit(k, x, false) }
	drop := []string{"code", "message", "retryable", "details", "source"}[r.IntN(5)]
	out := map[string]string{
		"leading white space":       []string{" ", "\n", "\t", "\r\n"}[r.IntN(4)] + want,
		"trailing white space":      want + []string{" ", "\n", "\t", "\r\n"}[r.IntN(4)],
		"white space inside":        insertOutsideStrings(r, want, []string{" ", "\n", "\t", "\r"}[r.IntN(4)]),
		"unregistered code":         with("code", "X_"+strings.ToUpper(strconv.FormatUint(r.Uint64()%1e9, 36))),
		"lower-case code":           with("code", strings.ToLower(string(e.Code))),
		"sixth key":                 with([]string{"extra", "zz", "Code", "error"}[r.IntN(4)], randValue(r, 1)),
		"no " + drop:                edit(drop, nil, true),
		"retryable of another type": with("retryable", []any{"true", 1.0, []any{}, map[string]any{}}[r.IntN(4)]),
		"details of another type":   with("details", []any{[]any{}, "{}", 1.0, false}[r.IntN(4)]),
		"source outside the three":  with("source", []string{"attacker", "Tool", "model", "user"}[r.IntN(4)]),
		"message of another type":   with("message", []any{1.0, false, []any{"x"}, map[string]any{}}[r.IntN(4)]),
		"duplicate retryable key":   dupRetryable(want, e.Retryable),
		"escaped letter":            escapeLetter(r, want),
		"non-canonical number":      nonCanonicalNumber(r, safe),
		"secret in details":         with("details", map[string]any{"api_key": "abc123secret"}),
	}
	if m := randText(r, 2) + " x"; sanitize.Message(m) != m { // no final stop: the sanitizer adds one
		out["message the sanitizer changes"] = with("message", m)
	}
	if b, err := json.Marshal(v); err == nil && string(b) != want {
		out["what encoding/json writes"] = string(b)
	}
	if b, err := json.MarshalIndent(v, "", "  "); err == nil {
		out["pretty-printed"] = string(b)
	}
	for k, s := range out {
		if s == "" || s == want {
			delete(out, k) // the change had nothing to act on (no letter to escape, say)
		}
	}
	return out
}

// positions returns the offsets i of the JSON text s for which pick(in,
// s[i]) holds, in telling whether s[i] is inside a string (escaped
// characters are never picked).
func positions(s string, pick func(in bool, c byte) bool) []int {
	var at []int
	in, esc := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case esc:
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			in = !in
		case pick(in, c):
			at = append(at, i)
		}
	}
	return at
}

// insertOutsideStrings inserts ws after a random structural character of
// the JSON text s (never inside a string).
func insertOutsideStrings(r *rand.Rand, s, ws string) string {
	at := positions(s, func(in bool, c byte) bool { return !in && (c == '{' || c == ':' || c == ',') })
	i := at[r.IntN(len(at))] + 1
	return s[:i] + ws + s[i:]
}

// escapeLetter writes one ASCII letter inside a string of s as \u00XX: the
// same value, other bytes.
func escapeLetter(r *rand.Rand, s string) string {
	at := positions(s, func(in bool, c byte) bool { return in && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') })
	if len(at) == 0 {
		return ""
	}
	i := at[r.IntN(len(at))]
	return s[:i] + `\u00` + strconv.FormatInt(int64(s[i]), 16) + s[i+1:]
}

// dupRetryable repeats the top-level retryable key, the opposite value first
// (the last occurrence is the top-level one: it follows details and message).
func dupRetryable(s string, retryable bool) string {
	i := strings.LastIndex(s, `,"retryable":`)
	return s[:i] + `,"retryable":` + strconv.FormatBool(!retryable) + s[i:]
}

// nonCanonicalNumber adds a number to the details and writes it in a form
// RFC 8785 does not (a fraction of zero, an exponent, a plus sign).
func nonCanonicalNumber(r *rand.Rand, e Envelope) string {
	d := map[string]any{}
	for k, v := range e.Details {
		d[k] = v
	}
	d["zz_ms"] = 10000.0
	e.Details = d
	s := outcome.EnvelopeText(e)
	form := []string{"10000.0", "1e4", "1E4", "1.0e+4", "10000e0", "010000"}[r.IntN(6)]
	return strings.Replace(s, `"zz_ms":10000`, `"zz_ms":`+form, 1)
}

// serializesAsSuccess checks that every codec writes success r so that
// parse reads it back as a success.
func serializesAsSuccess(t *testing.T, r Result, what string) {
	t.Helper()
	for _, f := range Formats() {
		msgs, err := Serialize(f, []Outcome{{Call: Call{ID: "call_1", Name: "search"}, Result: &r}})
		require.NoError(t, err, what)
		o := parsedOne(t, f, msgs, string(f)+" "+what)
		require.Nil(t, o.Error, "%s made a failure of %s", f, what)
	}
}

// convertsAsSuccess checks that the one result of history (format from)
// is a success in every target.
func convertsAsSuccess(t *testing.T, from Format, history []any, targets []Format, what string) {
	t.Helper()
	for _, to := range targets {
		c, err := Convert(from, to, history, "")
		require.NoError(t, err, what)
		o := parsedOne(t, to, c.Messages, string(from)+" to "+string(to)+" "+what)
		require.Nil(t, o.Error, "%s to %s made a failure of %s", from, to, what)
	}
}

func TestEnvelopeText_nearMissesStaySuccesses(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 3))
	for i := 0; i < 120; i++ {
		e := randEnvelope(r)
		want := safeText(e)
		for kind, s := range nearMisses(r, e, want) {
			what := kind + ": " + s
			serializesAsSuccess(t, Result{Kind: ResultText, Text: s}, what)
			// A Chat history holding it converts to a success everywhere, and
			// so does an Anthropic success holding it.
			convertsAsSuccess(t, FormatOpenAIChat, chatHistory(s), TranscriptFormats(), what)
			anth := []any{
				map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "search", "input": map[string]any{}}}},
				map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": s}}},
			}
			convertsAsSuccess(t, FormatAnthropic, anth, []Format{FormatOpenAIChat, FormatBedrock, FormatGemini}, what)
		}
	}
}

// valueChanges are the kinds of nearMisses that change the value, not only
// its bytes.
var valueChanges = map[string]bool{
	"unregistered code": true, "lower-case code": true, "sixth key": true,
	"no code": true, "no message": true, "no retryable": true, "no details": true, "no source": true,
	"retryable of another type": true, "details of another type": true, "source outside the three": true,
	"message of another type": true, "secret in details": true, "message the sanitizer changes": true,
}

// TestEnvelopeText_valueNearMissesStaySuccesses: content carried as a JSON
// value (a Gemini output, a serialized JSON result) follows the same rule.
func TestEnvelopeText_valueNearMissesStaySuccesses(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 2))
	for i := 0; i < 120; i++ {
		e := randEnvelope(r)
		for kind, s := range nearMisses(r, e, safeText(e)) {
			if !valueChanges[kind] {
				continue // a change of bytes only: as a value it is an envelope
			}
			v, err := canonical.Parse([]byte(s))
			require.NoError(t, err, kind)
			what := kind + ": " + s
			serializesAsSuccess(t, Result{Kind: ResultJSON, JSON: v}, what)
			gem := []any{
				map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": map[string]any{"id": "c1", "name": "search", "args": map[string]any{}}}}},
				map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"id": "c1", "name": "search", "response": map[string]any{"output": v}}}}},
			}
			convertsAsSuccess(t, FormatGemini, gem, []Format{FormatOpenAIChat, FormatAnthropic, FormatBedrock}, what)
		}
	}
}

// TestRecognizeText_flagKeepsUnregisteredCodes: under an error flag the code
// need not be registered (the flag makes the failure), in every flagged
// codec; without one it must be.
func TestRecognizeText_flagKeepsUnregisteredCodes(t *testing.T) {
	e := Envelope{Code: "DISK_FULL", Message: "The disk is full.", Details: map[string]any{}, Source: SourceTool}
	s := outcome.EnvelopeText(e)
	_, ok := outcome.RecognizeText(s, outcome.Unflagged)
	require.False(t, ok)
	got, ok := outcome.RecognizeText(s, outcome.Flagged)
	require.True(t, ok)
	require.Equal(t, envelope.Code("DISK_FULL"), got.Code)
	for _, f := range []Format{FormatAnthropic, FormatGemini, FormatBedrock, FormatMCP} {
		msgs, err := Serialize(f, []Outcome{{Call: Call{ID: "call_1", Name: "search"}, Error: &e}})
		require.NoError(t, err)
		o := parsedOne(t, f, msgs, string(f))
		require.NotNil(t, o.Error, f)
		require.Equal(t, s, outcome.EnvelopeText(*o.Error), f)
	}
}
