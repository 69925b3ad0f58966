package core

import (
	"github.com/toolerr/toolerr/core/internal/bounds"
	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/transcript"
)

// Finding is one thing in a message list that the provider would reject, as
// Check reports it.
//
// Kind is a stable snake_case token (unanswered_call, orphan_result,
// misplaced_result, result_not_first, responses_split, response_count_mismatch,
// extra_part_in_response, duplicate_result, duplicate_call_id, name_mismatch,
// empty_text, invalid_id, unknown_role, unverified_result; the README
// table gives each one's rule and source). Index is the message index in the list; Path, when not "",
// points inside that message ("messages[2].content[1]"). IDs are the call ids
// concerned (for Gemini calls without ids, the function names); Message is one
// sentence saying what the provider requires. A finding about an open call
// of a response the provider holds (TranscriptOptions.OpenCalls) has Index
// -1 and Path "open_calls[k]".
//
// See docs/transcripts.md, "check", for each kind's rule and vendor source.
type Finding = transcript.Finding

// RepairChanges counts what Repair changed; it is never silent.
//
// Synthesized is the number of NO_RESULT error results added for calls that
// had none; DroppedOrphans the results dropped because they answer no call;
// DroppedDuplicates the second results of a call dropped; Moved the results
// (and, for Gemini, other parts) moved to where the format requires them;
// Merged the Gemini contents whose responses were merged into the first one
// and which were removed; Filled the empty result texts replaced by
// "(empty result)"; Renamed the calls that repeated an id of their own turn
// and got a new one (their results with them), IDMap mapping each new id to
// the original (nil when none); Split the parts written apart from a Gemini
// part that held two data fields. IDs lists every call id touched, in order
// of first change.
//
// See docs/transcripts.md, "repair".
type RepairChanges = transcript.Changes

// Conversion is a message list written in another provider's shape.
//
// Messages is the list; IDMap maps every id toolerr rewrote for the target's
// rules to the original (empty when none), so ids in the provider's reply can
// be translated back; NameMap likewise every function name the target
// refuses (Bedrock's ToolName), rewritten in calls and results alike; Notes says in plain words what could not travel as is
// (dropped reasoning blocks, images moved next to a tool message, generated
// ids); System holds system text the target takes outside the list
// (Anthropic system, Gemini systemInstruction, Bedrock system), "" when none.
//
// See docs/transcripts.md, "convert".
type Conversion = transcript.Converted

// LoopAttempt is one tool call for LoopGuard: the tool name, its arguments
// (any JSON value tree; a string holding a JSON object counts as that
// object) and whether it succeeded.
type LoopAttempt struct {
	Tool string
	Args any
	OK   bool
}

// DefaultLoopThreshold is the LoopGuard threshold used when 0 is given: the
// third identical failure in a row blocks the call.
const DefaultLoopThreshold = transcript.DefaultLoopThreshold

// readList reads messages, a list of format f, for op.
func readList(op string, f transcript.Format, messages []any) ([]transcript.Message, error) {
	if err := checkValues(op, "messages", messages); err != nil {
		return nil, err
	}
	msgs, err := transcript.Read(f, messages)
	if err != nil {
		return nil, requestError(op, err)
	}
	return msgs, nil
}

// checkValues is the *RequestError of op at path for a caller's Go value
// that JSON cannot carry (canonical.CheckValue: a NaN, a Go type outside the
// value tree, a map or slice that holds itself), which the typed API
// refuses before any walk of it; nil for a tree Parse could have built.
func checkValues(op, path string, v any) error {
	if err := canonical.CheckValue(v); err != nil {
		return requestError(op, field.NewError(path, "must be JSON values: "+err.Error()))
	}
	return nil
}

// formatNamed checks the transcript format name f, the member at path, for op.
func formatNamed(op string, f Format, path string) (transcript.Format, error) {
	tf, err := transcript.FormatNamed(string(f), path)
	if err != nil {
		return "", requestError(op, err)
	}
	return tf, nil
}

// TranscriptOptions are what Check, Repair and Convert know about a message
// list beyond its format and its messages. The zero value is a list that
// holds its whole history, under the request member "messages", checked
// with its format's own id rules.
//
// IDRules selects other id rules than the list format's own ("mistral" for
// a Mistral list in the openai-chat shape; "" = the format's own; for
// Convert, the target's own). ListPath is the request member holding the
// list ("" = "messages"; a whole Responses body says "input", a Gemini body
// "contents"): finding paths and errors start there.
//
// Server marks a list that continues a conversation the provider holds:
// an openai-responses input sent with previous_response_id or conversation,
// whose outputs may answer calls of the referenced response rather than of
// the list. OpenCalls, when not nil, are the referenced response's function
// calls still awaiting output, each a function_call item of its output as a
// value tree ({"type": "function_call", "call_id", "name", "arguments"}, at
// least "call_id"); a non-nil OpenCalls implies Server, and an empty one
// says there are none. With Server and OpenCalls nil, an output whose call
// is not in the list is kept and reported (kind unverified_result), never
// dropped; with OpenCalls, an output answering neither the list nor an open
// call is an orphan, and an open call without an output is unanswered
// (Check reports it with Index -1 and Path "open_calls[k]"; Repair gives it a
// NO_RESULT output at the head of the list). Only openai-responses lists
// take Server or OpenCalls.
//
// Model is the model id the list is sent to ("" = not known), for the rules
// that differ between model families: Gemini's gemini-2.0 and gemini-3
// families want every response to one call turn in one content, other
// models take them spread over consecutive contents (the default).
// Bedrock's toolResult.status is taken by Amazon Nova and Anthropic Claude 3
// and 4 models only (service model ToolResultBlock.status): for another
// model toolerr writes no status and a failure travels in the content, and
// check reports a status it finds (unsupported_member); an id toolerr
// cannot place, or none, keeps the default, status sent. Capabilities says
// what the model takes where its id cannot, by name ("tool_result_status"
// for bedrock), and overrides what Model says; a name the format does not
// know is a *RequestError at capabilities.<name>.
//
// See https://platform.openai.com/docs/guides/conversation-state and the
// OpenAI OpenAPI spec, CreateResponse (previous_response_id, conversation).
type TranscriptOptions struct {
	IDRules      string
	ListPath     string
	Server       bool
	OpenCalls    []any
	Model        string
	Capabilities map[string]bool
}

// engine checks opts for op on lists of format f and returns the engine's
// form of them.
func (opts TranscriptOptions) engine(op string, f transcript.Format) (transcript.Options, error) {
	rules, err := transcript.RulesNamed(opts.IDRules, "id_rules")
	if err != nil {
		return transcript.Options{}, requestError(op, err)
	}
	o := transcript.Options{IDRules: rules, Path: opts.ListPath, Server: opts.Server, Model: opts.Model, Capabilities: opts.Capabilities}
	if opts.Server && opts.OpenCalls == nil {
		if err := transcript.CheckServer(f, "previous_response_id"); err != nil {
			return o, requestError(op, err)
		}
	}
	if opts.OpenCalls != nil {
		if o.OpenCalls, err = transcript.ReadOpenCalls(f, opts.OpenCalls, "open_calls"); err != nil {
			return o, requestError(op, err)
		}
	}
	return o, nil
}

// readOptionsList reads messages, a list of format f under opts.ListPath,
// for op.
func readOptionsList(op string, f transcript.Format, messages []any, opts transcript.Options) ([]transcript.Message, error) {
	path := opts.Path
	if path == "" {
		path = "messages"
	}
	if err := checkValues(op, path, messages); err != nil {
		return nil, err
	}
	msgs, err := transcript.ReadList(f, messages, path)
	if err != nil {
		return nil, requestError(op, err)
	}
	return msgs, nil
}

// Check returns every finding in messages, a message list of format f
// (openai-chat, openai-responses, anthropic, gemini or bedrock) given as a
// value tree (map[string]any, []any, string, float64, bool, nil). idRules
// selects other id rules than f's own ("mistral" for a Mistral chat list; ""
// = f's). No findings is an empty slice. Returns a *RequestError naming the
// member path (as the check op does) for an unknown format ("format") or
// rules ("id_rules"), or a message of the wrong shape ("messages[i]...").
// CheckWith takes the other options.
//
// See docs/transcripts.md, "check", and each provider's Dialect().IDs.
func Check(f Format, messages []any, idRules string) ([]Finding, error) {
	return CheckWith(f, messages, TranscriptOptions{IDRules: idRules})
}

// CheckWith is Check with every option (TranscriptOptions): server-held
// state, the request member holding the list. Errors as for Check, and
// server-held state for a format that has none at Path
// "previous_response_id" or "open_calls".
func CheckWith(f Format, messages []any, opts TranscriptOptions) ([]Finding, error) {
	return checkWith(f, messages, opts, 0)
}

// checkWith is CheckWith stopping, when maxBytes > 0, once the findings pass
// maxBytes as JSON (transcript.Options.MaxBytes): for Invoke, whose response
// cannot hold the rest.
func checkWith(f Format, messages []any, opts TranscriptOptions, maxBytes int) ([]Finding, error) {
	tf, err := formatNamed("check", f, "format")
	if err != nil {
		return nil, err
	}
	o, err := opts.engine("check", tf)
	if err != nil {
		return nil, err
	}
	o.MaxBytes = maxBytes
	if err := transcript.CheckCapabilities(tf, o.Capabilities, "capabilities"); err != nil {
		return nil, requestError("check", err)
	}
	msgs, err := readOptionsList("check", tf, messages, o)
	if err != nil {
		return nil, err
	}
	return transcript.Check(tf, msgs, o), nil
}

// Repair returns messages (format f) with every tool call answered exactly
// once where f requires it, and what it changed. An unanswered call gets a
// NO_RESULT envelope (retryable false) as its result, is_error true for
// Anthropic, status "error" for Bedrock, an "error" key for Gemini, the
// envelope JSON for OpenAI; orphan and duplicate results are dropped;
// misplaced ones moved. A list Check finds nothing in comes back unchanged,
// so Repair is idempotent. Errors as for Check, and a *LimitError (Bound
// "response_bytes") when the results to synthesize would not fit in a
// response of MaxResponseBytes. RepairWith takes options.
//
// See docs/transcripts.md, "repair", and openai/openai-agents-python#1061,
// anthropics/claude-code#39830, microsoft/semantic-kernel#12708,
// microsoft/semantic-kernel#12528.
func Repair(f Format, messages []any) ([]any, RepairChanges, error) {
	return RepairWith(f, messages, TranscriptOptions{})
}

// RepairWith is Repair with every option (TranscriptOptions): with
// server-held state, outputs answering the referenced response's calls are
// kept, and its open calls without an output are answered. Errors as for
// CheckWith.
func RepairWith(f Format, messages []any, opts TranscriptOptions) ([]any, RepairChanges, error) {
	tf, err := formatNamed("repair", f, "format")
	if err != nil {
		return nil, RepairChanges{}, err
	}
	o, err := opts.engine("repair", tf)
	if err != nil {
		return nil, RepairChanges{}, err
	}
	if err := transcript.CheckCapabilities(tf, o.Capabilities, "capabilities"); err != nil {
		return nil, RepairChanges{}, requestError("repair", err)
	}
	msgs, err := readOptionsList("repair", tf, messages, o)
	if err != nil {
		return nil, RepairChanges{}, err
	}
	out, ch, err := bounds.Repair(tf, msgs, o)
	if err != nil {
		return nil, RepairChanges{}, apiError("repair", err)
	}
	return transcript.WriteWith(tf, out, o), ch, nil
}

// Trim drops the oldest turns of messages (format f) until the canonical
// JSON of the list is at most maxChars characters (code points) and it holds
// at most maxMessages messages; 0 means no limit for either, but one of them
// must be set. A call and its results go together, and a leading system
// message is always kept. Returns the list and the number of messages
// dropped. A maxChars below 2 or above 2^40, a maxMessages above 2^40, or
// neither set is a *RequestError (Path "max_chars" or "max_messages"), as
// the trim op reports it; other errors as for Check.
//
// See docs/transcripts.md, "trim".
func Trim(f Format, messages []any, maxChars, maxMessages int) ([]any, int, error) {
	tf, err := formatNamed("trim", f, "format")
	if err != nil {
		return nil, 0, err
	}
	lim, err := transcript.NewLimit(int64(maxChars), int64(maxMessages))
	if err != nil {
		return nil, 0, requestError("trim", err)
	}
	msgs, err := readList("trim", tf, messages)
	if err != nil {
		return nil, 0, err
	}
	out, n := transcript.Trim(tf, msgs, lim)
	return transcript.Write(tf, out), n, nil
}

// NormalizeIDs rewrites every call id in messages (format f) that breaks the
// id rules named by rules ("anthropic" and "bedrock": ^[a-zA-Z0-9_-]+$, at
// most 64 characters for Bedrock; "mistral": exactly 9 of [a-zA-Z0-9]; "" =
// f's own), in calls and results alike. New ids derive from an FNV-1a hash of
// the original, so the same input gives the same ids; valid ids are kept and
// distinct ids stay distinct. The map goes from each new id to its original.
// Errors as for Check, with unknown rules at Path "target" (the member of
// the normalize_ids op).
//
// See docs/transcripts.md, "normalize_ids", and anomalyco/opencode#1680.
func NormalizeIDs(f Format, rules string, messages []any) ([]any, map[string]string, error) {
	rules, err := transcript.RulesNamed(rules, "target")
	if err != nil {
		return nil, nil, requestError("normalize_ids", err)
	}
	tf, err := formatNamed("normalize_ids", f, "format")
	if err != nil {
		return nil, nil, err
	}
	msgs, err := readList("normalize_ids", tf, messages)
	if err != nil {
		return nil, nil, err
	}
	if rules == "" {
		rules = string(tf)
	}
	m := transcript.NormalizeIDs(tf, msgs, rules)
	return transcript.Write(tf, msgs), m, nil
}

// Convert writes messages read in format from in the shape of format to:
// each call turn becomes one assistant message and all its results, placed
// as to requires; Gemini response names come from the calls; the failure of
// a result is carried across (is_error, status "error", an "error" key, or
// the envelope JSON for OpenAI, and back); images are carried or moved next
// to the result with a note; ids are rewritten to the rules named by idRules
// ("" = to's own). From a format to itself the list comes back as read,
// except for the ids idRules rewrites. Errors as for Check, with the paths
// of the convert op ("from", "to", "id_rules"). ConvertWith takes options.
//
// See docs/transcripts.md, "convert", and maximhq/bifrost#5450,
// BerriAI/litellm#6953, anomalyco/opencode#1680.
func Convert(from, to Format, messages []any, idRules string) (Conversion, error) {
	return ConvertWith(from, to, messages, TranscriptOptions{IDRules: idRules})
}

// ConvertWith is Convert with every option (TranscriptOptions; IDRules are
// the target's): with server-held state and a target that keeps none, the
// open calls are written as the turn their outputs answer (each must then
// have a name: else a *RequestError at open_calls[k].name), and outputs
// whose calls cannot be seen are dropped with a note. Errors as for
// CheckWith.
func ConvertWith(from, to Format, messages []any, opts TranscriptOptions) (Conversion, error) {
	ff, tt, o, err := convertOptions(from, to, opts)
	if err != nil {
		return Conversion{}, err
	}
	msgs, err := readOptionsList("convert", ff, messages, o)
	if err != nil {
		return Conversion{}, err
	}
	return transcript.Convert(ff, tt, msgs, o), nil
}

// convertOptions checks what ConvertWith takes beside the messages: the two
// format names and the options, read for the engine. Errors as ConvertWith's.
func convertOptions(from, to Format, opts TranscriptOptions) (ff, tt transcript.Format, o transcript.Options, err error) {
	if ff, err = formatNamed("convert", from, "from"); err != nil {
		return
	}
	if tt, err = formatNamed("convert", to, "to"); err != nil {
		return
	}
	if o, err = opts.engine("convert", ff); err != nil {
		return
	}
	if err = transcript.CheckConvert(ff, tt, o); err != nil {
		err = requestError("convert", err)
		return
	}
	if err = transcript.CheckCapabilities(tt, o.Capabilities, "capabilities"); err != nil {
		err = requestError("convert", err)
	}
	return
}

// LoopGuard says whether call may run after history (oldest first): when
// the same tool failed threshold times in a row with the same canonical
// arguments (key order and white space do not matter), it returns false and
// a LOOP_DETECTED envelope (retryable false, details tool, failures,
// threshold) whose message tells the model not to repeat the call. A
// success of the tool, or a call of it with other arguments, resets the
// count; calls of other tools do not. threshold 0 means
// DefaultLoopThreshold (3). A threshold below 0 or above 2^20, or arguments
// JSON cannot carry, are a *RequestError (Path "threshold",
// "history[i].args" or "call.args"), exactly as the loop_guard op reports
// them.
//
// See docs/transcripts.md, "loop_guard".
func LoopGuard(history []LoopAttempt, call LoopAttempt, threshold int) (bool, *Envelope, error) {
	h := make([]transcript.Attempt, len(history))
	for i, a := range history {
		h[i] = transcript.Attempt(a)
	}
	if err := transcript.CheckLoopGuard(h, transcript.Attempt(call), int64(threshold)); err != nil {
		return false, nil, requestError("loop_guard", err)
	}
	allow, e := transcript.LoopGuard(h, transcript.Attempt(call), threshold)
	return allow, e, nil
}
