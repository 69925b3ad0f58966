package transcript

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEngineRoom_releaseClears: a released room holds nothing of the list
// its conversion read (so it keeps no request alive and no later list
// reads an earlier one's turns), and keeps its arrays for the next list.
func TestEngineRoom_releaseClears(t *testing.T) {
	msgs := turnList(t, OpenAIChat, [][]string{{"call_1", "call_2"}, {"call_3"}})
	r := &engineRoom{}
	rg := regroup(dialectOf(OpenAIChat), msgs, dialectOf(Anthropic), false, idRule(dialectOf(Anthropic), ""), "", r)
	joined := joinUserSide(rg.turns, r)
	require.NotEmpty(t, joined)
	w := r.writer(dialectOf(Anthropic))
	_, err := w.AppendList(nil, joined)
	require.NoError(t, err)
	require.NotNil(t, r.a.msgs)
	require.NotZero(t, cap(r.turns))
	require.NotZero(t, cap(r.parts))
	require.NotZero(t, cap(r.joined))
	require.NotZero(t, len(r.res))
	r.release()
	assert.Nil(t, r.w.D)
	assert.Nil(t, r.w.System) // the rest of Reset: TestWriter_resetKeepsOnlyTheArgumentsSpace
	assert.Nil(t, r.a.msgs)
	assert.Nil(t, r.a.groups)
	requireCleared(t, r)
	var nilRoom *engineRoom
	nilRoom.release() // no room: nothing to do

	// a long list, then a short one in the same room: release clears what
	// each wrote, so the arrays are zero after both
	var long [][]string
	for k := range 100 {
		long = append(long, []string{"call_" + strconv.Itoa(k)})
	}
	for _, turns := range [][][]string{long, {{"call_x"}}} {
		r.nTurns, r.nParts, r.nJoined = -1, -1, -1 // as takeEngineRoom
		rg := regroup(dialectOf(OpenAIChat), turnList(t, OpenAIChat, turns), dialectOf(Anthropic), false, idRule(dialectOf(Anthropic), ""), "", r)
		joinUserSide(rg.turns, r)
		require.Equal(t, len(rg.turns), r.nTurns)
		r.release()
		requireCleared(t, r)
	}
}

// requireCleared fails unless every element of r's arrays of turns,
// parts, joined messages and result places is zero.
func requireCleared(t *testing.T, r *engineRoom) {
	t.Helper()
	for i, m := range r.turns[:cap(r.turns)] {
		require.Zero(t, m, "turn %d kept", i)
	}
	for i, p := range r.parts[:cap(r.parts)] {
		require.Zero(t, p, "part %d kept", i)
	}
	for i, m := range r.joined[:cap(r.joined)] {
		require.Zero(t, m, "joined message %d kept", i)
	}
	for i, info := range r.res {
		require.Zero(t, info, "result place %d kept", i)
	}
}

// TestConvert_encodedInRoomsAnswersAlike: a conversion with Encoded works
// in a room from engineRooms; lists of other lengths and shapes converted
// one after another, each after the others, give the bytes a conversion
// that hands its turns out writes, and a room keeps no more than roomMost
// elements of a kind from a longer list.
func TestConvert_encodedInRoomsAnswersAlike(t *testing.T) {
	var lists [][]Message
	for n := 1; n <= 6; n++ {
		var turns [][]string
		for k := range n {
			ids := []string{"call_" + strconv.Itoa(n) + "_" + strconv.Itoa(k)}
			if k%2 == 1 {
				ids = append(ids, ids[0]+"b") // a parallel pair
			}
			turns = append(turns, ids)
		}
		lists = append(lists, turnList(t, OpenAIChat, turns))
	}
	for _, to := range []Format{Anthropic, Gemini, Bedrock, OpenAIResponses} {
		var want []string
		for _, msgs := range lists {
			want = append(want, text(t, Convert(OpenAIChat, to, clone(msgs), Options{}).Messages))
		}
		for round := range 3 {
			for i := range lists {
				j := (i*5 + round) % len(lists) // each list after others
				c := Convert(OpenAIChat, to, clone(lists[j]), Options{Encoded: true, Into: []byte{}})
				require.NotNil(t, c.List, "%s list %d", to, j)
				assert.JSONEq(t, want[j], string(c.List), "%s list %d, round %d", to, j, round)
			}
		}
	}
	r := &engineRoom{}
	var long [][]string
	for k := range roomMost {
		long = append(long, []string{"call_" + strconv.Itoa(k)})
	}
	regroup(dialectOf(OpenAIChat), turnList(t, OpenAIChat, long), dialectOf(Anthropic), false, idRule(dialectOf(Anthropic), ""), "", r)
	assert.Nil(t, r.turns, "a list of %d turns is kept", roomMost)
	assert.Nil(t, r.res)
	r.release()
}

// clone copies msgs and their parts: a conversion rewrites ids in place.
func clone(msgs []Message) []Message {
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		m.Parts = append([]Part(nil), m.Parts...)
		out[i] = m
	}
	return out
}

// TestEngineRoom_panicHalfwayCleared: a conversion that panics half-way
// through its list (Invoke recovers panics) after a shorter list in the
// same room gives back a room release clears of every turn it wrote, not
// just as many as the list before it wrote.
func TestEngineRoom_panicHalfwayCleared(t *testing.T) {
	r := takeEngineRoom()
	rg := regroup(dialectOf(OpenAIChat), turnList(t, OpenAIChat, [][]string{{"call_1"}}), dialectOf(Anthropic), false, idRule(dialectOf(Anthropic), ""), "", r)
	require.NotEmpty(t, rg.turns)
	r.release() // puts r back in engineRooms
	requireCleared(t, r)

	// 40 user messages, then a call without an id, for a target of no
	// dialect: regroup writes the 40 turns into the room's array, then
	// panics where it asks the target whether ids are optional
	var msgs []Message
	for k := range 40 {
		msgs = append(msgs, Message{Role: RoleUser, Parts: []Part{{Kind: KindText, Text: "secret " + strconv.Itoa(k)}}})
	}
	msgs = append(msgs, Message{Role: RoleAssistant, Parts: []Part{{Kind: KindCall, Call: Call{Name: "f"}}}})
	r = takeEngineRoom() // the room just released, unless the pool dropped it (-race)
	func() {
		defer func() { require.NotNil(t, recover(), "regroup did not panic") }()
		defer r.release() // as Convert's deferred release
		regroup(dialectOf(OpenAIChat), msgs, nil, false, idRule(dialectOf(Anthropic), ""), "", r)
	}()
	require.GreaterOrEqual(t, cap(r.turns), 40)
	requireCleared(t, r)
}
