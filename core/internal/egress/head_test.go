package egress

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestHeadError_everyCut: a head cut at each byte of an event is an error
// event exactly from the byte that completes what tells one: the line end
// of "event: error", or the second "{" of an "error" object that opens the
// data (across data lines, in any line ends); a content chunk and an
// "error" member after another are none, wherever they are cut.
func TestHeadError_everyCut(t *testing.T) {
	for _, tc := range []struct {
		event string
		from  string // the shortest head that is an error event ("": none)
		name  string
	}{
		{"event: error\ndata: {\"type\":\"error\",\"error\":{}}\n", "event: error\n", "error"},
		{"id: 1\r\nevent: error\r\ndata: x\r\n", "id: 1\r\nevent: error\r", "error"},
		{"data: {\"error\":{\"message\":\"m\"}}\n", "data: {\"error\":{", ""},
		{"data: {\r\ndata:  \"error\" :\rdata: \t{\"code\":1}}\r\n", "data: {\r\ndata:  \"error\" :\rdata: \t{", ""},
		{"event: message\ndata:{\"error\":{}}\n", "event: message\ndata:{\"error\":{", "message"},
		{"data: {\"choices\":[{\"delta\":{\"content\":\"{\\\"error\\\":{\"}}]}\n", "", ""},
		{"data: {\"id\":\"x\",\"error\":{\"message\":\"late\"}}\n", "", ""},
		{"event: errors\ndata: {\"error\":\"x\"}\n", "", "errors"},
		{"data: {\"\\u0065rror\":{\"message\":\"m\"}}\n", "data: {\"\\u0065rror\":{", ""},
		{"data: {\ndata: \"err\\u006Fr\"\r\ndata: :{}}\n", "data: {\ndata: \"err\\u006Fr\"\r\ndata: :{", ""},
		{"data: {\"\\u0045rror\":{}}\n", "", ""},
		{"data: {\"err\ndata: or\":{}}\n", "", ""},
	} {
		for n := 0; n <= len(tc.event); n++ {
			head := tc.event[:n]
			name, isError := HeadError([]byte(head))
			want := tc.from != "" && n >= len(tc.from)
			if isError != want {
				t.Fatalf("%q: error event %v, want %v", head, isError, want)
			}
			if isError && name != tc.name || n == len(tc.event) && name != tc.name {
				t.Fatalf("%q: name %q, want %q", head, name, tc.name)
			}
			if strings.HasPrefix(tc.event, "event:") && n < strings.IndexAny(tc.event, "\r\n")+1 && name != "" {
				t.Fatalf("%q: a cut event line names %q", head, name)
			}
		}
	}
}

// headErrorSpec is HeadError restated line by line from the WHATWG rules
// (split into lines at CRLF, LF or CR; field and value at the first colon,
// one leading space dropped; the data lines joined by LF, the cut line
// included; the name from complete "event" lines only), the data's opening
// tested on the joined text at once: the reference FuzzHeadError_sameAsSpec
// holds the incremental matcher to.
func headErrorSpec(head []byte) (string, bool) {
	var name string
	var data []string
	s := string(head)
	for s != "" {
		i := strings.IndexAny(s, "\r\n")
		line, complete := s, i >= 0
		if complete {
			line = s[:i]
			if s[i] == '\r' && strings.HasPrefix(s[i:], "\r\n") {
				i++
			}
			s = s[i+1:]
		} else {
			s = ""
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			if complete {
				name = value
			}
		case "data":
			data = append(data, value)
		}
	}
	return name, name == "error" || opensErrorSpec(strings.Join(data, "\n"))
}

// opensErrorSpec tells whether text opens `{"error":{`, JSON white space
// between the tokens, the name read as a JSON string by encoding/json (RFC
// 8259, 7: escapes decoded), as the whole-frame rule (IsErrorEvent) reads it.
func opensErrorSpec(text string) bool {
	rest := strings.TrimLeft(text, " \t\r\n")
	if !strings.HasPrefix(rest, "{") {
		return false
	}
	rest = strings.TrimLeft(rest[1:], " \t\r\n")
	if !strings.HasPrefix(rest, `"`) {
		return false
	}
	end := 1
	for end < len(rest) && rest[end] != '"' {
		if rest[end] == '\\' {
			end++
		}
		end++
	}
	if end >= len(rest) {
		return false
	}
	var n string
	if json.Unmarshal([]byte(rest[:end+1]), &n) != nil || n != "error" {
		return false
	}
	rest = strings.TrimLeft(rest[end+1:], " \t\r\n")
	if !strings.HasPrefix(rest, ":") {
		return false
	}
	return strings.HasPrefix(strings.TrimLeft(rest[1:], " \t\r\n"), "{")
}

// FuzzHeadError_sameAsSpec: whatever the bytes (CR, LF and CRLF mixed,
// BOMs, event lines anywhere, data split over lines, non-UTF-8), each cut
// of them is told an error event, and named, as headErrorSpec tells it.
func FuzzHeadError_sameAsSpec(f *testing.F) {
	for _, s := range []string{
		"event: error\ndata: {\"type\":\"error\",\"error\":{}}\n", "id: 1\r\nevent: error\r\ndata: x\r\n",
		"data: {\r\ndata:  \"error\" :\rdata: \t{\"code\":1}}\r\n", "event: message\ndata:{\"error\":{}}\nevent: error\r",
		"\xef\xbb\xbfevent: error\n", "data\ndata: {\"error\"\n\n:{", "data: {\"\\u0065rr\ndata: or\":{", "data: {\"e\\u0072ror\"\r\ndata: :{", "event:error \ndata: \xff{\"error\":{", ": comment\r\n\r\ndata:{ \"error\":{",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, event []byte) {
		for n := 0; n <= len(event) && n <= 512; n++ {
			name, isError := HeadError(event[:n])
			wantName, want := headErrorSpec(event[:n])
			if name != wantName || isError != want {
				t.Fatalf("%q: HeadError (%q, %v), the rules (%q, %v)", event[:n], name, isError, wantName, want)
			}
		}
	})
}

// TestElementHeadError_everyCut: an array element's head is an error
// element exactly from the byte that completes `{"error":{` (white space
// between the tokens); content and an "error" member after another are
// none, wherever they are cut.
func TestElementHeadError_everyCut(t *testing.T) {
	for _, tc := range []struct {
		element string
		from    string // the shortest head that is an error element ("": none)
	}{
		{`{"error":{"code":500,"message":"m"}}`, `{"error":{`},
		{"{\r\n  \"error\" :\t{\"code\":429}}", "{\r\n  \"error\" :\t{"},
		{`{"candidates":[{"content":{"parts":[{"text":"{\"error\":{"}]}}]}`, ""},
		{`{"id":"x","error":{"code":500}}`, ""},
		{`{"error":"text"}`, ""},
		{`{"\u0065rror":{"code":500}}`, `{"\u0065rror":{`},
		{`{ "e\u0072\u0072\u006f\u0072" : {"code":500}}`, `{ "e\u0072\u0072\u006f\u0072" : {`},
		{`{"\u0045rror":{"code":500}}`, ""},
		{`{"err\or":{"code":500}}`, ""},
	} {
		for n := 0; n <= len(tc.element); n++ {
			head := tc.element[:n]
			want := tc.from != "" && n >= len(tc.from)
			if got := ElementHeadError([]byte(head)); got != want {
				t.Fatalf("%q: error element %v, want %v", head, got, want)
			}
		}
	}
}

// FuzzHeadError_agreesWithWhole: a head whose data tells an error event
// belongs to an event that IsErrorEvent, the rule for a whole one, tells an
// error event, however the event goes on past the head (escaped names,
// data split over lines, any line ends).
func FuzzHeadError_agreesWithWhole(f *testing.F) {
	for _, s := range []string{
		"data: {\"error\":{\"message\":\"m\"}}\n", "data: {\"\\u0065rror\":{\"message\":\"m\"}}\n",
		"data: {\ndata: \"err\\u006Fr\"\r\ndata: :{}}\n", "data: {\"e\\u0072ror\" : {\"code\":1},\"error\":null}\r\n",
		"data: {\"\\u0065rror\":{\"a\":[1,2\n", "id: 1\rdata: { \"\\u0065\\u0072\\u0072\\u006f\\u0072\":\t{\r",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, event []byte) {
		name, data := ParseEvent(event)
		whole := IsErrorEvent(name, data)
		for n := 0; n <= len(event) && n <= 512; n++ {
			if headName, isError := HeadError(event[:n]); isError && headName != "error" && !whole {
				t.Fatalf("%q: the head %q tells an error event, the whole event none", event, event[:n])
			}
		}
	})
}

// FuzzElementHeadError_agreesWithWhole: a head that tells an error element
// belongs to an element that IsErrorEvent tells an error element, however
// the element goes on past the head.
func FuzzElementHeadError_agreesWithWhole(f *testing.F) {
	for _, s := range []string{
		`{"error":{"code":500}}`, `{"\u0065rror":{"code":500}}`, `{ "e\u0072\u0072\u006f\u0072" : {"code":500},"x":1}`,
		`{"\u0065rror":{"code":500`, `{"\u0065rror":{}} trailing`, `{"\u0065rror":{},"\u0065rror":{}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, element []byte) {
		whole := IsErrorEvent("", element)
		for n := 0; n <= len(element) && n <= 512; n++ {
			if ElementHeadError(element[:n]) && !whole {
				t.Fatalf("%q: the head %q tells an error element, the whole element none", element, element[:n])
			}
		}
	})
}

// TestHeadReaders_allocs: the head readers copy nothing but an event's
// name, escaped names and data lines joined by LF included.
func TestHeadReaders_allocs(t *testing.T) {
	event := []byte("data: {\ndata: \"\\u0065rror\":{\"message\":\"m")
	named := []byte("event: message\ndata: {\"\\u0065rror\":{\"message\":\"m")
	element := []byte(`{"\u0065rror":{"code":500`)
	for _, tc := range []struct {
		what string
		f    func()
		want float64
	}{
		{"HeadError, data only", func() { HeadError(event) }, 0},
		{"HeadError, named", func() { HeadError(named) }, 1},
		{"ElementHeadError", func() { ElementHeadError(element) }, 0},
		{"SuccessHead", func() { SuccessHead(element) }, 0},
	} {
		if got := testing.AllocsPerRun(100, tc.f); got != tc.want {
			t.Errorf("%s: %v allocations, want %v", tc.what, got, tc.want)
		}
	}
}

// TestSuccessHead_cases: the one gate every transport asks before it reads
// a success whole: error objects (Gemini/OpenAI first member "error",
// Anthropic type-first and error-first, names \u-escaped, white space
// between tokens) are read, as are heads too short to tell; answers,
// arrays, strings and non-JSON pass.
func TestSuccessHead_cases(t *testing.T) {
	for _, tc := range []struct {
		head          string
		read, decided bool
	}{
		{`{"error":{"code":503`, true, true},
		{"\ufeff \n{ \"error\" :\t{", true, true},
		{`{"\u0065rror":{`, true, true},
		{`{"\u0045rror":{`, false, true},
		{`{"type":"error","error":{"type":"overloaded_error"`, true, true},
		{`{"typ\u0065":"\u0065rror" , "error" : {`, true, true},
		{`{"error":{"type":"api_error"},"type":"error"}`, true, true},
		{`{"type":"message","id":"msg_1"}`, false, true},
		{`{"type":"error","request_id":"req_1","error":{`, false, true},
		{`{"type":"error","type":"error","error":{`, false, true},
		{`{"error":"x"}`, false, true},
		{`{"id":"chatcmpl-1","error":{`, false, true},
		{`{"candidates":[`, false, true},
		{`[{"error":{`, false, true},
		{`"error"`, false, true},
		{`<html>`, false, true},
		{`{"err\or":{`, false, true},
		{``, true, false},
		{`   `, true, false},
		{`{"err`, true, false},
		{`{"\u00`, true, false},
		{`{"type":"error"`, true, false},
		{`{"error":`, true, false},
	} {
		read, decided := SuccessHead([]byte(tc.head))
		if read != tc.read || decided != tc.decided {
			t.Errorf("%q: read %v decided %v, want %v %v", tc.head, read, decided, tc.read, tc.decided)
		}
	}
}
