package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core"
)

func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestRun_usage(t *testing.T) {
	code, _, stderr := runCLI(t, "")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "usage: toolerr <command>")
	code, _, stderr = runCLI(t, "", "frobnicate")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `unknown command "frobnicate"`)
	for _, h := range []string{"-h", "-help", "--help", "help"} {
		code, stdout, stderr := runCLI(t, "", h)
		assert.Equal(t, 0, code, h)
		assert.Contains(t, stdout, "usage: toolerr <command>", "the help asked for goes to standard output (%s)", h)
		assert.Contains(t, stdout, "3 check found something the provider would reject", h)
		assert.Empty(t, stderr, h)
	}
}

func TestRun_invoke(t *testing.T) {
	code, stdout, _ := runCLI(t, `{"op":"version"}`, "invoke")
	assert.Equal(t, 0, code)
	assert.Equal(t, "{\"ok\":{\"abi\":1,\"version\":\"0.1.0\"}}\n", stdout)

	code, stdout, stderr := runCLI(t, `{"op":`, "invoke", "-")
	assert.Equal(t, 1, code)
	assert.True(t, strings.HasPrefix(stdout, `{"error":{"code":"INVALID_INPUT"`), stdout)
	assert.Contains(t, stderr, "toolerr: INVALID_INPUT: request is not valid JSON")
}

func TestRun_badInput(t *testing.T) {
	code, _, stderr := runCLI(t, "", "invoke", "/nonexistent/file.json")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "no such file")

	code, _, stderr = runCLI(t, `{}`, "wrap")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "wrap needs --provider")

	code, _, stderr = runCLI(t, `[1,2`, "wrap", "--provider", "anthropic")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "input is not valid JSON")

	code, _, stderr = runCLI(t, `"x"`, "check", "--format", "anthropic")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "input must be a JSON array of messages or an object")

	code, _, _ = runCLI(t, `{}`, "classify", "--no-such-flag")
	assert.Equal(t, 2, code)
}

func TestClassifyRequest_shapes(t *testing.T) {
	rec := `{"provider":"gemini","kind":"error_response","response":{"status":429,
	  "headers":{"Date":"Wed, 01 Jan 2025 00:00:00 GMT","Retry-After":"3"},"body":{"error":{"code":429}}}}`
	req, err := classifyRequest([]byte(rec))
	require.NoError(t, err)
	assert.Equal(t, "gemini", req["provider"])
	assert.Equal(t, int64(1735689600000), req["now_ms"])
	h := req["http"].(map[string]any)
	assert.Equal(t, map[string]any{"date": "Wed, 01 Jan 2025 00:00:00 GMT", "retry-after": "3"}, h["headers"])

	req, err = classifyRequest([]byte("dial tcp 127.0.0.1:9: connect: connection refused\n"))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"op": "classify", "error_text": "dial tcp 127.0.0.1:9: connect: connection refused"}, req)

	req, err = classifyRequest([]byte(`{"sse_event":{"event":"error","data":"{}"}}`))
	require.NoError(t, err)
	assert.Equal(t, "classify", req["op"])
	assert.Contains(t, req, "sse_event")

	_, err = classifyRequest([]byte(`[1]`))
	assert.Error(t, err)
}

func TestRun_transcriptCommands(t *testing.T) {
	msgs := `[{"role":"assistant","content":[{"type":"tool_use","id":"toolu_A","name":"search","input":{}}]},{"role":"user","content":[{"type":"text","text":"go on"}]}]`
	code, stdout, stderr := runCLI(t, msgs, "check", "--format", "anthropic")
	assert.Equal(t, 3, code, "check exits 3 when it has findings")
	assert.Contains(t, stdout, `"kind":"unanswered_call"`)
	assert.Contains(t, stderr, "1 finding(s)")

	code, stdout, _ = runCLI(t, msgs, "repair", "--format", "anthropic")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, `"synthesized":1`)
	assert.Contains(t, stdout, `\"code\":\"NO_RESULT\"`)

	// repair's output feeds check: {"ok": {...}} is unwrapped.
	code, stdout, _ = runCLI(t, stdout, "check", "--format", "anthropic")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, `"findings":[]`)

	code, stdout, _ = runCLI(t, `[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"}]`, "trim", "--format", "openai-chat", "--max-messages", "1")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, `"dropped":2`)

	code, _, stderr = runCLI(t, msgs, "convert", "--from", "anthropic", "--to", "nope")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "INVALID_INPUT")
}

func TestRun_classifyBadHeaders(t *testing.T) {
	code, stdout, _ := runCLI(t, `{"status":429,"headers":[1]}`, "classify")
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, `"path":"http.headers"`)
}

func TestRun_cliUsability(t *testing.T) {
	// Broken JSON is an error, not error text.
	code, _, stderr := runCLI(t, `{"status":429,"headers":{}`, "classify")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "input is not valid JSON")
	// Plain text is error text.
	code, stdout, _ := runCLI(t, "dial tcp 127.0.0.1:9: connect: connection refused", "classify", "--tool", "search")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, `"source":"tool"`, "--tool implies a tool made the call")
	// A missing required flag is a usage error.
	code, _, stderr = runCLI(t, `[]`, "check")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "check needs --format")
	code, _, _ = runCLI(t, `[]`, "trim", "--format", "openai-chat", "--max-chars", "-5")
	assert.Equal(t, 2, code)
	// wrap completes a partial envelope from the registry.
	code, stdout, _ = runCLI(t, `{"code":"TIMEOUT","message":"Search timed out"}`, "wrap", "--provider", "openai-chat", "--call-id", "call_1")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, `\"retryable\":true`)
	assert.Contains(t, stdout, `\"source\":\"tool\"`)
}

func TestRun_demoWithoutRecordings(t *testing.T) {
	t.Setenv("TOOLERR_SHARED", t.TempDir())
	code, stdout, _ := runCLI(t, "", "demo")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, "The real recordings were not found")
	assert.Contains(t, stdout, "openai_429_insufficient_quota.json  429     QUOTA_EXHAUSTED  false")
	assert.Contains(t, stdout, "6 responses classified: 4 retryable, 2 terminal.")
	assert.Contains(t, stdout, "attempt 3: HTTP 400 -> code INVALID_ARGS, retryable false, source tool")

	// A folder named on purpose that holds no recordings is a usage error
	// said before any work, not a quiet fallback.
	missing := t.TempDir() + "/nowhere"
	code, stdout, stderr := runCLI(t, "", "demo", "--shared", missing)
	assert.Equal(t, 2, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "toolerr: --shared "+missing+": no folder "+missing+"/fixtures/real")
}

// TestRun_oneVocabulary: wrap, classify and the transcript commands take the
// same names, the aliases of the core's provider table, and list them.
func TestRun_oneVocabulary(t *testing.T) {
	env := `{"code":"TIMEOUT","message":"Search timed out"}`
	code, stdout, _ := runCLI(t, env, "wrap", "--provider", "openai", "--call-id", "call_1")
	assert.Equal(t, 0, code, "openai is openai-chat for wrap")
	assert.Contains(t, stdout, `"role":"tool","tool_call_id":"call_1"`)
	code, stdout, _ = runCLI(t, env, "wrap", "--provider", "Google", "--call-id", "fc_1", "--name", "search")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, `"functionResponse"`)
	code, stdout, _ = runCLI(t, `{"status":503,"headers":{},"body":{"error":{"code":503,"status":"UNAVAILABLE","message":"x"}}}`, "classify", "--provider", "google")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, `"provider":"gemini"`)
	code, stdout, _ = runCLI(t, `{"status":429,"headers":{},"body":{}}`, "classify", "--provider", "openai-chat")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, `"provider":"openai"`, "a format name is read as its vendor")
	code, _, _ = runCLI(t, `[]`, "check", "--format", "claude")
	assert.Equal(t, 0, code)
	code, _, _ = runCLI(t, `[]`, "convert", "--from", "chat", "--to", "aws")
	assert.Equal(t, 0, code)
	for _, cmd := range []string{"wrap", "classify", "check", "convert"} {
		_, stdout, _ := runCLI(t, "", cmd, "-h")
		assert.Contains(t, stdout, "openai=openai-chat", cmd)
		assert.Contains(t, stdout, "aws=bedrock", cmd)
	}
}

// TestRun_wholeBodies: the transcript commands take a whole request body of
// every format and print the whole body back, every other member kept;
// repair's output pipes into check.
func TestRun_wholeBodies(t *testing.T) {
	bodies := map[string]string{
		"openai-chat":      `{"model":"gpt-4o","temperature":0,"tools":[{"type":"function","function":{"name":"f"}}],"messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]}]}`,
		"openai-responses": `{"model":"gpt-4o","instructions":"Be brief.","input":[{"type":"function_call","call_id":"call_1","name":"f","arguments":"{}"}]}`,
		"anthropic":        `{"model":"claude-sonnet-4-5","max_tokens":100,"system":"Be brief.","messages":[{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"f","input":{}}]}]}`,
		"gemini":           `{"systemInstruction":{"parts":[{"text":"Be brief."}]},"generationConfig":{"temperature":0},"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]}]}`,
		"bedrock":          `{"system":[{"text":"Be brief."}],"inferenceConfig":{"maxTokens":100},"messages":[{"role":"assistant","content":[{"toolUse":{"toolUseId":"t1","name":"f","input":{}}}]}]}`,
	}
	for f, body := range bodies {
		code, stdout, _ := runCLI(t, body, "check", "--format", f)
		assert.Equal(t, 3, code, f)
		assert.Contains(t, stdout, `"kind":"unanswered_call"`, f)

		code, repaired, _ := runCLI(t, body, "repair", "--format", f)
		require.Equal(t, 0, code, f)
		in, err := decodeJSON([]byte(body))
		require.NoError(t, err)
		out := okMember([]byte(repaired))["body"].(map[string]any)
		for k, v := range in.(map[string]any) {
			if k == "messages" || k == "input" || k == "contents" {
				continue
			}
			a, _ := core.AppendJSON(nil, v)
			b, _ := core.AppendJSON(nil, out[k])
			assert.Equal(t, string(a), string(b), "%s: %s", f, k)
		}
		code, stdout, _ = runCLI(t, repaired, "check", "--format", f)
		assert.Equal(t, 0, code, "%s: repair's output pipes into check", f)
		assert.Contains(t, stdout, `"findings":[]`)

		code, stdout, _ = runCLI(t, body, "trim", "--format", f, "--max-messages", "5")
		assert.Equal(t, 0, code, f)
		assert.Contains(t, stdout, `"body":`, f)
	}
	code, stdout, _ := runCLI(t, bodies["anthropic"], "convert", "--from", "claude", "--to", "google")
	require.Equal(t, 0, code)
	b := okMember([]byte(stdout))["body"].(map[string]any)
	assert.Equal(t, map[string]any{"parts": []any{map[string]any{"text": "Be brief."}}}, b["systemInstruction"])
	assert.Equal(t, map[string]any{"maxOutputTokens": 100.0}, b["generationConfig"])
	assert.Contains(t, stdout, "takes the model in the URL")
}

// TestRun_duplicateKeys: the CLI reads input with the core's parser, so a
// duplicate key is refused as invoke refuses it; encoding/json would keep
// the second tool_use_id and repair would drop the real result as an orphan.
func TestRun_duplicateKeys(t *testing.T) {
	msgs := `[{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"f","input":{}}]},
	  {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"the real result","tool_use_id":"toolu_X"}]}]`
	for _, cmd := range [][]string{{"repair", "--format", "anthropic"}, {"check", "--format", "anthropic"}, {"convert", "--from", "anthropic", "--to", "openai-chat"}, {"trim", "--format", "anthropic", "--max-messages", "9"}} {
		code, stdout, stderr := runCLI(t, msgs, cmd...)
		assert.Equal(t, 2, code, cmd[0])
		assert.Empty(t, stdout, cmd[0])
		assert.Contains(t, stderr, `input is not valid JSON: duplicate object key "tool_use_id" at byte offset 195`, cmd[0])
	}
	code, stdout, _ := runCLI(t, `{"op":"repair","format":"anthropic","messages":`+msgs+`}`, "invoke")
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, `duplicate object key`)
	code, _, stderr := runCLI(t, `{"code":"TIMEOUT","message":"a","message":"b"}`, "wrap", "--provider", "openai")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `duplicate object key "message"`)
}

// TestRun_externalCommand checks that gateway-check runs the program of its
// own module: found on PATH, given the arguments and standard streams, its
// exit status passed on; a missing program is a usage error saying so.
func TestRun_externalCommand(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	code, _, stderr := runCLI(t, "", "gateway-check", "--base-url", "http://127.0.0.1:1")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "toolerr-gateway-check not found beside toolerr or on PATH")
	assert.Contains(t, stderr, "(cd gatewaycheck && go install ./cmd/toolerr-gateway-check)")

	script := "#!/bin/sh\necho \"args: $*\"\nread line\necho \"stdin: $line\" >&2\nexit 1\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "toolerr-gateway-check"), []byte(script), 0o755))
	code, stdout, stderr := runCLI(t, "hello\n", "gateway-check", "--hops", "same")
	assert.Equal(t, 1, code)
	assert.Equal(t, "args: --hops same\n", stdout)
	assert.Equal(t, "stdin: hello\n", stderr)
}

// TestRun_helpAndBudget: -h of every command exits 0 (the usage asked for
// is no usage error), an unknown flag exits 2, and trim without a budget is
// a usage error (2), not an answer of the core (1).
func TestRun_helpAndBudget(t *testing.T) {
	for _, cmd := range []string{"classify", "wrap", "check", "repair", "convert", "trim", "replay", "invoke", "demo", "version"} {
		code, stdout, stderr := runCLI(t, "", cmd, "-h")
		assert.Equal(t, 0, code, cmd)
		assert.Contains(t, stdout, "usage: toolerr "+cmd, cmd)
		assert.Contains(t, stdout, "exit status: 0 success", cmd)
		assert.Empty(t, stderr, cmd)
		code, stdout, stderr = runCLI(t, "", cmd, "--no-such-flag")
		assert.Equal(t, 2, code, cmd)
		assert.Empty(t, stdout, cmd)
		assert.Contains(t, stderr, "flag provided but not defined: -no-such-flag", cmd)
		assert.Contains(t, stderr, "usage: toolerr "+cmd, "a flag error shows the usage on standard error (%s)", cmd)
	}
	// What FILE holds, per command; replay's formats are the adapters',
	// the transcript commands' only those with whole transcripts.
	_, stdout, _ := runCLI(t, "", "check", "-h")
	assert.Contains(t, stdout, "FILE: a message list of the format")
	assert.Contains(t, stdout, "3 a finding")
	assert.NotContains(t, stdout, "mcp", "check reads no MCP transcript")
	_, stdout, _ = runCLI(t, "", "replay", "-h")
	assert.Contains(t, stdout, "usage: toolerr replay --format P [TRACE]")
	assert.Contains(t, stdout, "mcp")
	_, stdout, _ = runCLI(t, "", "invoke", "-h")
	assert.Contains(t, stdout, `FILE: one Invoke request {"op": ..., ...}`)
	code, _, stderr := runCLI(t, "", "version", "extra")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `version takes no arguments, got "extra"`)
	code, _, stderr = runCLI(t, "[]", "trim", "--format", "openai")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "trim needs a budget")
	code, stdout, _ = runCLI(t, `[{"role":"user","content":"a"},{"role":"user","content":"b"}]`, "trim", "--format", "openai", "--max-messages", "1")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, `"dropped":1`)
}

// TestRun_classifyStreamText: a raw event stream piped to classify (error
// text) reads as the stream it is, as the body of a 200 does.
func TestRun_classifyStreamText(t *testing.T) {
	stream := "event: message_start\ndata: {\"type\":\"message_start\"}\n\nevent: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"
	code, stdout, _ := runCLI(t, stream, "classify", "--provider", "anthropic")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, `"code":"OVERLOADED"`)
	assert.Contains(t, stdout, `"retryable":true`)
}

// TestREADME_usage: the README's "Command-line tool" section shows the usage
// toolerr -h prints, line for line.
func TestREADME_usage(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Skipf("no README beside the command: %v", err)
	}
	_, section, ok := strings.Cut(string(readme), "## Command-line tool\n\n```\n")
	if !assert.True(t, ok, "the README has a Command-line tool section opening with a code block") {
		return
	}
	block, _, _ := strings.Cut(section, "```\n")
	_, stdout, _ := runCLI(t, "", "-h")
	assert.Equal(t, stdout, block)
}
