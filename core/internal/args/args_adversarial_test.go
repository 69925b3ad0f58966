package args

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/field"
)

// Two or more unknown failure members: the error names the same one on every
// call (the smallest), not whichever Go's map order yields first.
func TestFromValue_unknownMembersReportedDeterministically(t *testing.T) {
	v := []any{map[string]any{"path": "/a", "keyword": "type", "zz": 1, "b": 2, "qq": 3, "aa": 4, "mm": 5, "x": 6}}
	for i := 0; i < 50; i++ {
		_, err := FromValue(v, "failures")
		var fe *field.Error
		require.True(t, errors.As(err, &fe), "%v", err)
		assert.Equal(t, "failures[0].aa", fe.Path)
	}
}
