package dialect

import (
	"testing"

	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// fillArena hands out n parts (one message each), their Raw texts, a
// result and an envelope per part, and a list of the messages, as a Scan
// and ScanList would.
func fillArena(a *Parts, n int) {
	msgs := a.Messages(4)
	for i := range n {
		b := append(a.Buf(16), `{"role":"tool"}`...)
		raw := a.Text(b, 0)
		r := a.Result(outcome.Result{Kind: outcome.Text, Text: "ok"})
		e := a.Envelope(envelope.Envelope{Code: "TIMEOUT", Message: "late"})
		ps := append(a.Spare(), Part{Kind: KindResult, Raw: raw, Result: Result{Outcome: outcome.Outcome{Result: r, Error: e}}})
		msgs = append(msgs, Message{Role: RoleTool, Parts: a.Keep(ps...), Raw: raw})
		if string(*raw) != `{"role":"tool"}` || len(msgs[i].Parts) != 1 {
			panic(i)
		}
	}
	a.KeepMessages(msgs)
}

// TestParts_releaseClearsAndSizesTheRoom: a released arena's room holds
// nothing the list pointed to (so it keeps no request alive and no later
// list reads an earlier one's values), and its blocks grow to what the list
// took, within the room's bounds.
func TestParts_releaseClearsAndSizesTheRoom(t *testing.T) {
	a := NewParts()
	r := a.room
	fillArena(a, 40)
	a.Release()
	if a.room != nil || a.block != nil {
		t.Fatal("a released arena keeps its room")
	}
	if len(r.parts) != 40+spareParts || len(r.texts) < 40 || len(r.results) < 40 || len(r.errors) < 40 || cap(r.msgs) < 40 || cap(r.text) < textBlock {
		t.Fatalf("room not sized to the list: %d parts, %d texts, %d results, %d envelopes, %d messages, %d text bytes",
			len(r.parts), len(r.texts), len(r.results), len(r.errors), cap(r.msgs), cap(r.text))
	}
	for i := range r.parts {
		if r.parts[i].Raw != nil || r.parts[i].Result.Outcome.Result != nil || r.parts[i].Kind != 0 {
			t.Fatalf("part %d kept after Release: %+v", i, r.parts[i])
		}
	}
	for i, m := range r.msgs[:cap(r.msgs)] {
		if m.Parts != nil || m.Raw != nil || m.Role != "" {
			t.Fatalf("message %d kept after Release: %+v", i, m)
		}
	}
	for i := range r.texts {
		if r.texts[i] != nil {
			t.Fatalf("text %d kept after Release", i)
		}
	}
	for i := range r.results {
		if r.results[i].Text != "" {
			t.Fatalf("result %d kept after Release", i)
		}
	}
	for i := range r.errors {
		if r.errors[i].Code != "" {
			t.Fatalf("envelope %d kept after Release", i)
		}
	}
	a.Release() // a second Release changes nothing
	if len(r.parts) != 40+spareParts {
		t.Fatal("a second Release changed the room")
	}

	// an arena on that room hands out its blocks first: a list as long
	// allocates none of its parts
	b := &Parts{block: r.parts, free: r.text[:0], texts: r.texts, results: r.results, errors: r.errors, room: r}
	first := &r.parts[0]
	if allocs := testing.AllocsPerRun(1, func() {
		b.block, b.texts, b.results, b.errors = r.parts, r.texts, r.results, r.errors
		fillArena(b, 40)
	}); allocs != 0 {
		t.Errorf("a list as long as the room's allocates %v times", allocs)
	}
	if len(r.msgs) != 0 || &r.msgs[:1][0].Parts[0] != first {
		t.Error("the list's messages and parts are not the room's")
	}

	// a list past the bounds leaves the room as it was
	c := NewParts()
	big := c.room
	before := len(big.parts)
	fillArena(c, roomParts+1)
	c.Release()
	if len(big.parts) != before && len(big.parts) > roomParts {
		t.Fatalf("the room grew to %d parts, past its bound %d", len(big.parts), roomParts)
	}
}

// TestParts_zeroAndNil: the zero Parts (ScanList's own arena for a caller
// that keeps its messages) works without a room, and Release leaves it be.
func TestParts_zeroAndNil(t *testing.T) {
	var a Parts
	fillArena(&a, 3)
	a.Release()
	if a.nParts != 3 {
		t.Fatal("Release changed an arena without a room")
	}
	if ms := a.Messages(2); cap(ms) < 2 || len(ms) != 0 {
		t.Fatal("Messages without a room")
	}
}
