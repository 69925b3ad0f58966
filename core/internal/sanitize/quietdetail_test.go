package sanitize

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzQuietDetail_sound: a string QuietDetail accepts is one Details keeps
// as it is: a value detailString returns unchanged, a member name
// detailKey returns unchanged that names no secret, and a details object of
// them is clean (the serialize op's fast path copies such details as text).
func FuzzQuietDetail_sound(f *testing.F) {
	for _, s := range fastPathCorpus(f, 0) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if QuietDetail(s, false) {
			require.Equal(t, s, guard(s, detailString), "detailString(%q)", s)
			require.True(t, DetailsClean(map[string]any{"v": s, "a": []any{s}}), "details of %q", s)
		}
		if QuietDetail(s, true) {
			require.Equal(t, s, detailKey(s), "detailKey(%q)", s)
			require.False(t, secretName(s), "secretName(%q)", s)
			require.True(t, DetailsClean(map[string]any{s: map[string]any{s: "x"}}), "details named %q", s)
		}
	})
}
