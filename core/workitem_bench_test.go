package core

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/toolerr/toolerr/core/internal/format/anthropic"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// Work item (b) of the performance goals: a 40-message OpenAI Chat
// Completions transcript (a travel booking: 10 calls, two of them parallel
// pairs, 3 failures carried as toolerr's envelope text in role "tool"
// content, 8.4 KB as compact JSON), in testdata/bench/transcript-b.json. The
// bindings' benchmarks read the same file.
const workBPath = "testdata/bench/transcript-b.json"

var workB = sync.OnceValues(func() ([]byte, error) {
	data, err := os.ReadFile(workBPath)
	if err != nil {
		return nil, err
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, data); err != nil {
		return nil, err
	}
	return compact.Bytes(), nil
})

// workBRequest is the request of op with members (JSON object members
// without braces) around the messages of work item (b).
func workBRequest(tb testing.TB, members string) []byte {
	msgs, err := workB()
	if err != nil {
		tb.Fatal(err)
	}
	return []byte(`{` + members + `,"messages":` + string(msgs) + `}`)
}

var workBRequests = []struct{ name, members string }{
	{"convertAnthropic", `"op":"convert","from":"openai-chat","to":"anthropic"`},
	{"convertGemini", `"op":"convert","from":"openai-chat","to":"gemini"`},
	{"repair", `"op":"repair","format":"openai-chat"`},
	{"check", `"op":"check","format":"openai-chat"`},
}

// TestWorkB_isTheWorkItem holds the benchmark input to its description and
// checks what each op answers for it, so that the benchmarks measure real
// work: every failure keeps its flag, nothing is repaired or found.
func TestWorkB_isTheWorkItem(t *testing.T) {
	msgs, err := workB()
	if err != nil {
		t.Fatal(err)
	}
	var list []struct {
		Role      string            `json:"role"`
		Content   *string           `json:"content"`
		ToolCalls []json.RawMessage `json:"tool_calls"`
	}
	if err := json.Unmarshal(msgs, &list); err != nil {
		t.Fatal(err)
	}
	calls, pairs, failures := 0, 0, 0
	for _, m := range list {
		calls += len(m.ToolCalls)
		if len(m.ToolCalls) == 2 {
			pairs++
		}
		if m.Role == "tool" && strings.HasPrefix(*m.Content, `{"code":"`) {
			failures++
		}
	}
	if len(list) != 40 || calls != 10 || pairs != 2 || failures != 3 || len(msgs) < 8000 || len(msgs) > 8600 {
		t.Fatalf("work item (b) has %d messages, %d calls, %d parallel pairs, %d failures, %d bytes; want 40, 10, 2, 3, about 8.3 KB",
			len(list), calls, pairs, failures, len(msgs))
	}
	for _, w := range workBRequests {
		out := string(Invoke(workBRequest(t, w.members)))
		var want []string
		switch w.name {
		case "convertAnthropic":
			want = []string{`"is_error":true`, `"is_error":true`, `"is_error":true`}
		case "convertGemini":
			want = []string{`"functionResponse":{"id":"call_Vb8nQ2rLs0TgYk4mWc1eZp6J","name":"get_weather_forecast","response":{"error":{"code":"TIMEOUT"`}
		case "repair":
			want = []string{`"changes":{"dropped_duplicates":0,"dropped_orphans":0,"filled":0,"ids":[],"merged":0,"moved":0,"renamed":0,"split":0,"synthesized":0}`}
		case "check":
			want = []string{`{"ok":{"findings":[]}}`}
		}
		for _, s := range want {
			i := strings.Index(out, s)
			if i < 0 {
				t.Fatalf("%s: response lacks %s:\n%.600s", w.name, s, out)
			}
			out = out[i+len(s):]
		}
	}
}

// BenchmarkWorkB runs, for each op on work item (b), Invoke and its
// baseline, encoding/json decoding the same request bytes into interface
// values and encoding them again, in alternating chunks (benchPair). The
// goal (scripts/benchratio) is at most 0.5x the baseline and one
// allocation per message.
func BenchmarkWorkB(b *testing.B) {
	for _, w := range workBRequests {
		req := workBRequest(b, w.members)
		if out := Invoke(req); !bytes.HasPrefix(out, []byte(`{"ok":`)) {
			b.Fatalf("request failed: %.300s", out)
		}
		b.Run(w.name, func(b *testing.B) {
			benchPair(b, func() { _ = Invoke(req) }, jsonRoundTrip(b, req))
		})
	}
}

// jsonRoundTrip is the work items' baseline for the request req:
// encoding/json decoding its bytes into interface values and encoding them
// again.
func jsonRoundTrip(b *testing.B, req []byte) func() {
	return func() {
		var v any
		if err := json.Unmarshal(req, &v); err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(v); err != nil {
			b.Fatal(err)
		}
	}
}

// benchPair measures toolerr and its baseline side by side on a shared,
// busy machine: it runs them alternately, chunk calls of each per
// iteration, and charges each side the CPU time the process spent in its
// chunks (cpuTime: the collector's work included, the time other processes
// held the cores not), so that both are measured under the same load. It
// reports toolerr-ns/op and base-ns/op (CPU per call), ratio (toolerr over
// baseline, the figure the goals are about) and toolerr-allocs/op.
func benchPair(b *testing.B, toolerr, base func()) {
	const chunk = 16
	allocs := testing.AllocsPerRun(20, toolerr)
	var tt, tb int64
	for b.Loop() {
		t0 := cpuTime()
		for range chunk {
			toolerr()
		}
		t1 := cpuTime()
		for range chunk {
			base()
		}
		tt += t1 - t0
		tb += cpuTime() - t1
	}
	calls := float64(b.N * chunk)
	b.ReportMetric(float64(tt)/calls, "toolerr-ns/op")
	b.ReportMetric(float64(tb)/calls, "base-ns/op")
	b.ReportMetric(float64(tt)/float64(max(tb, 1)), "ratio")
	b.ReportMetric(allocs, "toolerr-allocs/op")
}

// serializeAOutcome is the failure of BenchmarkSerializeA_*: one envelope to
// an Anthropic tool_result message, the request of work item (a).
var serializeAOutcome = func() []outcome.Outcome {
	e := Envelope{Code: "TIMEOUT", Message: "Weather service timed out after 10s.", Retryable: true,
		Details: map[string]any{"timeout_ms": 10000}, Source: SourceTool}
	return []outcome.Outcome{{Call: outcome.Call{ID: "toolu_01", Name: "get_weather"}, Error: &e}}
}()

// BenchmarkSerializeA runs the serialize op of work item (a) (one envelope
// to an Anthropic tool_result message) through Invoke, request bytes in and
// response bytes out, beside the codec alone writing the same message
// (anthropic.AppendTurn into a reused buffer), in alternating chunks
// (benchPair), and AppendInvoke as the C library calls it. The goal
// (scripts/benchratio) is at most 1.3x.
func BenchmarkSerializeA(b *testing.B) {
	want, err := anthropic.AppendTurn(nil, serializeAOutcome)
	if err != nil {
		b.Fatal(err)
	}
	if out := Invoke(benchSerializeAnthropic); !bytes.Contains(out, want) {
		b.Fatalf("Invoke wrote %s, the codec %s", out, want)
	}
	buf := make([]byte, 0, 1024)
	codec := func() {
		if buf, err = anthropic.AppendTurn(buf[:0], serializeAOutcome); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("serialize", func(b *testing.B) {
		benchPair(b, func() { _ = Invoke(benchSerializeAnthropic) }, codec)
	})
	// The C library's path (toolerr_invoke, toolerr_invoke_into): the
	// caller's bytes read in place and the response written into a buffer
	// reused from call to call, as the codec's is, then copied out.
	req, answer := string(benchSerializeAnthropic), make([]byte, 0, 1024)
	if out := AppendInvoke(answer, req); !bytes.Equal(out, Invoke(benchSerializeAnthropic)) {
		b.Fatalf("AppendInvoke wrote %s", out)
	}
	b.Run("appendInvoke", func(b *testing.B) {
		benchPair(b, func() { answer = AppendInvoke(answer[:0], req) }, codec)
	})
}
