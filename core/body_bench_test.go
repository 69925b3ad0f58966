package core

import (
	"bytes"
	"testing"
)

// workBTools are the function tools of work item (b)'s calls, as an OpenAI
// Chat Completions request declares them (tools[].function, parameters as
// JSON Schema).
const workBTools = `[` +
	`{"type":"function","function":{"name":"search_flights","description":"Search flights between two airports on a date.","parameters":{"type":"object","properties":{"origin":{"type":"string","description":"IATA code"},"destination":{"type":"string","description":"IATA code"},"date":{"type":"string","format":"date"},"passengers":{"type":"integer","minimum":1}},"required":["origin","destination","date"]}}},` +
	`{"type":"function","function":{"name":"book_flight","description":"Book a flight found by search_flights.","parameters":{"type":"object","properties":{"flight_id":{"type":"string"},"passenger_name":{"type":"string"},"seat":{"type":"string","enum":["window","aisle","middle"]}},"required":["flight_id","passenger_name"]}}},` +
	`{"type":"function","function":{"name":"search_hotels","description":"Search hotels in a city for a stay.","parameters":{"type":"object","properties":{"city":{"type":"string"},"check_in":{"type":"string","format":"date"},"check_out":{"type":"string","format":"date"},"max_price":{"type":"number"}},"required":["city","check_in","check_out"]}}},` +
	`{"type":"function","function":{"name":"book_hotel","description":"Book a hotel found by search_hotels.","parameters":{"type":"object","properties":{"hotel_id":{"type":"string"},"guest_name":{"type":"string"},"nights":{"type":"integer","minimum":1}},"required":["hotel_id","guest_name"]}}},` +
	`{"type":"function","function":{"name":"get_weather_forecast","description":"The weather forecast for a city and date.","parameters":{"type":"object","properties":{"city":{"type":"string"},"date":{"type":"string","format":"date"},"units":{"type":"string","enum":["metric","imperial"]}},"required":["city"]}}}` +
	`]`

// workBBody is work item (b) as a whole OpenAI Chat Completions request
// body: model, the 40 messages, the tools of its calls, temperature and
// max_tokens, members in the order a client writes them (not RFC 8785's).
func workBBody(tb testing.TB) string {
	msgs, err := workB()
	if err != nil {
		tb.Fatal(err)
	}
	return `{"model":"gpt-4o","messages":` + string(msgs) + `,"tools":` + workBTools + `,"tool_choice":"auto","temperature":0.2,"max_tokens":1024}`
}

// workBBodyRequests are the body forms of workBRequests.
var workBBodyRequests = []struct{ name, members string }{
	{"check", `"op":"check","format":"openai-chat"`},
	{"repair", `"op":"repair","format":"openai-chat"`},
	{"convertSame", `"op":"convert","from":"openai-chat","to":"openai-chat"`},
	{"convertAnthropic", `"op":"convert","from":"openai-chat","to":"anthropic"`},
	{"convertGemini", `"op":"convert","from":"openai-chat","to":"gemini"`},
}

// BenchmarkWorkBBody runs each op on work item (b) as a whole request body
// (workBBody), through Invoke, beside its baseline, encoding/json decoding
// the same request bytes into interface values and encoding them again
// (benchPair), as BenchmarkWorkB does for the list; list/<op> is the list
// form of the same op, in the same run, to compare the two paths.
func BenchmarkWorkBBody(b *testing.B) {
	body := workBBody(b)
	for _, w := range workBBodyRequests {
		for _, form := range []string{"body", "list"} {
			var req []byte
			if form == "body" {
				req = []byte(`{` + w.members + `,"body":` + body + `}`)
			} else {
				req = workBRequest(b, w.members)
			}
			if out := Invoke(req); !bytes.HasPrefix(out, []byte(`{"ok":`)) {
				b.Fatalf("request failed: %.300s", out)
			}
			b.Run(form+"/"+w.name, func(b *testing.B) {
				benchPair(b, func() { _ = Invoke(req) }, jsonRoundTrip(b, req))
			})
		}
	}
}
