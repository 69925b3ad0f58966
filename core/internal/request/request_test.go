package request

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
	"github.com/toolerr/toolerr/core/internal/format/gemini"
	"github.com/toolerr/toolerr/core/internal/sharedtest"
	"github.com/toolerr/toolerr/core/internal/transcript"
)

func parse(t testing.TB, s string) map[string]any {
	t.Helper()
	v, err := canonical.Parse([]byte(s))
	require.NoError(t, err, s)
	return v.(map[string]any)
}

func jcs(t testing.TB, v any) string {
	t.Helper()
	b, err := canonical.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// sameOutside holds out to in member by member, byte for byte, except the
// list member key.
func sameOutside(t *testing.T, in, out map[string]any, key, name string) {
	t.Helper()
	for k, v := range in {
		if k == key {
			continue
		}
		require.Contains(t, out, k, "%s: member %s lost", name, k)
		assert.Equal(t, jcs(t, v), jcs(t, out[k]), "%s: member %s changed", name, k)
	}
	for k := range out {
		if k != key {
			assert.Contains(t, in, k, "%s: member %s added", name, k)
		}
	}
}

// ownBodies are whole request bodies of every format, each with an
// unanswered call, a system prompt, a tool, a tool choice and generation
// parameters, as the vendors document them.
var ownBodies = map[transcript.Format]string{
	transcript.OpenAIChat: `{"model":"gpt-4o","max_completion_tokens":300,"temperature":0.2,"stop":"END","response_format":{"type":"text"},
	  "tools":[{"type":"function","function":{"name":"get_weather","description":"Weather for a city.","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},"strict":true}}],
	  "tool_choice":{"type":"function","function":{"name":"get_weather"}},"parallel_tool_calls":false,
	  "messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Weather in Paris?"},
	    {"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}]}`,
	transcript.OpenAIResponses: `{"model":"gpt-4o","instructions":"Be brief.","max_output_tokens":300,"temperature":0.2,"store":false,"include":["reasoning.encrypted_content"],
	  "tools":[{"type":"function","name":"get_weather","description":"Weather for a city.","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},"strict":true},{"type":"web_search"}],
	  "tool_choice":"required",
	  "input":[{"type":"message","role":"user","content":"Weather in Paris?"},{"type":"function_call","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"}]}`,
	transcript.Anthropic: `{"model":"claude-sonnet-4-5","max_tokens":300,"temperature":0.2,"top_k":40,"stop_sequences":["END"],"metadata":{"user_id":"u1"},
	  "system":[{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral"}}],
	  "tools":[{"name":"get_weather","description":"Weather for a city.","input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}},{"type":"web_search_20250305","name":"web_search"}],
	  "tool_choice":{"type":"any","disable_parallel_tool_use":true},
	  "messages":[{"role":"user","content":"Weather in Paris?"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}]}]}`,
	transcript.Gemini: `{"system_instruction":{"parts":[{"text":"Be brief."}]},"generationConfig":{"maxOutputTokens":300,"temperature":0.2,"topK":40,"stopSequences":["END"],"responseModalities":["TEXT"]},"safetySettings":[],
	  "tools":[{"functionDeclarations":[{"name":"get_weather","description":"Weather for a city.","parameters":{"type":"OBJECT","properties":{"city":{"type":"STRING","nullable":true}},"required":["city"],"propertyOrdering":["city"]}}]},{"googleSearch":{}}],
	  "toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["get_weather"]}},
	  "contents":[{"role":"user","parts":[{"text":"Weather in Paris?"}]},{"role":"model","parts":[{"functionCall":{"id":"fc_1","name":"get_weather","args":{"city":"Paris"}}}]}]}`,
	transcript.Bedrock: `{"system":[{"text":"Be brief."},{"cachePoint":{"type":"default"}}],"inferenceConfig":{"maxTokens":300,"temperature":0.2,"stopSequences":["END"]},"additionalModelRequestFields":{"top_k":40},
	  "toolConfig":{"tools":[{"toolSpec":{"name":"get_weather","description":"Weather for a city.","inputSchema":{"json":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}}],"toolChoice":{"auto":{}}},
	  "messages":[{"role":"user","content":[{"text":"Weather in Paris?"}]},{"role":"assistant","content":[{"toolUse":{"toolUseId":"tooluse_1","name":"get_weather","input":{"city":"Paris"}}}]}]}`,
}

func listKey(f transcript.Format) string {
	switch f {
	case transcript.OpenAIResponses:
		return "input"
	case transcript.Gemini:
		return "contents"
	}
	return "messages"
}

// TestBody_sameFormatKeepsEveryOtherMember: check, repair, trim,
// normalize_ids and convert to the same format change the list and nothing
// else, on our bodies and on every recorded request body.
func TestBody_sameFormatKeepsEveryOtherMember(t *testing.T) {
	type body struct {
		name string
		f    transcript.Format
		v    map[string]any
	}
	var all []body
	for f, s := range ownBodies {
		all = append(all, body{"own/" + string(f), f, parse(t, s)})
	}
	for _, r := range recordedBodies(t, false) {
		all = append(all, body{r.name, r.f, r.body})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].name < all[j].name })
	for _, c := range all {
		key := listKey(c.f)
		before := jcs(t, c.v)
		b, err := Read(c.f, c.v, "body")
		require.NoError(t, err, c.name)
		out, ch, err := Repair(b, transcript.Options{})
		require.NoError(t, err, c.name)
		sameOutside(t, c.v, out, key, c.name+" repair")
		if strings.HasPrefix(c.name, "own/") {
			assert.Equal(t, 1, ch.Synthesized, c.name)
			fs, err := Check(&Body{Format: b.Format, Shape: b.Shape, Raw: out, Path: "body", ListPath: b.ListPath, List: out[key].([]any)}, transcript.Options{})
			require.NoError(t, err)
			assert.Empty(t, fs, "%s: check after repair", c.name)
		}
		lim, _ := transcript.NewLimit(0, 1)
		out, _, err = Trim(b, lim)
		require.NoError(t, err, c.name)
		sameOutside(t, c.v, out, key, c.name+" trim")
		out, _, err = NormalizeIDs(b, "mistral")
		require.NoError(t, err, c.name)
		sameOutside(t, c.v, out, key, c.name+" normalize_ids")
		conv, err := Convert(b, c.f, transcript.Options{})
		require.NoError(t, err, c.name)
		sameOutside(t, c.v, conv.Body, key, c.name+" convert")
		assert.Equal(t, before, jcs(t, c.v), "%s: the input was changed", c.name)
	}
}

// TestCheck_pathsInTheBody: findings point into the body.
func TestCheck_pathsInTheBody(t *testing.T) {
	b, err := Read(transcript.Gemini, parse(t, `{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},{"role":"user","parts":[{"text":"x"},{"functionResponse":{"name":"g","response":{}}}]}]}`), "body")
	require.NoError(t, err)
	fs, err := Check(b, transcript.Options{})
	require.NoError(t, err)
	require.NotEmpty(t, fs)
	for _, f := range fs {
		if f.Path != "" {
			assert.True(t, strings.HasPrefix(f.Path, "body.contents["), f.Path)
		}
	}
}

// TestRead_errors: a bad body names the member.
func TestRead_errors(t *testing.T) {
	for _, c := range []struct {
		f    transcript.Format
		body any
		path string
	}{
		{transcript.Gemini, "x", "body"},
		{transcript.Gemini, map[string]any{"messages": []any{}}, "body.contents"},
		{transcript.OpenAIChat, map[string]any{"messages": map[string]any{}}, "body.messages"},
		{transcript.Anthropic, map[string]any{"messages": nil}, "body.messages"},
		{transcript.Anthropic, map[string]any{"messages": []any{"x"}}, "body.messages[0]"},
	} {
		b, err := Read(c.f, c.body, "body")
		if err == nil {
			_, err = b.Messages()
		}
		var fe *field.Error
		require.ErrorAs(t, err, &fe, "%v", c.body)
		assert.Equal(t, c.path, fe.Path)
	}
	b, err := Read(transcript.Anthropic, parse(t, `{"system":7,"messages":[]}`), "body")
	require.NoError(t, err)
	_, err = Convert(b, transcript.Gemini, transcript.Options{})
	var fe *field.Error
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "body.system", fe.Path)
}

// TestRead_responsesInput: a string input is one user message, kept a
// string where nothing changed; previous_response_id and conversation are
// read as server-side state.
func TestRead_responsesInput(t *testing.T) {
	in := parse(t, `{"model":"gpt-4o","input":"hi","previous_response_id":"resp_1"}`)
	b, err := Read(transcript.OpenAIResponses, in, "body")
	require.NoError(t, err)
	assert.Equal(t, "resp_1", b.Server.PreviousResponseID)
	out, _, err := Repair(b, transcript.Options{})
	require.NoError(t, err)
	assert.Equal(t, jcs(t, in), jcs(t, out))
	c, err := Convert(b, transcript.Anthropic, transcript.Options{})
	require.NoError(t, err)
	assert.Equal(t, `[{"content":[{"text":"hi","type":"text"}],"role":"user"}]`, jcs(t, c.Body["messages"]))
	assert.Contains(t, strings.Join(c.Notes, "|"), "server-side state")
	b, err = Read(transcript.OpenAIResponses, parse(t, `{"conversation":{"id":"conv_1"}}`), "body")
	require.NoError(t, err)
	assert.Equal(t, "conv_1", b.Server.Conversation)
	assert.Empty(t, b.List)
}

// systemPlace is where each target keeps the system prompt "Be brief.",
// per its vendor docs (see each provider's Request doc).
var systemPlace = map[transcript.Format]func(body map[string]any) any{
	transcript.OpenAIChat:      func(b map[string]any) any { return b["messages"].([]any)[0] },
	transcript.OpenAIResponses: func(b map[string]any) any { return b["instructions"] },
	transcript.Anthropic:       func(b map[string]any) any { return b["system"] },
	transcript.Gemini:          func(b map[string]any) any { return b["systemInstruction"] },
	transcript.Bedrock:         func(b map[string]any) any { return b["system"] },
}

var systemWant = map[transcript.Format]string{
	transcript.OpenAIChat:      `{"content":"Be brief.","role":"system"}`,
	transcript.OpenAIResponses: `"Be brief."`,
	transcript.Anthropic:       `"Be brief."`,
	transcript.Gemini:          `{"parts":[{"text":"Be brief."}]}`,
	transcript.Bedrock:         `[{"text":"Be brief."}]`,
}

// toolWant is get_weather in each target's tool shape (strict only where
// the format has it).
var toolWant = map[transcript.Format]string{
	transcript.OpenAIChat:      `[{"function":{"description":"Weather for a city.","name":"get_weather","parameters":%s},"type":"function"}]`,
	transcript.OpenAIResponses: `[{"description":"Weather for a city.","name":"get_weather","parameters":%s,"strict":false,"type":"function"}]`,
	transcript.Anthropic:       `[{"description":"Weather for a city.","input_schema":%s,"name":"get_weather"}]`,
	transcript.Gemini:          `[{"functionDeclarations":[{"description":"Weather for a city.","name":"get_weather","parametersJsonSchema":%s}]}]`,
	transcript.Bedrock:         `{%s"tools":[{"toolSpec":{"description":"Weather for a city.","inputSchema":{"json":%s},"name":"get_weather"}}]}`,
}

// TestConvert_everyPair: between every two formats the system prompt goes
// to the target's place, the function tool to the target's tool shape with
// the same JSON Schema, the generation parameters the target has a member
// for carry, and everything else is named in a note.
func TestConvert_everyPair(t *testing.T) {
	schema := `{"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}`
	for from, src := range ownBodies {
		for to := range ownBodies {
			if from == to {
				continue
			}
			name := string(from) + "->" + string(to)
			b, err := Read(from, parse(t, src), "body")
			require.NoError(t, err)
			c, err := Convert(b, to, transcript.Options{})
			require.NoError(t, err, name)
			notes := strings.Join(c.Notes, "|")
			if from == transcript.OpenAIChat && to == transcript.OpenAIResponses {
				// a system message of the list stays an item where it was: Responses takes system items
				assert.Equal(t, `{"content":"Be brief.","role":"system"}`, jcs(t, c.Body["input"].([]any)[0]), name)
				assert.NotContains(t, c.Body, "instructions")
			} else {
				assert.Equal(t, systemWant[to], jcs(t, systemPlace[to](c.Body)), name)
			}
			s := schema
			if from == transcript.Gemini {
				s = `{"properties":{"city":{"type":["string","null"]}},"required":["city"],"type":"object"}`
				assert.Contains(t, notes, "propertyOrdering is not carried", name)
			}
			switch to {
			case transcript.Bedrock:
				tc := c.Body["toolConfig"].(map[string]any)
				choice := ""
				if tc["toolChoice"] != nil {
					choice = `"toolChoice":` + jcs(t, tc["toolChoice"]) + ","
				}
				assert.Equal(t, strings.Replace(strings.Replace(toolWant[to], "%s", choice, 1), "%s", s, 1), jcs(t, tc), name)
			case transcript.OpenAIResponses:
				got := c.Body["tools"].([]any)
				for _, x := range got {
					delete(x.(map[string]any), "strict")
				}
				assert.Equal(t, strings.Replace(strings.Replace(toolWant[to], "%s", s, 1), `"strict":false,`, "", 1), jcs(t, got), name)
			default:
				got := c.Body["tools"].([]any)
				for _, x := range got {
					if fn, ok := x.(map[string]any)["function"].(map[string]any); ok {
						delete(fn, "strict")
					}
				}
				assert.Equal(t, strings.Replace(toolWant[to], "%s", s, 1), jcs(t, got), name)
			}
			for _, hosted := range map[transcript.Format]string{transcript.OpenAIResponses: "body.tools[1] (web_search)", transcript.Anthropic: "body.tools[1] (web_search_20250305)", transcript.Gemini: "body.tools[1].googleSearch"} {
				if strings.HasPrefix(hosted, "body.tools[1]") && from == formatOf(hosted) {
					assert.Contains(t, notes, hosted, name)
				}
			}
			// max_tokens and temperature have a place in every format
			assert.Equal(t, 300.0, paramOf(t, to, c.Body, "max_tokens"), name)
			assert.Equal(t, 0.2, paramOf(t, to, c.Body, "temperature"), name)
			assert.Equal(t, jcs(t, parse(t, src)), jcs(t, parse(t, src)))
		}
	}
}

// formatOf is the source format whose hosted tool a note names (test helper).
func formatOf(note string) transcript.Format {
	switch {
	case strings.Contains(note, "web_search_"):
		return transcript.Anthropic
	case strings.Contains(note, "googleSearch"):
		return transcript.Gemini
	}
	return transcript.OpenAIResponses
}

func paramOf(t *testing.T, f transcript.Format, body map[string]any, name string) any {
	t.Helper()
	paths := map[transcript.Format]map[string]string{
		transcript.OpenAIChat:      {"max_tokens": "max_completion_tokens", "temperature": "temperature"},
		transcript.OpenAIResponses: {"max_tokens": "max_output_tokens", "temperature": "temperature"},
		transcript.Anthropic:       {"max_tokens": "max_tokens", "temperature": "temperature"},
		transcript.Gemini:          {"max_tokens": "generationConfig.maxOutputTokens", "temperature": "generationConfig.temperature"},
		transcript.Bedrock:         {"max_tokens": "inferenceConfig.maxTokens", "temperature": "inferenceConfig.temperature"},
	}
	p := paths[f][name]
	if parent, key, ok := strings.Cut(p, "."); ok {
		m, _ := body[parent].(map[string]any)
		return m[key]
	}
	return body[p]
}

// TestConvert_notesWhatHasNoPlace pins the notes of one conversion: every
// member, hosted tool and setting Gemini has no place for is named.
func TestConvert_notesWhatHasNoPlace(t *testing.T) {
	b, err := Read(transcript.Anthropic, parse(t, ownBodies[transcript.Anthropic]), "body")
	require.NoError(t, err)
	c, err := Convert(b, transcript.Gemini, transcript.Options{})
	require.NoError(t, err)
	assert.Equal(t, []string{
		"system[0].cache_control is not carried (the target's system prompt takes text only)",
		"body.tools[1] (web_search_20250305) is not a function tool and has no place in the target",
		"the parallel-calls switch (off) has no place in Gemini",
		"dropped the model parameter: gemini takes the model in the URL, not the body",
		"dropped body members anthropic carries that gemini has no place for: metadata",
	}, c.Notes)
	assert.Equal(t, `{"functionCallingConfig":{"mode":"ANY"}}`, jcs(t, c.Body["toolConfig"]))
	assert.Equal(t, `{"maxOutputTokens":300,"stopSequences":["END"],"temperature":0.2,"topK":40}`, jcs(t, c.Body["generationConfig"]))

	b, err = Read(transcript.Gemini, parse(t, ownBodies[transcript.Gemini]), "body")
	require.NoError(t, err)
	c, err = Convert(b, transcript.Anthropic, transcript.Options{})
	require.NoError(t, err)
	assert.Equal(t, `{"name":"get_weather","type":"tool"}`, jcs(t, c.Body["tool_choice"]))
	assert.Equal(t, `"Be brief."`, jcs(t, c.Body["system"]), "system_instruction is read under its proto name")
	assert.Contains(t, c.Notes, "dropped body members gemini carries that anthropic has no place for: generationConfig.responseModalities, safetySettings")
}

// TestJSONSchema_gemini: a Gemini OpenAPI Schema reads as JSON Schema
// (content.proto Schema and Type).
func TestJSONSchema_gemini(t *testing.T) {
	in := parse(t, `{"type":6,"properties":{"a":{"type":"INTEGER","format":"int32","minimum":1,"example":3},"b":{"type":"ARRAY","items":{"type":1},"max_items":"5"},"c":{"any_of":[{"type":"STRING"},{"type":"NUMBER"}],"nullable":true}},"required":["a"],"property_ordering":["a","b","c"]}`)
	assert.Equal(t, `{"properties":{"a":{"examples":[3],"format":"int32","minimum":1,"type":"integer"},"b":{"items":{"type":"string"},"maxItems":"5","type":"array"},"c":{"anyOf":[{"type":"string"},{"type":"number"}]}},"required":["a"],"type":"object"}`, jcs(t, gemini.JSONSchema(in)))
}

type recorded struct {
	name string
	f    transcript.Format
	body map[string]any
}

// recordedBodies reads the request body of every recording in
// ../shared/fixtures/real (TOOLERR_SHARED overrides) that has one, or skips
// the calling test when the recordings are not there (unless optional).
func recordedBodies(t *testing.T, required bool) []recorded {
	dir := sharedtest.Dir()
	files := sharedtest.Recordings("*.json")
	if len(files) == 0 {
		if required {
			t.Skipf("recordings not found at %s", dir)
		}
		t.Logf("recorded bodies not found at %s: own bodies only", dir)
		return nil
	}
	var out []recorded
	for _, f := range files {
		req, _ := sharedtest.Read(t, f)["request"].(map[string]any)
		body, _ := req["body"].(map[string]any)
		format := transcript.Format(sharedtest.Format(f))
		if body == nil || format == "" || body[listKey(format)] == nil {
			continue
		}
		out = append(out, recorded{filepath.Base(filepath.Dir(f)) + "/" + filepath.Base(f), format, body})
	}
	return out
}

// TestConvert_recordedBodies converts every recorded request body to every
// other format: the function tools all arrive (same names, in order), the
// system prompt's text arrives in the target's place, and every source
// member is either placed or named in a note.
func TestConvert_recordedBodies(t *testing.T) {
	bodies := recordedBodies(t, true)
	require.NotEmpty(t, bodies)
	for _, r := range bodies {
		for _, to := range transcript.Formats() {
			if to == r.f {
				continue
			}
			b, err := Read(r.f, r.body, "body")
			require.NoError(t, err, r.name)
			c, err := Convert(b, to, transcript.Options{})
			require.NoError(t, err, r.name+"->"+string(to))
			src, err := Read(r.f, r.body, "body")
			require.NoError(t, err)
			var n1, n2 []string
			rest := copyMap(src.Raw)
			st, err := src.Shape.ReadTools(rest, "body", new(dialect.Notes))
			require.NoError(t, err)
			for _, d := range st.Defs {
				n1 = append(n1, d.Name)
			}
			dst, err := Read(to, c.Body, "body")
			require.NoError(t, err, r.name+"->"+string(to))
			dt, err := dst.Shape.ReadTools(copyMap(dst.Raw), "body", new(dialect.Notes))
			require.NoError(t, err)
			for _, d := range dt.Defs {
				n2 = append(n2, d.Name)
			}
			assert.Equal(t, n1, n2, "%s -> %s: tools", r.name, to)
			var sys []string
			if src.Shape.ReadSystem != nil {
				sys, err = src.Shape.ReadSystem(copyMap(src.Raw), "body", new(dialect.Notes))
				require.NoError(t, err)
			}
			if len(sys) > 0 && strings.Join(sys, "") != "" {
				assert.Contains(t, jcs(t, c.Body), strings.TrimSpace(jcs(t, sys[0]))[1:len(jcs(t, sys[0]))-1], "%s -> %s: system", r.name, to)
			}
		}
	}
}
