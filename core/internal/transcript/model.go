package transcript

import (
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/format"
	"github.com/toolerr/toolerr/core/internal/format/anthropic"
	"github.com/toolerr/toolerr/core/internal/format/bedrock"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
	"github.com/toolerr/toolerr/core/internal/format/gemini"
	"github.com/toolerr/toolerr/core/internal/format/openaichat"
	"github.com/toolerr/toolerr/core/internal/format/openairesponses"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// Format names a message-list shape: a transcript format of the provider
// table (package format).
type Format string

// The message-list formats of the provider table, by name.
const (
	OpenAIChat      Format = openaichat.Name
	OpenAIResponses Format = openairesponses.Name
	Anthropic       Format = anthropic.Name
	Gemini          Format = gemini.Name
	Bedrock         Format = bedrock.Name
)

// Formats lists the transcript formats of the provider table, in README
// order.
func Formats() []Format {
	names := format.TranscriptNames()
	out := make([]Format, len(names))
	for i, n := range names {
		out[i] = Format(n)
	}
	return out
}

// Known reports whether f is one of Formats.
func Known(f Format) bool { return format.Table(string(f)) != nil }

// dialectOf is the dialect of f (f must be Known): its package's one table
// (format.Table), shared, never to be changed; dialectFor copies it where
// a list's options change it.
func dialectOf(f Format) *dialect.Dialect { return format.Table(string(f)) }

// The neutral model is package dialect's; these names keep the engine's
// code short.
type (
	Role    = dialect.Role
	Kind    = dialect.Kind
	Call    = dialect.Call
	Result  = dialect.Result
	Image   = dialect.Image
	Part    = dialect.Part
	Message = dialect.Message
)

// The neutral roles and part kinds (see package dialect).
const (
	RoleSystem    = dialect.RoleSystem
	RoleUser      = dialect.RoleUser
	RoleAssistant = dialect.RoleAssistant
	RoleTool      = dialect.RoleTool
	RoleOther     = dialect.RoleOther

	KindText   = dialect.KindText
	KindImage  = dialect.KindImage
	KindCall   = dialect.KindCall
	KindResult = dialect.KindResult
	KindOther  = dialect.KindOther
)

// noResult is the envelope repair puts where a call has no result. The tool
// name appears in the message only when displayName allows it; details.tool
// carries it through sanitize.Details (outcome.Safe).
func noResult(name string) envelope.Envelope {
	msg := "No result was recorded for this tool call, so it must be treated as failed."
	d := map[string]any{}
	if name != "" {
		if n := dialect.DisplayName(name); n != "" {
			msg = "No result was recorded for this call of " + n + ", so it must be treated as failed."
		}
		d["tool"] = name
	}
	return outcome.Safe(envelope.Envelope{Code: envelope.NoResult, Message: msg, Retryable: false, Details: d, Source: envelope.SourceOrchestrator})
}

// synthResult is the result part repair adds for an unanswered call.
func synthResult(c Call) Part {
	e := noResult(c.Name)
	return Part{Kind: KindResult, Result: Result{Outcome: outcome.Outcome{Call: outcome.Call{ID: c.ID, Name: c.Name}, Error: &e}, Failed: true, Legacy: c.Legacy}}
}
