// Package mistral is Mistral's room: Mistral's chat API takes the Chat
// Completions message shape (package openaichat) with one rule of its own,
// the tool-call ids it accepts, which normalize_ids and check apply to a
// Mistral list (id rules "mistral").
package mistral

import "github.com/toolerr/toolerr/core/internal/format/dialect"

// Name is the name of Mistral's id rules.
const Name = "mistral"

// Lists is the format of Mistral's message lists.
const Lists = "openai-chat"

// IDs are the tool-call ids Mistral accepts: exactly 9 of [a-zA-Z0-9].
//
// See https://mistralai.github.io/mistral-common/usage/tools/ and the API's
// own 400 ("Tool call id was ... but must be a-z, A-Z, 0-9, with a length of
// 9."), reported in https://github.com/anomalyco/opencode/issues/1680.
func IDs() dialect.IDRule {
	return dialect.IDRule{Charset: dialect.Alnum, Min: 9, Max: 9, Text: "Mistral tool call ids are exactly 9 characters of [a-zA-Z0-9]."}
}
