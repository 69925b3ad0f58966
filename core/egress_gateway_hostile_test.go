package core

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEgressGatewayError_secretShapedParam: a param that is a token but
// holds a key's shape (a member a client's body named, "body.AIza...")
// is refused at gateway.param, through the typed API and the op alike, and
// the refusal does not echo it: param reaches the model unsanitized (the
// native param and details.param). Before, each passed into the reply.
func TestEgressGatewayError_secretShapedParam(t *testing.T) {
	for _, param := range []string{
		"body.AIzaSyA1234567890abcdefghijklmnopqrstuv",
		"sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD",
		"body.ghp_abcdefghijklmnopqrstuvwxyz0123456789",
	} {
		_, err := EgressGatewayError(FormatOpenAIChat, GatewayError{Status: 400, Param: param})
		var re *RequestError
		require.ErrorAs(t, err, &re, param)
		assert.Equal(t, "gateway.param", re.Path, param)
		assert.NotContains(t, err.Error(), param)

		req, _ := json.Marshal(map[string]any{"op": "egress_error", "ingress": "openai-chat", "gateway": map[string]any{"status": 400, "param": param}})
		out := string(Invoke(req))
		assert.Contains(t, out, `"path":"gateway.param"`, param)
		assert.NotContains(t, out, param)
	}
	// A member path without one passes as it came.
	rep, err := EgressGatewayError(FormatOpenAIChat, GatewayError{Status: 400, Param: "body.messages[0].api_key"})
	require.NoError(t, err)
	assert.Contains(t, string(rep.Body), `"param":"body.messages[0].api_key"`)
}

// TestEgressGatewayError_hostileMessage: the gateway's message member is
// sanitized as an envelope message is, whatever it holds: a key redacted,
// a stack trace cut to its first line, a 1 MB string cut to 300
// characters, invalid UTF-8 replaced; the reply is valid JSON every time.
func TestEgressGatewayError_hostileMessage(t *testing.T) {
	for _, tc := range []struct{ msg, want, absent string }{
		{"sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD leaked", "[REDACTED] leaked.", "sk-proj-"},
		{"panic: runtime error\ngoroutine 1 [running]:\nmain.main()\n\t/x/y.go:12 +0x1d", "panic: runtime error.", "y.go"},
		{"Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefghijk", "Bearer [REDACTED].", "eyJ"},
		{"x\xed\xa0\x80y", "x\ufffd\ufffd\ufffdy.", "\xed"},
	} {
		rep, err := EgressGatewayError(FormatAnthropic, GatewayError{Status: 400, Message: tc.msg})
		require.NoError(t, err)
		var v map[string]any
		require.NoError(t, json.Unmarshal(rep.Body, &v), "%q", tc.msg)
		assert.Equal(t, tc.want, v["error"].(map[string]any)["message"], "%q", tc.msg)
		assert.NotContains(t, string(rep.Body), tc.absent)
	}
	rep, err := EgressGatewayError(FormatGemini, GatewayError{Status: 503, Message: strings.Repeat("word ", 1<<18)})
	require.NoError(t, err)
	var v map[string]any
	require.NoError(t, json.Unmarshal(rep.Body, &v))
	assert.Equal(t, 300, utf8.RuneCountInString(v["error"].(map[string]any)["message"].(string)))
	assert.Less(t, len(rep.Body), 2000)
}
