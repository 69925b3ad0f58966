package openaichat

import (
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
)

// Response is the response shape of Chat Completions: the message of the
// first choice, its finish_reason (stop, tool_calls, length,
// content_filter; the deprecated function_call read as tool_calls), usage
// {prompt_tokens, completion_tokens, total_tokens}, id, model and created
// (seconds).
//
// See the OpenAI OpenAPI CreateChatCompletionResponse schema and openai-go
// ChatCompletion.
//
// Members: choices is required in CreateChatCompletionResponse.
func Response() *dialect.Response {
	return &dialect.Response{Read: readResponseBody, Write: writeResponseBody, Members: []string{"choices"}}
}

func readResponseBody(b map[string]any, p string) (dialect.Turn, error) {
	t, err := dialect.ReadHead(b, p, dialect.TurnHead{ID: "id", Model: "model", Usage: "usage", In: "prompt_tokens", Out: "completion_tokens"})
	if err != nil {
		return t, err
	}
	if t.CreatedSec, _, err = field.Int(b, "created", p, 0, 1<<53); err != nil {
		return t, err
	}
	choices, _, err := field.Get[[]any](b, "choices", p)
	if err != nil || len(choices) == 0 {
		return t, err
	}
	cp := field.Index(field.Join(p, "choices"), 0)
	c, err := field.As[map[string]any](choices[0], cp)
	if err != nil {
		return t, err
	}
	if _, has := c["message"]; has {
		if t.Message, err = field.As[map[string]any](c["message"], field.Join(cp, "message")); err != nil {
			return t, err
		}
	}
	fr, _, err := field.Get[string](c, "finish_reason", cp)
	switch fr {
	case "stop":
		t.Finish = dialect.FinishStop
	case "tool_calls", "function_call":
		t.Finish = dialect.FinishToolCalls
	case "length":
		t.Finish = dialect.FinishLength
	case "content_filter":
		t.Finish = dialect.FinishFilter
	}
	return t, err
}

func writeResponseBody(t dialect.Turn) map[string]any {
	msg, _ := t.Message.(map[string]any)
	if msg == nil {
		msg = map[string]any{"role": "assistant", "content": nil}
	}
	if _, has := msg["content"]; !has {
		msg["content"] = nil // required, nullable
	}
	finish := string(t.Finish)
	if finish == "" {
		finish = "stop"
	}
	out := map[string]any{
		"id": t.ID, "object": "chat.completion", "created": t.CreatedSec, "model": t.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
	}
	if t.Usage != nil {
		out["usage"] = map[string]any{"prompt_tokens": t.Usage.Input, "completion_tokens": t.Usage.Output, "total_tokens": t.Usage.Input + t.Usage.Output}
	}
	return out
}
