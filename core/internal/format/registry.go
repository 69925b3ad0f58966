// Package format maps a wire-format name to its codec. Each provider format
// lives in its own subpackage (openaichat, openairesponses, anthropic, gemini,
// geminiopenai, bedrock, mcp) with a serializer and a parser over the neutral
// outcome model of package outcome.
package format

import (
	"strconv"
	"strings"

	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/anthropic"
	"github.com/toolerr/toolerr/core/internal/format/bedrock"
	"github.com/toolerr/toolerr/core/internal/format/gemini"
	"github.com/toolerr/toolerr/core/internal/format/geminiopenai"
	"github.com/toolerr/toolerr/core/internal/format/mcp"
	"github.com/toolerr/toolerr/core/internal/format/openaichat"
	"github.com/toolerr/toolerr/core/internal/format/openairesponses"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// Codec serializes outcomes into one provider's wire messages and parses them
// back.
//
// Serialize returns the messages (value trees) to append to that provider's
// history for one turn of outcomes, in call order. Parse reads such messages
// back; parse(serialize(x)) gives x for failures, and for results up to what
// the format can carry (README, "Wire formats").
type Codec interface {
	Serialize(outs []outcome.Outcome) ([]any, error)
	Parse(msgs []any) ([]outcome.Outcome, error)
}

// Appender is a Codec that can also write what Serialize returns straight
// as canonical JSON (RFC 8785), without building the value tree: the path
// Invoke takes. Every codec Lookup returns implements it.
//
// AppendSerialized appends to dst the canonical JSON of the array Serialize
// returns for outs and returns the extended slice. On any error the caller
// must discard dst and call Serialize, which returns the error (the fast path
// may stop at a case it does not write itself, such as a value JSON cannot
// carry).
type Appender interface {
	Codec
	AppendSerialized(dst []byte, outs []outcome.Outcome) ([]byte, error)
}

// Lookup returns the codec of a wire-format name, or nil for an unknown one.
func Lookup(name string) Codec {
	switch name {
	case "openai-chat":
		return openaichat.Codec{}
	case "openai-responses":
		return openairesponses.Codec{}
	case "anthropic":
		return anthropic.Codec{}
	case "gemini":
		return gemini.Codec{}
	case "gemini-openai":
		return geminiopenai.Codec{}
	case "bedrock":
		return bedrock.Codec{}
	case "mcp":
		return mcp.Codec{}
	}
	return nil
}

// Names lists the wire-format names this build knows, in README order.
func Names() []string {
	return []string{"openai-chat", "openai-responses", "anthropic", "gemini", "gemini-openai", "bedrock", "mcp"}
}

// Named returns the codec of the wire-format name; an unknown or empty name
// is a *field.Error at path that lists the known names. Every entry point
// (the serialize, parse and replay ops and the typed Go API) reads a format
// name through it, so all of them word the error alike.
func Named(name, path string) (Codec, error) {
	if c := Lookup(name); c != nil {
		return c, nil
	}
	if name == "" {
		return nil, field.NewError(path, "is required and must be a non-empty string")
	}
	return nil, field.NewError(path, "unknown format "+strconv.Quote(name)+"; known: "+strings.Join(Names(), ", "))
}
