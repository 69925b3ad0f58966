package canonical

import (
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse_numbersMatchParseFloat(t *testing.T) {
	for _, in := range []string{
		"0", "-0", "1", "-1", "7", "1023", "1024", "-1023", "429", "10000",
		"123456789012345", "999999999999999", "-999999999999999",
		"1234567890123456", "9007199254740993", "12345678901234567890",
		"1.5", "-0.0", "1e3", "1E+2", "0.000001", "1e308", "123456789012345.5",
	} {
		v, err := Parse([]byte(in))
		require.NoError(t, err, in)
		want, err := strconv.ParseFloat(in, 64)
		require.NoError(t, err, in)
		f, ok := v.(float64)
		require.True(t, ok, in)
		assert.Equal(t, math.Float64bits(want), math.Float64bits(f), in)
	}
}

func TestParse_badNumbers(t *testing.T) {
	for in, offset := range map[string]int64{
		"01": 1, "-": 1, "-a": 1, "00": 1, "1.": 2, "1e": 2, "[1,-]": 4, "1x": 1,
	} {
		_, err := Parse([]byte(in))
		var se *SyntaxError
		require.ErrorAs(t, err, &se, in)
		assert.Equal(t, offset, se.Offset, in)
	}
}

func TestParse_strings(t *testing.T) {
	for in, want := range map[string]string{
		`"plain"`:             "plain",
		`"caf\u00e9"`:         "caf\u00e9",
		"\"caf\u00e9\"":       "caf\u00e9",
		"\"a\xffb\"":          "a\uFFFDb",
		"\"\xc3\xa9\\n\xff\"": "\u00e9\n\uFFFD",
		`"\ud83d\ude00 x"`:    "\U0001F600 x",
		`"\ud800x"`:           "\uFFFDx",
		"\"\xed\xa0\x80\"":    "\uFFFD\uFFFD\uFFFD",
		`"tab\tq\"b\\s\/"`:    "tab\tq\"b\\s/",
	} {
		v, err := Parse([]byte(in))
		require.NoError(t, err, in)
		assert.Equal(t, want, v, in)
	}
}

func TestParse_duplicateKeys(t *testing.T) {
	for in, offset := range map[string]int64{
		`{"a":1,"a":2}`: 7,
		`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"b":0}`: 55,
		`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"i":0}`: 55,
		`{"a":1,"a":}`: 7,
	} {
		_, err := Parse([]byte(in))
		var se *SyntaxError
		require.ErrorAs(t, err, &se, in)
		assert.Equal(t, offset, se.Offset, in)
		assert.Contains(t, se.Msg, "duplicate object key", in)
	}
}
