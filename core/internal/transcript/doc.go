// Package transcript reads and writes whole tool-calling message lists of the
// provider APIs (openai-chat messages, openai-responses input items, anthropic
// messages, gemini contents, bedrock messages) through one provider-neutral
// model, and checks, repairs, trims, re-ids and translates them.
//
// The model (model.go) is a list of Messages, each a Role and ordered Parts:
// text, image, tool call (id, name, canonical arguments), tool result (the
// call it answers plus an outcome.Outcome: an envelope, or success content;
// Failed marks a failure the provider flagged without an envelope) and Other
// (anything toolerr does not model, kept as its raw value tree). Every message
// and part read from a list keeps its original value tree (Raw): writing back
// to the same format emits it unchanged unless repair or id normalization
// changed it, which is why a same-format round trip is exact.
//
// Placement rules (who must answer what, where) live in analyze.go and are
// shared by check and repair; the per-format rules and their vendor sources
// are in docs/transcripts.md.
package transcript
