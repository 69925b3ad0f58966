package mcptool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core"
	"github.com/toolerr/toolerr/mcptool"
	"github.com/toolerr/toolerr/resilience"
)

// seedSearch is seed 000's search service on loopback: 503, 503, then 400
// (repeated), counting the calls.
func seedSearch(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	answers := []struct {
		status int
		body   string
	}{{503, `{"error":"search backend unavailable"}`}, {503, `{"error":"search backend unavailable"}`},
		{400, `{"error":"invalid argument: 'max_results' must be at most 50"}`}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := answers[min(int(n.Add(1))-1, len(answers)-1)]
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.status)
		io.WriteString(w, a.body)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

type searchIn struct {
	Q          string `json:"q"`
	MaxResults int    `json:"max_results"`
}

type searchOut struct {
	Results []string `json:"results"`
}

// search is the tool as Go tools are commonly written: a failed call returns
// an error whose text carries the status and the service's body.
func search(base string) mcp.ToolHandlerFor[searchIn, searchOut] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, searchOut, error) {
		u := base + "/search?" + url.Values{"q": {in.Q}, "max_results": {fmt.Sprint(in.MaxResults)}}.Encode()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, searchOut{}, err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode >= 400 {
			return nil, searchOut{}, fmt.Errorf("search failed: HTTP %d %s (%s)", resp.StatusCode, body, u)
		}
		var out searchOut
		return nil, out, json.Unmarshal(body, &out)
	}
}

// connect serves the tools of add on an in-memory transport and returns a
// client session that has listed them, as a host does first.
func connect(t *testing.T, add func(*mcp.Server)) *mcp.ClientSession {
	cs, _, _ := connectWire(t, add)
	return cs
}

// connectWire is connect that also returns the tools the client listed and
// the record of every message the client read.
func connectWire(t *testing.T, add func(*mcp.Server)) (*mcp.ClientSession, []*mcp.Tool, *wire) {
	t.Helper()
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "flights", Version: "1.0.0"}, nil)
	add(server)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	require.NoError(t, err)
	w := &wire{}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1.0.0"}, nil).Connect(ctx, logged(ct, w), nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	listed, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	return cs, listed.Tools, w
}

var args = map[string]any{"q": "flights", "max_results": 500}

// host is the scripted model of the framework tests as an MCP host: call
// search until a result's text is an envelope with retryable false, at most
// bound times; it returns what it read.
func host(t *testing.T, cs *mcp.ClientSession, bound int) []*mcp.CallToolResult {
	t.Helper()
	var seen []*mcp.CallToolResult
	for range bound {
		r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: args})
		require.NoError(t, err)
		seen = append(seen, r)
		if env, ok := envelopeIn(r); ok && !env.Retryable {
			break
		}
	}
	return seen
}

func envelopeIn(r *mcp.CallToolResult) (core.Envelope, bool) {
	var env core.Envelope
	if len(r.Content) != 1 {
		return env, false
	}
	tc, ok := r.Content[0].(*mcp.TextContent)
	if !ok || json.Unmarshal([]byte(tc.Text), &env) != nil || env.Code == "" {
		return env, false
	}
	return env, true
}

func executor() *resilience.Executor {
	return &resilience.Executor{Retry: core.RetryPolicy{MaxAttempts: 3, BaseMs: 1, CapMs: 2}, Draw: func() float64 { return 0.5 }}
}

func TestFor_beforeToolerrTheSDKSendsTheErrorTextAndTheHostLoops(t *testing.T) {
	srv, n := seedSearch(t)
	cs := connect(t, func(s *mcp.Server) { mcp.AddTool(s, &mcp.Tool{Name: "search"}, search(srv.URL)) })
	seen := host(t, cs, 6)
	assert.Len(t, seen, 6) // nothing in the results tells the host to stop
	first := seen[0].Content[0].(*mcp.TextContent).Text
	assert.True(t, seen[0].IsError)
	assert.Regexp(t, `^search failed: HTTP 503 \{"error":"search backend unavailable"\} \(http://127\.0\.0\.1:\d+/search\?max_results=500&q=flights\)$`, first)
	assert.EqualValues(t, 6, n.Load())
}

func TestFor_theEnvelopeAndTheHostStopsAfterThe400(t *testing.T) {
	srv, n := seedSearch(t)
	tool := &mcp.Tool{Name: "search"}
	cs, listed, w := connectWire(t, func(s *mcp.Server) {
		mcp.AddTool(s, tool, mcptool.For(tool, search(srv.URL), nil))
	})
	require.NotNil(t, listed[0].OutputSchema) // mcp.AddTool declares the schema of searchOut
	seen := host(t, cs, 6)
	require.Len(t, seen, 3)
	var got [][]any
	for _, r := range seen {
		assert.True(t, r.IsError)
		assert.Nil(t, r.StructuredContent) // the tool has an output schema: an envelope there would break clients
		env, ok := envelopeIn(r)
		require.True(t, ok)
		got = append(got, []any{string(env.Code), env.Retryable, env.Details["status"], env.Details["tool"]})
	}
	assert.Equal(t, [][]any{{"TRANSPORT", true, 503.0, "search"}, {"TRANSPORT", true, 503.0, "search"}, {"INVALID_ARGS", false, 400.0, "search"}}, got)
	assert.EqualValues(t, 3, n.Load())
	onWire := w.results(t)
	requireValidResults(t, onWire)
	for _, r := range onWire {
		assert.NotContains(t, r, "structuredContent")
	}

	// The text is the core's: the CallToolResult parses back as the failure, byte for byte its envelope.
	env, _ := envelopeIn(seen[2])
	b, err := json.Marshal(seen[2])
	require.NoError(t, err)
	var wire map[string]any
	require.NoError(t, json.Unmarshal(b, &wire))
	outs, err := core.Parse(core.FormatMCP, []any{wire})
	require.NoError(t, err)
	require.NotNil(t, outs[0].Error)
	assert.Equal(t, env, *outs[0].Error)
	want, err := core.Serialize(core.FormatMCP, []core.Outcome{{Error: &env}})
	require.NoError(t, err)
	assert.Equal(t, want[0].(map[string]any)["content"], wire["content"])
}

func TestFor_underAnExecutorTheHostReadsOnlyThe400(t *testing.T) {
	srv, n := seedSearch(t)
	cs := connect(t, func(s *mcp.Server) {
		tool := &mcp.Tool{Name: "search"}
		mcp.AddTool(s, tool, mcptool.For(tool, search(srv.URL), executor()))
	})
	seen := host(t, cs, 6)
	require.Len(t, seen, 1)
	assert.EqualValues(t, 3, n.Load()) // 503, 503 retried silently, then the 400
	env, ok := envelopeIn(seen[0])
	require.True(t, ok)
	assert.Equal(t, core.CodeInvalidArgs, env.Code)
	assert.False(t, env.Retryable)
	assert.Equal(t, "invalid argument: 'max_results' must be at most 50.", env.Details["tool_message"])
}

func TestHandler_aFailureIsAResultNotAJSONRPCError(t *testing.T) {
	failing := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("open /srv/index: permission denied; token=sk-proj-abcdefghijklmnopqrstuvwx")
	}
	tool := &mcp.Tool{Name: "search", InputSchema: map[string]any{"type": "object"}}

	// Before: the SDK sends a raw handler's error as a JSON-RPC error; the host gets no result at all.
	cs := connect(t, func(s *mcp.Server) { s.AddTool(tool, failing) })
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: args})
	require.Error(t, err)

	cs, _, w := connectWire(t, func(s *mcp.Server) { s.AddTool(tool, mcptool.Handler(tool, failing, nil)) })
	r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: args})
	require.NoError(t, err)
	assert.True(t, r.IsError)
	env, ok := envelopeIn(r)
	require.True(t, ok)
	assert.Equal(t, core.CodeToolError, env.Code)
	b, _ := json.Marshal(r)
	assert.NotContains(t, string(b), "sk-proj-abcdefghijklmnopqrstuvwx")
	onWire := w.results(t)
	requireValidResults(t, onWire)
	assert.Equal(t, asJSON(t, env), onWire[0]["structuredContent"]) // no output schema: the envelope is the structured result too
}

func TestHandler_aToolWithAnOutputSchemaGetsTheTextAlone(t *testing.T) {
	failing := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("index offline")
	}
	tool := &mcp.Tool{Name: "search", InputSchema: map[string]any{"type": "object"},
		OutputSchema: map[string]any{"type": "object", "required": []any{"results"}, "properties": map[string]any{"results": map[string]any{"type": "array"}}}}
	cs, listed, w := connectWire(t, func(s *mcp.Server) { s.AddTool(tool, mcptool.Handler(tool, failing, nil)) })
	require.NotNil(t, listed[0].OutputSchema)
	r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: args})
	require.NoError(t, err)
	assert.True(t, r.IsError)
	_, ok := envelopeIn(r)
	require.True(t, ok)
	onWire := w.results(t)
	requireValidResults(t, onWire)
	assert.NotContains(t, onWire[0], "structuredContent")
}

// searchAny is search for a tool that declares no output schema: Out is any.
func searchAny(base string) mcp.ToolHandlerFor[searchIn, any] {
	h := search(base)
	return func(ctx context.Context, req *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, any, error) {
		res, out, err := h(ctx, req, in)
		return res, out, err
	}
}

func TestFor_aToolWithoutAnOutputSchemaGetsTheEnvelopeAsStructuredContent(t *testing.T) {
	srv, n := seedSearch(t)
	tool := &mcp.Tool{Name: "search"}
	cs, listed, w := connectWire(t, func(s *mcp.Server) { mcp.AddTool(s, tool, mcptool.For(tool, searchAny(srv.URL), nil)) })
	require.Nil(t, listed[0].OutputSchema) // Out is any: mcp.AddTool declares none
	seen := host(t, cs, 6)
	require.Len(t, seen, 3) // the client read every failure: TRANSPORT, TRANSPORT, INVALID_ARGS
	assert.EqualValues(t, 3, n.Load())
	onWire := w.results(t)
	require.Len(t, onWire, 3)
	requireValidResults(t, onWire)
	var codes []any
	for i, r := range onWire {
		env, ok := envelopeIn(seen[i])
		require.True(t, ok)
		assert.Equal(t, true, r["isError"])
		assert.Equal(t, asJSON(t, env), r["structuredContent"], "result %d: the same envelope as the text", i)
		codes = append(codes, r["structuredContent"].(map[string]any)["code"])
	}
	assert.Equal(t, []any{"TRANSPORT", "TRANSPORT", "INVALID_ARGS"}, codes)
	// The bytes are the core's for a tool without an output schema.
	env, _ := envelopeIn(seen[2])
	want, err := core.SerializeMCP([]core.Outcome{{Error: &env}}, core.MCPOptions{OutputSchema: false})
	require.NoError(t, err)
	delete(onWire[2], "_meta") // the SDK adds its serverInfo
	assert.Equal(t, asJSON(t, want[0]), onWire[2])
}

func TestFor_anOutputSchemaSetOnTheToolKeepsTheEnvelopeOut(t *testing.T) {
	srv, _ := seedSearch(t)
	tool := &mcp.Tool{Name: "search", OutputSchema: map[string]any{"type": "object", "required": []any{"results"}}}
	cs, listed, w := connectWire(t, func(s *mcp.Server) { mcp.AddTool(s, tool, mcptool.For(tool, searchAny(srv.URL), nil)) })
	require.NotNil(t, listed[0].OutputSchema)
	seen := host(t, cs, 1)
	assert.True(t, seen[0].IsError)
	onWire := w.results(t)
	requireValidResults(t, onWire)
	assert.NotContains(t, onWire[0], "structuredContent")
}

func TestResult_isTheCoresMCPResult(t *testing.T) {
	env := core.ClassifyHTTP(429, map[string][]string{"Retry-After": {"7"}}, nil, core.ClassifyOptions{Source: core.SourceTool, Tool: "search"})
	for _, tc := range []struct {
		name     string
		tool     *mcp.Tool
		declared bool
	}{
		{"unknown tool", nil, true},
		{"no output schema", &mcp.Tool{Name: "search"}, false},
		{"output schema", &mcp.Tool{Name: "search", OutputSchema: map[string]any{"type": "object"}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := asJSON(t, mcptool.Result(env, tc.tool))
			want, err := core.SerializeMCP([]core.Outcome{{Error: &env}}, core.MCPOptions{OutputSchema: tc.declared})
			require.NoError(t, err)
			assert.Equal(t, asJSON(t, want[0]), got)
			assert.Equal(t, true, got["isError"])
			_, structured := got["structuredContent"]
			assert.Equal(t, !tc.declared, structured)
		})
	}
}

// asJSON is v as a JSON object value tree.
func asJSON(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

func TestEnvelope_keepsAResilienceErrorsEnvelope(t *testing.T) {
	own := core.Envelope{Code: core.CodeTimeout, Message: "Search timed out.", Retryable: true, Details: map[string]any{}, Source: core.SourceTool}
	assert.Equal(t, own, mcptool.Envelope(fmt.Errorf("wrapped: %w", &resilience.Error{Envelope: own}), "search"))
	assert.Equal(t, core.CodeTimeout, mcptool.Envelope(context.DeadlineExceeded, "search").Code)
}
