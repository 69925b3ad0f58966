// Command transcript writes work item (b) of the binding benchmarks
// (scripts/bench-bindings.sh): a 40-message OpenAI Chat Completions
// transcript of a travel-planning agent, with 10 tool calls (two of them
// parallel pairs) whose 3 failures are toolerr envelopes as the core writes
// them. Everything is built here, through core.Invoke: the failures by the
// classify and classify_exception ops from an HTTP 429, a timeout and an
// HTTP 404, every tool message by the serialize op, so the bytes are the
// project's own and the same on every run.
//
// Usage: transcript > transcript.json (a JSON array of messages, about 8.3 KB).
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/toolerr/toolerr/core"
)

type call struct {
	id, name, args string
	result         map[string]any // {"text": s} or {"json": v}
	failure        map[string]any // a classify or classify_exception request
}

func invoke(req map[string]any) json.RawMessage {
	b, err := json.Marshal(req)
	if err != nil {
		panic(err)
	}
	var resp struct {
		OK    json.RawMessage `json:"ok"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(core.Invoke(b), &resp); err != nil || resp.Error != nil {
		panic(fmt.Sprintf("transcript: %s failed: %s %v", req["op"], resp.Error, err))
	}
	return resp.OK
}

// toolMessages answers calls with the serialize op's openai-chat tool messages.
func toolMessages(calls []call) []json.RawMessage {
	results := make([]map[string]any, len(calls))
	for i, c := range calls {
		r := map[string]any{"call": map[string]any{"id": c.id, "name": c.name}}
		if c.failure != nil {
			r["error"] = json.RawMessage(invoke(c.failure))
		} else {
			r["result"] = c.result
		}
		results[i] = r
	}
	var msgs []json.RawMessage
	if err := json.Unmarshal(invoke(map[string]any{"op": "serialize", "format": "openai-chat", "results": results}), &msgs); err != nil {
		panic(err)
	}
	return msgs
}

func assistantCalls(calls []call) map[string]any {
	tc := make([]map[string]any, len(calls))
	for i, c := range calls {
		tc[i] = map[string]any{"id": c.id, "type": "function", "function": map[string]any{"name": c.name, "arguments": c.args}}
	}
	return map[string]any{"role": "assistant", "content": nil, "tool_calls": tc}
}

func text(role, s string) map[string]any { return map[string]any{"role": role, "content": s} }

func main() {
	var msgs []any
	add := func(m ...any) { msgs = append(msgs, m...) }
	turn := func(calls ...call) {
		add(assistantCalls(calls))
		for _, m := range toolMessages(calls) {
			add(m)
		}
	}
	rateLimited := map[string]any{"op": "classify", "tool": "search_flights", "attempt": 1, "http": map[string]any{
		"status": 429, "headers": map[string]any{"retry-after": "12"},
		"body": map[string]any{"error": map[string]any{"message": "Too many requests", "code": "rate_limited"}}}}
	timedOut := map[string]any{"op": "classify_exception", "tool": "get_weather", "exception": map[string]any{
		"type": "TimeoutError", "message": "The read operation timed out after 10 seconds", "traceback": ""}}
	notFound := map[string]any{"op": "classify", "tool": "get_hotel", "attempt": 1, "http": map[string]any{
		"status": 404, "headers": map[string]any{}, "body": map[string]any{"error": "hotel not found"}}}

	add(text("system", "You are a travel assistant. Use the tools to look up flights, hotels and weather; "+
		"never invent prices, times or availability. Prices are in euros and include taxes unless the tool says "+
		"otherwise. When a tool fails, say what failed and what you will try next, in one sentence, and do not "+
		"retry a call the tool result says is not retryable. Confirm every booking with the user before calling "+
		"the book tool, and repeat the total price and the booking reference afterwards. Dates are ISO 8601; "+
		"airports are IATA codes; the user's home airport is LIS unless they say otherwise."))
	add(text("user", "I want to fly from Lisbon to Berlin on March 14 and come back on March 18. Two adults."))
	turn(call{id: "call_8f2kq1", name: "search_flights", args: `{"from":"LIS","to":"BER","date":"2026-03-14","adults":2}`, failure: rateLimited})
	add(text("assistant", "The flight search was rate limited; I will try again in a moment."))
	add(text("user", "Sure, and check the weather in Berlin for those days too."))
	turn(call{id: "call_3hd9wz", name: "search_flights", args: `{"from":"LIS","to":"BER","date":"2026-03-14","adults":2}`,
		result: map[string]any{"json": map[string]any{"flights": []any{
			map[string]any{"number": "TP538", "departs": "07:05", "arrives": "11:35", "price_eur": 189, "stops": 0, "bags": "1 checked"},
			map[string]any{"number": "LH1167", "departs": "12:40", "arrives": "17:10", "price_eur": 224, "stops": 1, "via": "FRA"},
			map[string]any{"number": "FR1883", "departs": "18:55", "arrives": "23:20", "price_eur": 97, "stops": 0, "bags": "cabin only"}}}}},
		call{id: "call_5pl0rt", name: "get_weather", args: `{"city":"Berlin","from":"2026-03-14","to":"2026-03-18"}`, failure: timedOut})
	add(text("assistant", "I found two outbound flights: TP538 at 07:05 for 189 EUR and LH1167 at 12:40 for 224 EUR. "+
		"The weather service timed out; I will ask it again."))
	add(text("user", "TP538 is fine. What about the return?"))
	turn(call{id: "call_7ve2ny", name: "search_flights", args: `{"from":"BER","to":"LIS","date":"2026-03-18","adults":2}`,
		result: map[string]any{"json": map[string]any{"flights": []any{
			map[string]any{"number": "TP537", "departs": "12:20", "arrives": "15:00", "price_eur": 176, "stops": 0, "bags": "1 checked"},
			map[string]any{"number": "LH1170", "departs": "17:45", "arrives": "21:05", "price_eur": 208, "stops": 1, "via": "MUC"}}}}})
	add(text("assistant", "The return flight TP537 leaves Berlin at 12:20 on March 18 and costs 176 EUR."))
	add(text("user", "Is there a later return flight in case the meeting runs long?"))
	add(text("assistant", "Yes: LH1170 leaves Berlin at 17:45 and lands in Lisbon at 21:05 with one stop in Munich, for 208 EUR."))
	add(text("user", "Good. Now a hotel near Alexanderplatz, and retry the weather."))
	turn(call{id: "call_1mx4bs", name: "search_hotels", args: `{"city":"Berlin","near":"Alexanderplatz","checkin":"2026-03-14","checkout":"2026-03-18","guests":2}`,
		result: map[string]any{"json": map[string]any{"hotels": []any{
			map[string]any{"id": "h_4411", "name": "Park Inn Alexanderplatz", "price_eur_night": 132, "rating": 4.1, "distance_m": 150, "breakfast": true},
			map[string]any{"id": "h_9907", "name": "Motel One Alexanderplatz", "price_eur_night": 98, "rating": 4.4, "distance_m": 400, "breakfast": false}}}}},
		call{id: "call_6qa8jd", name: "get_weather", args: `{"city":"Berlin","from":"2026-03-14","to":"2026-03-18"}`,
			result: map[string]any{"text": "Berlin, March 14-18: 4 to 9 C, light rain on the 15th, otherwise cloudy. " +
				"Sat 14: 5-9 C, cloudy, wind 15 km/h W. Sun 15: 4-7 C, light rain (6 mm), wind 25 km/h SW. " +
				"Mon 16: 3-8 C, cloudy. Tue 17: 4-9 C, sunny spells. Wed 18: 5-9 C, cloudy, 10% rain."}})
	add(text("assistant", "Two hotels near Alexanderplatz: Motel One at 98 EUR a night (rated 4.4) and Park Inn at 132 EUR (4.1). "+
		"Expect 4 to 9 C with light rain on the 15th."))
	add(text("user", "Tell me more about hotel h_4410."))
	turn(call{id: "call_2ur5ke", name: "get_hotel", args: `{"id":"h_4410"}`, failure: notFound})
	add(text("assistant", "I could not find a hotel with the id h_4410. Did you mean h_4411, the Park Inn?"))
	add(text("user", "Yes, the Park Inn."))
	turn(call{id: "call_9wn3fa", name: "get_hotel", args: `{"id":"h_4411"}`,
		result: map[string]any{"json": map[string]any{"id": "h_4411", "name": "Park Inn Alexanderplatz", "breakfast": true,
			"address": "Alexanderplatz 7, 10178 Berlin", "checkin_from": "15:00", "checkout_until": "12:00",
			"cancellation": "free until 48 hours before check-in, then the first night is charged",
			"amenities":    []any{"wifi", "gym", "restaurant", "bar", "parking (28 EUR a day)", "airport shuttle on request"}}}})
	add(text("assistant", "The Park Inn includes breakfast and can be cancelled for free until 48 hours before check-in."))
	add(text("user", "Book the TP538 and TP537 flights and the Motel One instead."))
	turn(call{id: "call_4kt7gm", name: "book", args: `{"items":["TP538","TP537","h_9907"],"adults":2}`,
		result: map[string]any{"json": map[string]any{"booking": "BK-20260314-7731", "total_eur": 1122,
			"items": []any{
				map[string]any{"item": "TP538", "date": "2026-03-14", "price_eur": 378},
				map[string]any{"item": "TP537", "date": "2026-03-18", "price_eur": 352},
				map[string]any{"item": "h_9907", "nights": 4, "price_eur": 392}},
			"status": "confirmed"}}})
	add(text("assistant", "Booked: flights TP538 and TP537 and four nights at Motel One Alexanderplatz, 1,122 EUR in total. "+
		"Your booking reference is BK-20260314-7731. Each flight includes one checked bag per adult; "+
		"online check-in opens 36 hours before departure, and Motel One holds the room until 18:00 on arrival day."))
	add(text("user", "Thanks! Please send the confirmation to ana.silva@example.com."))
	turn(call{id: "call_0zb6hc", name: "send_email", args: `{"to":"ana.silva@example.com","subject":"Booking BK-20260314-7731"}`,
		result: map[string]any{"text": "Sent."}})
	add(text("assistant", "The confirmation is on its way to ana.silva@example.com."))
	add(text("user", "Is there anything else I should know before the trip?"))
	add(text("assistant", "Take an umbrella for the 15th, and note that the return flight leaves at 12:20, so check out "+
		"by 10:00: the airport train from Alexanderplatz takes about 35 minutes. Public transport tickets for zones ABC "+
		"cover the airport; a 4-day ticket is cheaper than single rides if you plan to move around the city."))
	add(text("user", "Perfect, that's all. Bye!"))

	b, err := json.Marshal(msgs)
	if err != nil {
		panic(err)
	}
	os.Stdout.Write(append(b, '\n'))
}
