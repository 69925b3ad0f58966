package core

import (
	"bytes"
	"testing"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/decide"
)

// FuzzStep_aheadSameAsLater: whatever the step request, Invoke answers it
// with a result or an INVALID_INPUT naming the member (details.path; a
// bound's details.bound), never INTERNAL; and every answer it decided ahead
// (on_success, on_swapped, on_slept, chained ones included) is, byte for
// byte, the answer of the step it stands for sent later: the clock moved by
// shift ms (backwards too, and past any deadline or hold), the replica at
// {0, if_loaded}, the event the action expects (docs/resilience.md, "The
// step op"); and every start answer that stands ("stands") is the answer of
// the same request sent shift ms later with other arguments. Seeded with
// every step fixture's request.
func FuzzStep_aheadSameAsLater(f *testing.F) {
	for i, tc := range fixtureTests(f, "step") {
		f.Add([]byte(tc.Request), []int64{0, 1, -1, 30_000, 86_400_000, -86_400_000, 1 << 53}[i%7])
	}
	f.Fuzz(func(t *testing.T, req []byte, shift int64) {
		aheadSameAsLater(t, req, shift, 0)
	})
}

// aheadSameAsLater checks Invoke's answer to req as FuzzStep_aheadSameAsLater
// says, then each answer it decided ahead against its step sent shift ms
// later, and that step's own answers in turn (depth: the chain so far).
func aheadSameAsLater(t *testing.T, req []byte, shift int64, depth int) {
	t.Helper()
	out := Invoke(req)
	var op string
	if want := invokeTree(string(req), &op); !bytes.Equal(out, want) {
		t.Fatalf("request %.400q\nfast path: %.400s\ngeneral:   %.400s", req, out, want)
	}
	v, err := canonical.Parse(out)
	if err != nil {
		t.Fatalf("the response is not JSON: %v\n%.400s", err, out)
	}
	resp := v.(map[string]any)
	if e, isErr := resp["error"].(map[string]any); isErr {
		d, _ := e["details"].(map[string]any)
		_, path := d["path"].(string)
		_, bound := d["bound"].(string)
		if e["code"] != "INVALID_INPUT" || !path && !bound {
			t.Fatalf("request %.400q\nanswered %.600s: want INVALID_INPUT with details.path", req, out)
		}
		return
	}
	if depth > 0 && op != "step" {
		t.Fatalf("a later step's request is not a step: %.400s", req)
	}
	if op != "step" {
		return
	}
	r, _ := resp["ok"].(map[string]any)
	if _, ok := r["stands"]; ok {
		standsSameAsLater(t, req, out, shift)
	}
	action, _ := r["action"].(map[string]any)
	var member string
	var event map[string]any
	switch action["kind"] {
	case "call":
		member, event = "on_success", map[string]any{"kind": "success"}
	case "cas":
		member, event = "on_swapped", map[string]any{"kind": "cas", "swapped": true}
	case "sleep":
		member, event = "on_slept", map[string]any{"kind": "slept"}
	}
	for _, m := range []string{"on_success", "on_swapped", "on_slept"} {
		if _, ok := r[m]; ok && m != member {
			t.Fatalf("a %v action came with %s: %.600s", action["kind"], m, out)
		}
	}
	ahead, ok := r[member].(map[string]any)
	if !ok {
		return
	}
	if depth > 4 {
		t.Fatalf("a chain of answers decided ahead deeper than four: %.600s", out)
	}
	ifLoaded, ok := ahead["if_loaded"]
	if !ok {
		t.Fatalf("an answer decided ahead without if_loaded: %.600s", out)
	}
	if member == "on_swapped" && ifLoaded != action["old"] {
		t.Fatalf("on_swapped holds for %v, not the cas's old %v", ifLoaded, action["old"])
	}
	delete(ahead, "if_loaded")
	want, err := canonical.Marshal(ahead)
	if err != nil {
		t.Fatal(err)
	}
	// The step it stands for: req with the state, budget and replica this
	// answer left, the expected event, and the clock moved.
	pv, err := canonical.ParseRequest(req)
	if err != nil {
		t.Fatalf("a request answered ok does not parse: %v", err)
	}
	next := pv.(map[string]any)
	next["state"] = r["state"]
	next["replica"] = map[string]any{"down_until_ms": int64(0), "state": ifLoaded}
	if member != "on_swapped" {
		event["loaded"] = map[string]any{"kind": "loaded", "value": ifLoaded}
	}
	next["event"] = event
	if b, ok := r["budget"]; ok {
		budget := next["budget"].(map[string]any)
		budget["state"] = b
	}
	now, _ := next["now_ms"].(float64)
	next["now_ms"] = min(max(int64(now)+shift, 0), decide.MaxNowMs)
	nreq, err := canonical.Marshal(next)
	if err != nil {
		t.Fatal(err)
	}
	got := Invoke(nreq)
	if !bytes.HasPrefix(got, []byte(okPrefix)) || !bytes.Equal(got[len(okPrefix):len(got)-1], want) {
		t.Fatalf("request %.600s\ndecided ahead (%s): %.800s\nits step %d ms later: %.600s\nanswered: %.800s", req, member, want, shift, nreq, got)
	}
	aheadSameAsLater(t, nreq, shift, depth+1)
}

// standsSameAsLater checks that out, Invoke's answer to req, which stands,
// is the answer to req sent shift ms later and with other arguments (none,
// a JSON object, a string), byte for byte, and that it stands for the load
// made ahead and the replica req carries.
func standsSameAsLater(t *testing.T, req, out []byte, shift int64) {
	t.Helper()
	pv, err := canonical.ParseRequest(req)
	if err != nil {
		t.Fatalf("a request answered ok does not parse: %v", err)
	}
	m := pv.(map[string]any)
	ev, _ := m["event"].(map[string]any)
	loaded, _ := ev["loaded"].(map[string]any)
	rep, _ := m["replica"].(map[string]any)
	v, _ := canonical.Parse(out)
	stands, _ := v.(map[string]any)["ok"].(map[string]any)["stands"].(map[string]any)
	if loaded["kind"] != "loaded" || loaded["value"] != stands["if_loaded"] || rep != nil && rep["state"] != stands["if_loaded"] {
		t.Fatalf("request %.600s\nstands for %v, not its load made ahead and replica", req, stands["if_loaded"])
	}
	now, _ := m["now_ms"].(float64)
	for i, args := range []any{nil, map[string]any{"q": "other"}, "x"} {
		if args == nil {
			delete(ev, "args")
		} else {
			ev["args"] = args
		}
		m["now_ms"] = min(max(int64(now)+shift*int64(i+1), 0), decide.MaxNowMs)
		nreq, err := canonical.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if got := Invoke(nreq); !bytes.Equal(got, out) {
			t.Fatalf("request %.600s\nstands: %.800s\nthe same start later, other args: %.600s\nanswered: %.800s", req, out, nreq, got)
		}
	}
}
