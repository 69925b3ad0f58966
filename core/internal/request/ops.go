package request

import (
	"github.com/toolerr/toolerr/core/internal/bounds"
	"github.com/toolerr/toolerr/core/internal/transcript"
)

// The engine calls of the body form. Each reads the list, runs the
// transcript engine and writes the body back with the list replaced only
// when the engine changed something.
//
// # Server-side state
//
// A body that builds on server-side state (b.Server: a Responses
// previous_response_id or conversation) answers calls that live on the
// server, not in its list. Body.Options hands it to the transcript
// engine's server-state option (transcript.Options.Server), so the body
// form reads previous_response_id itself and the caller need not say so;
// the caller's OpenCalls, when given, name the calls the server holds.

// Check returns the findings in the body's list (paths in the request,
// under ListPath), with the engine options o completed by Body.Options.
func Check(b *Body, o transcript.Options) ([]transcript.Finding, error) {
	msgs, err := b.Messages()
	if err != nil {
		return nil, err
	}
	return transcript.Check(b.Format, msgs, b.Options(o)), nil
}

// Repair returns the body with its list repaired (options o completed by
// Body.Options), and what changed; every
// message the engine did not change is the value read.
func Repair(b *Body, o transcript.Options) (map[string]any, transcript.Changes, error) {
	msgs, err := b.Messages()
	if err != nil {
		return nil, transcript.Changes{}, err
	}
	opts := b.Options(o)
	out, ch, err := bounds.Repair(b.Format, msgs, opts)
	if err != nil {
		return nil, transcript.Changes{}, err
	}
	return b.result(transcript.WriteWith(b.Format, out, opts), ch.Any()), ch, nil
}

// Trim returns the body with the oldest turns of its list dropped to lim,
// and how many messages were dropped.
func Trim(b *Body, lim transcript.Limit) (map[string]any, int, error) {
	msgs, err := b.Messages()
	if err != nil {
		return nil, 0, err
	}
	out, n := transcript.Trim(b.Format, msgs, lim)
	return b.result(transcript.Write(b.Format, out), n > 0), n, nil
}

// NormalizeIDs returns the body with every call id of its list that breaks
// the rules named rules rewritten, and the map from new id to original.
func NormalizeIDs(b *Body, rules string) (map[string]any, map[string]string, error) {
	msgs, err := b.Messages()
	if err != nil {
		return nil, nil, err
	}
	if rules == "" {
		rules = string(b.Format)
	}
	m := transcript.NormalizeIDs(b.Format, msgs, rules)
	return b.result(transcript.Write(b.Format, msgs), len(m) > 0), m, nil
}
