package egress

import (
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
