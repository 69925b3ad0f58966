// Package geminiopenai is the gemini-openai wire format: Gemini called
// through its OpenAI-compatible endpoint (base URL
// https://generativelanguage.googleapis.com/v1beta/openai/), which takes the
// Chat Completions tool message of openai-chat. Every rule, fallback and lossy
// case is openaichat's; this package only gives the format its own name.
//
// See https://ai.google.dev/gemini-api/docs/openai.
package geminiopenai

import (
	"github.com/toolerr/toolerr/core/internal/format/openaichat"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// Name is the wire-format name of this package.
const Name = "gemini-openai"

// Codec is the gemini-openai codec: openaichat.Codec under another name. The
// zero value is ready to use.
//
// See https://ai.google.dev/gemini-api/docs/openai.
type Codec struct{}

// Serialize returns what openaichat.Codec.Serialize returns for outs.
func (Codec) Serialize(outs []outcome.Outcome) ([]any, error) {
	return openaichat.Codec{}.Serialize(outs)
}

// AppendSerialized is openaichat.Codec.AppendSerialized.
func (Codec) AppendSerialized(dst []byte, outs []outcome.Outcome) ([]byte, error) {
	return openaichat.Codec{}.AppendSerialized(dst, outs)
}

// Parse returns what openaichat.Codec.Parse returns for msgs.
func (Codec) Parse(msgs []any) ([]outcome.Outcome, error) {
	return openaichat.Codec{}.Parse(msgs)
}
