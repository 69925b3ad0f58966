package canonical

import (
	"fmt"
	"math"
	"testing"
)

func TestAppendFloat_es6(t *testing.T) {
	// Expected strings from RFC 8785 Appendix B and ECMAScript Number::toString.
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0"},
		{math.Copysign(0, -1), "0"},
		{1, "1"},
		{-1, "-1"},
		{1.5, "1.5"},
		{0.1, "0.1"},
		{1e21, "1e+21"},
		{1e20, "100000000000000000000"},
		{123456789012345680000, "123456789012345680000"},
		{1e-6, "0.000001"},
		{1e-7, "1e-7"},
		{4.5, "4.5"},
		{2e-3, "0.002"},
		{0.000001234, "0.000001234"},
		{1.234e-7, "1.234e-7"},
		{math.MaxFloat64, "1.7976931348623157e+308"},
		{5e-324, "5e-324"},
		{9007199254740992, "9007199254740992"},
		{9007199254740993, "9007199254740992"},
		{9223372036854775807, "9223372036854776000"},
		{333333333.3333333, "333333333.3333333"},
		{1e23, "1e+23"},
	}
	for _, tc := range tests {
		got, err := AppendFloat(nil, tc.in)
		if err != nil || string(got) != tc.want {
			t.Errorf("AppendFloat(%v) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := AppendFloat(nil, bad); err == nil {
			t.Errorf("AppendFloat(%v) gave no error", bad)
		}
	}
}

func TestCanonicalize_rfc8785(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"sorted keys and no white space", `{ "b": 1, "a" : [true, false, null] }`, `{"a":[true,false,null],"b":1}`},
		{"utf16 key order puts astral before private use", `{"\ue000":1,"\ud83d\ude00":2,"a":3}`, "{\"a\":3,\"\U0001F600\":2,\"\ue000\":1}"},
		{"escapes use the short forms", `"\u0008\u0009\u000a\u000c\u000d\u001f\u0022\u005c\/"`, `"\b\t\n\f\r\u001f\"\\/"`},
		{"non-ascii is literal", `"\u6771\u4eac na\u00efve \u2028"`, "\"東京 naïve \u2028\""},
		{"lone surrogate becomes U+FFFD", `"a\ud800b"`, "\"a\uFFFDb\""},
		{"numbers are shortest doubles", `[1.0, 1e2, -0, 0.10, 1E-7, 12345678901234567890]`, `[1,100,0,0.1,1e-7,12345678901234567000]`},
		{"html characters are not escaped", `"<a>&"`, `"<a>&"`},
		{"nested", `{"z":{"y":[{"b":1,"a":2}]}}`, `{"z":{"y":[{"a":2,"b":1}]}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Canonicalize([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got %s want %s", got, tc.want)
			}
		})
	}
}

func TestParse_invalidUTF8Replaced(t *testing.T) {
	got, err := Canonicalize([]byte("\"a\xffb\xc3\""))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "\"a\uFFFDb\uFFFD\"" {
		t.Errorf("got %q", got)
	}
	if s := string(AppendString(nil, "x\xfey")); s != "\"x\uFFFDy\"" {
		t.Errorf("AppendString got %q", s)
	}
}

func TestParse_errors(t *testing.T) {
	tests := []struct {
		in     string
		offset int64
	}{
		{``, 0},
		{`{"a":1,"a":2}`, 7},
		{`[1,]`, 3},
		{`{"a" 1}`, 5},
		{`01`, 1},
		{`1e999`, 0},
		{`"abc`, 4},
		{`[1] x`, 4},
		{"\"a\x01\"", 2},
		{`tru`, 0},
	}
	for _, tc := range tests {
		_, err := Parse([]byte(tc.in))
		se, ok := err.(*SyntaxError)
		if !ok {
			t.Errorf("Parse(%q) err = %v, want *SyntaxError", tc.in, err)
			continue
		}
		if se.Offset != tc.offset {
			t.Errorf("Parse(%q) offset = %d want %d (%v)", tc.in, se.Offset, tc.offset, se)
		}
	}
}

func TestParse_depthLimit(t *testing.T) {
	deep := make([]byte, 0, 2*MaxDepth+2)
	for i := 0; i < MaxDepth+1; i++ {
		deep = append(deep, '[')
	}
	for i := 0; i < MaxDepth+1; i++ {
		deep = append(deep, ']')
	}
	if _, err := Parse(deep); err == nil {
		t.Fatal("no error for nesting beyond MaxDepth")
	}
	if _, err := Parse(deep[1 : len(deep)-1]); err != nil {
		t.Fatalf("MaxDepth nesting refused: %v", err)
	}
}

func TestLessUTF16(t *testing.T) {
	if !LessUTF16("a", "ab") || LessUTF16("ab", "a") || LessUTF16("a", "a") {
		t.Fatal("prefix order wrong")
	}
	if !LessUTF16("\U0001F600", "\uE000") {
		t.Fatal("astral character must sort before U+E000 in UTF-16 order")
	}
}

func TestAppend_keyOrderSmallAndLarge(t *testing.T) {
	small := map[string]any{"b": 1.0, "a": 2.0, "\U0001F600": 3.0, "\ue000": 4.0, "ab": 5.0}
	got, err := Marshal(small)
	if err != nil || string(got) != "{\"a\":2,\"ab\":5,\"b\":1,\"\U0001F600\":3,\"\ue000\":4}" {
		t.Fatalf("small object: %s %v", got, err)
	}
	large := map[string]any{}
	for i := 0; i < 40; i++ {
		large[string(rune('z'-i%26))+string(rune('a'+i))] = float64(i)
	}
	got, err = Marshal(large)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := Parse(got)
	again, _ := Marshal(v)
	if string(again) != string(got) {
		t.Fatal("large object order not stable")
	}
	keys := SortedKeys(large)
	for i := 1; i < len(keys); i++ {
		if !LessUTF16(keys[i-1], keys[i]) {
			t.Fatalf("keys out of order at %d: %q %q", i, keys[i-1], keys[i])
		}
	}
}

func BenchmarkMarshal_envelopeDetails(b *testing.B) {
	d := map[string]any{"status": 429.0, "retry_after_seconds": 12.0, "tool": "get_weather", "attempt": 3.0}
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf, _ = Append(buf[:0], d)
	}
}

// A byte of 0x80 or more where a value or an escape must start is named by
// its hex value, never decoded as Latin-1 ('ï' for 0xEF), and a UTF-8
// byte-order mark as one; an ASCII character keeps its quoted form. The
// same on Parse, on a Scanner and on a Scanner sharing strings.
func TestParse_errorsNameTheByte(t *testing.T) {
	tests := []struct{ in, msg string }{
		{"\xEF\xBB\xBF[]", "invalid byte 0xEF (a UTF-8 byte-order mark, U+FEFF) looking for a value"},
		{"[\xEF\xBB\xBF1]", "invalid byte 0xEF (a UTF-8 byte-order mark, U+FEFF) looking for a value"},
		{"\xEF\xBB[]", "invalid byte 0xEF looking for a value"},
		{"\xC3\xA9", "invalid byte 0xC3 looking for a value"},
		{"\x80", "invalid byte 0x80 looking for a value"},
		{"\xFF", "invalid byte 0xFF looking for a value"},
		{"x", "invalid character 'x' looking for a value"},
		{"\x00", `invalid character '\x00' looking for a value`},
		{"[\"a\\\xC3\xA9\"]", "invalid escape byte 0xC3"},
		{"[\"\\\xEF\xBB\xBF\"]", "invalid escape byte 0xEF (a UTF-8 byte-order mark, U+FEFF)"},
		{`["a\x"]`, "invalid escape character 'x'"},
	}
	for _, tc := range tests {
		_, err := Parse([]byte(tc.in))
		shared := NewScanner(tc.in)
		shared.ShareStrings()
		_, sharedErr := shared.Value(4)
		_, scanErr := NewScanner(tc.in).Value(4)
		for name, err := range map[string]error{"Parse": err, "Scanner": scanErr, "shared Scanner": sharedErr} {
			se, ok := err.(*SyntaxError)
			if !ok || se.Msg != tc.msg {
				t.Errorf("%s(%q) err = %v, want a SyntaxError %q", name, tc.in, err, tc.msg)
			}
		}
	}
	for c := 0x80; c <= 0xFF; c++ {
		_, err := Parse([]byte{byte(c)})
		want := fmt.Sprintf("invalid byte 0x%02X looking for a value", c)
		if se, ok := err.(*SyntaxError); !ok || se.Msg != want {
			t.Errorf("Parse(0x%02X) err = %v, want %q", c, err, want)
		}
	}
}
