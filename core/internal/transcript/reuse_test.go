package transcript

import (
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// turnList writes, in format f, one call turn per entry of turns: an
// assistant message with a call of each id, then the results of those ids
// in order ("r<turn><k>"), where f puts results.
func turnList(t *testing.T, f Format, turns [][]string) []Message {
	t.Helper()
	msgs := []Message{{Role: RoleUser, Parts: []Part{{Kind: KindText, Text: "q"}}}}
	for n, ids := range turns {
		asst := Message{Role: RoleAssistant}
		var res []Part
		for k, id := range ids {
			text := "r" + string(rune('0'+n)) + string(rune('0'+k))
			asst.Parts = append(asst.Parts, Part{Kind: KindCall, Call: Call{ID: id, Name: "f", Args: map[string]any{"n": float64(n)}}})
			res = append(res, Part{Kind: KindResult, Result: Result{Outcome: outcome.Outcome{Call: outcome.Call{ID: id, Name: "f"}, Result: &outcome.Result{Kind: outcome.Text, Text: text}}}})
		}
		msgs = append(msgs, asst, Message{Role: RoleTool, Parts: res})
	}
	if d := dialectOf(f); d.Placement == dialect.NextUserFirst {
		msgs = joinUserSide(msgs, nil)
	}
	w := &dialect.Writer{D: dialectOf(f)}
	out, err := Read(f, w.List(msgs))
	require.NoError(t, err)
	return out
}

// TestRepair_reusedIDsPairWithinTheirTurn: an id used again in a later
// turn, each use answered in its own turn, is a valid history in every
// format: check finds nothing and repair keeps both results (it used to
// drop the second as a duplicate, leaving that call unanswered).
func TestRepair_reusedIDsPairWithinTheirTurn(t *testing.T) {
	for _, f := range Formats() {
		t.Run(string(f), func(t *testing.T) {
			msgs := turnList(t, f, [][]string{{"toolu_1"}, {"toolu_1"}})
			assert.Empty(t, Check(f, msgs, Options{}))
			out, ch := Repair(f, msgs, Options{})
			assert.Equal(t, Changes{IDs: []string{}}, ch)
			assert.Equal(t, text(t, Write(f, msgs)), text(t, Write(f, out)))
		})
	}
}

// TestRepair_duplicateIDInOneTurnIsRenamed: two calls of one turn with one
// id are a duplicate_call_id; repair gives the second a new id, and the
// second result with it (results pair in order), with the id map, instead
// of dropping the second result.
func TestRepair_duplicateIDInOneTurnIsRenamed(t *testing.T) {
	for _, f := range Formats() {
		t.Run(string(f), func(t *testing.T) {
			msgs := turnList(t, f, [][]string{{"toolu_1", "toolu_1"}})
			fs := Check(f, msgs, Options{})
			require.Len(t, fs, 1)
			assert.Equal(t, FindDuplicateCallID, fs[0].Kind)
			out, ch := Repair(f, msgs, Options{})
			assert.Equal(t, 1, ch.Renamed)
			require.Len(t, ch.IDMap, 1)
			var renamed string
			for n, o := range ch.IDMap {
				renamed = n
				assert.Equal(t, "toolu_1", o)
			}
			assert.True(t, dialectOf(f).IDs.Valid(renamed), renamed)
			again, err := Read(f, Write(f, out))
			require.NoError(t, err)
			assert.Empty(t, Check(f, again, Options{}))
			assert.Equal(t, []string{"call f {\"n\":0}", "call f {\"n\":0}", "result failed=no r00", "result failed=no r01"}, sorted(summary(again, nil)))
			ids := map[string]string{} // result text -> the id it answers
			for _, m := range again {
				for _, p := range m.Parts {
					if p.Kind == KindResult {
						ids[dialect.ResultText(p.Result.Outcome)] = p.Result.ID()
					}
				}
			}
			assert.Equal(t, map[string]string{"r00": "toolu_1", "r01": renamed}, ids)
		})
	}
}

// sorted returns a sorted copy of ss.
func sorted(ss []string) []string {
	out := append([]string(nil), ss...)
	sort.Strings(out)
	return out
}
