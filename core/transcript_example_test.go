package core_test

import (
	"fmt"

	"github.com/toolerr/toolerr/core"
	"github.com/toolerr/toolerr/core/internal/canonical"
)

// list parses a JSON message list for the examples.
func list(s string) []any {
	v, err := canonical.Parse([]byte(s))
	if err != nil {
		panic(err)
	}
	return v.([]any)
}

func show(v any) string {
	b, _ := canonical.Marshal(v)
	return string(b)
}

// Check finds the tool_use left without a result and the tool_result placed
// after text (anthropics/claude-code#39830).
func ExampleCheck() {
	msgs := list(`[
	 {"role":"assistant","content":[{"type":"tool_use","id":"toolu_A","name":"search","input":{"q":"a"}},
	                                {"type":"tool_use","id":"toolu_B","name":"search","input":{"q":"b"}}]},
	 {"role":"user","content":[{"type":"text","text":"continue"},{"type":"tool_result","tool_use_id":"toolu_B","content":"3 hits"}]}]`)
	findings, _ := core.Check(core.FormatAnthropic, msgs, "")
	for _, f := range findings {
		fmt.Println(f.Kind, f.Index, f.IDs)
	}
	// Output:
	// unanswered_call 0 [toolu_A]
	// result_not_first 1 [toolu_B]
}

// Repair answers the call a Responses history left open (openai/openai-agents-python#1061)
// with an explicit NO_RESULT error, right after the call item.
func ExampleRepair() {
	msgs := list(`[{"type":"function_call","call_id":"call_A","name":"lookup","arguments":"{\"q\":\"X\"}"},
	               {"type":"message","role":"user","content":"never mind"}]`)
	out, changes, _ := core.Repair(core.FormatOpenAIResponses, msgs)
	fmt.Println(show(out[1]))
	fmt.Println(changes.Synthesized, changes.IDs)
	// Output:
	// {"call_id":"call_A","output":"{\"code\":\"NO_RESULT\",\"details\":{\"tool\":\"lookup\"},\"message\":\"No result was recorded for this call of lookup, so it must be treated as failed.\",\"retryable\":false,\"source\":\"orchestrator\"}","type":"function_call_output"}
	// 1 [call_A]
}

// Convert carries Anthropic's is_error over to Bedrock's status (maximhq/bifrost#5450).
func ExampleConvert() {
	msgs := list(`[
	 {"role":"assistant","content":[{"type":"tool_use","id":"toolu_X","name":"read_file","input":{"path":"a.txt"}}]},
	 {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_X","is_error":true,"content":"permission denied"}]}]`)
	c, _ := core.Convert(core.FormatAnthropic, core.FormatBedrock, msgs, "")
	fmt.Println(show(c.Messages[1]))
	// Output:
	// {"content":[{"toolResult":{"content":[{"text":"permission denied"}],"status":"error","toolUseId":"toolu_X"}}],"role":"user"}
}

// NormalizeIDs gives Mistral the 9-character ids it requires (anomalyco/opencode#1680), in the
// call and its result alike, and the map back.
func ExampleNormalizeIDs() {
	msgs := list(`[{"role":"assistant","tool_calls":[{"id":"call_0123456789abcdefXYZ","type":"function","function":{"name":"f","arguments":"{}"}}]},
	               {"role":"tool","tool_call_id":"call_0123456789abcdefXYZ","content":"ok"}]`)
	out, idMap, _ := core.NormalizeIDs(core.FormatOpenAIChat, "mistral", msgs)
	fmt.Println(show(out[1]))
	fmt.Println(show(map[string]any{"map": idMap["zUBuOSWBS"]}))
	// Output:
	// {"content":"ok","role":"tool","tool_call_id":"zUBuOSWBS"}
	// {"map":"call_0123456789abcdefXYZ"}
}

// Trim keeps the system message and never separates a call from its result.
func ExampleTrim() {
	msgs := list(`[{"role":"system","content":"s"},{"role":"user","content":"q"},
	 {"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},
	 {"role":"tool","tool_call_id":"a","content":"r"},{"role":"user","content":"next"}]`)
	out, dropped, _ := core.Trim(core.FormatOpenAIChat, msgs, 0, 3)
	fmt.Println(dropped, show(out))
	// Output:
	// 3 [{"content":"s","role":"system"},{"content":"next","role":"user"}]
}

// LoopGuard blocks the third identical failure in a row; key order does
// not matter.
func ExampleLoopGuard() {
	fail := core.LoopAttempt{Tool: "search", Args: map[string]any{"q": "x", "n": 1.0}}
	history := []core.LoopAttempt{fail, fail, {Tool: "search", Args: `{"n":1,"q":"x"}`}}
	allow, env, err := core.LoopGuard(history, core.LoopAttempt{Tool: "search", Args: map[string]any{"n": 1.0, "q": "x"}}, 0)
	if err != nil {
		panic(err) // a threshold or arguments the loop_guard op refuses
	}
	fmt.Println(allow, env.Code, env.Retryable, show(env.Details))
	// Output:
	// false LOOP_DETECTED false {"failures":3,"threshold":3,"tool":"search"}
}
