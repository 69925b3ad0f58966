package core

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/classify"
)

// One-value headers share a backing array: appending to one leaves the
// others as they were.
func TestReadHeaders_valuesIndependent(t *testing.T) {
	h, err := readHeaders(map[string]any{"headers": map[string]any{
		"a": "1", "b": "2", "c": []any{"3", "4"}, "d": "5"}})
	require.NoError(t, err)
	for name := range h {
		h[name] = append(h[name], "x")
	}
	assert.Equal(t, classify.Header{"a": {"1", "x"}, "b": {"2", "x"}, "c": {"3", "4", "x"}, "d": {"5", "x"}}, h)
}
