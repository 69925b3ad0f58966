package openaichat_test

import (
	"encoding/json" // baseline only: the core itself never imports encoding/json
	"testing"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/format/openaichat"
	"github.com/toolerr/toolerr/core/internal/format/openairesponses"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// benchEnv is the running example of the README's wire-format table.
var benchEnv = envelope.Envelope{Code: "UPSTREAM_TIMEOUT", Message: "Weather service timed out after 10s.", Retryable: true,
	Details: map[string]any{"timeout_ms": 10000}, Source: envelope.SourceTool}

// jsonEnvelope and the message structs are what a program using
// encoding/json would marshal for the same wire message.
type jsonEnvelope struct {
	Code      string         `json:"code"`
	Details   map[string]any `json:"details"`
	Message   string         `json:"message"`
	Retryable bool           `json:"retryable"`
	Source    string         `json:"source"`
}

type jsonToolMessage struct {
	Content    string `json:"content"`
	Role       string `json:"role"`
	ToolCallID string `json:"tool_call_id"`
}

type jsonFunctionCallOutput struct {
	CallID string `json:"call_id"`
	Output string `json:"output"`
	Type   string `json:"type"`
}

func jsonEnv() jsonEnvelope {
	return jsonEnvelope{Code: string(benchEnv.Code), Details: benchEnv.Details, Message: benchEnv.Message, Retryable: benchEnv.Retryable, Source: string(benchEnv.Source)}
}

// BenchmarkSerializeEnvelope measures one failure serialized to wire bytes.
// Sub-benchmarks per format (openai_chat, openai_responses): the bare name is
// the Append fast path into a reused buffer; _codec is Codec.Serialize then
// canonical.Append (the value-tree path); _invoke is AppendSerialized into a
// fresh buffer, as Invoke's serialize op does; _encodingJSON is the baseline,
// json.Marshal of the envelope struct and then of the message struct holding it
// as a string (scripts/benchratio prints name / name_encodingJSON).
// sanitize_only is the share of the fast path spent in outcome.Safe (the
// sanitizer every wire output passes through, rule 5), which the baseline does
// not do.
func BenchmarkSerializeEnvelope(b *testing.B) {
	const id = "call_abc123"
	type codec interface {
		Serialize(outs []outcome.Outcome) ([]any, error)
		AppendSerialized(dst []byte, outs []outcome.Outcome) ([]byte, error)
	}
	for _, f := range []struct {
		name    string
		fast    func(dst []byte, id string, e envelope.Envelope) ([]byte, error)
		codec   codec
		message func(content string) any // the encoding/json baseline's message
	}{
		{"openai_chat", openaichat.AppendToolMessage, openaichat.Codec{},
			func(c string) any { return jsonToolMessage{Content: c, Role: "tool", ToolCallID: id} }},
		{"openai_responses", openairesponses.AppendFunctionCallOutput, openairesponses.Codec{},
			func(c string) any { return jsonFunctionCallOutput{CallID: id, Output: c, Type: "function_call_output"} }},
	} {
		outs := []outcome.Outcome{{Call: outcome.Call{ID: id}, Error: &benchEnv}}
		b.Run(f.name, func(b *testing.B) {
			buf := make([]byte, 0, 512)
			b.ReportAllocs()
			for b.Loop() {
				buf, _ = f.fast(buf[:0], id, benchEnv)
			}
		})
		b.Run(f.name+"_codec", func(b *testing.B) {
			buf := make([]byte, 0, 512)
			b.ReportAllocs()
			for b.Loop() {
				msgs, _ := f.codec.Serialize(outs)
				buf, _ = canonical.Append(buf[:0], msgs[0])
			}
		})
		b.Run(f.name+"_invoke", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = f.codec.AppendSerialized(make([]byte, 0, 512), outs)
			}
		})
		b.Run(f.name+"_encodingJSON", func(b *testing.B) {
			env := jsonEnv()
			b.ReportAllocs()
			for b.Loop() {
				content, _ := json.Marshal(env)
				_, _ = json.Marshal(f.message(string(content)))
			}
		})
	}
	b.Run("sanitize_only", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = outcome.Safe(benchEnv)
		}
	})
}
