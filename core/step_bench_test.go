package core

import (
	"bytes"
	"testing"
)

// benchStepCall is the four step requests of one successful call as a
// runtime sends them (Python's key order), the breaker closed with its
// canonical bytes in the store and in the replica's state.
var benchStepCall = [][]byte{
	[]byte(`{"op":"step","tool":"search","state":null,"event":{"kind":"start"},"now_ms":1700000000000,"replica":{"down_until_ms":0,"state":"{\"failures\":0,\"open_until_ms\":0,\"phase\":\"closed\",\"probe_until_ms\":0,\"successes\":0}"}}`),
	[]byte(`{"op":"step","tool":"search","state":{"attempt":1,"event":"allow","phase":"breaker","tries":0},"event":{"kind":"loaded","value":"{\"failures\":0,\"open_until_ms\":0,\"phase\":\"closed\",\"probe_until_ms\":0,\"successes\":0}"},"now_ms":1700000000000,"replica":{"down_until_ms":0,"state":"{\"failures\":0,\"open_until_ms\":0,\"phase\":\"closed\",\"probe_until_ms\":0,\"successes\":0}"}}`),
	[]byte(`{"op":"step","tool":"search","state":{"attempt":1,"phase":"call"},"event":{"kind":"success"},"now_ms":1700000000000,"replica":{"down_until_ms":0,"state":"{\"failures\":0,\"open_until_ms\":0,\"phase\":\"closed\",\"probe_until_ms\":0,\"successes\":0}"}}`),
	[]byte(`{"op":"step","tool":"search","state":{"attempt":1,"event":"success","phase":"breaker","tries":0},"event":{"kind":"loaded","value":"{\"failures\":0,\"open_until_ms\":0,\"phase\":\"closed\",\"probe_until_ms\":0,\"successes\":0}"},"now_ms":1700000000000,"replica":{"down_until_ms":0,"state":"{\"failures\":0,\"open_until_ms\":0,\"phase\":\"closed\",\"probe_until_ms\":0,\"successes\":0}"}}`),
}

// BenchmarkInvoke_stepCall is one successful call's steps through Invoke
// (ns/op is the whole call).
func BenchmarkInvoke_stepCall(b *testing.B) { benchSteps(b, benchStepCall) }

// benchSteps runs the requests of one call through Invoke b.N times, after
// checking that each is answered ok.
func benchSteps(b *testing.B, reqs [][]byte) {
	for _, r := range reqs {
		if out := Invoke(r); string(out[:6]) != `{"ok":` {
			b.Fatalf("%s", out)
		}
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for _, r := range reqs {
			_ = Invoke(r)
		}
	}
}

// benchStepFused is the same call with the loads made ahead (the events'
// "loaded"): two steps.
var benchStepFused = [][]byte{
	[]byte(`{"op":"step","tool":"search","state":null,"event":{"kind":"start","loaded":{"kind":"loaded","value":"{\"failures\":0,\"open_until_ms\":0,\"phase\":\"closed\",\"probe_until_ms\":0,\"successes\":0}"}},"now_ms":1700000000000,"replica":{"down_until_ms":0,"state":"{\"failures\":0,\"open_until_ms\":0,\"phase\":\"closed\",\"probe_until_ms\":0,\"successes\":0}"}}`),
	[]byte(`{"op":"step","tool":"search","state":{"attempt":1,"phase":"call"},"event":{"kind":"success","loaded":{"kind":"loaded","value":"{\"failures\":0,\"open_until_ms\":0,\"phase\":\"closed\",\"probe_until_ms\":0,\"successes\":0}"}},"now_ms":1700000000000,"replica":{"down_until_ms":0,"state":"{\"failures\":0,\"open_until_ms\":0,\"phase\":\"closed\",\"probe_until_ms\":0,\"successes\":0}"}}`),
}

// BenchmarkInvoke_stepCallFused is BenchmarkInvoke_stepCall with the loads
// made ahead (ns/op is the whole call).
func BenchmarkInvoke_stepCallFused(b *testing.B) { benchSteps(b, benchStepFused) }

// BenchmarkInvoke_stepCallGeneral is BenchmarkInvoke_stepCall through the
// general path (a value tree), for comparison.
func BenchmarkInvoke_stepCallGeneral(b *testing.B) {
	b.ReportAllocs()
	var op string
	for i := 0; i < b.N; i++ {
		for _, r := range benchStepCall {
			_ = invokeTree(string(r), &op)
		}
	}
}

// BenchmarkStep_successCall is one successful call's two typed steps (start
// and success, each with the closed breaker's bytes loaded ahead), as
// resilience.Executor takes them (ns/op is the whole call).
func BenchmarkStep_successCall(b *testing.B) {
	closed := []byte(`{"failures":0,"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}`)
	cfg := StepConfig{Tool: "search", StoreKey: "toolerr:breaker:search"}
	rep := ReplicaState{State: closed}
	loaded := StepEvent{Kind: EventLoaded, Value: closed}
	var recs []Record
	b.ReportAllocs()
	for b.Loop() {
		r, err := Step(StepInput{Config: cfg, Event: StepEvent{Kind: EventStart, Loaded: &loaded}, Replica: rep, NowMs: 1700000000000, Records: recs})
		if err != nil || r.Action.Kind != ActionCall {
			b.Fatal(err, r.Action)
		}
		r, err = Step(StepInput{Config: cfg, State: r.State, Event: StepEvent{Kind: EventCallOK, Loaded: &loaded}, Replica: rep, NowMs: 1700000000000, Records: r.Records})
		if err != nil || r.Action.Kind != ActionStop || r.Action.Error != nil {
			b.Fatal(err, r.Action)
		}
		recs = r.Records
	}
}

// benchStepAhead is the same call with its success decided ahead
// ("on_success"): one step, whose answer the runtime applies on success.
var benchStepAhead = [][]byte{
	[]byte(`{"op":"step","tool":"search","state":null,"event":{"kind":"start","loaded":{"kind":"loaded","value":"{\"failures\":0,\"open_until_ms\":0,\"phase\":\"closed\",\"probe_until_ms\":0,\"successes\":0}"}},"now_ms":1700000000000,"replica":{"down_until_ms":0,"state":"{\"failures\":0,\"open_until_ms\":0,\"phase\":\"closed\",\"probe_until_ms\":0,\"successes\":0}"},"on_success":true}`),
}

// BenchmarkInvoke_stepCallAhead is BenchmarkInvoke_stepCallFused with the
// success decided ahead (ns/op is the whole call: one step).
func BenchmarkInvoke_stepCallAhead(b *testing.B) {
	if out := Invoke(benchStepAhead[0]); !bytes.Contains(out, []byte(`"on_success":{`)) {
		b.Fatalf("no success decided ahead: %s", out)
	}
	benchSteps(b, benchStepAhead)
}

// benchStepFailureChained is the failure step of a retried call as the
// Python runtime sends it (bindings/python/toolerr/runtime.py; Node and Rust
// send the same members): every answer decided ahead asked for and a start
// that stands, the exception's classify_exception request inside the
// event, the load made ahead and the replica holding the fresh breaker's
// bytes. Its answer decides the cas, the sleep, the next call, its success
// and that success's cas ahead (about 2.7 KB).
var benchStepFailureChained = []byte(`{"policy":{"max_attempts":3,"base_ms":500,"cap_ms":8000},"settings":{"failure_threshold":3,"open_ms":30000,"success_threshold":2},"op":"step","tool":"search","on_success":true,"on_swapped":true,"on_slept":true,"standing":true,"state":{"attempt":1,"phase":"call"},"event":{"kind":"failure","classify":{"op":"classify_exception","exception":{"type":"TimeoutError","message":"upstream timed out"},"tool":"search"},"draw":0.19405459538707315,"loaded":{"kind":"loaded","value":"{\"failures\":0,\"open_until_ms\":0,\"phase\":\"closed\",\"probe_until_ms\":0,\"successes\":0}"}},"now_ms":1796188973193,"replica":{"down_until_ms":0,"state":"{\"failures\":0,\"open_until_ms\":0,\"phase\":\"closed\",\"probe_until_ms\":0,\"successes\":0}"}}`)

// BenchmarkInvoke_stepFailureChained is that failure step through Invoke
// (ns/op is the one step; cpu-ns/op the process's CPU time per step, the
// garbage collector's included, which a loaded machine moves less than the
// wall clock; the answer's size is bytes/answer).
func BenchmarkInvoke_stepFailureChained(b *testing.B) {
	out := Invoke(benchStepFailureChained)
	for _, m := range []string{`"on_swapped":{`, `"on_slept":{`, `"on_success":{`} {
		if !bytes.Contains(out, []byte(m)) {
			b.Fatalf("no %s decided ahead: %s", m, out)
		}
	}
	b.ReportMetric(float64(len(out)), "bytes/answer")
	cpu := cpuTime()
	benchSteps(b, [][]byte{benchStepFailureChained})
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}

// BenchmarkAppendInvoke_stepFailureChained is that failure step as cshared
// takes it (libtoolerr.so under the Python and Rust bindings, Node's
// native addon): AppendInvoke on the request as a string, into one buffer
// reused from call to call (ns/op is the one step; cpu-ns/op as above).
func BenchmarkAppendInvoke_stepFailureChained(b *testing.B) {
	req := string(benchStepFailureChained)
	answer := AppendInvoke(nil, req)
	if !bytes.Equal(answer, Invoke(benchStepFailureChained)) {
		b.Fatalf("AppendInvoke answers otherwise: %s", answer)
	}
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		answer = AppendInvoke(answer[:0], req)
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}
