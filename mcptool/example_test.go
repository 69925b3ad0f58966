package mcptool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolerr/toolerr/core"
	"github.com/toolerr/toolerr/mcptool"
	"github.com/toolerr/toolerr/resilience"
)

// Seed 000's search tool in an MCP server: the service answers 503, 503,
// then 400. The executor retries the 503s silently; the client reads one
// result, isError true with the INVALID_ARGS envelope, never a JSON-RPC error.
func ExampleFor() {
	answers := []int{503, 503, 400}
	served := 0
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(answers[min(served, len(answers)-1)])
		served++
		io.WriteString(w, `{"error":"search backend unavailable"}`)
	}))
	defer svc.Close()

	type In struct {
		Q string `json:"q"`
	}
	search := func(ctx context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, svc.URL+"/search?q="+in.Q, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode >= 400 { // the 503s are retried by the executor; the 400 is the result, isError true
			return nil, nil, &resilience.Error{Envelope: core.ClassifyHTTP(resp.StatusCode, resp.Header, body, core.ClassifyOptions{Source: core.SourceTool, Tool: "search"})}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}}, nil, nil
	}

	server := mcp.NewServer(&mcp.Implementation{Name: "flights", Version: "1.0.0"}, nil)
	x := &resilience.Executor{Retry: core.RetryPolicy{MaxAttempts: 3, BaseMs: 20}}
	tool := &mcp.Tool{Name: "search", Description: "Search for flights."}
	mcp.AddTool(server, tool, mcptool.For(tool, search, x))

	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, _ := server.Connect(ctx, st, nil)
	defer ss.Close()
	cs, _ := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1.0.0"}, nil).Connect(ctx, ct, nil)
	defer cs.Close()
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"q": "flights"}})
	if err != nil {
		fmt.Println("protocol error:", err)
		return
	}
	var env core.Envelope
	json.Unmarshal([]byte(r.Content[0].(*mcp.TextContent).Text), &env)
	fmt.Println("isError:", r.IsError, "after", served, "searches")
	fmt.Println(env.Code, "retryable:", env.Retryable)
	// Output:
	// isError: true after 3 searches
	// INVALID_ARGS retryable: false
}
