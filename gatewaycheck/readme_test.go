package gatewaycheck

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/gatewaycheck/fake"
)

// readmeCurl is the README's by-hand request (Gateways): the path, headers
// and body of its `curl -s http://127.0.0.1:8799/...` command.
type readmeCurl struct {
	path    string
	headers [][2]string
	body    string
}

// readReadmeCurl reads the README's `$ curl` command to the gateway on 8799:
// its URL's path, each -H 'name: value' and its -d '...' body (over the
// lines it spans).
func readReadmeCurl(t *testing.T) readmeCurl {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Skipf("no README beside the module: %v", err)
	}
	m := regexp.MustCompile(`(?s)\$ curl -s http://127\.0\.0\.1:8799(\S+)(.*?) -d '([^']*)'`).FindStringSubmatch(string(b))
	require.NotNil(t, m, "the README's Gateways section sends one request by hand with curl to 127.0.0.1:8799")
	c := readmeCurl{path: m[1], body: m[3]}
	for _, h := range regexp.MustCompile(`-H '([^:']+): ([^']*)'`).FindAllStringSubmatch(m[2], -1) {
		c.headers = append(c.headers, [2]string{h[1], h[2]})
	}
	return c
}

// post sends the README's request to base and answers the status and body.
func (c readmeCurl) post(t *testing.T, base string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+c.path, strings.NewReader(c.body))
	require.NoError(t, err)
	for _, h := range c.headers {
		req.Header.Set(h[0], h[1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var v map[string]any
	require.NoError(t, json.Unmarshal(raw, &v), "%s", raw)
	return resp.StatusCode, v
}

// TestReadme_requestByHand sends the README's by-hand request (a parallel
// call left unanswered) through toolerr-gateway to the fakes, and straight to
// the Anthropic fake: through the gateway the fake answers the model's "ok"
// (the gateway added the missing result), straight it answers Anthropic's
// own 400 naming toolu_2, as the README says.
func TestReadme_requestByHand(t *testing.T) {
	c := readReadmeCurl(t)
	require.Equal(t, "/v1/messages", c.path)
	set, addr := launchToolerrGateway(t)

	status, v := c.post(t, "http://"+addr)
	assert.Equal(t, http.StatusOK, status, "%v", v)
	assert.Equal(t, "gwcheck-anthropic", v["model"])
	assert.Equal(t, []any{map[string]any{"text": "ok", "type": "text"}}, v["content"])

	status, v = c.post(t, set.URL(fake.Anthropic))
	require.Equal(t, http.StatusBadRequest, status, "%v", v)
	e, _ := v["error"].(map[string]any)
	msg, _ := e["message"].(string)
	assert.Contains(t, msg, "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_2")
}
