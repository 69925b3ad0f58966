package conformance

import (
	"bytes"
	"strconv"
	"strings"
)

// Amplifier is one request of the amplification corpus: a valid request that
// costs far more work, memory or output than its size suggests unless a bound
// stops it. Build returns it at about size bytes (never more than size).
//
// Want says what a bounded core answers at core.MaxRequestBytes: "ok" (it
// fits every bound), "bound:<name>" (INVALID_INPUT naming that bound in
// details.bound), or "" (either). Full marks the requests `make test` sends
// at that size through every target, the two of issue 9 (the rest go at a
// smaller size there, and all of them at full size in `make bench`).
type Amplifier struct {
	Name  string
	Op    string
	Want  string
	Full  bool
	Build func(size int) []byte
}

// repeatTo writes prefix, then elem as many times as fit (joined by sep,
// elem(i) for the i-th), then suffix, in at most size bytes.
func repeatTo(size int, prefix, sep, suffix string, elem func(i int) string) []byte {
	var b bytes.Buffer
	b.Grow(size)
	b.WriteString(prefix)
	for i := 0; ; i++ {
		e := elem(i)
		s := sep
		if i == 0 {
			s = ""
		}
		if b.Len()+len(s)+len(e)+len(suffix) > size {
			break
		}
		b.WriteString(s)
		b.WriteString(e)
	}
	b.WriteString(suffix)
	return b.Bytes()
}

func same(s string) func(int) string { return func(int) string { return s } }

func itoa(i int) string { return strconv.Itoa(i) }

// canonicalizeOf builds {"op":"canonicalize","value":[elem,...]}.
func canonicalizeOf(elem func(int) string) func(int) []byte {
	return func(size int) []byte {
		return repeatTo(size, `{"op":"canonicalize","value":[`, ",", `]}`, elem)
	}
}

// list builds a transcript request: head + the messages elem(0), elem(1), ... + "]}".
func list(head string, elem func(int) string) func(int) []byte {
	return func(size int) []byte { return repeatTo(size, head+`"messages":[`, ",", `]}`, elem) }
}

// oneTurn builds a transcript of one message whose parts (or tool_calls) are
// elem(0), elem(1), ...: open + parts + close closes the message and request.
func oneTurn(head, open, closing string, elem func(int) string) func(int) []byte {
	return func(size int) []byte {
		return repeatTo(size, head+`"messages":[`+open, ",", closing+`]}`, elem)
	}
}

// AmplificationCorpus returns the corpus: for every op that can be made to
// multiply its input, the shapes that do it (many small elements, deep but
// legal nesting, long id lists, many tiny strings, long and many keys,
// requests whose output multiplies), each with what a bounded core answers.
func AmplificationCorpus() []Amplifier {
	longName := strings.Repeat("n", 4000)
	longID := func(i int) string { return "call." + strings.Repeat("x", 2000) + "." + itoa(i) }
	nested := strings.Repeat("[", 510) + strings.Repeat("]", 510)
	return []Amplifier{
		// canonicalize: the value tree itself.
		{"tiny objects", "canonicalize", "bound:value_bytes", true, canonicalizeOf(same(`{"":0}`))},
		{"empty objects", "canonicalize", "bound:value_bytes", false, canonicalizeOf(same(`{}`))},
		{"empty arrays", "canonicalize", "ok", false, canonicalizeOf(same(`[]`))},
		{"tiny strings", "canonicalize", "ok", false, canonicalizeOf(same(`"a"`))},
		{"small integers", "canonicalize", "ok", false, canonicalizeOf(same(`7`))},
		{"numbers written 4 times longer", "canonicalize", "bound:response_bytes", false, canonicalizeOf(same(`1e20`))},
		{"escaped strings", "canonicalize", "ok", false, canonicalizeOf(same(`"\u0041\n"`))},
		{"invalid UTF-8 written 3 times longer", "canonicalize", "bound:response_bytes", false, func(size int) []byte {
			return repeatTo(size, `{"op":"canonicalize","value":"`, "", `"}`, same("\xff\xff\xff\xff\xff\xff\xff\xff"))
		}},
		{"deep nesting, many times", "canonicalize", "bound:value_bytes", false, canonicalizeOf(same(nested))},
		{"one object of many keys", "canonicalize", "ok", false, func(size int) []byte {
			return repeatTo(size, `{"op":"canonicalize","value":{`, ",", `}}`, func(i int) string { return `"k` + itoa(i) + `":1` })
		}},
		{"long keys sharing a prefix", "canonicalize", "ok", false, func(size int) []byte {
			p := strings.Repeat("k", 1000)
			return repeatTo(size, `{"op":"canonicalize","value":{`, ",", `}}`, func(i int) string { return `"` + p + itoa(i) + `":0` })
		}},
		{"keys sorted by UTF-16 units", "canonicalize", "ok", false, func(size int) []byte {
			return repeatTo(size, `{"op":"canonicalize","value":{`, ",", `}}`, func(i int) string { return `"\ud83d\ude00` + itoa(i) + "\uE000\":0" })
		}},

		// repair: results synthesized for unanswered calls.
		{"gemini calls without ids, unanswered", "repair", "bound:value_bytes", true, oneTurn(`{"op":"repair","format":"gemini",`, `{"role":"model","parts":[`, `]}`,
			same(`{"functionCall":{"name":"a","args":{}}}`))},
		{"openai-chat tool calls, unanswered", "repair", "bound:response_bytes", false, oneTurn(`{"op":"repair","format":"openai-chat",`, `{"role":"assistant","tool_calls":[`, `]}`,
			func(i int) string {
				return `{"id":"c` + itoa(i) + `","type":"function","function":{"name":"a","arguments":"{}"}}`
			})},
		{"openai-responses calls, unanswered", "repair", "bound:response_bytes", false, list(`{"op":"repair","format":"openai-responses",`,
			func(i int) string {
				return `{"type":"function_call","call_id":"c` + itoa(i) + `","name":"a","arguments":"{}"}`
			})},
		{"anthropic tool_use, unanswered", "repair", "bound:response_bytes", false, oneTurn(`{"op":"repair","format":"anthropic",`, `{"role":"assistant","content":[`, `]}`,
			func(i int) string { return `{"type":"tool_use","id":"t` + itoa(i) + `","name":"a","input":{}}` })},
		{"bedrock toolUse, unanswered", "repair", "bound:response_bytes", false, oneTurn(`{"op":"repair","format":"bedrock",`, `{"role":"assistant","content":[`, `]}`,
			func(i int) string { return `{"toolUse":{"toolUseId":"t` + itoa(i) + `","name":"a","input":{}}}` })},
		{"long tool names, unanswered", "repair", "bound:response_bytes", false, oneTurn(`{"op":"repair","format":"anthropic",`, `{"role":"assistant","content":[`, `]}`,
			func(i int) string {
				return `{"type":"tool_use","id":"t` + itoa(i) + `","name":"` + longName + `","input":{}}`
			})},
		{"one call answered many times", "repair", "ok", false, list(`{"op":"repair","format":"openai-chat",`, func(i int) string {
			if i == 0 {
				return `{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"a","arguments":"{}"}}]}`
			}
			return `{"role":"tool","tool_call_id":"c","content":"r"}`
		})},
		{"results far from their calls", "repair", "ok", false, func(size int) []byte {
			n := size / 200
			var b strings.Builder
			b.WriteString(`{"op":"repair","format":"anthropic","messages":[{"role":"assistant","content":[`)
			for i := range n {
				if i > 0 {
					b.WriteString(",")
				}
				b.WriteString(`{"type":"tool_use","id":"t` + itoa(i) + `","name":"a","input":{}}`)
			}
			b.WriteString(`]},{"role":"user","content":[{"type":"text","text":"x"}]}`)
			for i := n - 1; i >= 0; i-- {
				b.WriteString(`,{"role":"user","content":[{"type":"tool_result","tool_use_id":"t` + itoa(i) + `","content":"r"}]}`)
			}
			b.WriteString(`]}`)
			return []byte(b.String())
		}},

		// check: one finding per call, ids in findings.
		{"findings for unanswered calls", "check", "ok", false, oneTurn(`{"op":"check","format":"openai-chat",`, `{"role":"assistant","tool_calls":[`, `]}`,
			func(i int) string {
				return `{"id":"c` + itoa(i) + `","type":"function","function":{"name":"a","arguments":"{}"}}`
			})},
		{"every call with the same id", "check", "ok", false, oneTurn(`{"op":"check","format":"anthropic",`, `{"role":"assistant","content":[`, `]}`,
			same(`{"type":"tool_use","id":"t","name":"a","input":{}}`))},
		{"empty content parts, each an invalid_part", "check", "bound:response_bytes", false, oneTurn(`{"op":"check","format":"openai-chat",`, `{"role":"user","content":[`, `]}`,
			same(`{}`))},
		{"long ids checked against mistral", "check", "bound:response_bytes", false, oneTurn(`{"op":"check","format":"openai-chat","id_rules":"mistral",`, `{"role":"assistant","tool_calls":[`, `]}`,
			func(i int) string {
				return `{"id":"` + longID(i) + `","type":"function","function":{"name":"a","arguments":"{}"}}`
			})},

		// convert: notes, id maps, arguments parsed from text.
		{"openai-chat to gemini, every call answered", "convert", "bound:response_bytes", false, list(`{"op":"convert","from":"openai-chat","to":"gemini",`, func(i int) string {
			id := `"c` + itoa(i) + `"`
			return `{"role":"assistant","tool_calls":[{"id":` + id + `,"type":"function","function":{"name":"a","arguments":"{}"}}]},{"role":"tool","tool_call_id":` + id + `,"content":"r"}`
		})},
		{"long ids to mistral with an id map", "convert", "ok", false, list(`{"op":"convert","from":"openai-chat","to":"openai-chat","id_rules":"mistral",`, func(i int) string {
			id := `"` + longID(i) + `"`
			return `{"role":"assistant","tool_calls":[{"id":` + id + `,"type":"function","function":{"name":"a","arguments":"{}"}}]},{"role":"tool","tool_call_id":` + id + `,"content":"r"}`
		})},
		{"gemini parallel calls to openai-chat", "convert", "bound:value_bytes", false, func(size int) []byte {
			n := (size - 200) / 101
			var b strings.Builder
			b.WriteString(`{"op":"convert","from":"gemini","to":"openai-chat","messages":[{"role":"model","parts":[`)
			b.WriteString(strings.TrimSuffix(strings.Repeat(`{"functionCall":{"name":"a","args":{}}},`, n), ","))
			b.WriteString(`]},{"role":"user","parts":[`)
			b.WriteString(strings.TrimSuffix(strings.Repeat(`{"functionResponse":{"name":"a","response":{"output":"r"}}},`, n), ","))
			b.WriteString(`]}]}`)
			return []byte(b.String())
		}},
		{"arguments of tiny objects as text", "convert", "", false, func(size int) []byte {
			args := string(bytes.ReplaceAll(repeatTo((size-200)*7/9, `[`, ",", `]`, same(`{"":0}`)), []byte(`"`), []byte(`\"`)))
			return []byte(`{"op":"convert","from":"openai-chat","to":"anthropic","messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"a","arguments":"` + args + `"}}]}]}`)
		}},
		{"members the target has no place for", "convert", "ok", false, list(`{"op":"convert","from":"anthropic","to":"openai-chat",`,
			func(i int) string { return `{"role":"user","content":[{"type":"document","n":` + itoa(i) + `}]}` })},

		// normalize_ids: every id rewritten, the map twice as long.
		{"long ids normalized for bedrock", "normalize_ids", "ok", false, list(`{"op":"normalize_ids","target":"bedrock","format":"openai-chat",`, func(i int) string {
			id := `"` + longID(i) + `"`
			return `{"role":"assistant","tool_calls":[{"id":` + id + `,"type":"function","function":{"name":"a","arguments":"{}"}}]},{"role":"tool","tool_call_id":` + id + `,"content":"r"}`
		})},
		{"short ids normalized for mistral", "normalize_ids", "bound:response_bytes", false, list(`{"op":"normalize_ids","target":"mistral",`, func(i int) string {
			id := `"c.` + itoa(i) + `"`
			return `{"role":"assistant","tool_calls":[{"id":` + id + `,"type":"function","function":{"name":"a","arguments":"{}"}}]},{"role":"tool","tool_call_id":` + id + `,"content":"r"}`
		})},

		// trim.
		{"trim to one message", "trim", "ok", false, list(`{"op":"trim","format":"openai-chat","max_messages":1,`,
			func(i int) string { return `{"role":"user","content":"m` + itoa(i) + `"}` })},

		// serialize and parse: many outcomes, JSON results written twice (MCP).
		{"many failures to anthropic", "serialize", "bound:response_bytes", false, func(size int) []byte {
			return repeatTo(size, `{"op":"serialize","format":"anthropic","results":[`, ",", `]}`, func(i int) string {
				return `{"call":{"id":"t` + itoa(i) + `","name":"a"},"error":{"code":"TIMEOUT","message":"m","retryable":true,"details":{},"source":"tool"}}`
			})
		}},
		{"a JSON result written as text and structuredContent", "serialize", "bound:response_bytes", false, func(size int) []byte {
			return repeatTo(size, `{"op":"serialize","format":"mcp","call":{"id":"c","name":"a"},"result":{"json":{"v":[`, ",", `]}}}`, same(`"\"\"\"\"\"\"\"\""`))
		}},
		{"many images to openai-chat", "serialize", "bound:response_bytes", false, func(size int) []byte {
			return repeatTo(size, `{"op":"serialize","format":"openai-chat","results":[`, ",", `]}`, func(i int) string {
				return `{"call":{"id":"c` + itoa(i) + `","name":"a"},"result":{"blocks":[{"type":"image","media_type":"image/png","data":"iVBORw0KGgo="}]}}`
			})
		}},
		{"many tool messages parsed", "parse", "ok", false, list(`{"op":"parse","format":"openai-chat",`,
			func(i int) string { return `{"role":"tool","tool_call_id":"c` + itoa(i) + `","content":"r"}` })},

		// classify: bodies and text read for JSON.
		{"error text of many braces", "classify", "ok", false, func(size int) []byte {
			return repeatTo(size, `{"op":"classify","error_text":"`, "", `"}`, same(`{{{{{{{{{{`))
		}},
		{"error text of many small JSON objects", "classify", "ok", false, func(size int) []byte {
			return repeatTo(size, `{"op":"classify","error_text":"`, " ", `"}`, same(`{\"a\":1}`))
		}},
		{"a body of tiny objects as text", "classify", "", false, func(size int) []byte {
			body := string(bytes.ReplaceAll(repeatTo((size-100)*7/9, `[`, ",", `]`, same(`{"":0}`)), []byte(`"`), []byte(`\"`)))
			return []byte(`{"op":"classify","http":{"status":400,"headers":{},"body":"` + body + `"}}`)
		}},
		{"many headers", "classify", "ok", false, func(size int) []byte {
			return repeatTo(size, `{"op":"classify","http":{"status":429,"headers":{`, ",", `}}}`, func(i int) string { return `"x-h` + itoa(i) + `":"1"` })
		}},

		// the other ops.
		{"text of many URLs with passwords", "sanitize", "bound:response_bytes", false, func(size int) []byte {
			return repeatTo(size, `{"op":"sanitize","text":"`, " ", `"}`, same(`a://b:c@d`))
		}},
		{"details of many keys", "envelope", "bound:response_bytes", false, func(size int) []byte {
			return repeatTo(size, `{"op":"envelope","code":"TIMEOUT","message":"m","details":{`, ",", `}}`, func(i int) string { return `"k` + itoa(i) + `":"v"` })
		}},
		{"many argument failures", "args_error", "ok", false, func(size int) []byte {
			return repeatTo(size, `{"op":"args_error","tool":"a","failures":[`, ",", `]}`, func(i int) string { return `{"path":"/a` + itoa(i) + `","keyword":"type","expected":"string"}` })
		}},
		{"a long loop guard history", "loop_guard", "bound:value_bytes", false, func(size int) []byte {
			return repeatTo(size, `{"op":"loop_guard","call":{"tool":"a","args":{}},"history":[`, ",", `]}`, same(`{"tool":"a","args":{"q":[1,2,3]},"ok":false}`))
		}},
		{"a replay of many steps", "replay", "bound:value_bytes", false, func(size int) []byte {
			return repeatTo(size, `{"op":"replay","format":"openai-chat","trace":{"description":"d","bound":10000,"steps":[`, ",", `]}}`,
				same(`{"result":{"text":"r"}}`))
		}},
	}
}
