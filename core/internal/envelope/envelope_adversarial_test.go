package envelope

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/field"
)

// Two or more unknown members: the error names the same one on every call
// (the smallest), not whichever Go's map order yields first.
func TestFromValue_unknownMembersReportedDeterministically(t *testing.T) {
	v := map[string]any{"code": "X", "message": "m.", "retryable": true, "details": map[string]any{}, "source": "tool",
		"zz": 1, "b": 2, "qq": 3, "a": 4, "mm": 5, "x": 6, "c": 7}
	for i := 0; i < 50; i++ {
		_, err := FromValue(v, "error")
		var fe *field.Error
		require.True(t, errors.As(err, &fe), "%v", err)
		assert.Equal(t, "error.a", fe.Path)
	}
}
