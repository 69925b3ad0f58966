package anthropic

import (
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
)

// Response is the response shape of the Messages API: the message's
// content blocks, stop_reason (end_turn, stop_sequence and pause_turn read
// as a stop, tool_use, max_tokens and model_context_window_exceeded as
// length, refusal as a content filter), usage {input_tokens,
// output_tokens}, id and model.
//
// See https://docs.claude.com/en/api/messages and anthropic-sdk-go Message,
// StopReason.
//
// Members: content is required in Message (anthropic-sdk-go Message).
func Response() *dialect.Response {
	return &dialect.Response{Read: readResponseBody, Write: writeResponseBody, Members: []string{"content"}}
}

func readResponseBody(b map[string]any, p string) (dialect.Turn, error) {
	t, err := dialect.ReadHead(b, p, dialect.TurnHead{ID: "id", Model: "model", Usage: "usage", In: "input_tokens", Out: "output_tokens"})
	if err != nil {
		return t, err
	}
	stop, _, err := field.Get[string](b, "stop_reason", p)
	if err != nil {
		return t, err
	}
	switch stop {
	case "end_turn", "stop_sequence", "pause_turn":
		t.Finish = dialect.FinishStop
	case "tool_use":
		t.Finish = dialect.FinishToolCalls
	case "max_tokens", "model_context_window_exceeded":
		t.Finish = dialect.FinishLength
	case "refusal":
		t.Finish = dialect.FinishFilter
	}
	content, ok, err := field.Get[[]any](b, "content", p)
	if err != nil {
		return t, err
	}
	if ok {
		t.Message = map[string]any{"role": "assistant", "content": content}
	}
	return t, nil
}

func writeResponseBody(t dialect.Turn) map[string]any {
	content := []any{}
	if msg, ok := t.Message.(map[string]any); ok {
		switch c := msg["content"].(type) {
		case []any:
			content = c
		case string:
			if c != "" {
				content = []any{map[string]any{"type": "text", "text": c}}
			}
		}
	}
	stop := "end_turn"
	switch t.Finish {
	case dialect.FinishToolCalls:
		stop = "tool_use"
	case dialect.FinishLength:
		stop = "max_tokens"
	case dialect.FinishFilter:
		stop = "refusal"
	}
	out := map[string]any{"id": t.ID, "type": "message", "role": "assistant", "model": t.Model, "content": content,
		"stop_reason": stop, "stop_sequence": nil}
	if t.Usage != nil {
		out["usage"] = map[string]any{"input_tokens": t.Usage.Input, "output_tokens": t.Usage.Output}
	}
	return out
}
