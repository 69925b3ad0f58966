package openaichat

import (
	"strconv"
	"strings"

	"github.com/toolerr/toolerr/core/internal/format/dialect"
)

// limits are the bounds Chat Completions puts on the members of a message:
// every ChatCompletionRequest*Message takes content as a string or as an
// array with minItems 1 (OpenAI OpenAPI spec), and the API answers 400
// empty_array ("Invalid 'messages[1].tool_calls': empty array. Expected an
// array with minimum length 1") to tool_calls [] (openai/openai-node#1341,
// home-assistant/core#118577), a bound the published spec does not state.
var limits = dialect.Compile([]dialect.Limit{
	{Path: "content", Min: 1, Max: dialect.NoBound, Unit: dialect.Items, Schema: "ChatCompletionRequestMessage.content (an array)"},
	{Path: "tool_calls", Min: 1, Max: dialect.NoBound, Unit: dialect.Items, Schema: "the Chat Completions API (leave tool_calls out instead)"},
})

// partTypes are the content part types each role takes, from the OpenAI
// OpenAPI spec: ChatCompletionRequestUserMessageContentPart (text,
// image_url, input_audio, file), ChatCompletionRequestAssistantMessageContentPart
// (text, refusal), and text alone for the system, developer and tool
// messages (ChatCompletionRequestSystemMessageContentPart,
// ChatCompletionRequestToolMessageContentPart).
func partTypes(role string) string {
	switch role {
	case "user":
		return " text image_url input_audio file "
	case "assistant":
		return " text refusal "
	case "system", "developer", "tool":
		return " text "
	}
	return ""
}

// lint checks one Chat Completions message: the bounds above, the type of
// each content part, and, with a model named, what that model takes. It
// reads the message's role, content and tool_calls alone, and of a message
// whose content is not an array and whose tool_calls is not an empty array
// nothing but whether its role is system or developer, which the neutral
// role says: scanMessage gives it the members of the others only, and of
// those the neutral role (a new rule reading more must say so there too;
// TestFastList_sameAsGeneral holds both to the tree).
func lint(d *dialect.Dialect, msgs []dialect.Message, i int) []dialect.Issue {
	raw, tree := msgs[i].Raw.(map[string]any)
	out := dialect.CheckLimits(raw, limits)
	role, _ := raw["role"].(string)
	if !tree && msgs[i].Role == dialect.RoleSystem {
		role = "system" // system or developer: lint tells them apart nowhere
	}
	types := partTypes(role)
	parts, _ := raw["content"].([]any)
	invalid := "" // the invalid_part text, one string for every part
	used := 0     // the bytes of out's findings, for d.LintRoom
	for _, is := range out {
		used += is.Bytes()
	}
	for j, p := range parts {
		if d.Full(used) {
			break // the rest cannot be written
		}
		pm, _ := p.(map[string]any)
		typ, _ := pm["type"].(string)
		var is dialect.Issue
		switch {
		case types == "":
			continue
		case typ == "" || !strings.Contains(types, " "+typ+" "):
			if invalid == "" {
				invalid = "A content part of a " + role + " message has one of the types " + strings.Join(strings.Fields(types), ", ") + "; this one has none of them."
			}
			is = dialect.Issue{Kind: dialect.FindInvalidPart, Text: invalid}
		case typ == "input_audio" && d.Model != "" && !TakesAudio(d.Model):
			is = dialect.Issue{Kind: dialect.FindUnsupportedContent, Text: "This model takes no audio input (the audio models do, such as gpt-4o-audio-preview); the API answers that content blocks are text or image_url."}
		default:
			continue
		}
		is.Path = "content[" + strconv.Itoa(j) + "]"
		out = append(out, is)
		used += is.Bytes()
	}
	if (role == "system" || role == "developer") && d.Model != "" && !TakesSystem(d.Model) {
		out = append(out, dialect.Issue{Kind: dialect.FindUnsupportedRole, Path: "role", Text: "This model takes neither system nor developer messages; put the instructions in the first user message."})
	}
	return out
}

// TakesAudio reports whether a Chat Completions model takes input_audio
// parts: the audio models (gpt-4o-audio-preview, gpt-4o-mini-audio-preview,
// gpt-audio and their snapshots); others answer 400 "Content blocks are
// expected to be either text or image_url type" (a recorded gpt-5-mini
// request, pydantic/pydantic-ai test_multimodal_tool_return_matrix).
//
// See https://platform.openai.com/docs/guides/audio.
func TakesAudio(model string) bool { return strings.Contains(model, "audio") }

// TakesSystem reports whether a model takes system and developer messages:
// o1-mini and o1-preview take neither (400 "Unsupported value:
// 'messages[0].role' does not support 'developer' with this model", a
// recorded o1-mini request, pydantic/pydantic-ai test_openai_o1_mini_system_role).
//
// See https://platform.openai.com/docs/guides/reasoning.
func TakesSystem(model string) bool {
	return !strings.HasPrefix(model, "o1-mini") && !strings.HasPrefix(model, "o1-preview")
}
