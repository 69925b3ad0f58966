package core_test

import (
	"fmt"

	"github.com/toolerr/toolerr/core"
)

// ExampleRepairBody repairs a whole Anthropic request body: the unanswered
// call gets its NO_RESULT failure, and model, max_tokens, system and tools
// come back as they were.
func ExampleRepairBody() {
	body, _ := core.ParseJSON([]byte(`{"model":"claude-sonnet-4-5","max_tokens":1024,"system":"Answer briefly.",
	  "tools":[{"name":"search","input_schema":{"type":"object"}}],
	  "messages":[{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"search","input":{}}]}]}`))
	out, changes, err := core.RepairBody(core.FormatAnthropic, body.(map[string]any), core.TranscriptOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println(changes.Synthesized, out["model"], out["max_tokens"], out["system"])
	b, _ := core.AppendJSON(nil, out["messages"].([]any)[1])
	fmt.Println(string(b))
	// Output:
	// 1 claude-sonnet-4-5 1024 Answer briefly.
	// {"content":[{"content":"{\"code\":\"NO_RESULT\",\"details\":{\"tool\":\"search\"},\"message\":\"No result was recorded for this call of search, so it must be treated as failed.\",\"retryable\":false,\"source\":\"orchestrator\"}","is_error":true,"tool_use_id":"toolu_1","type":"tool_result"}],"role":"user"}
}

// ExampleConvertBody writes a whole Chat Completions request as a Gemini
// generateContent request: the system message becomes systemInstruction,
// the tool a functionDeclaration, temperature a generationConfig member,
// and the model, which Gemini takes in the URL, is noted.
func ExampleConvertBody() {
	body, _ := core.ParseJSON([]byte(`{"model":"gpt-4o","temperature":0,
	  "tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}],
	  "messages":[{"role":"system","content":"Answer briefly."},{"role":"user","content":"Weather in Paris?"}]}`))
	c, err := core.ConvertBody(core.FormatOpenAIChat, core.FormatGemini, body.(map[string]any), core.TranscriptOptions{})
	if err != nil {
		panic(err)
	}
	for _, k := range []string{"systemInstruction", "tools", "generationConfig", "contents"} {
		b, _ := core.AppendJSON(nil, c.Body[k])
		fmt.Println(k, string(b))
	}
	fmt.Println(c.Notes)
	// Output:
	// systemInstruction {"parts":[{"text":"Answer briefly."}]}
	// tools [{"functionDeclarations":[{"name":"get_weather","parametersJsonSchema":{"properties":{"city":{"type":"string"}},"type":"object"}}]}]
	// generationConfig {"temperature":0}
	// contents [{"parts":[{"text":"Weather in Paris?"}],"role":"user"}]
	// [dropped the model parameter: gemini takes the model in the URL, not the body]
}
