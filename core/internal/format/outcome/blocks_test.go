package outcome

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/field"
)

func TestQuoteTail_equalsAppendString(t *testing.T) {
	for _, s := range []string{``, `{"a":"b\"c\\d"}`, `{"t":"tab\there\nnew\u0001ctl"}`, `"東京 \"q\""`, `[1,"\\\""]`} {
		t.Run(s, func(t *testing.T) {
			prefix := []byte(`{"content":`)
			dst := append(append([]byte{}, prefix...), s...)
			got := QuoteTail(dst, len(prefix))
			assert.Equal(t, string(canonical.AppendString(prefix, s)), string(got))
		})
	}
}

func TestValidBase64_cases(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"iVBORw0KGgo=", true}, {"AA==", true}, {"AAAA", true}, {"", false}, {"AAA", false},
		{"A===", false}, {"AA=A", false}, {"AA AA", false}, {"AB-_", false}, {"=AAA", false},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, ValidBase64(tc.in), "%q", tc.in)
	}
}

func TestValidToolID_cases(t *testing.T) {
	assert.True(t, ValidToolID("toolu_01A-b", 0))
	assert.False(t, ValidToolID("", 0))
	assert.False(t, ValidToolID("call:1", 0))
	assert.False(t, ValidToolID("a.b", 64))
	assert.True(t, ValidToolID("abc", 3))
	assert.False(t, ValidToolID("abcd", 3))
}

func TestReadText_kinds(t *testing.T) {
	tests := []struct {
		name, in string
		want     Result
	}{
		{"blank", " \n", Result{Kind: Empty}},
		{"placeholder", EmptyPlaceholder, Result{Kind: Empty}},
		{"canonical object", `{"a":1}`, Result{Kind: JSON, JSON: map[string]any{"a": 1.0}}},
		{"canonical array", `[1,"x"]`, Result{Kind: JSON, JSON: []any{1.0, "x"}}},
		{"non-canonical object stays text", `{ "a": 1 }`, Result{Kind: Text, Text: `{ "a": 1 }`}},
		{"number stays text", `42`, Result{Kind: Text, Text: `42`}},
		{"prose", `3 hits`, Result{Kind: Text, Text: `3 hits`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, ReadText(tc.in)) })
	}
}

func TestForeignValue_message(t *testing.T) {
	assert.Equal(t, "quota.", ForeignValue(map[string]any{"message": "quota"}).Message)
	assert.Equal(t, `[1,2].`, ForeignValue([]any{1.0, 2.0}).Message)
	assert.Equal(t, "The tool reported an error without a message.", ForeignValue(nil).Message)
	assert.Equal(t, "TOOL_ERROR", string(Foreign("x").Code))
}

func TestNonBlank_keepsSliceWhenNothingDropped(t *testing.T) {
	bs := []Block{{Type: "text", Text: "a"}, {Type: "image", MediaType: "image/png", Data: "AA=="}}
	assert.Equal(t, bs, NonBlank(bs))
	assert.Nil(t, NonBlank([]Block{{Type: "text", Text: " "}}))
	assert.Equal(t, []Block{{Type: "text", Text: "a"}}, NonBlank([]Block{{Type: "text"}, {Type: "text", Text: "a"}}))
}

// TestRead_pathsUnderParent: a serialize request nested in another one
// reports its bad members under the parent's path.
func TestRead_pathsUnderParent(t *testing.T) {
	for _, tc := range []struct {
		req  string
		path string
	}{
		{`{"results":[{"call":{"id":"a"},"result":{"text":"ok"}},{"call":{"id":7},"result":{}}]}`, "batch[2].results[1].call.id"},
		{`{"results":[]}`, "batch[2].results"},
		{`{"results":3}`, "batch[2].results"},
		{`{"call":{"id":"a","name":false},"result":{}}`, "batch[2].call.name"},
		{`{"call":{"id":"a"}}`, "batch[2]"},
	} {
		v, err := canonical.Parse([]byte(tc.req))
		require.NoError(t, err)
		_, err = Read(v.(map[string]any), "batch[2]")
		var fe *field.Error
		require.ErrorAs(t, err, &fe, tc.req)
		assert.Equal(t, tc.path, fe.Path, tc.req)
	}
}
