package openairesponses

import (
	"strconv"
	"strings"

	"github.com/toolerr/toolerr/core/internal/format/dialect"
)

// limits are the bounds the OpenAI OpenAPI spec puts on the members of the
// Responses input items (InputItem: the *ItemParam schemas named in each
// row). The call_id of a function_call_output is checked as its id
// (invalid_id, 1 to 64 characters); that of every other item here.
var limits = dialect.Compile(buildLimits())

// The bounds the spec repeats across items, in characters.
const (
	maxText  = 10485760 // output, text, stdout, diff, code: 10 MiB
	maxImage = 20971520 // input_image.image_url, compaction encrypted_content: 20 MiB
	maxFile  = 73400320 // input_file.file_data
)

func buildLimits() []dialect.Limit {
	n := dialect.NoBound
	chars := func(where, path string, min, max int, schema string) dialect.Limit {
		return dialect.Limit{Where: where, Path: path, Min: min, Max: max, Unit: dialect.Chars, Schema: schema}
	}
	fco := "function_call_output"
	ls := []dialect.Limit{
		chars(fco, "output", n, maxText, "FunctionCallOutputItemParam.output"),
		chars(fco, "output[input_text].text", n, maxText, "InputTextContentParam.text"),
		chars(fco, "output[input_image].image_url", n, maxImage, "InputImageContentParamAutoParam.image_url"),
		chars(fco, "output[input_file].file_data", n, maxFile, "InputFileContentParam.file_data"),
		chars(fco, "name", 1, 128, "FunctionCallOutputItemParam.name"),
		{Where: fco, Path: "namespace", Min: 1, Max: 64, Unit: dialect.Chars, Match: word, Pattern: "^[a-zA-Z0-9_-]+$", Schema: "FunctionCallOutputItemParam.namespace", Kind: dialect.FindInvalidName},
		chars("compaction", "encrypted_content", n, maxImage, "CompactionSummaryItemParam.encrypted_content"),
		{Where: "shell_call", Path: "environment.skills", Min: n, Max: 200, Unit: dialect.Items, Schema: "LocalEnvironmentParam.skills"},
		chars("shell_call_output", "output[].stdout", n, maxText, "FunctionShellCallOutputContentParam.stdout"),
		chars("shell_call_output", "output[].stderr", n, maxText, "FunctionShellCallOutputContentParam.stderr"),
		chars("apply_patch_call", "operation.path", 1, n, "ApplyPatchOperationParam.path"),
		chars("apply_patch_call", "operation.diff", n, maxText, "ApplyPatchOperationParam.diff"),
		chars("apply_patch_call_output", "output", n, maxText, "ApplyPatchToolCallOutputItemParam.output"),
		chars("program", "code", n, maxText, "ProgramItemParam.code"),
		chars("program", "fingerprint", n, maxText, "ProgramItemParam.fingerprint"),
		chars("program_output", "result", n, maxText, "ProgramOutputItemParam.result"),
	}
	for _, item := range []string{"computer_call_output", "tool_search_call", "tool_search_output", "shell_call", "shell_call_output", "apply_patch_call", "apply_patch_call_output", "program", "program_output"} {
		ls = append(ls, chars(item, "call_id", 1, MaxCallIDChars, "the call_id of "+item))
	}
	for _, item := range []string{fco, "shell_call", "shell_call_output", "apply_patch_call", "apply_patch_call_output", "custom_tool_call_output"} {
		ls = append(ls, chars(item, "caller.caller_id", 1, 64, "ProgramToolCallCallerParam.caller_id"))
	}
	return ls
}

func word(s string) bool {
	for i := 0; i < len(s); i++ {
		if !dialect.IsWord(s[i]) {
			return false
		}
	}
	return true
}

// unsupportedFile is the text of an input_file part of audio or video.
const unsupportedFile = "An input_file takes a document such as a PDF, not audio or video (the API answers unsupported_file)."

// lint checks one input item: the bounds above, a reasoning item's
// following item, and the files an input_file part takes.
func lint(d *dialect.Dialect, msgs []dialect.Message, i int) []dialect.Issue {
	raw, _ := msgs[i].Raw.(map[string]any)
	out := dialect.CheckLimits(raw, limits)
	if raw["type"] == "reasoning" && !followedByOutput(msgs, i) {
		out = append(out, dialect.Issue{Kind: dialect.FindReasoningWithoutNext, Text: "A reasoning item is followed by the output item it came with (its id as the response gave it: a message or a call); without it the API answers 400."})
	}
	used := 0 // the bytes of out's findings, for d.LintRoom
	for _, is := range out {
		used += is.Bytes()
	}
	for _, key := range []string{"content", "output"} {
		parts, _ := raw[key].([]any)
		for j, p := range parts {
			if d.Full(used) {
				break // the rest cannot be written
			}
			if pm, _ := p.(map[string]any); pm["type"] == "input_file" && audioOrVideo(pm) {
				out = append(out, dialect.Issue{Kind: dialect.FindUnsupportedContent, Path: key + "[" + strconv.Itoa(j) + "]", Text: unsupportedFile})
				used += out[len(out)-1].Bytes()
			}
		}
	}
	return out
}

// followedByOutput reports whether item i (a reasoning item) is followed by
// an item the model returned with it: an output item carrying its id (a
// message, a function_call or another call the response held), as the API
// pairs them ("Item 'rs_...' of type 'reasoning' was provided without its
// required following item": a recorded gpt-5 request whose assistant
// message had lost its id, pydantic/pydantic-ai
// test_openai_responses_thinking_with_modified_history; openai/openai-dotnet#1050).
// A reasoning item last in the list, or before an item without an id, has
// none.
func followedByOutput(msgs []dialect.Message, i int) bool {
	if i+1 >= len(msgs) {
		return false
	}
	next, _ := msgs[i+1].Raw.(map[string]any)
	id, _ := next["id"].(string)
	typ, _ := next["type"].(string)
	switch {
	case id == "", strings.HasSuffix(typ, "_output"):
		return false
	case next["role"] == "user", next["role"] == "system", next["role"] == "developer":
		return false
	}
	return true
}

// audioOrVideo reports whether an input_file part holds audio or video, by
// the media type of its data URL, or the extension of its file name or URL.
//
// See https://platform.openai.com/docs/guides/pdf-files (file inputs) and a
// recorded gpt-5-mini request with an .mp3 file_url answered 400
// unsupported_file, pydantic/pydantic-ai test_multimodal_tool_return_matrix.
func audioOrVideo(p map[string]any) bool {
	if data, _ := p["file_data"].(string); strings.HasPrefix(data, "data:audio/") || strings.HasPrefix(data, "data:video/") {
		return true
	}
	for _, key := range []string{"filename", "file_url"} {
		s, _ := p[key].(string)
		s, _, _ = strings.Cut(s, "?")
		s = strings.ToLower(s)
		for _, ext := range []string{".mp3", ".wav", ".m4a", ".aac", ".flac", ".ogg", ".opus", ".mp4", ".mov", ".webm", ".avi", ".mkv"} {
			if strings.HasSuffix(s, ext) {
				return true
			}
		}
	}
	return false
}
