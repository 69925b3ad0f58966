package core

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// prepareSeeds are openai-chat request bodies: the bench's 40-message body
// (bench/fixtures/openai-chat-40.json), and a body for the message list of
// each openai-chat check seed of fastList (the conformance fixtures, the
// real recordings, the edge lists), some with more members, one with a
// model that is no string.
func prepareSeeds(t testing.TB) (bench []byte, seeds [][]byte) {
	raw, err := os.ReadFile("../bench/fixtures/openai-chat-40.json")
	require.NoError(t, err)
	bench = compactJSON(t, raw)
	seeds = append(seeds, bench)
	for _, req := range fastListSeeds(t) {
		var top map[string]any
		if json.Unmarshal(req, &top) != nil || top["op"] != "check" || top["format"] != "openai-chat" {
			continue
		}
		msgs, err := json.Marshal(top["messages"])
		require.NoError(t, err)
		for _, members := range []string{`"model":"gpt-4o"`, `"model":"o1-mini","tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}],"temperature":0`, `"model":7,"stream":true`, ``,
			`"model":"gpt-4o","temperature":0,"top_p":1,"n":1,"stream":false,"user":"u","seed":7,"max_tokens":64,"stop":null,"metadata":{},"store":false`} {
			b := `{"messages":` + string(msgs) + `}`
			if members != "" {
				b = `{` + members + `,"messages":` + string(msgs) + `}`
			}
			seeds = append(seeds, []byte(b))
		}
	}
	return bench, seeds
}

// scannedSameAsTree fails unless prepareScanned either declines body or
// answers it as prepareTree does; it reports whether it answered.
func scannedSameAsTree(t *testing.T, body []byte, opts TranscriptOptions) bool {
	t.Helper()
	tf, err := formatNamed("egress_request", FormatOpenAIChat, "format")
	require.NoError(t, err)
	got, ok := prepareScanned(tf, body, opts)
	if !ok {
		return false
	}
	want, err := prepareTree(FormatOpenAIChat, body, opts)
	if err != nil {
		t.Fatalf("prepareScanned answers a body the tree path refuses (%v):\n%.3000s", err, body)
	}
	require.False(t, got.Changed)
	if !bytes.Equal(got.Body, body) {
		t.Fatalf("prepareScanned sends other bytes than it was given")
	}
	require.Equal(t, want, got, "for the body\n%.3000s", body)
	return true
}

// TestPrepareScanned_sameAsTree runs the request op's scanned path and its
// tree path on the seeds, on mutations of each (a member dropped or of
// another type, bytes changed), with the caller's options varied, and
// requires the same report whenever the scanned path answers; it must
// answer the bench's body, the one the gateway's figures are for.
func TestPrepareScanned_sameAsTree(t *testing.T) {
	bench, seeds := prepareSeeds(t)
	tf, err := formatNamed("egress_request", FormatOpenAIChat, "format")
	require.NoError(t, err)
	_, ok := prepareScanned(tf, bench, TranscriptOptions{})
	require.True(t, ok, "the scanned path declines the bench's body")
	wide := append([]byte(`{"user":"u","seed":7,"n":1,"store":false,`), bench[1:]...) // 11 members
	_, ok = prepareScanned(tf, wide, TranscriptOptions{})
	require.True(t, ok, "the scanned path declines a body of more than 8 members")
	seeds = append(seeds, wide)
	options := []TranscriptOptions{{}, {IDRules: "mistral"}, {Model: "o1-mini"}, {IDRules: "no-such-rules"}}
	answered, declined := 0, 0
	count := func(ok bool) {
		if ok {
			answered++
		} else {
			declined++
		}
	}
	for i, seed := range seeds {
		for _, o := range options {
			count(scannedSameAsTree(t, seed, o))
		}
		if len(seed) > 20000 {
			continue // the bounds' seeds: mutations of them repeat the big parse
		}
		for _, v := range append(listMutations(t, seed), byteMutations(seed, 25, uint64(i))...) {
			count(scannedSameAsTree(t, v, TranscriptOptions{}))
		}
	}
	t.Logf("%d seeds; the scanned path answered %d bodies, declined %d", len(seeds), answered, declined)
	if answered < 500 {
		t.Fatalf("the scanned path answered only %d bodies: the test would prove little", answered)
	}
}
