package outcome

import (
	"strings"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/sanitize"
)

// Flag is what a provider's error flag says of a result whose content is
// read for an envelope.
type Flag int

// The two readings of a result's content.
const (
	// Unflagged: a success, or a wire with no error flag (OpenAI Chat
	// content, Responses output). The content alone decides whether the
	// result is a failure.
	Unflagged Flag = iota
	// Flagged: the wire's error flag is set (is_error, isError, status
	// "error", a Gemini "error" key). The result is a failure whatever its
	// content; the content only says which failure.
	Flagged
)

// FlagOf is Flagged when the wire's error flag is set, else Unflagged.
func FlagOf(set bool) Flag {
	if set {
		return Flagged
	}
	return Unflagged
}

// RecognizeText returns the envelope whose text s is, under the one rule by
// which toolerr reads an envelope out of a tool result's content: s is
// exactly the bytes toolerr itself writes for that envelope, and nothing
// else is one. That is, s parses as JSON, reads as an envelope (the five
// keys; code an UPPER_SNAKE token, message a string, retryable a boolean,
// details an object, source tool, provider or orchestrator), and equals
// EnvelopeText(Safe(e)) byte for byte: RFC 8785 form (keys in order, no
// white space around or inside, shortest numbers, no HTML escaping, no
// duplicate keys), with a message and details the sanitizer leaves as they
// are. Unflagged, the code must also be registered (envelope.Registered):
// content that decides alone may not invent a code. Flagged, any code token
// is kept, since the flag, not the content, makes it a failure (a newer
// peer's code travels).
//
// Content that fails the rule is not an envelope: unflagged it stays a
// success, flagged it is the tool's own failure text (Foreign). NearText
// tells whether it resembles one.
//
// See RATIONALE.md ("Why is an envelope recognized only in the exact bytes
// toolerr writes?").
func RecognizeText(s string, f Flag) (envelope.Envelope, bool) {
	e, _, _, _, ok := recognizeText(s, f)
	return e, ok
}

// RecognizeSafe is RecognizeText for a reader whose envelope is written
// again: it returns the envelope as Safe makes it, which the rule holds to
// the same bytes, and the canonical JSON of its details, the text
// SafeDetails gives of the Outcome Recognized makes, so that the writers copy them instead of
// sanitizing and encoding the envelope once more. clean says further that
// the envelope holds nothing the sanitizer removes (sanitize.Clean of its
// message, sanitize.DetailsClean of its details), learnt in the same pass
// (sanitize.MessageClean); Recognized carries it.
func RecognizeSafe(s string, f Flag) (e envelope.Envelope, details string, clean, ok bool) {
	_, e, details, clean, ok = recognizeText(s, f)
	return e, details, clean, ok
}

// recognizeText is RecognizeText, with what RecognizeSafe returns.
func recognizeText(s string, f Flag) (e, safe envelope.Envelope, details string, clean, ok bool) {
	// toolerr's bytes open with the code and close with the source's string.
	if len(s) < minEnvelopeBytes || !strings.HasPrefix(s, `{"code":"`) || !strings.HasSuffix(s, `"}`) {
		return e, safe, "", false, false
	}
	if e, details, clean, ok, sure := recognizeScan(s, f); sure {
		return e, e, details, clean, ok
	}
	return recognizeParse(s, f)
}

// recognizeParse is recognizeText by the rule itself: s parsed into a
// tree, read as an envelope, made Safe and encoded again to compare; clean
// is then asked of the envelope as Safe made it, as safeFailures would.
func recognizeParse(s string, f Flag) (e, safe envelope.Envelope, details string, clean, ok bool) {
	v, err := canonical.Parse([]byte(s))
	if err != nil {
		return e, safe, "", false, false
	}
	e, safe, details, clean, ok = recognize(v, s, f)
	clean = ok && clean && safe.Message == e.Message && sanitize.DetailsClean(safe.Details)
	return e, safe, details, clean, ok
}

// RecognizeValue is RecognizeText for content carried as a JSON value (a
// Gemini response, a Bedrock json block, a result's JSON): v is an envelope
// when its canonical JSON is one RecognizeText accepts.
func RecognizeValue(v any, f Flag) (envelope.Envelope, bool) {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 5 {
		return envelope.Envelope{}, false
	}
	if _, ok := m["code"].(string); !ok {
		return envelope.Envelope{}, false
	}
	b, err := canonical.Marshal(v)
	if err != nil {
		return envelope.Envelope{}, false
	}
	e, _, _, _, ok := recognize(v, string(b), f)
	return e, ok
}

// recognize checks the value v read from text s against the rule, and
// returns the envelope, what Safe makes of it and that one's details as
// canonical JSON; msgClean is sanitize.Clean of e's message.
func recognize(v any, s string, f Flag) (e, safe envelope.Envelope, details string, msgClean, ok bool) {
	e, err := envelope.FromValue(v, "")
	if err != nil || f == Unflagged && !envelope.Registered(e.Code) {
		return envelope.Envelope{}, safe, "", false, false
	}
	safe = e // Safe(e), with the message's cleanness learnt on the way
	safe.Message, msgClean = sanitize.MessageClean(e.Message)
	safe.Details = sanitize.Details(e.Details)
	b, from, to, err := safe.AppendCanonicalSpan(make([]byte, 0, len(s)))
	if err != nil || string(b) != s {
		return envelope.Envelope{}, envelope.Envelope{}, "", false, false
	}
	return e, safe, s[from:to], msgClean, true // b is s
}

// minEnvelopeBytes is the length of the shortest envelope text.
const minEnvelopeBytes = len(`{"code":"A","details":{},"message":"","retryable":true,"source":"tool"}`)

// NearText reports whether s has the look of an envelope without being one
// RecognizeText accepts: text in braces (white space around them allowed)
// that names "code" and "retryable", valid JSON or not (a duplicate key is
// not). Such content is a success (unflagged); convert notes how many it
// kept so, since a history that reformats toolerr's envelopes
// (pretty-printing, HTML escaping) loses their flags at the next hop.
func NearText(s string) bool {
	t := strings.TrimSpace(s)
	if len(t) < 2 || t[0] != '{' || t[len(t)-1] != '}' || !strings.Contains(t, `"retryable"`) || !strings.Contains(t, `"code"`) {
		return false
	}
	_, ok := RecognizeText(s, Unflagged)
	return !ok
}

// NearValue is NearText for content carried as a JSON value: an object with
// "code" and "retryable" members that RecognizeValue refuses.
func NearValue(v any) bool {
	if !nearShape(v) {
		return false
	}
	_, ok := RecognizeValue(v, Unflagged)
	return !ok
}

// nearShape reports whether v is an object with "code" and "retryable".
func nearShape(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, hasCode := m["code"]
	_, hasRetryable := m["retryable"]
	return hasCode && hasRetryable
}

// recognizeScan is recognizeText for the text toolerr writes of an envelope
// whose strings are all plain (canonical.Scanner.Plain) and whose details
// the sanitizer leaves as they are by its cheap check (sanitize.QuietDetail),
// read member by member from the text: no tree of the envelope, only of its
// details, and no second encoding to compare, since a text read in exactly
// that form, with a message sanitize.Message leaves as it is, is
// EnvelopeText(Safe(e)) byte for byte; with another message it is not one.
// sure is false for any other text, which recognizeText then parses and
// compares as the rule says, so that the answer is the same either way
// (TestRecognizeScan_sameAsParse, FuzzRecognizeScan). clean is
// sanitize.Clean of the message (one call, sanitize.MessageClean, answers
// it with Message): the details, every string QuietDetail's, are clean.
func recognizeScan(s string, f Flag) (e envelope.Envelope, details string, clean, ok, sure bool) {
	// the '}' it closes with is the text's last byte: End then reads nothing
	if !strings.HasSuffix(s, "}") {
		return e, "", false, false, false
	}
	sc := canonical.NewTextScanner(s)
	if !sc.Literal(`{"code":`) {
		return e, "", false, false, false
	}
	code, plain := sc.Plain()
	if !plain || !sc.Literal(`,"details":`) {
		return e, "", false, false, false
	}
	raw, v, quiet := sc.CanonicalValue(1, sanitize.QuietDetail)
	d, isObject := v.(map[string]any)
	if !quiet || !isObject || !sc.Literal(`,"message":`) {
		return e, "", false, false, false
	}
	msg, plain := sc.Plain()
	if !plain {
		return e, "", false, false, false
	}
	switch {
	case sc.Literal(`,"retryable":true,"source":`):
		e.Retryable = true
	case sc.Literal(`,"retryable":false,"source":`):
	default:
		return e, "", false, false, false
	}
	src, plain := sc.Plain()
	// Parse's charges for the envelope's object and its three strings
	if !plain || !sc.Literal("}") || !sc.End() || !sc.Object(5) || !sc.Str(code) || !sc.Str(msg) || !sc.Str(src) || !sc.InBudget() {
		return e, "", false, false, false
	}
	e = envelope.Envelope{Code: envelope.Code(code), Details: d, Message: msg, Retryable: e.Retryable, Source: envelope.Source(src)}
	if !envelope.ValidCodeToken(code) || !e.Source.Valid() || f == Unflagged && !envelope.Registered(e.Code) {
		return envelope.Envelope{}, "", false, false, true // FromValue's and recognize's refusals
	}
	m, clean := sanitize.MessageClean(msg)
	if m != msg {
		return envelope.Envelope{}, "", false, false, true // Safe's message is another text
	}
	return e, raw, clean, true, true
}
