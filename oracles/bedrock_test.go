package oracles

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bedrockCases are serialize requests whose output must validate against the
// Converse service model.
func bedrockCases() []map[string]any {
	one := func(call map[string]any, k string, v any) map[string]any {
		return map[string]any{"call": call, k: v}
	}
	id := map[string]any{"id": "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "name": "get_weather"}
	img := func(mt string) map[string]any {
		return map[string]any{"type": "image", "media_type": mt, "data": oraclePNG}
	}
	return []map[string]any{
		one(id, "error", oracleEnvelope()),
		one(id, "result", map[string]any{"text": "permission granted"}),
		one(id, "result", map[string]any{"json": map[string]any{"song": "x", "n": 1}}),
		one(id, "result", map[string]any{"json": []any{1, "a"}}),
		one(id, "result", map[string]any{"json": 42}),
		one(id, "result", map[string]any{"json": map[string]any{"output": nil}}),
		one(id, "result", map[string]any{}),
		one(id, "result", map[string]any{"blocks": []any{map[string]any{"type": "text", "text": "captured"}, img("image/png"), img("image/jpeg"), img("image/webp"), img("image/gif")}}),
		{"results": []any{
			one(map[string]any{"id": "a"}, "result", map[string]any{"text": "1"}),
			one(map[string]any{"id": strings.Repeat("b", 64)}, "error", oracleEnvelope())}},
	}
}

// ourBedrockMessages serializes every case and returns the user messages.
func ourBedrockMessages(t *testing.T) []any {
	var msgs []any
	for _, c := range bedrockCases() {
		req := map[string]any{"op": "serialize", "format": "bedrock"}
		for k, v := range c {
			req[k] = v
		}
		out := invokeOK(t, req).([]any)
		require.Len(t, out, 1, "one user message per turn")
		msgs = append(msgs, out[0])
	}
	return msgs
}

// serviceShape is the part of a botocore shape the walker checks.
type serviceShape struct {
	Type     string   `json:"type"`
	Required []string `json:"required"`
	Members  map[string]struct {
		Shape string `json:"shape"`
	} `json:"members"`
	Member struct {
		Shape string `json:"shape"`
	} `json:"member"`
	Enum     []string `json:"enum"`
	Pattern  string   `json:"pattern"`
	Min      *float64 `json:"min"`
	Max      *float64 `json:"max"`
	Union    bool     `json:"union"`
	Document bool     `json:"document"`
}

type serviceModel struct {
	Shapes map[string]serviceShape `json:"shapes"`
}

func loadBedrockModel(t *testing.T) serviceModel {
	dir := sharedDir(t)
	b, err := os.ReadFile(filepath.Join(dir, "specs", "aws-bedrock-runtime-2023-09-30-service-2.json"))
	require.NoError(t, err)
	var m serviceModel
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

// check walks v against shape name as botocore's ParamValidator does
// (required, unknown members, one member per union, types, min), and also
// checks what ParamValidator leaves out: enum values, max lengths, patterns
// (as a full match), base64 blobs, and that a ToolResultContentBlock json
// document is an object (the service's own rule: "Provide a json object for
// the field"; sigoden/aichat#1542, deepset-ai/haystack-core-integrations#3766).
func (m serviceModel) check(name string, v any, path string) []string {
	s, ok := m.Shapes[name]
	if !ok {
		return []string{path + ": unknown shape " + name}
	}
	bad := func(msg string) []string { return []string{path + ": " + msg} }
	switch s.Type {
	case "structure":
		if s.Document {
			return nil
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return bad("want an object for " + name)
		}
		var errs []string
		for _, r := range s.Required {
			if _, ok := obj[r]; !ok {
				errs = append(errs, path+"."+r+": required by "+name)
			}
		}
		if s.Union && len(obj) != 1 {
			errs = append(errs, path+": union "+name+" must set exactly one member")
		}
		for k, mv := range obj {
			mem, ok := s.Members[k]
			if !ok {
				errs = append(errs, path+"."+k+": not a member of "+name)
				continue
			}
			if name == "ToolResultContentBlock" && k == "json" {
				if _, isObj := mv.(map[string]any); !isObj {
					errs = append(errs, path+".json: must be a JSON object")
				}
			}
			errs = append(errs, m.check(mem.Shape, mv, path+"."+k)...)
		}
		return errs
	case "list":
		arr, ok := v.([]any)
		if !ok {
			return bad("want a list for " + name)
		}
		var errs []string
		if outside(float64(len(arr)), s.Min, s.Max) {
			errs = append(errs, path+": list length out of range for "+name)
		}
		for i, e := range arr {
			errs = append(errs, m.check(s.Member.Shape, e, path+"["+strconv.Itoa(i)+"]")...)
		}
		return errs
	case "string":
		str, ok := v.(string)
		if !ok {
			return bad("want a string for " + name)
		}
		n := len([]rune(str))
		if outside(float64(n), s.Min, s.Max) {
			return bad("length " + strconv.Itoa(n) + " out of range for " + name)
		}
		if len(s.Enum) > 0 && !contains(s.Enum, str) {
			return bad(strconv.Quote(str) + " not in the enum of " + name)
		}
		if s.Pattern != "" && !regexp.MustCompile(`^(?:`+s.Pattern+`)$`).MatchString(str) {
			return bad(strconv.Quote(str) + " does not match " + s.Pattern)
		}
	case "blob":
		str, ok := v.(string)
		if !ok {
			return bad("want base64 text for blob " + name)
		}
		raw, err := base64.StdEncoding.DecodeString(str)
		if err != nil {
			return bad("blob is not base64: " + err.Error())
		}
		if outside(float64(len(raw)), s.Min, nil) {
			return bad("blob shorter than min")
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return bad("want a boolean")
		}
	}
	return nil
}

// outside reports whether n is below min or above max (nil: no bound).
func outside(n float64, min, max *float64) bool {
	return min != nil && n < *min || max != nil && n > *max
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestBedrock_serviceModelShapes(t *testing.T) {
	m := loadBedrockModel(t)
	for i, msg := range ourBedrockMessages(t) {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			assert.Empty(t, m.check("Message", msg, "message"))
		})
	}
}

// TestBedrock_walkerRejects shows the walker can fail: each message breaks
// one rule of the model (or the json-object rule of the service).
func TestBedrock_walkerRejects(t *testing.T) {
	m := loadBedrockModel(t)
	tr := func(block map[string]any) map[string]any {
		return map[string]any{"role": "user", "content": []any{map[string]any{"toolResult": block}}}
	}
	tests := []struct {
		name string
		msg  map[string]any
		want string
	}{
		{"id with a space", tr(map[string]any{"toolUseId": "a b", "content": []any{}}), "message.content[0].toolResult.toolUseId"},
		{"id too long", tr(map[string]any{"toolUseId": strings.Repeat("a", 65), "content": []any{}}), "message.content[0].toolResult.toolUseId"},
		{"unknown status", tr(map[string]any{"toolUseId": "a", "status": "failed", "content": []any{}}), "message.content[0].toolResult.status"},
		{"json array", tr(map[string]any{"toolUseId": "a", "content": []any{map[string]any{"json": []any{1}}}}), "message.content[0].toolResult.content[0].json"},
		{"two union members", tr(map[string]any{"toolUseId": "a", "content": []any{map[string]any{"text": "x", "json": map[string]any{}}}}), "message.content[0].toolResult.content[0]"},
		{"missing content", tr(map[string]any{"toolUseId": "a"}), "message.content[0].toolResult.content"},
		{"bad image format", tr(map[string]any{"toolUseId": "a", "content": []any{map[string]any{"image": map[string]any{"format": "bmp", "source": map[string]any{"bytes": "AA=="}}}}}), "message.content[0].toolResult.content[0].image.format"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			errs := m.check("Message", tc.msg, "message")
			require.NotEmpty(t, errs)
			assert.Contains(t, strings.Join(errs, "\n"), tc.want)
		})
	}
}

// TestBedrock_botocoreParamValidator runs botocore's own ParamValidator over
// a Converse request per case (testdata/bedrock_validate.py). It skips when
// python3 or botocore is missing; `pip install botocore` provides it.
func TestBedrock_botocoreParamValidator(t *testing.T) {
	spec := filepath.Join(sharedDir(t), "specs", "aws-bedrock-runtime-2023-09-30-service-2.json")
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not found: botocore's validator not run (the Go walker still ran)")
	}
	if err := exec.Command("python3", "-c", "import botocore").Run(); err != nil {
		t.Skip("botocore not installed (pip install botocore): its validator not run (the Go walker still ran)")
	}
	var reqs []any
	msgs := ourBedrockMessages(t)
	for _, msg := range msgs {
		reqs = append(reqs, map[string]any{"modelId": "anthropic.claude-3-5-sonnet-20240620-v1:0", "messages": []any{msg}})
	}
	// A broken request proves the validator runs at all.
	reqs = append(reqs, map[string]any{"modelId": "m", "messages": []any{map[string]any{"role": "user", "content": []any{
		map[string]any{"toolResult": map[string]any{"toolUseId": "", "content": []any{}}}}}}})
	in, err := json.Marshal(reqs)
	require.NoError(t, err)
	cmd := exec.Command("python3", filepath.Join("testdata", "bedrock_validate.py"), spec)
	cmd.Stdin = bytes.NewReader(in)
	out, _ := cmd.Output()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, len(msgs)+1, "one line per request: %s", out)
	for i := range msgs {
		assert.Equal(t, "ok", lines[i], "case %d", i)
	}
	assert.Contains(t, lines[len(msgs)], "Invalid length for parameter messages[0].content[0].toolResult.toolUseId")
}

func TestBedrock_realRecordings(t *testing.T) {
	m := loadBedrockModel(t)
	turns := recordedTurns(t, "bedrock", "messages", func(b map[string]any) (bool, bool) {
		tr, ok := b["toolResult"].(map[string]any)
		return ok, ok && tr["status"] == "error"
	})
	for _, turn := range turns {
		t.Run(turn.file, func(t *testing.T) {
			parsed, again := checkRecordedTurn(t, "bedrock", turn)
			flagged := 0
			for _, b := range again["content"].([]any) {
				if b.(map[string]any)["toolResult"].(map[string]any)["status"] == "error" {
					flagged++
				}
			}
			assert.Equal(t, turn.failures, flagged, "status error on every failure after the round trip")
			assert.Empty(t, m.check("Message", again, "message"))
			if turn.file == "transcript_tool_result_status_error_pydantic_ai.json" {
				e := parsed[0].(map[string]any)["error"].(map[string]any)
				assert.Equal(t, "TOOL_ERROR", e["code"])
				assert.Contains(t, e["message"], "The country is not supported.")
			}
		})
	}
}
