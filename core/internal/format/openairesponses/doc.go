// Package openairesponses is the openai-responses wire format: one Responses
// API input item per outcome, {"type":"function_call_output","call_id":id,
// "output":...}, in call order.
//
// The Responses API has no error flag (status is the item's lifecycle, not
// success or failure), so a failure's output is the canonical JSON of the
// whole envelope, exactly as in openai-chat, whose text rules this package
// reuses (openaichat.Content, openaichat.ReadContent). A Blocks result is
// carried natively: output is then an array of input_text and input_image
// (base64 data URL) items, so images need no fallback here.
//
// # Lossy cases
//
//   - The call name is not written (function_call_output pairs by call_id;
//     the optional name member is newer than most implementations), but a
//     name member is read back.
//   - A JSON result comes back as JSON only when it is an object or an array;
//     a JSON number, boolean or null comes back as Text.
//   - A success whose text is itself an envelope reads back as a failure.
//   - Blank text blocks are dropped; a Blocks result with nothing left is
//     written as the empty placeholder and reads back as Empty.
//
// See https://platform.openai.com/docs/guides/function-calling (OpenAI
// OpenAPI FunctionCallOutputItemParam), the README's wire-format table, and
// the faults it avoids: maximhq/bifrost#5450, stacklok/mecatl#291,
// BerriAI/litellm#6953, microsoft/autogen#7730.
package openairesponses
