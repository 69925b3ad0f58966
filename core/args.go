package core

import "github.com/toolerr/toolerr/core/internal/args"

// ArgFailure is one tool argument that failed the tool's JSON Schema, in the
// neutral form every validator can produce (a binding validates with its own
// ecosystem's validator and hands these over; Go uses package argscheck).
//
// Path is the RFC 6901 JSON Pointer of the failing value within the
// arguments: "" is the arguments object itself, "/city" a member, "/stops/2"
// an array element, "~1" and "~0" escape '/' and '~'. For "required",
// "dependentRequired" and "additionalProperties" it points at the missing or
// extra property, not its parent. Keyword is the JSON Schema keyword that
// failed ("required", "type", "enum", "maximum", ...), or "json" (path "")
// for arguments that are not JSON. Message is the validator's own text: it
// is for logs and never reaches the model, because validators word it
// differently. Expected is the value of the failing keyword in the schema (7
// for "maximum": 7, []any{"metric", "imperial"} for an enum, "string" or
// []any{"string", "null"} for type); nil means unknown, and the model's
// message then names the rule without the value.
//
// See docs/args.md, RFC 6901 and
// https://json-schema.org/draft/2020-12/json-schema-validation.
type ArgFailure struct {
	Path     string
	Keyword  string
	Message  string
	Expected any
}

// InvalidArgs returns the INVALID_ARGS envelope for the failures of tool's
// arguments: retryable false, source tool, details {"tool", "fields": [paths],
// "failures": [{"path", "keyword"}]} and a message the model can act on, for
// example "Fix the arguments for get_weather and call the tool again: /city
// is required; /days must be at most 7." (one sentence, instruction first:
// what sanitize leaves unchanged, so the envelope reads back byte for byte).
//
// Failures are sorted by path, then keyword, then expected value, and exact
// repeats dropped, so the result does not depend on the order the validator
// reported them in; the same failures give the same bytes on every target
// (the Invoke op "args_error" runs the same code). tool "" is left out of the
// message and details. The message is sanitized and at most 300 characters;
// failures that do not fit are counted ("; and 3 more"), and details list at
// most 100 of them (details.failures_omitted counts the rest). Numbers in
// Expected may be float64, int or int64.
//
// See docs/args.md and https://json-schema.org/draft/2020-12/json-schema-core.
func InvalidArgs(tool string, failures []ArgFailure) Envelope {
	fs := make([]args.Failure, len(failures))
	for i, f := range failures {
		fs[i] = args.Failure{Path: f.Path, Keyword: f.Keyword, Message: f.Message, Expected: f.Expected, HasExpected: f.Expected != nil}
	}
	return args.Envelope(tool, fs)
}
