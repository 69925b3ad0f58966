package egress_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/toolerr/toolerr/egress"
)

// An Anthropic 429 with retry-after: 7 reaches the SDK with its status, the
// retry headers its retry rule reads, and the native error body with the
// envelope inside. The SDK takes the client through its HTTP-client option:
// option.WithHTTPClient(client) for openai-go and anthropic-sdk-go,
// genai.ClientConfig{HTTPClient: client} for google.golang.org/genai.
func ExampleTransport() {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "7")
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`)
	}))
	defer upstream.Close()

	client := &http.Client{Transport: &egress.Transport{}}
	resp, err := client.Post(upstream.URL+"/v1/messages", "application/json",
		strings.NewReader(`{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var body struct {
		Error struct {
			Type    string `json:"type"`
			Toolerr struct {
				Code      string `json:"code"`
				Retryable bool   `json:"retryable"`
			} `json:"toolerr"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		panic(err)
	}
	fmt.Println(resp.StatusCode, resp.Header.Get("Retry-After"), resp.Header.Get("Retry-After-Ms"), resp.Header.Get("X-Should-Retry"))
	fmt.Println(body.Error.Type, body.Error.Toolerr.Code, body.Error.Toolerr.Retryable)
	// Output:
	// 429 7 7000 true
	// rate_limit_error RATE_LIMITED true
}
