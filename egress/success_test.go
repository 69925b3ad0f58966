package egress

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core"
)

// gemini200Error is the error object Gemini can answer a generateContent
// with under 200: without the check, its text reached the client as a
// success.
const gemini200Error = `{
  "error": {
    "code": 503,
    "message": "The model is overloaded. Please try again later. key=AIzaSyA-secret-key-0123456789abcdefghij",
    "status": "UNAVAILABLE"
  }
}
`

// TestTransport_successErrorObject: on loopback, a 200 whose whole body is
// one {"error":{...}} object is answered as the failure it is: Gemini's
// error.code as the status (else 502), the native shape, the envelope,
// the upstream's secret never passed; every other 200 passes byte for byte.
func TestTransport_successErrorObject(t *testing.T) {
	const geminiPath = "/v1beta/models/gemini-2.5-flash:generateContent"
	const streamPath = "/v1beta/models/gemini-2.5-flash:streamGenerateContent"
	geminiOK := `{"candidates":[{"content":{"role":"model","parts":[{"text":"hi"}]},"finishReason":"STOP"}]}`
	failedResponse := `{"id":"resp_1","object":"response","status":"failed","error":{"code":"server_error","message":"The model failed."},"output":[]}`
	for _, tc := range []struct {
		name, path, body, wantBody string
		wantStatus                 int
	}{
		{"a Gemini 200 error object is its 503", geminiPath, gemini200Error,
			`{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE","toolerr":{"code":"OVERLOADED","details":{"provider":"gemini","provider_type":"UNAVAILABLE","status":503},"message":"The Gemini API is overloaded (HTTP 503); retry later.","retryable":true,"source":"provider"}}}`, 503},
		{"an array stream answered with one error object is its 503", streamPath, "\ufeff" + gemini200Error,
			`{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE","toolerr":{"code":"OVERLOADED","details":{"provider":"gemini","provider_type":"UNAVAILABLE","status":503},"message":"The Gemini API is overloaded (HTTP 503); retry later.","retryable":true,"source":"provider"}}}`, 503},
		{"an error object without a code is a 502", "/v1/chat/completions", `{"error":{"message":"upstream failed","type":"server_error","param":null,"code":null}}`,
			`{"error":{"code":null,"message":"upstream failed.","param":null,"toolerr":{"code":"SERVER_ERROR","details":{"provider":"openai","provider_type":"server_error","status":502},"message":"The OpenAI API failed with a server error (HTTP 502); retry later.","retryable":true,"source":"provider"},"type":"server_error"}}`, 502},
		{"a success passes byte for byte", geminiPath, geminiOK, geminiOK, 200},
		{"an error member beside others is the API's own answer", "/v1/responses", failedResponse, failedResponse, 200},
		{"an array stream passes", streamPath, "[" + geminiOK + "]", "[" + geminiOK + "]", 200},
		{"an empty body passes", geminiPath, "", "", 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := newUpstream(t, answer(200, nil, tc.body))
			c := &http.Client{Transport: &Transport{}}
			resp := post(t, c, up.URL+tc.path, `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)
			b, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			assert.Equal(t, tc.wantStatus, resp.StatusCode)
			assert.Equal(t, tc.wantBody, string(b))
			assert.NotContains(t, string(b), "AIzaSy")
			if tc.wantStatus != 200 {
				assert.Equal(t, "true", resp.Header.Get("X-Should-Retry"))
				assert.NotEmpty(t, resp.Header.Get(core.EnvelopeHeader))
			}
		})
	}
}

// TestRewriteSuccessError_readsOnlyTheHead: a body that does not open as an
// error object is read no further than it takes to tell (one byte of a
// JSON array, read a byte at a time), and a read error passes as it came,
// after the bytes read.
func TestRewriteSuccessError_readsOnlyTheHead(t *testing.T) {
	src := &countingReader{r: strings.NewReader(`[{"candidates":[]}]`)}
	resp := &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(iotest.OneByteReader(src))}
	_, ok, _ := RewriteSuccessError(resp, core.FormatGemini, core.EgressOptions{Upstream: "gemini"})
	assert.False(t, ok)
	assert.Equal(t, 1, src.n, "decided at the first byte")
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, `[{"candidates":[]}]`, string(b))

	cut := errors.New("connection reset")
	resp = &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(io.MultiReader(strings.NewReader(`{"err`), iotest.ErrReader(cut)))}
	_, ok, _ = RewriteSuccessError(resp, core.FormatGemini, core.EgressOptions{})
	assert.False(t, ok)
	b, err = io.ReadAll(resp.Body)
	assert.ErrorIs(t, err, cut)
	assert.Equal(t, `{"err`, string(b))

	// Past MaxErrorBodyBytes, an error object passes as it came, unparsed.
	big := `{"error":{"message":"` + strings.Repeat("x", MaxErrorBodyBytes) + `"}}`
	resp = &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(big))}
	_, ok, _ = RewriteSuccessError(resp, core.FormatGemini, core.EgressOptions{})
	assert.False(t, ok)
	b, err = io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.True(t, bytes.Equal([]byte(big), b))
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// BenchmarkRewriteSuccessError_pass is the cost the check adds to every
// success outside a stream: a 2 KiB answer, told at its first byte and
// passed with that byte put back ("checked"), against the same body passed
// unread, as before the check ("unchecked"; the harness's own allocations:
// the response, its header and body).
func BenchmarkRewriteSuccessError_pass(b *testing.B) {
	body := []byte(`{"candidates":[{"content":{"role":"model","parts":[{"text":"` + strings.Repeat("x", 2048) + `"}]},"finishReason":"STOP"}]}`)
	for _, checked := range []bool{false, true} {
		name := "unchecked"
		if checked {
			name = "checked"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				resp := &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(body))}
				if checked {
					if _, ok, _ := RewriteSuccessError(resp, core.FormatGemini, core.EgressOptions{Upstream: "gemini"}); ok {
						b.Fatal("rewritten")
					}
				}
				if _, err := io.Copy(io.Discard, resp.Body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
