package dialect

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core/internal/canonical"
)

// TestScanFunctionFields_sameAsFunctionFields checks that what
// ScanFunctionFields takes FunctionFields reads whole, without a note, to
// the same declaration, and that what it refuses FunctionFields refuses,
// notes, or reads otherwise than whole; for the schema keys of the formats
// (none, as Bedrock's spec, whose caller reads inputSchema itself).
func TestScanFunctionFields_sameAsFunctionFields(t *testing.T) {
	cases := []struct {
		key, json string
		ok        bool
		silent    bool // refused, and read by FunctionFields without a note
	}{
		{"parameters", `{"name":"get"}`, true, false},
		{"parameters", `{"name":"get","description":"d \u2028","parameters":{"type":"object","b":[1.0,2e1],"a":"x"},"strict":true}`, true, false},
		{"parameters", `{"strict":false,"parameters":null,"description":null,"name":"g"}`, true, false},
		{"input_schema", `{"name":"get","input_schema":{"type":"object"}}`, true, false},
		{"input_schema", `{"name":"get","parameters":{"type":"object"}}`, false, false},
		{"", `{"name":"get","description":"d"}`, true, false},
		{"", `{"name":"get","":{}}`, false, true},
		{"parameters", `{"name":"get","parameters":"{}"}`, false, false},
		{"parameters", `{"name":"get","strict":1}`, false, true},
		{"parameters", `{"name":"","description":"d"}`, false, true},
		{"parameters", `{"description":"d"}`, false, false},
		{"parameters", `{"name":"get","description":["d"]}`, false, false},
		{"parameters", `{"name":"get","title":"Get"}`, false, false},
		{"parameters", `["get"]`, false, false},
	}
	for _, c := range cases {
		s := canonical.NewScanner(c.json)
		var got RawTool
		text, ok := ScanFunctionFields(s, 4, c.key, []byte("x"), nil, &got)
		ok = ok && s.End()
		assert.Equal(t, c.ok, ok, c.json)
		v, err := canonical.Parse([]byte(c.json))
		require.NoError(t, err)
		m, isObject := v.(map[string]any)
		var n Notes
		var d Tool
		if err = nil; isObject {
			d, err = FunctionFields(m, "fn", c.key, "", &n)
		}
		if !ok {
			assert.True(t, !isObject || err != nil || len(n.List) > 0 || c.silent, c.json)
			continue
		}
		require.NoError(t, err, c.json)
		assert.Empty(t, n.List, c.json)
		want, err := d.Raw()
		require.NoError(t, err)
		assert.Equal(t, want, got, c.json)
		assert.Equal(t, "x"+string(want.Schema), string(text), c.json)
	}
}
