package anthropic

// Round trips and benchmarks of the three formats owned together (anthropic,
// gemini, bedrock), kept in one place so that each case states what every
// format gives back.

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/format/bedrock"
	"github.com/toolerr/toolerr/core/internal/format/gemini"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

type codec interface {
	Serialize(outs []outcome.Outcome) ([]any, error)
	Parse(msgs []any) ([]outcome.Outcome, error)
}

// carriesName: only Gemini puts the call name on the wire.
var threeFormats = []struct {
	name        string
	c           codec
	carriesName bool
}{{"anthropic", Codec(), false}, {"gemini", gemini.Codec(), true}, {"bedrock", bedrock.Codec(), false}}

func res(r outcome.Result) *outcome.Result { return &r }

func text(s string) *outcome.Result { return res(outcome.Result{Kind: outcome.Text, Text: s}) }

func jsonRes(v any) *outcome.Result { return res(outcome.Result{Kind: outcome.JSON, JSON: v}) }

func blocks(bs ...outcome.Block) *outcome.Result {
	return res(outcome.Result{Kind: outcome.Blocks, Blocks: bs})
}

func TestRoundTrip_threeFormats(t *testing.T) {
	img := outcome.Block{Type: "image", MediaType: "image/png", Data: png1x1}
	txt := func(s string) outcome.Block { return outcome.Block{Type: "text", Text: s} }
	empty := res(outcome.Result{Kind: outcome.Empty})
	tests := []struct {
		name string
		in   *outcome.Result // nil: the failure timeoutEnv
		// what each format gives back when it differs from in (the lossy cases)
		anthropic, gemini, bedrock *outcome.Result
	}{
		{name: "failure", in: nil},
		{name: "text", in: text("3 hits")},
		// Gemini takes a JSON object as response itself: text holding one is
		// decoded once (its key order and spacing are not kept)
		{name: "text that looks like JSON but is not canonical", in: text(`{ "a": 1 }`), gemini: jsonRes(map[string]any{"a": 1.0})},
		{name: "text that is a JSON string", in: text(`"sunny"`), gemini: text("sunny")},
		{name: "text holding a JSON string of JSON", in: text(`"{\"price\": 10}"`)},
		{name: "empty", in: empty},
		{name: "JSON object", in: jsonRes(map[string]any{"time": "10:00"})},
		{name: "JSON empty object", in: jsonRes(map[string]any{})},
		{name: "JSON object with an error key", in: jsonRes(map[string]any{"error": "none", "n": 1.0})},
		{name: "JSON object with only an output key", in: jsonRes(map[string]any{"output": 5.0})},
		{name: "JSON array", in: jsonRes([]any{1.0, 2.0, 3.0})},
		{name: "JSON number", in: jsonRes(42.0), anthropic: text("42")},
		{name: "JSON null", in: jsonRes(nil), anthropic: text("null")},
		{name: "text and image", in: blocks(txt("captured"), img)},
		{name: "image only", in: blocks(img)},
		{name: "one text block", in: blocks(txt("only")), gemini: text("only"), bedrock: text("only")},
		{name: "two text blocks", in: blocks(txt("a"), txt("b")), gemini: text("a\nb")},
		{name: "image before text", in: blocks(img, txt("after")), gemini: blocks(txt("after"), img)},
		{name: "blank text blocks dropped", in: blocks(txt(""), img, txt(" ")), anthropic: blocks(img), gemini: blocks(img), bedrock: blocks(img)},
		{name: "only blank text blocks", in: blocks(txt("")), anthropic: empty, gemini: empty, bedrock: empty},
	}
	for _, f := range threeFormats {
		for _, tc := range tests {
			t.Run(f.name+"/"+tc.name, func(t *testing.T) {
				in := outcome.Outcome{Call: outcome.Call{ID: "call_7", Name: "get_weather"}, Result: tc.in}
				if tc.in == nil {
					in.Error = timeoutEnv()
				}
				want := in
				if !f.carriesName {
					want.Call.Name = ""
				}
				for _, w := range []struct {
					f string
					r *outcome.Result
				}{{"anthropic", tc.anthropic}, {"gemini", tc.gemini}, {"bedrock", tc.bedrock}} {
					if w.f == f.name && w.r != nil {
						want.Result = w.r
					}
				}
				wire, err := f.c.Serialize([]outcome.Outcome{in})
				require.NoError(t, err)
				got, err := f.c.Parse(wire)
				require.NoError(t, err)
				assert.Equal(t, []outcome.Outcome{want}, got, "parse(serialize(x))")
				again, err := f.c.Serialize(got)
				require.NoError(t, err)
				assert.Equal(t, mustJSON(t, wire), mustJSON(t, again), "serialize(parse(serialize(x))) == serialize(x)")
			})
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := canonical.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// TestSerialize_everyFailureFlagged is seed checklist item 3 for one turn
// mixing every code of the registry, retryable or not, from every source:
// each failure is flagged in all three formats.
func TestSerialize_everyFailureFlagged(t *testing.T) {
	var outs []outcome.Outcome
	for _, ci := range envelope.Codes() {
		for _, retry := range []bool{true, false} {
			e := envelope.Envelope{Code: ci.Code, Message: ci.Meaning, Retryable: retry, Source: ci.Source}
			outs = append(outs, outcome.Outcome{Call: outcome.Call{ID: "call_" + strconv.Itoa(len(outs)), Name: "f"}, Error: &e})
		}
	}
	msgs, err := Codec().Serialize(outs)
	require.NoError(t, err)
	blocks := msgs[0].(map[string]any)["content"].([]any)
	require.Len(t, blocks, len(outs))
	for _, b := range blocks {
		assert.Equal(t, true, b.(map[string]any)["is_error"], "anthropic %v", b)
	}
	msgs, err = bedrock.Codec().Serialize(outs)
	require.NoError(t, err)
	for _, b := range msgs[0].(map[string]any)["content"].([]any) {
		assert.Equal(t, "error", b.(map[string]any)["toolResult"].(map[string]any)["status"])
	}
	msgs, err = gemini.Codec().Serialize(outs)
	require.NoError(t, err)
	for _, p := range msgs[0].(map[string]any)["parts"].([]any) {
		resp := p.(map[string]any)["functionResponse"].(map[string]any)["response"].(map[string]any)
		assert.True(t, envelope.IsEnvelope(resp["error"]), "gemini %v", resp)
	}
}

// fuzzParse checks a parser on arbitrary JSON: no panic; what parses and
// serializes again is canonical, and stable: serialize(parse(w)) == w for
// w = serialize(parse(input)).
func fuzzParse(t *testing.T, c codec, input string) {
	v, err := canonical.Parse([]byte(input))
	if err != nil {
		return
	}
	msgs, ok := v.([]any)
	if !ok {
		return
	}
	outs, err := c.Parse(msgs)
	if err != nil {
		return
	}
	wire, err := c.Serialize(outs)
	if err != nil {
		return // e.g. an id the format rejects on the way out
	}
	first := mustJSON(t, wire)
	again, err := c.Parse(wire)
	require.NoError(t, err, "parse of our own output: %s", first)
	wire2, err := c.Serialize(again)
	require.NoError(t, err)
	require.Equal(t, first, mustJSON(t, wire2))
}

func fuzzSeeds(f *testing.F, seeds ...string) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Add(`[]`)
	f.Add(`[{"role":"user","content":"hi"}]`)
}

func FuzzParse_anthropic(f *testing.F) {
	fuzzSeeds(f,
		`[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_X","content":"File not found","is_error":true}]}]`,
		`[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"a"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA=="}}]}]`,
		`[{"type":"tool_result","tool_use_id":"t","is_error":true,"content":"`+timeoutText+`"}]`,
		`[{"type":"tool_result","tool_use_id":"t","content":"{\"a\":1}"}]`)
	f.Fuzz(func(t *testing.T, s string) { fuzzParse(t, Codec(), s) })
}

func FuzzParse_gemini(f *testing.F) {
	fuzzSeeds(f,
		`[{"role":"user","parts":[{"functionResponse":{"id":"a","name":"f","response":{"error":"permission denied"}}}]}]`,
		`[{"functionResponse":{"name":"f","response":{"output":{"output":1}},"parts":[{"inlineData":{"mimeType":"image/png","data":"AA=="}}]}}]`,
		`[{"function_response":{"name":"f","response":{"return_value":"Paris"}}}]`)
	f.Fuzz(func(t *testing.T, s string) { fuzzParse(t, gemini.Codec(), s) })
}

func FuzzParse_bedrock(f *testing.F) {
	fuzzSeeds(f,
		`[{"role":"user","content":[{"toolResult":{"toolUseId":"t","status":"error","content":[{"text":"permission denied"}]}}]}]`,
		`[{"toolResult":{"toolUseId":"t","content":[{"json":{"output":[1]}},{"image":{"format":"png","source":{"bytes":"AA=="}}}]}}]`,
		`[{"toolResult":{"toolUseId":"t","content":[{"text":"(empty result)"}]}}]`)
	f.Fuzz(func(t *testing.T, s string) { fuzzParse(t, bedrock.Codec(), s) })
}
