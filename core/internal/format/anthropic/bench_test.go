package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/format/bedrock"
	"github.com/toolerr/toolerr/core/internal/format/gemini"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// The baseline: what a hand-written encoding/json serializer does for the
// same failure, with the envelope as a struct and details as a map.
type jsonEnvelope struct {
	Code      string         `json:"code"`
	Details   map[string]any `json:"details"`
	Message   string         `json:"message"`
	Retryable bool           `json:"retryable"`
	Source    string         `json:"source"`
}

type jsonToolResult struct {
	Type      string `json:"type"`
	ToolUseID string `json:"tool_use_id"`
	Content   string `json:"content"`
	IsError   bool   `json:"is_error"`
}

type jsonAnthropicMsg struct {
	Role    string           `json:"role"`
	Content []jsonToolResult `json:"content"`
}

type jsonFunctionResponse struct {
	ID       string                  `json:"id,omitempty"`
	Name     string                  `json:"name"`
	Response map[string]jsonEnvelope `json:"response"`
}

type jsonGeminiContent struct {
	Role  string `json:"role"`
	Parts []struct {
		FunctionResponse jsonFunctionResponse `json:"functionResponse"`
	} `json:"parts"`
}

type jsonBedrockMsg struct {
	Role    string `json:"role"`
	Content []struct {
		ToolResult struct {
			ToolUseID string `json:"toolUseId"`
			Status    string `json:"status"`
			Content   []struct {
				JSON jsonEnvelope `json:"json"`
			} `json:"content"`
		} `json:"toolResult"`
	} `json:"content"`
}

func benchEnvelope() (envelope.Envelope, jsonEnvelope) {
	e := envelope.Envelope{Code: "RATE_LIMITED", Message: "Weather API returned 429 after 3 attempts.", Retryable: true,
		Details: map[string]any{"status": 429, "retry_after_seconds": 12, "tool": "get_weather"}, Source: envelope.SourceTool}
	return e, jsonEnvelope{Code: string(e.Code), Details: e.Details, Message: e.Message, Retryable: e.Retryable, Source: string(e.Source)}
}

func benchOutcomes() []outcome.Outcome {
	e, _ := benchEnvelope()
	return []outcome.Outcome{{Call: outcome.Call{ID: "toolu_01A09q90qw90lq917835lq9", Name: "get_weather"}, Error: &e}}
}

func benchAppend(b *testing.B, appendTurn func([]byte, []outcome.Outcome) ([]byte, error)) {
	outs := benchOutcomes()
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = appendTurn(buf[:0], outs); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendTurn_anthropic(b *testing.B) { benchAppend(b, AppendTurn) }

func BenchmarkAppendTurn_gemini(b *testing.B) { benchAppend(b, gemini.AppendTurn) }

func BenchmarkAppendTurn_bedrock(b *testing.B) { benchAppend(b, bedrock.AppendTurn) }

// BenchmarkSerialize_anthropic is the value-tree path (what Invoke uses).
func BenchmarkSerialize_anthropic(b *testing.B) {
	outs := benchOutcomes()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (Codec()).Serialize(outs); err != nil {
			b.Fatal(err)
		}
	}
}

// benchInvokePath is what Invoke's serialize op runs: AppendSerialized into
// a fresh buffer sized as core/op_format.go sizes it.
func benchInvokePath(b *testing.B, c interface {
	AppendSerialized([]byte, []outcome.Outcome) ([]byte, error)
}) {
	outs := benchOutcomes()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.AppendSerialized(make([]byte, 0, 512*len(outs)), outs); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendSerialized_anthropic(b *testing.B) { benchInvokePath(b, Codec()) }

func BenchmarkAppendSerialized_gemini(b *testing.B) { benchInvokePath(b, gemini.Codec()) }

func BenchmarkAppendSerialized_bedrock(b *testing.B) { benchInvokePath(b, bedrock.Codec()) }

func BenchmarkEncodingJSON_anthropic(b *testing.B) {
	_, je := benchEnvelope()
	b.ReportAllocs()
	for b.Loop() {
		text, err := json.Marshal(je)
		if err != nil {
			b.Fatal(err)
		}
		msg := jsonAnthropicMsg{Role: "user", Content: []jsonToolResult{{Type: "tool_result", ToolUseID: "toolu_01A09q90qw90lq917835lq9", Content: string(text), IsError: true}}}
		if _, err := json.Marshal(msg); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodingJSON_gemini(b *testing.B) {
	_, je := benchEnvelope()
	b.ReportAllocs()
	for b.Loop() {
		var c jsonGeminiContent
		c.Role = "user"
		c.Parts = make([]struct {
			FunctionResponse jsonFunctionResponse `json:"functionResponse"`
		}, 1)
		c.Parts[0].FunctionResponse = jsonFunctionResponse{ID: "toolu_01A09q90qw90lq917835lq9", Name: "get_weather", Response: map[string]jsonEnvelope{"error": je}}
		if _, err := json.Marshal(c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodingJSON_bedrock(b *testing.B) {
	_, je := benchEnvelope()
	b.ReportAllocs()
	for b.Loop() {
		var m jsonBedrockMsg
		m.Role = "user"
		m.Content = make([]struct {
			ToolResult struct {
				ToolUseID string `json:"toolUseId"`
				Status    string `json:"status"`
				Content   []struct {
					JSON jsonEnvelope `json:"json"`
				} `json:"content"`
			} `json:"toolResult"`
		}, 1)
		tr := &m.Content[0].ToolResult
		tr.ToolUseID, tr.Status = "toolu_01A09q90qw90lq917835lq9", "error"
		tr.Content = []struct {
			JSON jsonEnvelope `json:"json"`
		}{{JSON: je}}
		if _, err := json.Marshal(m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSafe is the sanitizer pass every serializer runs on an envelope
// (outcome.Safe): the part of AppendTurn's cost that is not the codec's.
func BenchmarkSafe(b *testing.B) {
	e, _ := benchEnvelope()
	b.ReportAllocs()
	for b.Loop() {
		_ = outcome.Safe(e)
	}
}

// BenchmarkAppendCanonical_envelope is the envelope's own canonical writer,
// which every format embeds.
func BenchmarkAppendCanonical_envelope(b *testing.B) {
	e, _ := benchEnvelope()
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = e.AppendCanonical(buf[:0])
	}
}
