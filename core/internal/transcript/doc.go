// Package transcript is the engine that checks, repairs, trims, re-ids and
// translates whole tool-calling message lists of the provider APIs
// (openai-chat messages, openai-responses input items, anthropic messages,
// gemini contents, bedrock messages) through one provider-neutral model.
//
// The model (package dialect) is a list of Messages, each a Role and ordered
// Parts: text, image, tool call (id, name, canonical arguments), tool result
// (the call it answers plus an outcome.Outcome: an envelope, or success
// content; Failed marks a failure the provider flagged without an envelope)
// and Other (anything toolerr does not model, kept as its raw value tree).
// Every message and part read from a list keeps its original value tree
// (Raw): writing back to the same format emits it unchanged unless repair or
// id normalization changed it, which is why a same-format round trip is
// exact.
//
// Nothing here knows a provider: each provider's dialect (how an element is
// read and written, where results sit, its id rules, its empty-text rules,
// its failure flag) lives in the provider's own package next to its codec
// (format/openaichat, format/anthropic, ...) and is found through the
// provider table of package format. The placement strategies (analyze.go)
// are shared by check, repair, trim and convert; the per-format rules and
// their vendor sources are in docs/transcripts.md.
package transcript
