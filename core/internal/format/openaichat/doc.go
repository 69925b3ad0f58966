// Package openaichat is the openai-chat wire format: one Chat Completions tool
// message per outcome, {"role":"tool","tool_call_id":id,"content":string}, in
// call order.
//
// OpenAI has no error flag, so a failure's content is the canonical JSON of
// the whole envelope (five keys, never a bare message, never a code fence),
// and the parser recognises that text as a failure. A success is its text, a
// JSON value's canonical JSON text (non-ASCII literal), or EmptyPlaceholder
// when empty. A tool message may hold only text, so images go into ONE user
// message after all tool messages: per image a text part naming the call id
// and an image_url part with a data: URL; the tool message says how many
// images follow. Package geminiopenai reuses this codec unchanged, and
// package openairesponses reuses its text rules.
//
// # Lossy cases
//
//   - The call name is not carried (a tool message has only tool_call_id).
//   - A JSON result comes back as JSON only when it is an object or an array
//     (its canonical text); a JSON number, boolean or null comes back as Text.
//   - Text blocks are joined with "\n" into one string: they come back as one
//     Text (or one text block before the images); blank text blocks are
//     dropped; images come back after the text, in order.
//   - A success whose text is itself an envelope is indistinguishable from a
//     failure on this wire: it is written canonically and read back as one.
//   - The text "(empty result)" reads back as an Empty result.
//
// See https://platform.openai.com/docs/api-reference/chat/create (OpenAI
// OpenAPI ChatCompletionRequestToolMessage, openai-go ToolMessage),
// https://ai.google.dev/gemini-api/docs/openai, the README's wire-format
// table, and the faults it avoids: maximhq/bifrost#5450 (flag lost),
// stacklok/mecatl#291 (empty text), BerriAI/litellm#6953 (images),
// microsoft/autogen#7730 (escaped non-ASCII).
package openaichat
