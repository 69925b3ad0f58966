// Package request is the request-level entry point of the core: it reads a
// whole provider request body of a known format (a Chat Completions or
// Responses request, an Anthropic Messages request, a Gemini
// generateContent request, a Bedrock Converse request), runs the transcript
// engine (check, repair, trim, normalize_ids, convert) on its message list,
// and writes the whole body back.
//
// On the same format only what the engine changed changes: the list member
// is replaced and every other member is the very value tree that was read
// (so its canonical JSON is byte-for-byte the same). Converting to another
// format puts each part of the body in the target's place for it (the
// system prompt, the function tools and the tool choice, the generation
// parameters the target has a place for) and drops, with a note, every
// member the target has none for.
//
// Nothing here knows a provider: each provider's request-body shape
// (dialect.Request: the list member, how the system prompt, the tools and the
// generation parameters sit) lives in the provider's own package next to its
// codec and its transcript dialect, found through the provider table of
// package format. The body ops of package core and the egress work build on
// Read, the Body methods and Convert.
package request
