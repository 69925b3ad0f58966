package transcript

import (
	"github.com/toolerr/toolerr/core/internal/format/dialect"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core/internal/field"
)

// ---- scaling: check and repair must be linear (or n log n) in the list ----
//
// The tests below check the results on lists of 20,000 elements; the time is
// measured by BenchmarkCheckOrphans20k and BenchmarkRepairOrphans20k (make
// bench), not by a timed test: before the fix, check took 820 ms and repair
// 343 ms on 20,000 openai-chat orphans, after it 14 and 15 ms.

// chatOrphans is one user message and n tool messages answering no call.
func chatOrphans(n int) string {
	var b strings.Builder
	b.WriteString(`[{"role":"user","content":"q"}`)
	for i := 0; i < n; i++ {
		b.WriteString(`,{"role":"tool","tool_call_id":"x` + strconv.Itoa(i) + `","content":"r"}`)
	}
	b.WriteString("]")
	return b.String()
}

// anthropicOrphans is one user message with n orphan tool_result blocks.
func anthropicOrphans(n int) string {
	var b strings.Builder
	b.WriteString(`[{"role":"user","content":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"type":"tool_result","tool_use_id":"x` + strconv.Itoa(i) + `","content":"r"}`)
	}
	b.WriteString("]}]")
	return b.String()
}

// anthropicParallel is one assistant turn of n calls answered in order in
// the next user message, then a text block (so every result is in place).
func anthropicParallel(n int) string {
	var calls, results strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			calls.WriteString(",")
			results.WriteString(",")
		}
		id := `"t` + strconv.Itoa(i) + `"`
		calls.WriteString(`{"type":"tool_use","id":` + id + `,"name":"f","input":{}}`)
		results.WriteString(`{"type":"tool_result","tool_use_id":` + id + `,"content":"r"}`)
	}
	return `[{"role":"assistant","content":[` + calls.String() + `]},{"role":"user","content":[` + results.String() + `,{"type":"text","text":"go on"}]}]`
}

// geminiNoIDs is one model turn of n calls of the same function without ids
// and the content of their n responses (paired by name and order).
func geminiNoIDs(n int) string {
	var calls, results strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			calls.WriteString(",")
			results.WriteString(",")
		}
		calls.WriteString(`{"functionCall":{"name":"f","args":{}}}`)
		results.WriteString(`{"functionResponse":{"name":"f","response":{"output":"r"}}}`)
	}
	return `[{"role":"model","parts":[` + calls.String() + `]},{"role":"user","parts":[` + results.String() + `]}]`
}

func TestCheck_scalesLinearly(t *testing.T) {
	tests := []struct {
		name  string
		f     Format
		build func(int) string
		want  int // findings in the 20,000 list
	}{
		{"openai-chat orphan tool messages", OpenAIChat, chatOrphans, 20000},
		{"anthropic orphan tool_result blocks", Anthropic, anthropicOrphans, 1},
		{"anthropic parallel results in place", Anthropic, anthropicParallel, 0},
		{"gemini responses paired by name", Gemini, geminiNoIDs, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Len(t, Check(tc.f, read(t, tc.f, tc.build(20000)), Options{}), tc.want)
		})
	}
}

func TestRepair_scalesLinearly(t *testing.T) {
	tests := []struct {
		name    string
		f       Format
		build   func(int) string
		dropped int // orphans dropped from the 20,000 list
	}{
		{"openai-chat orphan tool messages", OpenAIChat, chatOrphans, 20000},
		{"anthropic orphan tool_result blocks", Anthropic, anthropicOrphans, 20000},
		{"anthropic parallel results in place", Anthropic, anthropicParallel, 0},
		{"gemini responses paired by name", Gemini, geminiNoIDs, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, ch := Repair(tc.f, read(t, tc.f, tc.build(20000)), Options{})
			assert.Equal(t, tc.dropped, ch.DroppedOrphans)
			assert.Len(t, ch.IDs, tc.dropped)
		})
	}
}

var _ = require.NoError

// ---- names that reach an envelope, a finding or a note are sanitized ----

const (
	secretName = "sk-proj-Zq9XkW3mP7vR2tY8uB4nC6dF1gH5jK0L"
	traceName  = "Traceback (most recent call last):\n  File \"/srv/app.py\", line 3, in f\nValueError: token=sk-proj-Zq9XkW3mP7vR2tY8uB4nC6dF1gH5jK0L"
)

func TestLoopGuard_sanitizesToolName(t *testing.T) {
	tests := []struct {
		name, tool, message, detail string
	}{
		{"secret as tool name", secretName,
			"The [REDACTED] tool failed 3 times in a row with these same arguments, so do not call it again with them; change the arguments or try another approach.",
			"[REDACTED]"},
		{"python traceback as tool name", traceName,
			"The this tool failed 3 times in a row with these same arguments, so do not call it again with them; change the arguments or try another approach.",
			"ValueError: token=[REDACTED]"},
		{"plain name kept", "search",
			"The search tool failed 3 times in a row with these same arguments, so do not call it again with them; change the arguments or try another approach.",
			"search"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := []Attempt{{Tool: tc.tool, Args: map[string]any{}}, {Tool: tc.tool, Args: map[string]any{}}, {Tool: tc.tool, Args: map[string]any{}}}
			allow, e := LoopGuard(h, Attempt{Tool: tc.tool, Args: map[string]any{}}, 0)
			require.False(t, allow)
			require.NotNil(t, e)
			assert.Equal(t, tc.message, e.Message)
			assert.Equal(t, tc.detail, e.Details["tool"])
			assert.NotContains(t, text(t, e.Value()), "sk-proj-")
		})
	}
}

func TestRepair_noResultSanitizesToolName(t *testing.T) {
	tests := []struct {
		name, tool, message, detail string
	}{
		{"secret as tool name", secretName, "No result was recorded for this call of [REDACTED], so it must be treated as failed.", "[REDACTED]"},
		{"python traceback as tool name", traceName, "No result was recorded for this tool call, so it must be treated as failed.", "ValueError: token=[REDACTED]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := noResult(tc.tool)
			assert.Equal(t, tc.message, e.Message)
			assert.Equal(t, tc.detail, e.Details["tool"])
			// and through repair and the codec, in a format without a flag
			in := `[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":` + text(t, tc.tool) + `,"arguments":"{}"}}]}]`
			out, _ := repairText(t, OpenAIChat, in, Options{})
			tail := out[strings.Index(out, `{"content"`):]
			assert.NotContains(t, tail, "sk-proj-")
			assert.NotContains(t, tail, "/srv/app.py")
		})
	}
}

func TestCheck_nameMismatchSanitizesName(t *testing.T) {
	in := `[{"role":"model","parts":[{"functionCall":{"id":"a","name":` + text(t, secretName) + `,"args":{}}}]},{"role":"user","parts":[{"functionResponse":{"id":"a","name":"g","response":{}}}]}]`
	fs := Check(Gemini, read(t, Gemini, in), Options{})
	require.Len(t, fs, 1)
	assert.Equal(t, "functionResponse.name must equal the name of the functionCall it answers ([REDACTED]).", fs[0].Message)
}

func TestConvert_dropNoteSanitizesBlockType(t *testing.T) {
	in := `[{"role":"user","content":[{"type":"text","text":"hi"},{"type":` + text(t, secretName) + `}]}]`
	c := Convert(Anthropic, OpenAIChat, read(t, Anthropic, in), Options{})
	assert.Equal(t, []string{"dropped 1 [REDACTED] content not carried across formats that openai-chat cannot carry"}, c.Notes)
}

func TestDescribeOther_namesTheBlockDeterministically(t *testing.T) {
	assert.Equal(t, "[executableCode content not carried across formats]", dialect.DescribeOther(parse(t, `{"thoughtSignature":"x","executableCode":{}}`)))
	assert.Equal(t, "[unknown content not carried across formats]", dialect.DescribeOther(parse(t, `{"type":"a b"}`)))
}

// ---- wrong types and unknown roles ----

func TestRead_nullWhereAnArrayOrObjectIsRequired(t *testing.T) {
	tests := []struct {
		name, in, path, msg string
		f                   Format
	}{
		{"gemini parts null", `[{"role":"user","parts":null}]`, "messages[0].parts", "must be an array, got null", Gemini},
		{"bedrock content null", `[{"role":"user","content":null}]`, "messages[0].content", "must be an array, got null", Bedrock},
		{"bedrock toolResult null", `[{"role":"user","content":[{"toolResult":null}]}]`, "messages[0].content[0].toolResult", "must be an object, got null", Bedrock},
		{"bedrock toolUse null", `[{"role":"assistant","content":[{"toolUse":null}]}]`, "messages[0].content[0].toolUse", "must be an object, got null", Bedrock},
		{"anthropic content null", `[{"role":"user","content":null}]`, "messages[0].content", "must be a string or an array, got null", Anthropic},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(tc.f, parse(t, tc.in).([]any))
			var fe *field.Error
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, tc.path, fe.Path)
			assert.Equal(t, tc.msg, fe.Msg)
		})
	}
}

func TestRead_absentMembersAndNullChatMembersStayAccepted(t *testing.T) {
	tests := []struct {
		name, in string
		f        Format
	}{
		{"gemini content without parts", `[{"role":"model"}]`, Gemini},
		{"anthropic message without content", `[{"role":"assistant"}]`, Anthropic},
		{"openai-chat tool_calls and content null (SDK dumps)", `[{"role":"assistant","content":null,"tool_calls":null}]`, OpenAIChat},
		{"gemini functionCall null beside text (proto JSON)", `[{"role":"user","parts":[{"text":"hi","functionCall":null}]}]`, Gemini},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msgs := read(t, tc.f, tc.in)
			assert.Empty(t, Check(tc.f, msgs, Options{}))
			out, ch := Repair(tc.f, msgs, Options{})
			assert.Equal(t, text(t, parse(t, tc.in)), text(t, Write(tc.f, out)))
			assert.Empty(t, ch.IDs)
		})
	}
}

func TestCheck_unknownRole(t *testing.T) {
	tests := []struct {
		name, in, msg string
		f             Format
	}{
		{"openai-chat wizard", `[{"role":"wizard","content":"x"}]`, "This message's role is missing or not one openai-chat accepts (system, developer, user, assistant, tool and function).", OpenAIChat},
		{"openai-chat missing role", `[{"content":"x"}]`, "This message's role is missing or not one openai-chat accepts (system, developer, user, assistant, tool and function).", OpenAIChat},
		{"openai-responses message item", `[{"type":"message","role":"wizard","content":"x"}]`, "This message's role is missing or not one openai-responses accepts (system, developer, user and assistant).", OpenAIResponses},
		{"anthropic system in messages", `[{"role":"system","content":"x"}]`, "This message's role is missing or not one anthropic accepts (user and assistant).", Anthropic},
		{"gemini wizard", `[{"role":"wizard","parts":[{"text":"x"}]}]`, "This message's role is missing or not one gemini accepts (user and model).", Gemini},
		{"bedrock wizard", `[{"role":"wizard","content":[{"text":"x"}]}]`, "This message's role is missing or not one bedrock accepts (user and assistant).", Bedrock},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msgs := read(t, tc.f, tc.in)
			assert.Equal(t, []Finding{{Kind: FindUnknownRole, Index: 0, Path: "messages[0].role", IDs: []string{}, Message: tc.msg}}, Check(tc.f, msgs, Options{}))
			out, ch := Repair(tc.f, msgs, Options{}) // not repaired: kept as is
			assert.Equal(t, text(t, parse(t, tc.in)), text(t, Write(tc.f, out)))
			assert.Empty(t, ch.IDs)
		})
	}
	// the deprecated chat "function" role and Responses items of other types
	// are known: a function reply answers the function_call before it
	assert.Empty(t, Check(OpenAIChat, read(t, OpenAIChat, `[{"role":"assistant","content":null,"function_call":{"name":"f","arguments":"{}"}},{"role":"function","name":"f","content":"x"}]`), Options{}))
	assert.Empty(t, Check(OpenAIResponses, read(t, OpenAIResponses, `[{"type":"web_search_call","id":"ws_1"}]`), Options{}))
}

// ---- convert notes every provider-specific member it drops ----

func TestConvert_notesDroppedMembers(t *testing.T) {
	tests := []struct {
		name     string
		from, to Format
		in       string
		notes    []string
	}{
		{"gemini thoughtSignature", Gemini, Anthropic,
			`[{"role":"model","parts":[{"functionCall":{"id":"a","name":"f","args":{}},"thoughtSignature":"c2ln"}]},{"role":"user","parts":[{"functionResponse":{"id":"a","name":"f","response":{"output":"x"}}}]}]`,
			[]string{"dropped members gemini carries that anthropic has no place for: thoughtSignature (1)"}},
		{"gemini to gemini keeps it", Gemini, Gemini,
			`[{"role":"model","parts":[{"text":"hm","thoughtSignature":"c2ln"}]}]`, nil},
		{"anthropic cache_control and nested citations", Anthropic, Bedrock,
			`[{"role":"user","content":[{"type":"text","text":"q","cache_control":{"type":"ephemeral"}}]},{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{},"cache_control":{"type":"ephemeral"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":[{"type":"text","text":"r","citations":[{"x":1}]}]}]}]`,
			[]string{"dropped members anthropic carries that bedrock has no place for: cache_control (2), content[].citations (1)"}},
		{"openai-chat name, index, function.strict", OpenAIChat, Gemini,
			`[{"role":"user","name":"ann","content":"q"},{"role":"assistant","tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"f","arguments":"{}","strict":true}}]},{"role":"tool","tool_call_id":"a","content":"r","name":"f"}]`,
			[]string{"dropped members openai-chat carries that gemini has no place for: function.strict (1), index (1), name (2)"}},
		{"responses item ids and status, reasoning item not looked into", OpenAIResponses, Anthropic,
			`[{"type":"reasoning","id":"rs_1","encrypted_content":"x","summary":[]},{"type":"function_call","id":"fc_1","status":"completed","call_id":"a","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"a","output":"r"}]`,
			[]string{"dropped members openai-responses carries that anthropic has no place for: id (1), status (1)", "dropped 1 reasoning content not carried across formats that anthropic cannot carry"}},
		{"null and empty members carry nothing", OpenAIChat, Anthropic,
			`[{"role":"user","content":"q","name":null,"audio":{},"annotations":[]}]`, nil},
		{"a secret member name is redacted", Bedrock, Anthropic,
			`[{"role":"user","content":[{"text":"q"}],` + text(t, secretName) + `:1}]`,
			[]string{"dropped members bedrock carries that anthropic has no place for: [REDACTED] (1)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Convert(tc.from, tc.to, read(t, tc.from, tc.in), Options{})
			assert.Equal(t, tc.notes, c.Notes)
		})
	}
}

// TestReadList_pathsUnderParent: a message list nested in another request
// reports its bad members under that list's path.
func TestReadList_pathsUnderParent(t *testing.T) {
	_, err := ReadList(Anthropic, parse(t, `[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":5}]}]`).([]any), "batch[3].messages")
	var fe *field.Error
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "batch[3].messages[1].content[0].id", fe.Path)
}
