package conformance

import (
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core"
)

// amplifyBytes is the size of each corpus request in TestAmplification:
// $TOOLERR_AMPLIFY_BYTES, else 512 KiB (`make bench` sends the whole corpus at
// core.MaxRequestBytes, the size the wants of AmplificationCorpus are for).
func amplifyBytes(t testing.TB) int {
	if s := os.Getenv("TOOLERR_AMPLIFY_BYTES"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(t, err, "TOOLERR_AMPLIFY_BYTES")
		return n
	}
	return 512 << 10
}

var versionRequest = []byte(`{"op":"version"}`)

const versionResponse = `{"ok":{"abi":1,"version":"0.1.0"}}`

// answerClass is "ok", "bound:<details.bound>" or "error:<code>".
func answerClass(out []byte) string {
	if bytes.HasPrefix(out, []byte(`{"ok":`)) {
		return "ok"
	}
	var r struct {
		Error struct {
			Code    string
			Details map[string]any
		}
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return "unreadable: " + err.Error()
	}
	if b, ok := r.Error.Details["bound"].(string); ok {
		return "bound:" + b
	}
	return "error:" + r.Error.Code
}

// TestAmplification runs the amplification corpus (AmplificationCorpus)
// through every target, one instance per in-process target for the whole
// corpus and a version call after each request: every answer is the native
// one, byte for byte, and is "ok" or a bound (at core.MaxRequestBytes, the
// bound the corpus names), and the instance answers the next call whatever
// the last one was (a trap or an out-of-memory death of the WASI module
// fails here). Requests are amplifyBytes long.
func TestAmplification(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the amplification corpus sends requests of megabytes to every target")
	}
	runCorpus(t, AmplificationCorpus(), amplifyBytes(t))
}

// TestAmplification_fullSize sends the corpus requests marked Full (the two
// of issue 9) at core.MaxRequestBytes through every target, with the same
// checks.
func TestAmplification_fullSize(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 32 MiB requests to every target")
	}
	var full []Amplifier
	for _, a := range AmplificationCorpus() {
		if a.Full {
			full = append(full, a)
		}
	}
	runCorpus(t, full, core.MaxRequestBytes)
}

func runCorpus(t *testing.T, corpus []Amplifier, size int) {
	targets := availableTargets(t)
	defer func() {
		for _, tg := range targets {
			tg.Close()
		}
	}()
	externals := externalTargets(t)
	counts := map[string]int{}
	var reqs, natives [][]byte
	for _, a := range corpus {
		req := a.Build(size)
		require.LessOrEqual(t, len(req), size, a.Name)
		t0 := time.Now()
		native := core.Invoke(req)
		t.Logf("%-13s %-52s %9d in %9d out %7.0f ms native: %s", a.Op, a.Name, len(req), len(native), float64(time.Since(t0).Microseconds())/1000, answerClass(native))
		if a.Want != "" && size == core.MaxRequestBytes {
			assert.Equal(t, a.Want, answerClass(native), "%s: native answer %.300s", a.Name, native)
		} else {
			assert.Contains(t, []string{"ok", "bound:value_bytes", "bound:response_bytes"}, answerClass(native), "%s: %.300s", a.Name, native)
		}
		counts["native"]++
		for _, tg := range targets {
			if tg.Name() == "native" {
				continue
			}
			got, err := tg.Invoke(req)
			if assert.NoError(t, err, "%s on %s", a.Name, tg.Name()) && !bytes.Equal(got, native) {
				t.Error(Mismatch(a.Name, tg.Name(), got, native))
			}
			v, err := tg.Invoke(versionRequest)
			if assert.NoError(t, err, "version after %s on %s", a.Name, tg.Name()) {
				assert.Equal(t, versionResponse, string(v), "version after %s on %s", a.Name, tg.Name())
			}
			counts[tg.Name()]++
		}
		if size > 4<<20 {
			// One binding process for all of them would hold every request
			// in its input at once: each gets a process of its own.
			for _, e := range externals {
				runExternal(t, e, []Amplifier{a}, [][]byte{req}, [][]byte{native}, counts)
			}
		} else {
			reqs, natives = append(reqs, req), append(natives, native)
		}
	}
	// The small requests go through each binding in one process, one after
	// another on the same instance.
	for _, e := range externals {
		if len(reqs) > 0 {
			runExternal(t, e, corpus, reqs, natives, counts)
		}
	}
	t.Logf("%d corpus requests of %d bytes, each followed by a version call, per target: %v", len(corpus), size, counts)
	for _, tg := range targets {
		if w, ok := tg.(wasmTarget); ok {
			t.Logf("%s linear memory after the corpus: %d MiB", tg.Name(), w.MemoryBytes()>>20)
		}
	}
}

// runExternal sends reqs (of corpus, in order) through binding e in one
// process, a version call after each, and checks every answer against
// natives.
func runExternal(t *testing.T, e *External, corpus []Amplifier, reqs, natives [][]byte, counts map[string]int) {
	var batch []Fixture
	for i, req := range reqs {
		id := "amplify/" + strconv.Itoa(i)
		batch = append(batch, Fixture{ID: id, Test: Test{Request: req}}, Fixture{ID: id + "/version", Test: Test{Request: versionRequest}})
	}
	if !assert.NoError(t, e.Run(batch), "the corpus on %s", e.Name()) {
		return
	}
	for i := range reqs {
		id, name := "amplify/"+strconv.Itoa(i), corpus[i].Name
		got, err := e.Output(id)
		if assert.NoError(t, err, "%s on %s", name, e.Name()) && !bytes.Equal(got, natives[i]) {
			t.Error(Mismatch(name, e.Name(), got, natives[i]))
		}
		v, err := e.Output(id + "/version")
		if assert.NoError(t, err, "version after %s on %s", name, e.Name()) {
			assert.Equal(t, versionResponse, string(v), "version after %s on %s", name, e.Name())
		}
		counts[e.Name()]++
	}
}
