package gatewaycheck

import (
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/conformance/gateway"
	"github.com/toolerr/toolerr/gatewaycheck/fake"
)

// toolerrGatewayKnownFailures lists the tests toolerr-gateway does not
// carry yet, by ID, with the reason; it is empty at release. A listed test
// that is carried fails the test (remove it from the list).
var toolerrGatewayKnownFailures = map[string]string{}

// launchToolerrGateway builds toolerr-gateway (../gateway, its own module)
// and launches it on a free loopback port pointed at a fresh set of fakes as
// a user would (-openai-base, -anthropic-base, -gemini-base from
// GWCHECK_*_URL), both stopped when the test ends. It answers the fakes and
// the gateway's address; it skips the test when ../gateway is not in the tree.
func launchToolerrGateway(t *testing.T) (*fake.Set, string) {
	t.Helper()
	dir := filepath.Join("..", "gateway")
	if _, err := os.Stat(filepath.Join(dir, "cmd", "toolerr-gateway")); err != nil {
		t.Skip("toolerr-gateway (../gateway/cmd/toolerr-gateway) is not in this tree")
	}
	bin := filepath.Join(t.TempDir(), "toolerr-gateway")
	build := exec.Command("go", "build", "-o", bin, "./cmd/toolerr-gateway")
	build.Dir = dir
	out, err := build.CombinedOutput()
	require.NoError(t, err, "building toolerr-gateway: %s", out)

	set, err := fake.Start("", 0, testSpecs(t))
	require.NoError(t, err)
	t.Cleanup(set.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	ln.Close()
	cmd := "exec " + bin + " -addr " + addr + ` -openai-base "$GWCHECK_OPENAI_URL" -anthropic-base "$GWCHECK_ANTHROPIC_URL" -gemini-base "$GWCHECK_GEMINI_URL"`
	g, err := Launch(context.Background(), cmd, set, io.Discard, "http://"+addr, 30*time.Second)
	require.NoError(t, err)
	t.Cleanup(g.Stop)
	return set, addr
}

// TestRun_toolerrGateway holds toolerr-gateway, launched pointed at the
// fakes, to every same-family test of the endpoints it serves: each one is
// carried.
func TestRun_toolerrGateway(t *testing.T) {
	set, addr := launchToolerrGateway(t)

	tests, err := LoadTests(gateway.Files)
	require.NoError(t, err)
	rs, err := Run(context.Background(), set, tests, Options{
		BaseURL: map[Family]string{"": "http://" + addr}, Hops: "same",
		Ingress: []Family{OpenAIChat, OpenAIResponses, Anthropic, Gemini}, Timeout: 10 * time.Second,
	})
	require.NoError(t, err)
	assert.Len(t, rs, 29)
	for _, r := range rs {
		if reason, known := toolerrGatewayKnownFailures[r.Test.ID]; known {
			assert.NotEqual(t, Carried, r.Verdict, "%s is carried now: remove it from toolerrGatewayKnownFailures (%s)", r.Test.ID, reason)
			t.Logf("known failure %s: %s (%s: %s)", r.Test.ID, reason, r.Verdict, r.Why)
			continue
		}
		assert.Equal(t, Carried, r.Verdict, "%s %s: %s", r.Test.Hop(), r.Test.Description, r.Why)
	}
}
