package core

import (
	"github.com/toolerr/toolerr/core/internal/request"
	"github.com/toolerr/toolerr/core/internal/transcript"
)

// BodyConversion is a whole request body written in another provider's
// shape, as ConvertBody returns it.
//
// Body is the body; IDMap maps every id toolerr rewrote for the target's
// rules to the original (empty when none); NameMap every function name the
// target refuses (in the calls, the results and the tools alike) to the
// original; Notes says in plain words what
// could not travel as is: a body member the target has no place for (a
// model the target takes in its URL, a response_format), a hosted tool, a
// system block's cache_control, and everything Conversion's notes say of
// the list.
//
// See docs/transcripts.md, "Whole request bodies".
type BodyConversion struct {
	Body    map[string]any
	IDMap   map[string]string
	NameMap map[string]string
	Notes   []string
}

// readBody checks the format name f and reads body, a whole request body of
// that format, for op (its errors at paths under "body"), and the engine
// form of opts (whose ListPath the body sets).
func readBody(op string, f Format, path string, body map[string]any, opts TranscriptOptions) (*request.Body, transcript.Options, error) {
	if _, err := formatNamed(op, f, path); err != nil {
		return nil, transcript.Options{}, err
	}
	if err := checkValues(op, "body", body); err != nil {
		return nil, transcript.Options{}, err
	}
	return readParsedBody(op, f, path, body, opts)
}

// readParsedBody is readBody for a body the core's own parser made (an
// op's request member, PrepareRequest's bytes parsed), which holds JSON
// values only and no cycle: the tree is not walked a second time to check
// that.
func readParsedBody(op string, f Format, path string, body map[string]any, opts TranscriptOptions) (*request.Body, transcript.Options, error) {
	tf, err := formatNamed(op, f, path)
	if err != nil {
		return nil, transcript.Options{}, err
	}
	b, err := request.Read(tf, body, "body")
	if err != nil {
		return nil, transcript.Options{}, requestError(op, err)
	}
	o, err := opts.engine(op, tf)
	return b, o, err
}

// CheckBody returns every finding in the message list of body, a whole
// request body of format f given as a value tree: a Chat Completions or
// Anthropic Messages request ({"model", "messages", ...}), a Responses
// request ({"input", "instructions"?, "previous_response_id"?, ...}), a
// Gemini generateContent request ({"contents", "systemInstruction"?, ...})
// or a Bedrock Converse request ({"messages", "system"?, "toolConfig"?,
// ...}). Findings are those of Check, their paths in the request
// ("body.contents[2].parts[0]"). A body that builds on server-side state
// (previous_response_id, conversation) is checked knowing that its
// outputs may answer calls the server holds. Errors as for Check, with
// body paths ("body.messages" for a body without its list).
//
// See docs/transcripts.md, "Whole request bodies".
func CheckBody(f Format, body map[string]any, opts TranscriptOptions) ([]Finding, error) {
	return checkBody(f, body, opts, 0)
}

// checkBody is CheckBody stopping, when maxBytes > 0, once the findings pass
// maxBytes as JSON (transcript.Options.MaxBytes), for Invoke.
func checkBody(f Format, body map[string]any, opts TranscriptOptions, maxBytes int) ([]Finding, error) {
	b, o, err := readBody("check", f, "format", body, opts)
	if err != nil {
		return nil, err
	}
	o.MaxBytes = maxBytes
	fs, err := request.Check(b, o)
	if err != nil {
		return nil, requestError("check", err)
	}
	return fs, nil
}

// RepairBody returns body (a whole request body of format f, see CheckBody)
// with its message list repaired as Repair repairs a list, and what
// changed (options as for CheckBody: with server-held state, outputs
// answering the referenced response's calls are kept). Every other member
// of the body is the value given, so its canonical JSON is byte-for-byte
// the same. Errors as for CheckBody.
//
// See docs/transcripts.md, "Whole request bodies".
func RepairBody(f Format, body map[string]any, opts TranscriptOptions) (map[string]any, RepairChanges, error) {
	b, o, err := readBody("repair", f, "format", body, opts)
	if err != nil {
		return nil, RepairChanges{}, err
	}
	out, ch, err := request.Repair(b, o)
	if err != nil {
		return nil, RepairChanges{}, apiError("repair", err)
	}
	return out, ch, nil
}

// TrimBody returns body (format f, see CheckBody) with the oldest turns of
// its message list dropped as Trim drops them, every other member as
// given, and the number of messages dropped. Limits and errors as for Trim
// and CheckBody.
//
// See docs/transcripts.md, "Whole request bodies".
func TrimBody(f Format, body map[string]any, maxChars, maxMessages int) (map[string]any, int, error) {
	lim, err := transcript.NewLimit(int64(maxChars), int64(maxMessages))
	if err != nil {
		return nil, 0, requestError("trim", err)
	}
	b, _, err := readBody("trim", f, "format", body, TranscriptOptions{})
	if err != nil {
		return nil, 0, err
	}
	out, n, err := request.Trim(b, lim)
	if err != nil {
		return nil, 0, requestError("trim", err)
	}
	return out, n, nil
}

// NormalizeIDsBody returns body (format f, see CheckBody) with the call ids
// of its message list rewritten as NormalizeIDs rewrites them, every other
// member as given, and the map from each new id to its original. Errors as
// for NormalizeIDs and CheckBody.
//
// See docs/transcripts.md, "Whole request bodies".
func NormalizeIDsBody(f Format, rules string, body map[string]any) (map[string]any, map[string]string, error) {
	rules, err := transcript.RulesNamed(rules, "target")
	if err != nil {
		return nil, nil, requestError("normalize_ids", err)
	}
	b, _, err := readBody("normalize_ids", f, "format", body, TranscriptOptions{})
	if err != nil {
		return nil, nil, err
	}
	out, m, err := request.NormalizeIDs(b, rules)
	if err != nil {
		return nil, nil, requestError("normalize_ids", err)
	}
	return out, m, nil
}

// ConvertBody writes body, a whole request body of format from (see
// CheckBody), as a whole request body of format to. Its message list is
// converted as ConvertWith converts a list (options as for CheckBody; ids
// to the rules opts.IDRules names, "" = to's own). To the same format every other member is the value given.
// To another format each part goes to the target's place for it:
//
//   - the system prompt (Anthropic system, string or text blocks; Gemini
//     systemInstruction; Bedrock system; Responses instructions; Chat
//     Completions system messages) becomes the target's: system (one
//     string) for Anthropic, systemInstruction {"parts": [{"text"}]} for
//     Gemini, system [{"text"}] for Bedrock, instructions for Responses, a
//     leading system message for Chat Completions;
//   - function tools (Chat Completions tools[].function, Responses and
//     Anthropic tools[], Gemini tools[].functionDeclarations, Bedrock
//     toolConfig.tools[].toolSpec) become the target's, their parameters as
//     JSON Schema (a Gemini OpenAPI Schema converted; written to Gemini as
//     parametersJsonSchema); the tool choice and the parallel-calls switch
//     likewise;
//   - model, max_tokens, temperature, top_p, top_k, stop sequences,
//     stream, seed and the penalties go where the target has a member
//     for them (generationConfig, inferenceConfig, ...);
//
// and every member, tool or setting the target has no place for is dropped
// and named in Notes. Errors as for Convert and CheckBody.
//
// See docs/transcripts.md, "Whole request bodies", and the doc of each
// provider's Request shape for its vendor sources.
func ConvertBody(from, to Format, body map[string]any, opts TranscriptOptions) (BodyConversion, error) {
	tt, err := formatNamed("convert", to, "to")
	if err != nil {
		return BodyConversion{}, err
	}
	b, o, err := readBody("convert", from, "from", body, opts)
	if err != nil {
		return BodyConversion{}, err
	}
	c, err := request.Convert(b, tt, o)
	if err != nil {
		return BodyConversion{}, requestError("convert", err)
	}
	return BodyConversion(c), nil
}
