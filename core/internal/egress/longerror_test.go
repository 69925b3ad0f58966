package egress

import (
	"strings"
	"testing"
)

// cutPass appends b, the next bytes of a frame, to dst with each "error"
// object c finds replaced by "R" at its end, counted in n; open says a
// value being cut runs on from the previous call.
func cutPass(c *Cutter, dst, b []byte, n *int) []byte {
	from := 0
	c.Scan(b, func(i int) { dst = append(dst, b[from:i]...) }, func(i int) {
		dst, from = append(dst, `"R"`...), i+1
		*n++
	})
	if c.State != CutDrop {
		dst = append(dst, b[from:]...)
	}
	return dst
}

// cutEnd ends the frame: a value being cut is replaced.
func cutEnd(c *Cutter, dst []byte, n *int) []byte {
	if c.State == CutDrop {
		dst = append(dst, `"R"`...)
		*n++
	}
	*c = Cutter{}
	return dst
}

// The cutter alone, on short inputs: what it passes is the same however
// the bytes are split in two (escapes, a name and its colon cut anywhere),
// and it cuts only a top-level "error" member's object.
func TestCutter_everySplit(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`data: {"a":"x\\\"y\\","error" : {"m":"\"}{","n":[{}]},"b":1}`, `data: {"a":"x\\\"y\\","error" : "R","b":1}`},
		{`{"\u0065rror":{"m":1}}`, `{"\u0065rror":"R"}`},
		{`{"error":"s","x":{"error":{"m":1}},"error":[1]}`, `{"error":"s","x":{"error":{"m":1}},"error":[1]}`},
		{`["error",{"error":{}}]`, `["error",{"error":{}}]`},
		{`{"errors":{"m":1},"t":"\"error\":{"}`, `{"errors":{"m":1},"t":"\"error\":{"}`},
		{`{"error":{"m":"cut by the end`, `{"error":"R"`},
	} {
		for split := 0; split <= len(tc.in); split++ {
			var c Cutter
			n := 0
			out := cutPass(&c, nil, []byte(tc.in[:split]), &n)
			out = cutEnd(&c, cutPass(&c, out, []byte(tc.in[split:]), &n), &n)
			if string(out) != tc.want {
				t.Errorf("%q split at %d: %q, want %q", tc.in, split, out, tc.want)
				break
			}
			if want := strings.Count(tc.want, `"R"`); n != want {
				t.Errorf("%q split at %d: %d replies, want %d", tc.in, split, n, want)
				break
			}
		}
	}
}

// ErrorMember: the "error" object of an error op's body, whatever member
// goes before it; the body itself without one.
func TestErrorMember(t *testing.T) {
	for in, want := range map[string]string{
		`{"error":{"code":500,"m":"}"}}`:        `{"code":500,"m":"}"}`,
		`{"type":"error","error":{"type":"x"}}`: `{"type":"x"}`,
		`{"message":"no member"}`:               `{"message":"no member"}`,
	} {
		if got := string(ErrorMember([]byte(in))); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}

// FuzzCutter: whatever the bytes, the cutter never panics, passes them
// alike whole and split in two, and passes them byte for byte when it cut
// nothing; its name stays within MaxNameBytes.
func FuzzCutter(f *testing.F) {
	f.Add([]byte(`data: {"a":"x\\\"y","error" : {"m":"\"}{"},"b":1}`), 20)
	f.Add([]byte(`{"\u0065rror":{"m":1}}`), 3)
	f.Add([]byte(`[{"error":{}}]`), 5)
	f.Fuzz(func(t *testing.T, in []byte, split int) {
		if split < 0 || split > len(in) {
			split = len(in) / 2
		}
		var whole, parts Cutter
		nw, np := 0, 0
		a := cutEnd(&whole, cutPass(&whole, nil, in, &nw), &nw)
		b := cutPass(&parts, nil, in[:split], &np)
		if len(parts.Name) > MaxNameBytes {
			t.Fatalf("name of %d bytes", len(parts.Name))
		}
		b = cutEnd(&parts, cutPass(&parts, b, in[split:], &np), &np)
		if string(a) != string(b) || nw != np {
			t.Fatalf("whole %q (%d cut), split at %d %q (%d cut)", a, nw, split, b, np)
		}
		if nw == 0 && string(a) != string(in) {
			t.Fatalf("nothing cut, but %q became %q", in, a)
		}
	})
}
