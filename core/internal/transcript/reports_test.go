package transcript

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// noResultText is the canonical NO_RESULT envelope repair writes for a call of
// name (openai/openai-agents-python#1061, anthropics/claude-code#39830,
// microsoft/semantic-kernel#12708 ask for an explicit error; ours is the
// envelope JSON rather than their free text, which they allow).
func noResultText(name string) string {
	return `{\"code\":\"NO_RESULT\",\"details\":{\"tool\":\"` + name + `\"},\"message\":\"No result was recorded for this call of ` + name + `, so it must be treated as failed.\",\"retryable\":false,\"source\":\"orchestrator\"}`
}

func noResultValue(name string) string {
	return `{"code":"NO_RESULT","details":{"tool":"` + name + `"},"message":"No result was recorded for this call of ` + name + `, so it must be treated as failed.","retryable":false,"source":"orchestrator"}`
}

func TestRepair_fieldReports(t *testing.T) {
	tests := []struct {
		name    string
		f       Format
		in      string
		want    string
		changes Changes
		model   string
	}{
		{"B01 responses output inserted right after the call item", OpenAIResponses,
			`[{"type":"message","role":"user","content":"look up item X"},{"type":"function_call","call_id":"call_A","name":"lookup","arguments":"{\"q\":\"X\"}"},{"type":"message","role":"user","content":"never mind, just say hi"}]`,
			`[{"content":"look up item X","role":"user","type":"message"},{"arguments":"{\"q\":\"X\"}","call_id":"call_A","name":"lookup","type":"function_call"},{"call_id":"call_A","output":"` + noResultText("lookup") + `","type":"function_call_output"},{"content":"never mind, just say hi","role":"user","type":"message"}]`,
			Changes{Synthesized: 1, IDs: []string{"call_A"}}, ""},
		{"B03 anthropic results first in tool_use order, synthesized is_error", Anthropic,
			`[{"role":"assistant","content":[{"type":"tool_use","id":"toolu_A","name":"search","input":{"q":"a"}},{"type":"tool_use","id":"toolu_B","name":"search","input":{"q":"b"}},{"type":"tool_use","id":"toolu_C","name":"search","input":{"q":"c"}}]},{"role":"user","content":[{"type":"text","text":"continue"},{"type":"tool_result","tool_use_id":"toolu_B","content":"3 hits"}]}]`,
			`[{"content":[{"id":"toolu_A","input":{"q":"a"},"name":"search","type":"tool_use"},{"id":"toolu_B","input":{"q":"b"},"name":"search","type":"tool_use"},{"id":"toolu_C","input":{"q":"c"},"name":"search","type":"tool_use"}],"role":"assistant"},{"content":[{"content":"` + noResultText("search") + `","is_error":true,"tool_use_id":"toolu_A","type":"tool_result"},{"content":"3 hits","tool_use_id":"toolu_B","type":"tool_result"},{"content":"` + noResultText("search") + `","is_error":true,"tool_use_id":"toolu_C","type":"tool_result"},{"text":"continue","type":"text"}],"role":"user"}]`,
			Changes{Synthesized: 2, Moved: 1, IDs: []string{"toolu_B", "toolu_A", "toolu_C"}}, ""},
		{"B04 chat orphan tool messages dropped", OpenAIChat,
			`[{"role":"tool","tool_call_id":"call_1","content":"42"},{"role":"tool","tool_call_id":"call_2","content":"43"},{"role":"user","content":"and now?"}]`,
			`[{"content":"and now?","role":"user"}]`,
			Changes{DroppedOrphans: 2, IDs: []string{"call_1", "call_2"}}, ""},
		{"B04 symmetric: missing reply inserted after the existing one", OpenAIChat,
			`[{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"call_2","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_1","content":"42"},{"role":"user","content":"and now?"}]`,
			`[{"content":null,"role":"assistant","tool_calls":[{"function":{"arguments":"{}","name":"f"},"id":"call_1","type":"function"},{"function":{"arguments":"{}","name":"f"},"id":"call_2","type":"function"}]},{"content":"42","role":"tool","tool_call_id":"call_1"},{"content":"` + noResultText("f") + `","role":"tool","tool_call_id":"call_2"},{"content":"and now?","role":"user"}]`,
			Changes{Synthesized: 1, IDs: []string{"call_2"}}, ""},
		{"B08 split gemini responses merged into one content in call order", Gemini,
			`[{"role":"model","parts":[{"functionCall":{"name":"get_time","args":{}}},{"functionCall":{"name":"get_weather","args":{"city":"CityA"}}}]},{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"error":"upstream timeout"}}}]},{"role":"user","parts":[{"functionResponse":{"name":"get_time","response":{"output":{"time":"10:00"}}}}]}]`,
			`[{"parts":[{"functionCall":{"args":{},"name":"get_time"}},{"functionCall":{"args":{"city":"CityA"},"name":"get_weather"}}],"role":"model"},{"parts":[{"functionResponse":{"name":"get_time","response":{"output":{"time":"10:00"}}}},{"functionResponse":{"name":"get_weather","response":{"error":"upstream timeout"}}}],"role":"user"}]`,
			Changes{Moved: 1, Merged: 1, IDs: []string{"get_time"}}, "gemini-2.0-flash"},
		{"split gemini responses that gemini-2.5 accepts are kept", Gemini,
			`[{"role":"model","parts":[{"functionCall":{"name":"get_time","args":{}}},{"functionCall":{"name":"get_weather","args":{"city":"CityA"}}}]},{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"error":"upstream timeout"}}}]},{"role":"user","parts":[{"functionResponse":{"name":"get_time","response":{"output":{"time":"10:00"}}}}]}]`,
			`[{"parts":[{"functionCall":{"args":{},"name":"get_time"}},{"functionCall":{"args":{"city":"CityA"},"name":"get_weather"}}],"role":"model"},{"parts":[{"functionResponse":{"name":"get_weather","response":{"error":"upstream timeout"}}}],"role":"user"},{"parts":[{"functionResponse":{"name":"get_time","response":{"output":{"time":"10:00"}}}}],"role":"user"}]`,
			Changes{IDs: []string{}}, ""},
		{"B08 missing gemini response gets an error so the counts match", Gemini,
			`[{"role":"model","parts":[{"functionCall":{"name":"get_time","args":{}}},{"functionCall":{"name":"get_weather","args":{"city":"CityA"}}}]},{"role":"user","parts":[{"functionResponse":{"name":"get_time","response":{"output":{"time":"10:00"}}}}]}]`,
			`[{"parts":[{"functionCall":{"args":{},"name":"get_time"}},{"functionCall":{"args":{"city":"CityA"},"name":"get_weather"}}],"role":"model"},{"parts":[{"functionResponse":{"name":"get_time","response":{"output":{"time":"10:00"}}}},{"functionResponse":{"name":"get_weather","response":{"error":` + noResultValue("get_weather") + `}}}],"role":"user"}]`,
			Changes{Synthesized: 1, IDs: []string{"get_weather"}}, ""},
		{"B03 bedrock results first, status error on the synthesized one", Bedrock,
			`[{"role":"assistant","content":[{"toolUse":{"toolUseId":"t1","name":"s","input":{}}},{"toolUse":{"toolUseId":"t2","name":"s","input":{}}}]},{"role":"user","content":[{"text":"go on"},{"toolResult":{"toolUseId":"t2","content":[{"text":"ok"}]}}]}]`,
			`[{"content":[{"toolUse":{"input":{},"name":"s","toolUseId":"t1"}},{"toolUse":{"input":{},"name":"s","toolUseId":"t2"}}],"role":"assistant"},{"content":[{"toolResult":{"content":[{"json":` + noResultValue("s") + `}],"status":"error","toolUseId":"t1"}},{"toolResult":{"content":[{"text":"ok"}],"toolUseId":"t2"}},{"text":"go on"}],"role":"user"}]`,
			Changes{Synthesized: 1, Moved: 1, IDs: []string{"t2", "t1"}}, ""},
		{"a second result for one call is dropped", OpenAIChat,
			`[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"a","content":"1"},{"role":"tool","tool_call_id":"a","content":"2"}]`,
			`[{"role":"assistant","tool_calls":[{"function":{"arguments":"{}","name":"f"},"id":"a","type":"function"}]},{"content":"1","role":"tool","tool_call_id":"a"}]`,
			Changes{DroppedDuplicates: 1, IDs: []string{"a"}}, ""},
		{"B12 empty tool output gets the placeholder", OpenAIChat,
			`[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"a","content":" "}]`,
			`[{"role":"assistant","tool_calls":[{"function":{"arguments":"{}","name":"f"},"id":"a","type":"function"}]},{"content":"(empty result)","role":"tool","tool_call_id":"a"}]`,
			Changes{Filled: 1, IDs: []string{"a"}}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{Model: tc.model}
			got, ch := repairText(t, tc.f, tc.in, opts)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.changes, ch)
			again, ch2 := repairText(t, tc.f, got, opts)
			assert.Equal(t, got, again, "repair is idempotent")
			assert.Equal(t, Changes{IDs: []string{}}, ch2)
			assert.Empty(t, Check(tc.f, read(t, tc.f, got), opts))
		})
	}
}

func TestCheck_fieldReports(t *testing.T) {
	tests := []struct {
		name  string
		f     Format
		rules string // id rules, or (gemini) the model
		in    string
		want  []Finding
	}{
		{"B01 unanswered function_call", OpenAIResponses, "",
			`[{"type":"function_call","call_id":"call_A","name":"lookup","arguments":"{}"},{"type":"message","role":"user","content":"hi"}]`,
			[]Finding{{Kind: FindUnansweredCall, Index: 0, IDs: []string{"call_A"}, Message: dialectOf(OpenAIResponses).Unanswered}}},
		{"B03 results missing and not first", Anthropic, "",
			`[{"role":"assistant","content":[{"type":"tool_use","id":"toolu_A","name":"s","input":{}},{"type":"tool_use","id":"toolu_B","name":"s","input":{}}]},{"role":"user","content":[{"type":"text","text":"continue"},{"type":"tool_result","tool_use_id":"toolu_B","content":"3 hits"}]}]`,
			[]Finding{{Kind: FindUnansweredCall, Index: 0, IDs: []string{"toolu_A"}, Message: dialectOf(Anthropic).Unanswered},
				{Kind: FindResultNotFirst, Index: 1, IDs: []string{"toolu_B"}, Message: misplacedMsg(dialectOf(Anthropic), FindResultNotFirst)}}},
		{"anthropic results in a later user message are misplaced", Anthropic, "",
			`[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"s","input":{}}]},{"role":"user","content":"wait"},{"role":"assistant","content":"ok"},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]}]`,
			[]Finding{{Kind: FindMisplacedResult, Index: 3, IDs: []string{"t"}, Message: misplacedMsg(dialectOf(Anthropic), FindMisplacedResult)}}},
		{"B04 orphans", OpenAIChat, "",
			`[{"role":"tool","tool_call_id":"call_1","content":"42"},{"role":"user","content":"and now?"}]`,
			[]Finding{{Kind: FindOrphanResult, Index: 0, IDs: []string{"call_1"}, Message: "This tool result answers no tool call of the turn before it."}}},
		{"B08 split responses and count", Gemini, "gemini-2.0-flash",
			`[{"role":"model","parts":[{"functionCall":{"name":"a","args":{}}},{"functionCall":{"name":"b","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"a","response":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"b","response":{}}}]}]`,
			[]Finding{{Kind: FindResponseCount, Index: 1, IDs: []string{}, Message: "Gemini needs exactly one functionResponse per functionCall of the turn, in one content (1 responses for 2 calls)."},
				{Kind: FindResponsesSplit, Index: 2, IDs: []string{"b"}, Message: misplacedMsg(dialectOf(Gemini), FindResponsesSplit)}}},
		{"B08 variant: inlineData beside the responses", Gemini, "",
			`[{"role":"model","parts":[{"functionCall":{"name":"a","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"a","response":{}}},{"inlineData":{"mimeType":"image/png","data":"AAAA"}}]}]`,
			[]Finding{{Kind: FindExtraPart, Index: 1, Path: "messages[1].parts[1]", IDs: []string{}, Message: "The content answering function calls holds only functionResponse parts; other parts go in a content of their own."}}},
		{"B16 mistral ids", OpenAIChat, RulesMistral,
			`[{"role":"assistant","tool_calls":[{"id":"call_0123456789abcdefXYZ","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_0123456789abcdefXYZ","content":"ok"}]`,
			[]Finding{{Kind: FindInvalidID, Index: 0, Path: "messages[0]", IDs: []string{"call_0123456789abcdefXYZ"}, Message: idRuleText(RulesMistral)},
				{Kind: FindInvalidID, Index: 1, Path: "messages[1]", IDs: []string{"call_0123456789abcdefXYZ"}, Message: idRuleText(RulesMistral)}}},
		{"anthropic id with a dot", Anthropic, "",
			`[{"role":"assistant","content":[{"type":"tool_use","id":"a.b","name":"s","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"a.b","content":"x"}]}]`,
			[]Finding{{Kind: FindInvalidID, Index: 0, Path: "messages[0].content[0]", IDs: []string{"a.b"}, Message: idRuleText(RulesAnthropic)},
				{Kind: FindInvalidID, Index: 1, Path: "messages[1].content[0]", IDs: []string{"a.b"}, Message: idRuleText(RulesAnthropic)}}},
		{"duplicate call ids", Anthropic, "",
			`[{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"s","input":{}},{"type":"tool_use","id":"a","name":"s","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"x"}]}]`,
			[]Finding{{Kind: FindUnansweredCall, Index: 0, IDs: []string{"a"}, Message: dialectOf(Anthropic).Unanswered},
				{Kind: FindDuplicateCallID, Index: 0, IDs: []string{"a"}, Message: "Two tool calls of one turn share this id; ids must be unique within a turn (repair renames the second)."}}},
		{"B12 empty text block and empty tool_result", Anthropic, "",
			`[{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"s","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":[{"type":"text","text":""}]},{"type":"text","text":" "}]}]`,
			[]Finding{{Kind: FindEmptyText, Index: 1, Path: "messages[1].content[0]", IDs: []string{"a"}, Message: "This tool result's text is empty, which anthropic rejects; repair writes (empty result)."},
				{Kind: FindEmptyText, Index: 1, Path: "messages[1].content[1]", IDs: []string{}, Message: "Empty text blocks are rejected by anthropic."}}},
		{"gemini response name differs from the call", Gemini, "",
			`[{"role":"model","parts":[{"functionCall":{"id":"x","name":"a","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"id":"x","name":"b","response":{}}}]}]`,
			[]Finding{{Kind: FindNameMismatch, Index: 1, Path: "messages[1].parts[0]", IDs: []string{"x"}, Message: "functionResponse.name must equal the name of the functionCall it answers (a)."}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{IDRules: tc.rules}
			if tc.f == Gemini {
				opts = Options{Model: tc.rules}
			}
			got := Check(tc.f, read(t, tc.f, tc.in), opts)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestNormalizeIDs_B16(t *testing.T) {
	msgs := read(t, OpenAIChat, `[{"role":"assistant","tool_calls":[{"id":"call_0123456789abcdefXYZ","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"KikbB849t","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"turn1_0","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_0123456789abcdefXYZ","content":"ok"},{"role":"tool","tool_call_id":"KikbB849t","content":"ok"},{"role":"tool","tool_call_id":"turn1_0","content":"ok"}]`)
	back := NormalizeIDs(OpenAIChat, msgs, RulesMistral)
	require.Len(t, back, 2, "the valid id KikbB849t is kept")
	forward := map[string]string{}
	for n, o := range back {
		assert.Regexp(t, `^[A-Za-z0-9]{9}$`, n)
		forward[o] = n
	}
	assert.NotEqual(t, forward["call_0123456789abcdefXYZ"], forward["turn1_0"])
	assert.Equal(t, newID(rule(RulesMistral), "call_0123456789abcdefXYZ", 0), forward["call_0123456789abcdefXYZ"], "derived from the hash of the original")
	got := text(t, Write(OpenAIChat, msgs))
	want := `[{"role":"assistant","tool_calls":[{"function":{"arguments":"{}","name":"f"},"id":"` + forward["call_0123456789abcdefXYZ"] + `","type":"function"},{"function":{"arguments":"{}","name":"f"},"id":"KikbB849t","type":"function"},{"function":{"arguments":"{}","name":"f"},"id":"` + forward["turn1_0"] + `","type":"function"}]},{"content":"ok","role":"tool","tool_call_id":"` + forward["call_0123456789abcdefXYZ"] + `"},{"content":"ok","role":"tool","tool_call_id":"KikbB849t"},{"content":"ok","role":"tool","tool_call_id":"` + forward["turn1_0"] + `"}]`
	assert.Equal(t, want, got)
	assert.Empty(t, Check(OpenAIChat, read(t, OpenAIChat, got), Options{IDRules: RulesMistral}))
}

func TestNormalizeIDs_collision(t *testing.T) {
	// "a.b" and "a:b" keep the same readable prefix "a_b"; the hash keeps
	// them apart, and an existing id equal to a candidate forces the next one.
	first := newID(rule(RulesAnthropic), "a.b", 0)
	msgs := read(t, Anthropic, `[{"role":"assistant","content":[{"type":"tool_use","id":"a.b","name":"s","input":{}},{"type":"tool_use","id":"a:b","name":"s","input":{}},{"type":"tool_use","id":"`+first+`","name":"s","input":{}}]}]`)
	back := NormalizeIDs(Anthropic, msgs, RulesAnthropic)
	require.Len(t, back, 2)
	fw := map[string]string{}
	for n, o := range back {
		fw[o] = n
		assert.LessOrEqual(t, len(n), 64)
	}
	assert.Equal(t, newID(rule(RulesAnthropic), "a.b", 1), fw["a.b"], "the kept id took the first candidate")
	assert.NotEqual(t, fw["a.b"], fw["a:b"])
}

func TestConvert_fieldReports(t *testing.T) {
	failed := `[{"role":"assistant","content":[{"type":"tool_use","id":"toolu_X","name":"read_file","input":{"path":"missing.txt"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_X","is_error":true,"content":"permission denied"}]}]`
	image := `[{"role":"assistant","content":[{"type":"tool_use","id":"toolu_I","name":"screenshot","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_I","content":[{"type":"text","text":"captured"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]}]}]`
	tests := []struct {
		name     string
		from, to Format
		in       string
		want     string
		notes    []string
	}{
		{"B07 is_error becomes bedrock status error with the text", Anthropic, Bedrock, failed,
			`[{"content":[{"toolUse":{"input":{"path":"missing.txt"},"name":"read_file","toolUseId":"toolu_X"}}],"role":"assistant"},{"content":[{"toolResult":{"content":[{"text":"permission denied"}],"status":"error","toolUseId":"toolu_X"}}],"role":"user"}]`, nil},
		{"B07 plain-text is_error becomes its envelope under the gemini error key, name from the call", Anthropic, Gemini, failed,
			`[{"parts":[{"functionCall":{"args":{"path":"missing.txt"},"id":"toolu_X","name":"read_file"}}],"role":"model"},{"parts":[{"functionResponse":{"id":"toolu_X","name":"read_file","response":{"error":{"code":"TOOL_ERROR","details":{"tool":"read_file"},"message":"permission denied.","retryable":false,"source":"tool"}}}}],"role":"user"}]`, nil},
		{"B07 is_error becomes the envelope in openai-chat content", Anthropic, OpenAIChat, failed,
			`[{"content":null,"role":"assistant","tool_calls":[{"function":{"arguments":"{\"path\":\"missing.txt\"}","name":"read_file"},"id":"toolu_X","type":"function"}]},{"content":"{\"code\":\"TOOL_ERROR\",\"details\":{\"tool\":\"read_file\"},\"message\":\"permission denied.\",\"retryable\":false,\"source\":\"tool\"}","role":"tool","tool_call_id":"toolu_X"}]`, nil},
		{"B07 envelope in openai-chat restores is_error", OpenAIChat, Anthropic,
			`[{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"{\"code\":\"TIMEOUT\",\"details\":{},\"message\":\"Timed out.\",\"retryable\":true,\"source\":\"tool\"}"}]`,
			`[{"content":[{"id":"c1","input":{},"name":"f","type":"tool_use"}],"role":"assistant"},{"content":[{"content":"{\"code\":\"TIMEOUT\",\"details\":{},\"message\":\"Timed out.\",\"retryable\":true,\"source\":\"tool\"}","is_error":true,"tool_use_id":"c1","type":"tool_result"}],"role":"user"}]`, nil},
		{"B13 image carried to bedrock", Anthropic, Bedrock, image,
			`[{"content":[{"toolUse":{"input":{},"name":"screenshot","toolUseId":"toolu_I"}}],"role":"assistant"},{"content":[{"toolResult":{"content":[{"text":"captured"},{"image":{"format":"png","source":{"bytes":"iVBORw0KGgo="}}}],"toolUseId":"toolu_I"}}],"role":"user"}]`, nil},
		{"B13 image moved next to the openai-chat tool message, said so", Anthropic, OpenAIChat, image,
			`[{"content":null,"role":"assistant","tool_calls":[{"function":{"arguments":"{}","name":"screenshot"},"id":"toolu_I","type":"function"}]},{"content":"captured\n[1 image from this tool result is attached in the next message]","role":"tool","tool_call_id":"toolu_I"},{"content":[{"text":"Image 1 of 1 from tool call toolu_I:","type":"text"},{"image_url":{"url":"data:image/png;base64,iVBORw0KGgo="},"type":"image_url"}],"role":"user"}]`,
			[]string{"1 tool-result images moved into a user message after the tool messages: openai-chat tool messages carry text only"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Convert(tc.from, tc.to, read(t, tc.from, tc.in), Options{})
			assert.Equal(t, tc.want, text(t, c.Messages))
			assert.Equal(t, tc.notes, c.Notes)
			assert.Empty(t, c.IDMap)
		})
	}
}

func TestConvert_idsNormalizedForTarget(t *testing.T) {
	in := `[{"role":"assistant","tool_calls":[{"id":"call:1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call:1","content":"ok"}]`
	c := Convert(OpenAIChat, Anthropic, read(t, OpenAIChat, in), Options{})
	n := newID(rule(RulesAnthropic), "call:1", 0)
	assert.Equal(t, map[string]string{n: "call:1"}, c.IDMap)
	assert.Equal(t, `[{"content":[{"id":"`+n+`","input":{},"name":"f","type":"tool_use"}],"role":"assistant"},{"content":[{"content":"ok","tool_use_id":"`+n+`","type":"tool_result"}],"role":"user"}]`, text(t, c.Messages))
}
