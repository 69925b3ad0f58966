package core

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// docMembers returns the member names the README's doc string of an op
// names: each `name` (an identifier in backticks) outside braces and
// brackets, which hold a member's own members (a bracket may close with a
// parenthesis: a half-open interval, "in [0,1)").
func docMembers(doc string) []string {
	var out []string
	var open []byte // the braces and brackets open
	for i := 0; i < len(doc); i++ {
		switch c := doc[i]; {
		case c == '{' || c == '[':
			open = append(open, c)
		case len(open) > 0 && (c == '}' && open[len(open)-1] == '{' || (c == ']' || c == ')') && open[len(open)-1] == '['):
			open = open[:len(open)-1]
		case c == '`':
			j := strings.IndexByte(doc[i+1:], '`')
			if j < 0 {
				return out
			}
			name := doc[i+1 : i+1+j]
			if len(open) == 0 && strings.Trim(name, "abcdefghijklmnopqrstuvwxyz_") == "" && !slices.Contains(out, name) {
				out = append(out, name)
			}
			i += j + 1
		}
	}
	return out
}

// The machine-readable member list of every op is the doc string's (the
// README's Invoke reference): neither names a member the other lacks.
func TestOpTable_membersMatchDoc(t *testing.T) {
	for _, o := range opTable {
		doc := slices.DeleteFunc(docMembers(o.Members), func(n string) bool { return slices.Contains(frameMembers[:], n) })
		want := slices.Sorted(slices.Values(o.members))
		if got := slices.Sorted(slices.Values(doc)); !slices.Equal(got, want) {
			t.Errorf("%s: the doc string names %v, the table %v", o.Name, got, want)
		}
	}
}

// unknownMemberError is the response to a request of op naming the unknown
// member name (the smallest of them).
func unknownMemberError(o *op, name string) string {
	want := "op"
	for _, m := range o.members {
		want += ", " + m
	}
	return `{"error":{"code":"INVALID_INPUT","details":{"op":"` + o.Name + `","path":"` + name +
		`"},"message":"toolerr: ` + name + `: is not a known member (want ` + want + `).","retryable":false,"source":"orchestrator"}}`
}

// misspelled is a near miss of one of o's members (its last member without
// its last letter, "max_chars" -> "max_char"), or of the op's name.
func misspelled(o *op) string {
	name := o.Name
	if len(o.members) > 0 {
		name = o.members[len(o.members)-1]
	}
	return name[:len(name)-1]
}

// Every op refuses an unknown top-level member, first or last, alone or with
// a misspelled one (the smallest is named), with the same bytes through
// Invoke and AppendInvoke (the fast paths decline or answer alike), where
// before it was dropped and the op answered as if it were absent.
func TestInvoke_unknownMemberRefused(t *testing.T) {
	for i := range opTable {
		o := &opTable[i]
		ex := o.Example
		if out := string(Invoke([]byte(ex))); !strings.HasPrefix(out, okPrefix) {
			t.Fatalf("%s: the example fails: %s", o.Name, out)
		}
		miss := misspelled(o)
		small := min(miss, "zzz")
		for _, c := range []struct{ req, name string }{
			{`{"zzz":1,` + ex[1:], "zzz"},
			{ex[:len(ex)-1] + `,"zzz":1}`, "zzz"},
			{ex[:len(ex)-1] + `,` + strconv.Quote(miss) + `:1}`, miss},
			{`{` + strconv.Quote(miss) + `:1,"zzz":[],` + ex[1:], small},
			{ex[:len(ex)-1] + `,"zzz":{},` + strconv.Quote(miss) + `:null}`, small},
		} {
			want := unknownMemberError(o, c.name)
			if got := string(Invoke([]byte(c.req))); got != want {
				t.Errorf("Invoke(%s)\n got %s\nwant %s", c.req, got, want)
			}
			if got := string(AppendInvoke(nil, c.req)); got != want {
				t.Errorf("AppendInvoke(nil, %s)\n got %s\nwant %s", c.req, got, want)
			}
			if got := string(AppendInvoke([]byte("x"), c.req)); got != "x"+want {
				t.Errorf("AppendInvoke(x, %s)\n got %s\nwant x%s", c.req, got, want)
			}
		}
	}
}

// The cases of the fault: a misspelled option fell back to its default (a
// retry the caller's policy forbids; text not truncated). A framed request
// (raw_len, a binding's JSON text or a stream's raw bytes) is refused alike,
// and "op" and "raw_len" are known to every op.
func TestInvoke_misspelledOptionRefused(t *testing.T) {
	for _, c := range []struct{ req, op, name string }{
		{`{"op":"retry","attempt":1,"draw":0.5,"polcy":{"max_attempts":1},"error":` + exampleEnvelope + `}`, "retry", "polcy"},
		{`{"op":"sanitize","text":"abc","max_char":1}`, "sanitize", "max_char"},
		{`{"op":"check","format":"openai-chat","zzz":1,"messages":[],"raw_len":2}`, "check", "zzz"},
		{`{"op":"repair","format":"openai-chat","zzz":1,"body":{"messages":[]},"raw_len":15}`, "repair", "zzz"},
		{"{\"op\":\"egress_scan\",\"ingress\":\"openai-chat\",\"state\":\"sse\",\"zzz\":1,\"input\":data: {}\n\n,\"raw_len\":10}", "egress_scan", "zzz"},
	} {
		var o *op
		for i := range opTable {
			if opTable[i].Name == c.op {
				o = &opTable[i]
			}
		}
		want := unknownMemberError(o, c.name)
		if got := string(Invoke([]byte(c.req))); got != want {
			t.Errorf("Invoke(%q)\n got %s\nwant %s", c.req, got, want)
		}
		if got := string(AppendInvoke(nil, c.req)); got != want {
			t.Errorf("AppendInvoke(%q)\n got %s\nwant %s", c.req, got, want)
		}
	}
	// the same requests, spelled right, are answered
	for _, req := range []string{
		`{"op":"retry","attempt":1,"draw":0.5,"policy":{"max_attempts":1},"error":` + exampleEnvelope + `}`,
		`{"op":"sanitize","text":"abc","max_chars":1}`,
		`{"op":"check","format":"openai-chat","messages":[],"raw_len":2}`,
		"{\"op\":\"egress_scan\",\"ingress\":\"openai-chat\",\"state\":\"sse\",\"input\":data: {}\n\n,\"raw_len\":10}",
	} {
		if got := string(Invoke([]byte(req))); !strings.HasPrefix(got, okPrefix) {
			t.Errorf("Invoke(%q) = %s, want an ok answer", req, got)
		}
	}
}
