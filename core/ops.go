package core

import (
	"slices"
	"strconv"
	"strings"

	"github.com/toolerr/toolerr/core/internal/field"
)

// OpInfo describes one op of Invoke, as the README's Invoke reference lists
// it: Name is the value of the request's "op" member; Members lists the
// request members ("?" marks an optional one); Result is the shape of the
// "ok" result; Doc names the document with the op's rules ("" when none);
// Example is one real request that succeeds.
type OpInfo struct {
	Name, Members, Result, Doc, Example string
}

// Ops returns the ops of Invoke in README order, a fresh copy on each call.
// scripts/gen-readme-invoke writes the README's Invoke reference from it.
func Ops() []OpInfo {
	out := make([]OpInfo, len(opTable))
	for i := range opTable {
		out[i] = opTable[i].OpInfo
	}
	return out
}

// handler is the shape of every op: it decodes its members from req, calls
// the core, and returns a value tree for "ok" (or an okResponse), or an error
// that becomes INVALID_INPUT.
type handler func(req map[string]any) (any, error)

// op is one row of the op table: what the README says of the op, its
// handler, and members, the names of the top-level request members it reads
// (besides "op" and the framing, frameMembers): a request with any other is
// refused (checkMembers). Members, the README's doc string, names the same
// members (TestOpTable_membersMatchDoc).
type op struct {
	OpInfo
	run     handler
	members []string
}

// frameMembers are the top-level members every op knows: the op's name, and
// "raw_len", the framing a binding adds after a member it writes as JSON text
// (splice.go; the C and wasm exports add nothing).
var frameMembers = [...]string{"op", "raw_len"}

// exampleEnvelope is the failure the examples of the table share.
const exampleEnvelope = `{"code":"TRANSPORT","message":"The search tool is unavailable (HTTP 503); retry later.","retryable":true,"details":{"status":503,"tool":"search"},"source":"tool"}`

// opTable is the one list of ops: Invoke dispatches through it and the README
// is generated from it. Adding an op is one row here (plus its fixtures in
// conformance/fixtures/<op>/).
var opTable = [...]op{
	{OpInfo{"version", "—", "`{abi, version}`", "", `{"op":"version"}`}, opVersion, []string{}},
	{OpInfo{"codes", "—", "the registry rows", "README § Code registry", `{"op":"codes"}`}, opCodes, []string{}},
	{OpInfo{"envelope", "`code`, `message`, `retryable`?, `details`?, `source`?", "the envelope, registry defaults filled, text sanitized", "",
		`{"op":"envelope","code":"RATE_LIMITED","message":"Weather API returned 429 after 3 attempts","details":{"status":429,"retry_after_seconds":12,"tool":"get_weather"},"source":"tool"}`}, opEnvelope, []string{"code", "message", "retryable", "details", "source"}},
	{OpInfo{"canonicalize", "`value`", "`value` in RFC 8785 form", "",
		`{"op":"canonicalize","value":{"b":[1.0,1e21,"\u00e9"],"a":null}}`}, opCanonicalize, []string{"value"}},
	{OpInfo{"sanitize", "`text`, `max_chars`?", "`{text, truncated, original_chars?}`", "docs/sanitize.md",
		`{"op":"sanitize","text":"GET https://api.example.com/v1?key=PLACEHOLDER_KEY failed: Authorization: Bearer PLACEHOLDER_TOKEN"}`}, opSanitize, []string{"text", "max_chars"}},
	{OpInfo{"classify", "one of `http` {status, headers, body} / `sse_event` {event, data, content_emitted} / `error_text`; `source`?, `provider`?, `tool`?, `attempt`?, `now_ms`?", "an envelope", "docs/classify.md",
		`{"op":"classify","provider":"openai","now_ms":1735689600000,"http":{"status":429,"headers":{"retry-after":"7","x-request-id":"req_1"},"body":{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}}}`}, opClassify, []string{"http", "sse_event", "error_text", "source", "provider", "tool", "attempt", "now_ms"}},
	{OpInfo{"classify_exception", "`exception` {type, message, traceback}, `tool`?, `attempt`?, `source`? (tool), `provider`?", "a tool envelope (TOOL_ERROR, or TIMEOUT/TRANSPORT for transient types)", "docs/classify.md",
		`{"op":"classify_exception","tool":"read_file","exception":{"traceback":"Traceback (most recent call last):\n  File \"/srv/app/tools.py\", line 12, in read_file\n    return open(path).read()\nFileNotFoundError: [Errno 2] No such file or directory: 'missing.txt'"}}`}, opClassifyException, []string{"exception", "tool", "attempt", "source", "provider"}},
	{OpInfo{"args_error", "`tool`?, `failures` [{path (JSON Pointer of the failing value; for required, the missing property), keyword, expected?}]", "an INVALID_ARGS envelope naming the fields", "docs/args.md",
		`{"op":"args_error","tool":"get_weather","failures":[{"path":"/days","keyword":"maximum","expected":7},{"path":"/city","keyword":"required"}]}`}, opArgsError, []string{"tool", "failures"}},
	{OpInfo{"serialize", "`format`, `results` [{call {id, name}, error \\| result}] (or one `call` + `error`/`result`), `output_schema`? (mcp: whether the tool declares an outputSchema; false adds the envelope as structuredContent)", "the messages to append, in the provider's shape", "docs/formats-*.md",
		`{"op":"serialize","format":"anthropic","results":[{"call":{"id":"toolu_01","name":"search"},"error":` + exampleEnvelope + `},{"call":{"id":"toolu_02","name":"get_time"},"result":{"json":{"time":"10:00"}}}]}`}, opSerialize, []string{"format", "results", "call", "error", "result", "output_schema"}},
	{OpInfo{"parse", "`format`, `messages`", "the outcomes: [{call, error \\| result}]", "docs/formats-*.md",
		`{"op":"parse","format":"openai-chat","messages":[{"role":"tool","tool_call_id":"call_1","content":"{\"code\":\"TIMEOUT\",\"details\":{},\"message\":\"Search timed out.\",\"retryable\":true,\"source\":\"tool\"}"}]}`}, opParse, []string{"format", "messages"}},
	{OpInfo{"check", "`format`, `messages` \\| `body` (a whole request body), `id_rules`?, `model`?, `capabilities`?, `previous_response_id`? \\| `conversation`?, `open_calls`?", "`{findings: [{kind, index?, path?, ids?, message}]}`", "docs/transcripts.md",
		`{"op":"check","format":"openai-chat","messages":[{"role":"user","content":"weather?"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{}"}}]},{"role":"user","content":"and now?"}]}`}, opCheck, []string{"format", "messages", "body", "id_rules", "model", "capabilities", "previous_response_id", "conversation", "open_calls"}},
	{OpInfo{"repair", "`format`, `messages` \\| `body`, `id_rules`?, `model`?, `capabilities`?, `previous_response_id`? \\| `conversation`?, `open_calls`?", "`{messages \\| body, changes}`", "docs/transcripts.md",
		`{"op":"repair","format":"anthropic","body":{"model":"claude-sonnet-4-5","max_tokens":1024,"system":"Answer briefly.","tools":[{"name":"search","input_schema":{"type":"object","properties":{"q":{"type":"string"}}}}],"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"toolu_A","name":"search","input":{"q":"a"}},{"type":"tool_use","id":"toolu_B","name":"search","input":{"q":"b"}}]},{"role":"user","content":[{"type":"text","text":"continue"},{"type":"tool_result","tool_use_id":"toolu_B","content":"3 hits"}]}]}}`}, opRepair, []string{"format", "messages", "body", "id_rules", "model", "capabilities", "previous_response_id", "conversation", "open_calls"}},
	{OpInfo{"convert", "`from`, `to`, `messages` \\| `body`, `id_rules`?, `model`?, `capabilities`?, `previous_response_id`? \\| `conversation`?, `open_calls`?", "`{messages \\| body, id_map?, notes?}`", "docs/transcripts.md",
		`{"op":"convert","from":"openai-chat","to":"gemini","body":{"model":"gpt-4o","temperature":0,"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}],"messages":[{"role":"system","content":"Answer briefly."},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},{"role":"tool","tool_call_id":"call_1","content":"{\"code\":\"TIMEOUT\",\"details\":{},\"message\":\"Weather service timed out.\",\"retryable\":true,\"source\":\"tool\"}"}]}}`}, opConvert, []string{"from", "to", "messages", "body", "id_rules", "model", "capabilities", "previous_response_id", "conversation", "open_calls"}},
	{OpInfo{"trim", "`format`, `messages` \\| `body`, `max_chars`? \\| `max_messages`?", "`{messages \\| body, dropped}`", "docs/transcripts.md",
		`{"op":"trim","format":"openai-chat","max_messages":2,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_1","content":"ok"},{"role":"user","content":"thanks"}]}`}, opTrim, []string{"format", "messages", "body", "max_chars", "max_messages"}},
	{OpInfo{"normalize_ids", "`target` (anthropic \\| bedrock \\| mistral), `format`?, `messages` \\| `body`", "`{messages \\| body, id_map}`", "docs/transcripts.md",
		`{"op":"normalize_ids","target":"mistral","format":"openai-chat","messages":[{"role":"assistant","tool_calls":[{"id":"call_0123456789abcdefXYZ","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_0123456789abcdefXYZ","content":"ok"}]}`}, opNormalizeIDs, []string{"target", "format", "messages", "body"}},
	{OpInfo{"loop_guard", "`history` [{tool, args, ok}], `call` {tool, args}, `threshold`?", "`{allow}` or `{allow: false, error}`", "docs/transcripts.md",
		`{"op":"loop_guard","threshold":3,"call":{"tool":"search","args":{"b":1,"a":2}},"history":[{"tool":"search","args":{"a":2,"b":1},"ok":false},{"tool":"search","args":{"a":2,"b":1},"ok":false},{"tool":"search","args":{"b":1,"a":2},"ok":false}]}`}, opLoopGuard, []string{"history", "call", "threshold"}},
	{OpInfo{"retry", "`error`, `attempt`, `draw` in [0,1), `policy`?", "`{retry, delay_ms, reason}`", "docs/resilience.md",
		`{"op":"retry","attempt":1,"draw":0.5,"error":` + exampleEnvelope + `}`}, opRetry, []string{"error", "attempt", "draw", "policy"}},
	{OpInfo{"breaker", "`state` (object, its canonical bytes as a string, or null), `event` (allow \\| success \\| failure), `now_ms`, `settings`?, `error`?, `tool`?", "`{state, allowed?, error?}`", "docs/resilience.md",
		`{"op":"breaker","state":{"phase":"closed","failures":2},"event":"failure","now_ms":1000,"error":` + exampleEnvelope + `}`}, opBreaker, []string{"state", "event", "now_ms", "settings", "error", "tool"}},
	{OpInfo{"budget", "`limits` {steps, tokens, wall_ms}, `charge`?, `state`?, `now_ms`", "`{allowed, state, remaining, error?}`", "docs/resilience.md",
		`{"op":"budget","state":{"steps":10,"tokens":1200,"started_ms":1000},"limits":{"steps":10,"tokens":5000,"wall_ms":60000},"charge":{"steps":1},"now_ms":3000}`}, opBudget, []string{"limits", "charge", "state", "now_ms"}},
	{OpInfo{"replay", "`format`, `trace` {description, steps, bound}, `transcript`?", "`{calls, turns, terminated, reason, transcript?}`", "docs/resilience.md",
		`{"op":"replay","format":"anthropic","transcript":false,"trace":{"description":"503 then success","bound":20,"steps":[{"error":` + exampleEnvelope + `},{"result":{"text":"Found 5 flights."}}]}}`}, opReplay, []string{"format", "trace", "transcript"}},
	{OpInfo{"step", "`tool`, `state` \\| null, `event` {kind, ...}, `now_ms`, `policy`?, `settings`?, `key_prefix`?, `timeout_ms`?, `store_backoff_ms`?, `budget`? {limits, state?, charge?}, `loop`? {threshold?, state?}, `replica`? {down_until_ms?, state?}, `on_success`?, `on_swapped`?, `on_slept`?, `standing`?", "`{action, decisions, state, budget?, loop?, replica?, on_success? \\| on_swapped? \\| on_slept?, stands?}`", "docs/resilience.md",
		`{"op":"step","tool":"search","state":{"phase":"breaker","attempt":1,"event":"failure","tries":0,"draw":0.5,"error":` + exampleEnvelope + `},"event":{"kind":"loaded","value":null},"now_ms":1000}`}, opStep, []string{"tool", "state", "event", "now_ms", "policy", "settings", "key_prefix", "timeout_ms", "store_backoff_ms", "budget", "loop", "replica", "on_success", "on_swapped", "on_slept", "standing"}},
	{OpInfo{"egress_endpoint", "`method`, `path` (the URL path, percent-encoded)", "`{endpoint: {api, format, model} \\| null}`", "docs/egress.md",
		`{"op":"egress_endpoint","method":"POST","path":"/v1beta/models/gemini-2.5-flash:streamGenerateContent"}`}, opEgressEndpoint, []string{"method", "path"}},
	{OpInfo{"egress_request", "`format`, `body` (a whole request body), `id_rules`?, `model`?, `capabilities`?, `open_calls`?", "`{body, changed, changes, id_map?, findings}`", "docs/egress.md",
		`{"op":"egress_request","format":"anthropic","body":{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[{"role":"user","content":"Weather in Paris and Rome?"},{"role":"assistant","content":[{"type":"tool_use","id":"call:abc/1","name":"get_weather","input":{"city":"Paris"}},{"type":"tool_use","id":"call_abc_1","name":"get_weather","input":{"city":"Rome"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"call:abc/1","content":"{\"code\":\"TIMEOUT\",\"details\":{},\"message\":\"Weather service timed out.\",\"retryable\":true,\"source\":\"tool\"}"}]}]}}`}, opEgressRequest, []string{"format", "body", "id_rules", "model", "capabilities", "open_calls"}},
	{OpInfo{"egress_response", "`from`, `to` (openai-chat \\| anthropic \\| gemini), `body` (a non-streaming response), `name_map`?, `now_ms`?", "`{body, notes?}`", "docs/egress.md",
		`{"op":"egress_response","from":"anthropic","to":"openai-chat","now_ms":1735689600000,"body":{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Checking."},{"type":"tool_use","id":"toolu_01","name":"get_weather","input":{"city":"Paris"}}],"stop_reason":"tool_use","usage":{"input_tokens":20,"output_tokens":12}}}`}, opEgressResponse, []string{"from", "to", "body", "name_map", "now_ms"}},
	{OpInfo{"egress_error", "`ingress`, `upstream` {one of `http` {status, headers, body \\| head} / `sse_event` {event, data \\| head} / `error_text`; `provider`?, `now_ms`?} or `gateway` {status, message?, param?} (the gateway's own refusal), `upstream_message`? (keep \\| drop)", "`{status, headers, body, envelope}` (a stream event: `{event, data, envelope}`; a head that is no error event's, or an `http` success, 200-299, whose body is no error object: `{pass: true}`; an `http` success's `head`, its first bytes up to EgressSuccessHeadBytes (256): `{read: true}` when it may open an error object, so read it whole and ask with its body, else `{pass: true}`)", "docs/egress.md",
		`{"op":"egress_error","ingress":"openai-chat","upstream":{"provider":"anthropic","http":{"status":429,"headers":{"retry-after":"7","request-id":"req_1"},"body":{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}}}}`}, opEgressError, []string{"ingress", "upstream", "gateway", "upstream_message"}},
	{OpInfo{"egress_scan", "`ingress`, `state` (\"sse\" \\| \"array\" \\| the last answer's), `input` (the held bytes, then the new ones: a string, or raw bytes framed by `raw_len`), `skip`? (held bytes left out of input's front: the answer may be `{resend: true}`), `eof`?, `provider`?, `now_ms`?, `upstream_message`?", "`{cuts: [{start, end, write?, event?, data?, envelope?}], hold, state}`", "docs/egress.md",
		`{"op":"egress_scan","ingress":"openai-chat","state":"sse","now_ms":1735689600000,"input":"data: {\"choices\":[]}\n\ndata: {\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\"}}\n\ndata: {\"cho"}`}, opEgressScan, []string{"ingress", "state", "input", "skip", "eof", "provider", "now_ms", "upstream_message"}},
}

// dispatch runs the handler of op on req, or returns ErrUnknownOp, or the
// error of checkMembers for a member the op does not know.
func dispatch(name string, req map[string]any) (any, error) {
	o := lookupOp(name)
	if o == nil {
		return nil, &RequestError{Path: "op", Offset: -1, Msg: "unknown op " + strconv.Quote(name), err: ErrUnknownOp}
	}
	if err := o.checkMembers(req); err != nil {
		return nil, err
	}
	return o.run(req)
}

// lookupOp returns the row of opTable named name, or nil.
func lookupOp(name string) *op {
	for i := range opTable {
		if opTable[i].Name == name {
			return &opTable[i]
		}
	}
	return nil
}

// checkMembers returns a *field.Error at the smallest member of req that is
// neither one of o's members nor a frame member, as the nested objects'
// members are refused: a misspelled option ("polcy", "max_char") would
// otherwise be dropped and its default used in silence, and a newer binding
// sending an option this core does not have gets an error, not a default.
// The smallest name is the one reported, so the error does not depend on map
// order (no sort, no allocation on the common path).
func (o *op) checkMembers(req map[string]any) error {
	bad, found := "", false
	for k := range req {
		if !o.knows(k) && (!found || k < bad) {
			bad, found = k, true
		}
	}
	if !found {
		return nil
	}
	want := make([]string, 0, 1+len(o.members))
	want = append(append(want, "op"), o.members...)
	return field.NewError(bad, "is not a known member (want "+strings.Join(want, ", ")+")")
}

// knows reports whether name is a member of o's requests or a frame member.
func (o *op) knows(name string) bool {
	return slices.Contains(frameMembers[:], name) || slices.Contains(o.members, name)
}

// checkOpMembers is checkMembers for the op named name (nil for an op the
// table does not have: dispatch reports it).
func checkOpMembers(name string, req map[string]any) error {
	if o := lookupOp(name); o != nil {
		return o.checkMembers(req)
	}
	return nil
}
