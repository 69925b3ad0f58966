package fake_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/gatewaycheck/fake"
)

// sharedDir returns ../shared beside the repository (TOOLERR_SHARED
// overrides) or "" when it is absent.
func sharedDir() string {
	if d := os.Getenv("TOOLERR_SHARED"); d != "" {
		return d
	}
	_, file, _, _ := runtime.Caller(0)
	d := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared")
	if _, err := os.Stat(d); err != nil {
		return ""
	}
	return d
}

var (
	specsOnce sync.Once
	specs     *fake.Specs
	specsErr  error
)

// loadSpecs loads the vendor specs once for the test binary (the OpenAI spec
// is 3 MB of YAML); nil when ../shared is absent.
func loadSpecs(t *testing.T) *fake.Specs {
	t.Helper()
	specsOnce.Do(func() {
		if d := sharedDir(); d != "" {
			specs, specsErr = fake.LoadSpecs(filepath.Join(d, "specs"))
		}
	})
	require.NoError(t, specsErr)
	return specs
}

type answer struct {
	status int
	header http.Header
	body   map[string]any
}

func post(t *testing.T, h http.Handler, path string, header map[string]string, body string) answer {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	req, err := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return answer{status: resp.StatusCode, header: resp.Header, body: m}
}

// message reads the vendor's error text from any family's error body.
func message(a answer) string {
	if e, ok := a.body["error"].(map[string]any); ok {
		s, _ := e["message"].(string)
		return s
	}
	s, _ := a.body["message"].(string)
	return s
}

var (
	openAIAuth    = map[string]string{"Authorization": "Bearer k"}
	anthropicAuth = map[string]string{"x-api-key": "k", "anthropic-version": "2023-06-01"}
	geminiAuth    = map[string]string{"x-goog-api-key": "k"}
	bedrockAuth   = map[string]string{"Authorization": "AWS4-HMAC-SHA256 Credential=k/20260101/us-east-1/bedrock/aws4_request, SignedHeaders=host, Signature=0"}
)

type ruleCase struct {
	name   string
	path   string
	header map[string]string
	body   string
	status int
	want   string // a part of the vendor's message; "" for a success
}

func runRules(t *testing.T, f fake.Family, specs *fake.Specs, cases []ruleCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u := fake.New(f, specs)
			a := post(t, u, tc.path, tc.header, tc.body)
			assert.Equal(t, tc.status, a.status, "body: %v", a.body)
			hits := u.Hits()
			require.Len(t, hits, 1)
			if tc.want == "" {
				assert.Nil(t, hits[0].Rejection)
				return
			}
			require.NotNil(t, hits[0].Rejection)
			assert.Contains(t, message(a), tc.want)
		})
	}
}

const chatTools = `"tools":[{"type":"function","function":{"name":"lookup","parameters":{"type":"object","properties":{"q":{"type":"string"}}}}}]`

func chatBody(msgs string) string {
	return `{"model":"gpt-4o",` + chatTools + `,"messages":[{"role":"user","content":"weather?"},` + msgs + `]}`
}

const twoCalls = `{"role":"assistant","content":null,"tool_calls":[{"id":"call_a","type":"function","function":{"name":"lookup","arguments":"{\"q\":\"a\"}"}},{"id":"call_b","type":"function","function":{"name":"lookup","arguments":"{\"q\":\"b\"}"}}]}`

func TestOpenAIChat_rules(t *testing.T) {
	specs := loadSpecs(t)
	p := "/v1/chat/completions"
	runRules(t, fake.OpenAI, specs, []ruleCase{
		{"both results", p, openAIAuth, chatBody(twoCalls + `,{"role":"tool","tool_call_id":"call_a","content":"A"},{"role":"tool","tool_call_id":"call_b","content":"B"}`), 200, ""},
		{"no key", p, nil, chatBody(`{"role":"assistant","content":"hi"}`), 401, "You didn't provide an API key"},
		{"broken json", p, openAIAuth, `{"model":`, 400, "We could not parse the JSON body"},
		{"missing result", p, openAIAuth, chatBody(twoCalls + `,{"role":"tool","tool_call_id":"call_a","content":"A"}`), 400,
			"The following tool_call_ids did not have response messages: call_b"},
		{"result after a user message", p, openAIAuth, chatBody(twoCalls + `,{"role":"tool","tool_call_id":"call_a","content":"A"},{"role":"user","content":"x"},{"role":"tool","tool_call_id":"call_b","content":"B"}`), 400,
			"did not have response messages: call_b"},
		{"orphan", p, openAIAuth, chatBody(`{"role":"tool","tool_call_id":"call_x","content":"X"}`), 400,
			"messages with role 'tool' must be a response to a preceeding message with 'tool_calls'"},
		{"unknown role", p, openAIAuth, chatBody(`{"role":"robot","content":"x"}`), 400, "Invalid value: 'robot'. Supported values are"},
		{"unknown route", "/v1/embeddings", openAIAuth, `{}`, 404, "Invalid URL"},
	})
}

func TestOpenAIChat_schemaRejectsImageInToolMessage(t *testing.T) {
	specs := loadSpecs(t)
	if specs == nil {
		t.Skip("../shared/specs not found: the OpenAPI schema is not loaded")
	}
	body := chatBody(`{"role":"assistant","content":null,"tool_calls":[{"id":"call_a","type":"function","function":{"name":"lookup","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"call_a","content":[{"type":"image_url","image_url":{"url":"https://example.com/a.png"}}]}`)
	a := post(t, fake.New(fake.OpenAI, specs), "/v1/chat/completions", openAIAuth, body)
	assert.Equal(t, 400, a.status)
	assert.Contains(t, message(a), "messages[2]")
}

func responsesBody(items string) string {
	return `{"model":"gpt-4o","tools":[{"type":"function","name":"lookup","parameters":{"type":"object","properties":{}},"strict":false}],"input":[{"role":"user","content":"weather?"},` + items + `]}`
}

func TestOpenAIResponses_rules(t *testing.T) {
	specs := loadSpecs(t)
	p := "/v1/responses"
	call := func(id string) string {
		return `{"type":"function_call","call_id":"` + id + `","name":"lookup","arguments":"{}"}`
	}
	out := func(id string) string { return `{"type":"function_call_output","call_id":"` + id + `","output":"A"}` }
	runRules(t, fake.OpenAI, specs, []ruleCase{
		{"paired", p, openAIAuth, responsesBody(call("call_a") + "," + out("call_a")), 200, ""},
		{"typed message and input_text output", p, openAIAuth, `{"model":"gpt-4o","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"weather?"}]},` +
			call("call_a") + `,{"type":"function_call_output","call_id":"call_a","output":[{"type":"input_text","text":"A"}]}]}`, 200, ""},
		{"missing output", p, openAIAuth, responsesBody(call("call_a") + "," + call("call_b") + "," + out("call_a")), 400, "No tool output found for function call call_b."},
		{"orphan output", p, openAIAuth, responsesBody(out("call_x")), 400, "No tool call found for function call output with call_id call_x."},
		{"call_id too long", p, openAIAuth, responsesBody(call(strings.Repeat("c", 65)) + "," + out(strings.Repeat("c", 65))), 400, "Invalid 'input[1].call_id': string too long. Expected a string with maximum length 64"},
	})
}

func anthropicBody(msgs string) string {
	return `{"model":"claude-x","max_tokens":64,"tools":[{"name":"lookup","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"weather?"},` + msgs + `]}`
}

func anthropicUse(ids ...string) string {
	var b []string
	for _, id := range ids {
		b = append(b, `{"type":"tool_use","id":"`+id+`","name":"lookup","input":{}}`)
	}
	return `{"role":"assistant","content":[` + strings.Join(b, ",") + `]}`
}

func anthropicResults(ids ...string) string {
	var b []string
	for _, id := range ids {
		b = append(b, `{"type":"tool_result","tool_use_id":"`+id+`","content":"R"}`)
	}
	return `{"role":"user","content":[` + strings.Join(b, ",") + `]}`
}

func TestAnthropic_rules(t *testing.T) {
	p := "/v1/messages"
	runRules(t, fake.Anthropic, nil, []ruleCase{
		{"paired", p, anthropicAuth, anthropicBody(anthropicUse("toolu_a", "toolu_b") + "," + anthropicResults("toolu_a", "toolu_b")), 200, ""},
		{"no key", p, nil, anthropicBody(`{"role":"assistant","content":"hi"}`), 401, "x-api-key"},
		{"missing result", p, anthropicAuth, anthropicBody(anthropicUse("toolu_a", "toolu_b") + "," + anthropicResults("toolu_a")), 400,
			"messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_b."},
		{"orphan", p, anthropicAuth, anthropicBody(anthropicUse("toolu_a") + "," + anthropicResults("toolu_a", "toolu_x")), 400,
			"messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_x."},
		{"invalid id", p, anthropicAuth, anthropicBody(anthropicUse("call:abc/1") + "," + anthropicResults("call:abc/1")), 400,
			"messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"},
		{"duplicate id", p, anthropicAuth, anthropicBody(anthropicUse("call_abc_1", "call_abc_1") + "," + anthropicResults("call_abc_1")), 400,
			"messages.1.content.1: `tool_use` ids must be unique"},
		{"is_error not a boolean", p, anthropicAuth, anthropicBody(anthropicUse("toolu_a") + `,{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_a","is_error":"true"}]}`), 400,
			"is_error: Input should be a valid boolean"},
		{"missing max_tokens", p, anthropicAuth, `{"model":"m","messages":[]}`, 400, "max_tokens: Field required"},
	})
}

func geminiBody(contents string) string {
	return `{"tools":[{"functionDeclarations":[{"name":"lookup"}]}],"contents":[{"role":"user","parts":[{"text":"weather?"}]},` + contents + `]}`
}

const geminiCalls = `{"role":"model","parts":[{"functionCall":{"name":"lookup","args":{"q":"a"}}},{"functionCall":{"name":"lookup","args":{"q":"b"}}}]}`

func geminiResponses(n int) string {
	var b []string
	for i := 0; i < n; i++ {
		b = append(b, `{"functionResponse":{"name":"lookup","response":{"output":"R"}}}`)
	}
	return `{"role":"user","parts":[` + strings.Join(b, ",") + `]}`
}

func TestGemini_rules(t *testing.T) {
	p := "/v1beta/models/gemini-2.0-flash:generateContent"
	runRules(t, fake.Gemini, nil, []ruleCase{
		{"paired", p, geminiAuth, geminiBody(geminiCalls + "," + geminiResponses(2)), 200, ""},
		{"no key", p, nil, geminiBody(geminiCalls + "," + geminiResponses(2)), 403, "API Key"},
		{"one response missing", p, geminiAuth, geminiBody(geminiCalls + "," + geminiResponses(1)), 400,
			"Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."},
		{"responses split, gemini-2.0", p, geminiAuth, geminiBody(geminiCalls + "," + geminiResponses(1) + "," + geminiResponses(1)), 400,
			"number of function response parts"},
		{"responses split, gemini-3", "/v1beta/models/gemini-3-flash-preview:generateContent", geminiAuth, geminiBody(geminiCalls + "," + geminiResponses(1) + "," + geminiResponses(1)), 400,
			"number of function response parts"},
		{"responses split, gemini-2.5", "/v1beta/models/gemini-2.5-flash:generateContent", geminiAuth, geminiBody(geminiCalls + "," + geminiResponses(1) + "," + geminiResponses(1)), 200, ""},
		{"one split response missing, gemini-2.5", "/v1beta/models/gemini-2.5-flash:generateContent", geminiAuth, geminiBody(geminiCalls + "," + geminiResponses(1) + `,{"role":"user","parts":[{"text":"x"}]}`), 400,
			"number of function response parts"},
		{"response without a call", p, geminiAuth, geminiBody(geminiResponses(1)), 400,
			"Please ensure that function response turn comes immediately after a function call turn."},
		{"unknown field", p, geminiAuth, geminiBody(`{"role":"model","parts":[{"functionCall":{"name":"lookup","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"lookup","response":{},"is_error":true}}]}`), 400,
			`Unknown name "is_error"`},
		{"empty name", p, geminiAuth, geminiBody(`{"role":"model","parts":[{"functionCall":{"name":"lookup","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"","response":{}}}]}`), 400,
			"function_response.name"},
		{"response not an object", p, geminiAuth, geminiBody(`{"role":"model","parts":[{"functionCall":{"name":"lookup","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"lookup","response":"R"}}]}`), 400,
			"google.protobuf.Struct"},
		{"tool role", p, geminiAuth, geminiBody(`{"role":"tool","parts":[{"text":"x"}]}`), 400, "Please use a valid role: user, model."},
	})
}

func bedrockBody(msgs string, toolConfig bool) string {
	tc := ""
	if toolConfig {
		tc = `"toolConfig":{"tools":[{"toolSpec":{"name":"lookup","inputSchema":{"json":{"type":"object"}}}}]},`
	}
	return `{` + tc + `"messages":[{"role":"user","content":[{"text":"weather?"}]},` + msgs + `]}`
}

func bedrockUse(ids ...string) string {
	var b []string
	for _, id := range ids {
		b = append(b, `{"toolUse":{"toolUseId":"`+id+`","name":"lookup","input":{}}}`)
	}
	return `{"role":"assistant","content":[` + strings.Join(b, ",") + `]}`
}

func bedrockResults(ids ...string) string {
	var b []string
	for _, id := range ids {
		b = append(b, `{"toolResult":{"toolUseId":"`+id+`","content":[{"text":"R"}]}}`)
	}
	return `{"role":"user","content":[` + strings.Join(b, ",") + `]}`
}

func TestBedrock_rules(t *testing.T) {
	for _, withSpecs := range []bool{false, true} {
		specs := (*fake.Specs)(nil)
		if withSpecs {
			if specs = loadSpecs(t); specs == nil {
				t.Log("../shared/specs not found: the service-model walk is not run")
				continue
			}
		}
		name := map[bool]string{false: "encoded", true: "service model"}[withSpecs]
		t.Run(name, func(t *testing.T) {
			p := "/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse"
			runRules(t, fake.Bedrock, specs, []ruleCase{
				{"paired", p, bedrockAuth, bedrockBody(bedrockUse("tooluse_a", "tooluse_b")+","+bedrockResults("tooluse_a", "tooluse_b"), true), 200, ""},
				{"unsigned", p, nil, bedrockBody(`{"role":"assistant","content":[{"text":"x"}]}`, false), 403, "Missing Authentication Token"},
				{"missing result", p, bedrockAuth, bedrockBody(bedrockUse("tooluse_a", "tooluse_b")+","+bedrockResults("tooluse_a"), true), 400,
					"Expected toolResult blocks at messages.2.content for the following Ids: tooluse_b"},
				{"orphan", p, bedrockAuth, bedrockBody(bedrockUse("tooluse_a")+","+bedrockResults("tooluse_a", "tooluse_x"), true), 400,
					"The number of toolResult blocks at messages.2.content exceeds the number of toolUse blocks of previous turn."},
				{"invalid id", p, bedrockAuth, bedrockBody(bedrockUse("call:abc/1")+","+bedrockResults("call:abc/1"), true), 400,
					"failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.:-]+"},
				{"no toolConfig", p, bedrockAuth, bedrockBody(bedrockUse("tooluse_a")+","+bedrockResults("tooluse_a"), false), 400,
					"The toolConfig field must be defined when using toolUse and toolResult content blocks."},
				{"json array", p, bedrockAuth, bedrockBody(bedrockUse("tooluse_a")+`,{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse_a","content":[{"json":[1]}]}}]}`, true), 400,
					"Provide a json object for the field"},
				{"error without content", p, bedrockAuth, bedrockBody(bedrockUse("tooluse_a")+`,{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse_a","status":"error","content":[]}}]}`, true), 400,
					"cannot be empty when status value is error"},
				{"duplicate id", p, bedrockAuth, bedrockBody(bedrockUse("tooluse_a", "tooluse_a")+","+bedrockResults("tooluse_a"), true), 400,
					"`tool_use` ids must be unique"},
			})
		})
	}
}

func TestBedrock_serviceModelRejectsUnknownMember(t *testing.T) {
	specs := loadSpecs(t)
	if specs == nil {
		t.Skip("../shared/specs not found: the Bedrock service model is not loaded")
	}
	a := post(t, fake.New(fake.Bedrock, specs), "/model/m/converse", bedrockAuth,
		bedrockBody(bedrockUse("tooluse_a")+`,{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse_a","isError":true,"content":[{"text":"x"}]}}]}`, true))
	assert.Equal(t, 400, a.status)
	assert.Contains(t, message(a), "Unknown member 'isError'")
	assert.Equal(t, "ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/", a.header.Get("x-amzn-ErrorType"))
}

func TestUpstream_scriptRepeatsLastReply(t *testing.T) {
	u := fake.New(fake.Anthropic, nil)
	u.Script(fake.Reply{Status: 429, Headers: map[string]string{"retry-after": "7"}, Body: json.RawMessage(`{"type":"error","error":{"type":"rate_limit_error","message":"m"}}`)})
	body := anthropicBody(`{"role":"assistant","content":"hi"},{"role":"user","content":"again"}`)
	for i := 0; i < 3; i++ {
		a := post(t, u, "/v1/messages", anthropicAuth, body)
		assert.Equal(t, 429, a.status)
		assert.Equal(t, "7", a.header.Get("retry-after"))
	}
	assert.Len(t, u.Hits(), 3)
	u.Reset()
	assert.Equal(t, 200, post(t, u, "/v1/messages", anthropicAuth, body).status)
	// An invalid request is rejected before the script answers.
	u.Script(fake.Reply{Status: 529})
	assert.Equal(t, 400, post(t, u, "/v1/messages", anthropicAuth, `{"model":"m"}`).status)
}

func TestStart_refusesNonLoopback(t *testing.T) {
	_, err := fake.Start("0.0.0.0", 0, nil)
	assert.ErrorContains(t, err, "loopback only")
	s, err := fake.Start("", 0, nil)
	require.NoError(t, err)
	defer s.Close()
	for _, f := range fake.Families() {
		assert.Regexp(t, `^http://127\.0\.0\.1:\d+$`, s.URL(f))
	}
}

// keyShape lists an error body's members, nested objects as "key.member".
func keyShape(v any, prefix string) []string {
	var out []string
	for k, e := range obj(v) {
		out = append(out, prefix+k)
		if m, ok := e.(map[string]any); ok && k == "error" {
			out = append(out, keyShape(m, prefix+k+".")...)
		}
	}
	sort.Strings(out)
	return out
}

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }

// TestErrors_matchRecordings checks the fakes' 400s against real recorded
// 400s of each vendor (../shared/fixtures/real): the same body shape, and
// for the rules a recording captured, the same text once ids and indices are
// replaced.
func TestErrors_matchRecordings(t *testing.T) {
	d := sharedDir()
	if d == "" {
		t.Skip("../shared not found: the real recordings are not in this clone")
	}
	recorded := func(rel string) (int, map[string]any) {
		b, err := os.ReadFile(filepath.Join(d, "fixtures", "real", rel))
		require.NoError(t, err)
		var rec struct {
			Response struct {
				Status int            `json:"status"`
				Body   map[string]any `json:"body"`
			} `json:"response"`
		}
		require.NoError(t, json.Unmarshal(b, &rec))
		return rec.Response.Status, rec.Response.Body
	}
	norm := regexp.MustCompile(`messages\.\d+(\.content\.\d+)?|toolu_[A-Za-z0-9]+`)
	tests := []struct {
		recording string
		family    fake.Family
		path      string
		header    map[string]string
		body      string
		sameText  bool
	}{
		{"anthropic/error_400_tool_use_without_tool_result_issue.json", fake.Anthropic, "/v1/messages", anthropicAuth,
			anthropicBody(anthropicUse("toolu_a") + `,{"role":"user","content":"next"}`), true},
		{"anthropic/error_400_unexpected_tool_use_id_in_tool_result_issue.json", fake.Anthropic, "/v1/messages", anthropicAuth,
			anthropicBody(`{"role":"assistant","content":"x"},` + anthropicResults("toolu_x")), true},
		{"gemini/error_400_invalid_role_vertex_otel.json", fake.Gemini, "/v1beta/models/m:generateContent", geminiAuth,
			geminiBody(`{"role":"tool","parts":[{"text":"x"}]}`), true},
		{"openai_chat/error_400_unsupported_value_role_pydantic_ai.json", fake.OpenAI, "/v1/chat/completions", openAIAuth,
			chatBody(`{"role":"tool","tool_call_id":"x","content":"x"}`), false},
		{"openai_responses/error_400_reasoning_item_without_following_item_pydantic_ai.json", fake.OpenAI, "/v1/responses", openAIAuth,
			responsesBody(`{"type":"function_call_output","call_id":"x","output":"x"}`), false},
		{"bedrock/error_400_tool_result_content_rejected_pydantic_ai.json", fake.Bedrock, "/model/m/converse", bedrockAuth,
			bedrockBody(bedrockResults("tooluse_x"), true), false},
	}
	for _, tc := range tests {
		t.Run(tc.recording, func(t *testing.T) {
			status, want := recorded(tc.recording)
			a := post(t, fake.New(tc.family, nil), tc.path, tc.header, tc.body)
			assert.Equal(t, status, a.status)
			gotKeys, wantKeys := keyShape(a.body, ""), keyShape(want, "")
			if tc.family == fake.Gemini {
				wantKeys = without(wantKeys, "error.details") // optional in google.rpc.Status
			}
			assert.Equal(t, wantKeys, gotKeys)
			if tc.sameText {
				var w string
				if e, ok := want["error"].(map[string]any); ok {
					w, _ = e["message"].(string)
				}
				assert.Equal(t, norm.ReplaceAllString(w, "X"), norm.ReplaceAllString(message(a), "X"))
			}
		})
	}
}

func without(list []string, drop string) []string {
	var out []string
	for _, s := range list {
		if s != drop {
			out = append(out, s)
		}
	}
	return out
}

// TestFake_independentOfToolerr checks that the fakes validate with their
// own rules: the package does not import toolerr's core (whose check and
// repair the gateways under test may use), or the test would be circular.
func TestFake_independentOfToolerr(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	require.NoError(t, err)
	for _, dep := range strings.Fields(string(out)) {
		assert.False(t, strings.HasPrefix(dep, "github.com/toolerr/toolerr") && dep != "github.com/toolerr/toolerr/gatewaycheck/fake",
			"fake imports %s", dep)
	}
	assert.True(t, bytes.Contains(out, []byte("github.com/santhosh-tekuri/jsonschema/v6")))
}
