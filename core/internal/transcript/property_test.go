package transcript

import (
	"github.com/toolerr/toolerr/core/internal/format/dialect"
	"math/rand"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// genTranscript builds a neutral transcript of a few call turns (ids left
// out for some Gemini ones, some turns reusing the ids of the first, a few
// calls repeating the id of the call before them in their turn), then
// breaks it: results dropped,
// duplicated into other messages and moved or reordered at random.
func genTranscript(r *rand.Rand, f Format) []Message {
	msgs := []Message{{Role: RoleUser, Parts: []Part{{Kind: KindText, Text: "start"}}}}
	turns := 1 + r.Intn(4)
	for t := 0; t < turns; t++ {
		n := 1 + r.Intn(3)
		asst := Message{Role: RoleAssistant}
		if r.Intn(2) == 0 {
			asst.Parts = append(asst.Parts, Part{Kind: KindText, Text: "calling"})
		}
		res := Message{Role: RoleTool}
		noIDs := f == Gemini && r.Intn(2) == 0
		reuse := r.Intn(3) == 0 // ids of the first turn again: ids pair within their turn
		for k := 0; k < n; k++ {
			id := "call_" + strconv.Itoa(t) + "_" + strconv.Itoa(k)
			switch {
			case noIDs:
				id = ""
			case k > 0 && r.Intn(6) == 0: // the id of the call before, in the same turn
				id = "call_" + strconv.Itoa(t) + "_" + strconv.Itoa(k-1)
			case reuse:
				id = "call_0_" + strconv.Itoa(k)
			}
			name := "tool_" + strconv.Itoa(r.Intn(3))
			asst.Parts = append(asst.Parts, Part{Kind: KindCall, Call: Call{ID: id, Name: name, Args: map[string]any{"k": float64(k)}}})
			o := outcome.Outcome{Call: outcome.Call{ID: id, Name: name}, Result: &outcome.Result{Kind: outcome.Text, Text: "r" + strconv.Itoa(k)}}
			res.Parts = append(res.Parts, Part{Kind: KindResult, Result: Result{Outcome: o}})
		}
		msgs = append(msgs, asst)
		if f == OpenAIChat || f == OpenAIResponses {
			for _, p := range res.Parts {
				msgs = append(msgs, Message{Role: RoleTool, Parts: []Part{p}})
			}
		} else {
			res.Role = RoleUser
			msgs = append(msgs, res)
		}
		if r.Intn(2) == 0 {
			msgs = append(msgs, Message{Role: RoleUser, Parts: []Part{{Kind: KindText, Text: "more " + strconv.Itoa(t)}}})
		}
	}
	// break it
	var results []loc
	for i, m := range msgs {
		for j, p := range m.Parts {
			if p.Kind == KindResult {
				results = append(results, loc{i, j})
			}
		}
	}
	for _, l := range results {
		p := msgs[l.msg].Parts[l.part]
		switch r.Intn(6) {
		case 0: // dropped
			msgs[l.msg].Parts[l.part].Kind = KindOther
		case 1: // duplicated elsewhere
			to := r.Intn(len(msgs))
			msgs[to].Parts = append(msgs[to].Parts, p)
		case 2: // moved to another message
			msgs[l.msg].Parts[l.part].Kind = KindOther
			to := r.Intn(len(msgs))
			msgs[to].Parts = append([]Part{p}, msgs[to].Parts...)
		}
	}
	for i := range msgs {
		parts := msgs[i].Parts[:0]
		for _, p := range msgs[i].Parts {
			if p.Kind != KindOther {
				parts = append(parts, p)
			}
		}
		msgs[i].Parts = parts
		if r.Intn(4) == 0 && len(parts) > 1 { // reordered
			a, b := r.Intn(len(parts)), r.Intn(len(parts))
			parts[a], parts[b] = parts[b], parts[a]
		}
	}
	return msgs
}

// TestRepair_property: for random broken transcripts of every format, repair
// then check finds nothing, and a second repair changes nothing.
func TestRepair_property(t *testing.T) {
	for _, f := range Formats() {
		for _, model := range modelsOf(f) {
			repairProperty(t, f, Options{Model: model})
		}
	}
}

// modelsOf lists the models whose rules differ for f ("" = the default).
func modelsOf(f Format) []string {
	if f == Gemini {
		return []string{"", "gemini-3-pro-preview"}
	}
	return []string{""}
}

// repairProperty runs the property on 400 random transcripts of f.
func repairProperty(t *testing.T, f Format, opts Options) {
	r := rand.New(rand.NewSource(int64(len(f)) * 7919))
	broken := 0
	for i := 0; i < 400; i++ {
		w := &dialect.Writer{D: dialectOf(f)}
		list := w.List(genTranscript(r, f))
		msgs, err := Read(f, list)
		require.NoError(t, err)
		if len(Check(f, msgs, opts)) > 0 {
			broken++
		}
		fixed, _ := Repair(f, msgs, opts)
		out := Write(f, fixed)
		again, err := Read(f, out)
		require.NoError(t, err)
		require.Empty(t, Check(f, again, opts), "%s case %d\nin:  %s\nout: %s", f, i, text(t, list), text(t, out))
		second, ch := Repair(f, again, opts)
		require.Equal(t, text(t, out), text(t, Write(f, second)), "%s case %d: repair is idempotent", f, i)
		require.Equal(t, Changes{IDs: []string{}}, ch)
	}
	require.Greater(t, broken, 300, "%s %s: most generated transcripts are broken", f, opts.Model)
}
