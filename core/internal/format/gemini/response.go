package gemini

import (
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
)

// Response is the response shape of generateContent: the first
// candidate's content, its finishReason (STOP, MAX_TOKENS as length, the
// safety reasons SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT, SPII and
// IMAGE_SAFETY as a content filter), usageMetadata {promptTokenCount,
// candidatesTokenCount, totalTokenCount}, responseId and modelVersion.
//
// See googleapis google/ai/generativelanguage/v1beta/generative_service.proto
// (GenerateContentResponse, Candidate.FinishReason) and
// google.golang.org/genai GenerateContentResponse.
//
// Members: candidates, or promptFeedback alone for a prompt blocked
// before any candidate (GenerateContentResponse.prompt_feedback); a
// blockReason with no candidate finishes as a content filter.
func Response() *dialect.Response {
	return &dialect.Response{Read: readResponseBody, Write: writeResponseBody, Members: []string{"candidates", "promptFeedback"}}
}

func readResponseBody(b map[string]any, p string) (dialect.Turn, error) {
	t, err := dialect.ReadHead(b, p, dialect.TurnHead{ID: "responseId", Model: "modelVersion", Usage: "usageMetadata", In: "promptTokenCount", Out: "candidatesTokenCount"})
	if err != nil {
		return t, err
	}
	cands, _, err := field.Get[[]any](b, "candidates", p)
	if err != nil {
		return t, err
	}
	if len(cands) == 0 {
		// "If set, the prompt was blocked and no candidates are returned"
		// (PromptFeedback.block_reason): the client is told of a content
		// filter, not of a normal stop with nothing said.
		if fb, ok, err := field.Get[map[string]any](b, "promptFeedback", p); err != nil {
			return t, err
		} else if ok {
			if reason, _, err := field.Get[string](fb, "blockReason", field.Join(p, "promptFeedback")); err != nil {
				return t, err
			} else if reason != "" {
				t.Finish = dialect.FinishFilter
			}
		}
		return t, nil
	}
	cp := field.Index(field.Join(p, "candidates"), 0)
	c, err := field.As[map[string]any](cands[0], cp)
	if err != nil {
		return t, err
	}
	if content, ok, err := field.Get[map[string]any](c, "content", cp); err != nil {
		return t, err
	} else if ok {
		if _, has := content["role"]; !has {
			content = dialect.Clone(content)
			content["role"] = "model"
		}
		t.Message = content
	}
	fr, _, err := field.Get[string](c, "finishReason", cp)
	switch fr {
	case "STOP":
		t.Finish = dialect.FinishStop
	case "MAX_TOKENS":
		t.Finish = dialect.FinishLength
	case "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY":
		t.Finish = dialect.FinishFilter
	}
	return t, err
}

func writeResponseBody(t dialect.Turn) map[string]any {
	content, _ := t.Message.(map[string]any)
	if content == nil {
		content = map[string]any{"role": "model", "parts": []any{}}
	}
	finish := "STOP" // a function call ends the turn with STOP too
	switch t.Finish {
	case dialect.FinishLength:
		finish = "MAX_TOKENS"
	case dialect.FinishFilter:
		finish = "SAFETY"
	}
	out := map[string]any{"candidates": []any{map[string]any{"content": content, "finishReason": finish, "index": 0}}}
	if t.Model != "" {
		out["modelVersion"] = t.Model
	}
	if t.ID != "" {
		out["responseId"] = t.ID
	}
	if t.Usage != nil {
		out["usageMetadata"] = map[string]any{"promptTokenCount": t.Usage.Input, "candidatesTokenCount": t.Usage.Output, "totalTokenCount": t.Usage.Input + t.Usage.Output}
	}
	return out
}
