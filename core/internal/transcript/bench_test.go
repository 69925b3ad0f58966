package transcript

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/toolerr/toolerr/core/internal/canonical"
)

// benchTurns is the size of the benchmark transcript, in call turns.
const benchTurns = 500

// benchList returns a 500-turn transcript of f as JSON bytes: each turn a
// user question, an assistant message with two parallel calls and their two
// results (the last turn's second result missing, so repair has work).
func benchList(f Format) []byte {
	var b strings.Builder
	b.WriteString("[")
	for t := 0; t < benchTurns; t++ {
		id := func(k int) string { return "call_" + strconv.Itoa(t) + "_" + strconv.Itoa(k) }
		last := t == benchTurns-1
		if t > 0 {
			b.WriteString(",")
		}
		switch f {
		case OpenAIChat:
			b.WriteString(`{"role":"user","content":"What is the weather in city ` + strconv.Itoa(t) + ` and its neighbour?"},`)
			b.WriteString(`{"role":"assistant","content":null,"tool_calls":[{"id":"` + id(0) + `","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"A` + strconv.Itoa(t) + `\"}"}},{"id":"` + id(1) + `","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"B` + strconv.Itoa(t) + `\"}"}}]},`)
			b.WriteString(`{"role":"tool","tool_call_id":"` + id(0) + `","content":"{\"temperature\":21,\"unit\":\"C\",\"sky\":\"clear\"}"}`)
			if !last {
				b.WriteString(`,{"role":"tool","tool_call_id":"` + id(1) + `","content":"{\"temperature\":19,\"unit\":\"C\",\"sky\":\"rain\"}"}`)
			}
		case Anthropic:
			b.WriteString(`{"role":"user","content":"What is the weather in city ` + strconv.Itoa(t) + ` and its neighbour?"},`)
			b.WriteString(`{"role":"assistant","content":[{"type":"text","text":"Checking both."},{"type":"tool_use","id":"` + id(0) + `","name":"get_weather","input":{"city":"A` + strconv.Itoa(t) + `"}},{"type":"tool_use","id":"` + id(1) + `","name":"get_weather","input":{"city":"B` + strconv.Itoa(t) + `"}}]},`)
			b.WriteString(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id(0) + `","content":"{\"temperature\":21,\"unit\":\"C\",\"sky\":\"clear\"}"}`)
			if !last {
				b.WriteString(`,{"type":"tool_result","tool_use_id":"` + id(1) + `","content":"{\"temperature\":19,\"unit\":\"C\",\"sky\":\"rain\"}"}`)
			}
			b.WriteString(`]}`)
		}
	}
	b.WriteString("]")
	return []byte(b.String())
}

func benchFormats() []Format { return []Format{OpenAIChat, Anthropic} }

// BenchmarkJSONDecode is the baseline: encoding/json decoding the same bytes
// into interface values. Reported per turn.
func BenchmarkJSONDecode(b *testing.B) {
	for _, f := range benchFormats() {
		data := benchList(f)
		b.Run(string(f), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				var v any
				if err := json.Unmarshal(data, &v); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchTurns, "ns/turn")
		})
	}
}

// BenchmarkCheck is parse (package canonical) + read + check of the bytes.
func BenchmarkCheck(b *testing.B) {
	benchRead(b, func(b *testing.B, f Format, msgs []Message) {
		if len(Check(f, msgs, Options{})) != 1 {
			b.Fatal("want one finding")
		}
	})
}

// BenchmarkRepair is parse + read + repair + write of the bytes (the value
// tree Invoke then encodes).
func BenchmarkRepair(b *testing.B) {
	benchRead(b, func(b *testing.B, f Format, msgs []Message) {
		out, ch := Repair(f, msgs, Options{})
		if ch.Synthesized != 1 {
			b.Fatal("want one synthesized result")
		}
		_ = Write(f, out)
	})
}

// benchRead runs op on the bench list of every format, parsed and read
// inside the timing, and reports the time per turn.
func benchRead(b *testing.B, op func(b *testing.B, f Format, msgs []Message)) {
	for _, f := range benchFormats() {
		data := benchList(f)
		b.Run(string(f), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				v, _ := canonical.Parse(data)
				msgs, err := Read(f, v.([]any))
				if err != nil {
					b.Fatal(err)
				}
				op(b, f, msgs)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchTurns, "ns/turn")
		})
	}
}

// BenchmarkCheckOrphans20k and BenchmarkRepairOrphans20k are the adversarial
// lists of 20,000 orphan results (one tool message or one tool_result block
// each) that were quadratic: reported per element.
func BenchmarkCheckOrphans20k(b *testing.B) {
	benchOrphans(b, func(f Format, m []Message) { Check(f, m, Options{}) })
}

func BenchmarkRepairOrphans20k(b *testing.B) {
	benchOrphans(b, func(f Format, m []Message) { Repair(f, m, Options{}) })
}

func benchOrphans(b *testing.B, op func(Format, []Message)) {
	for _, tc := range []struct {
		f    Format
		list string
	}{{OpenAIChat, chatOrphans(20000)}, {Anthropic, anthropicOrphans(20000)}} {
		msgs := read(b, tc.f, tc.list)
		b.Run(string(tc.f), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				op(tc.f, msgs)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/20000, "ns/element")
		})
	}
}
