package mcptool_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// mcpSchemaFiles are the MCP schema versions every CallToolResult on the wire
// must satisfy (MCP schema CallToolResult: 2026-07-28 requires resultType,
// 2025-11-25 allows it as an extra member).
var mcpSchemaFiles = []string{"mcp-schema-2025-11-25.json", "mcp-schema-2026-07-28.json"}

// callToolResultSchemas compiles CallToolResult of each MCP schema in
// ../shared/specs (or $TOOLERR_SHARED/specs) with the SDK's own validator
// (github.com/google/jsonschema-go, draft 2020-12); without the specs the
// test skips and says why.
func callToolResultSchemas(t *testing.T) map[string]*jsonschema.Resolved {
	t.Helper()
	dir := os.Getenv("TOOLERR_SHARED")
	if dir == "" {
		_, file, _, _ := runtime.Caller(0)
		dir = filepath.Join(filepath.Dir(file), "..", "..", "shared")
	}
	out := map[string]*jsonschema.Resolved{}
	for _, name := range mcpSchemaFiles {
		b, err := os.ReadFile(filepath.Join(dir, "specs", name))
		if err != nil {
			t.Skipf("MCP schemas not found at %s/specs: the specs are not in this clone", dir)
		}
		var doc struct {
			Schema string          `json:"$schema"`
			Defs   json.RawMessage `json:"$defs"`
		}
		require.NoError(t, json.Unmarshal(b, &doc), name)
		root, err := json.Marshal(map[string]any{"$schema": doc.Schema, "$defs": doc.Defs, "$ref": "#/$defs/CallToolResult"})
		require.NoError(t, err)
		var s jsonschema.Schema
		require.NoError(t, json.Unmarshal(root, &s), name)
		r, err := s.Resolve(nil)
		require.NoError(t, err, name)
		out[name] = r
	}
	return out
}

// wire records the JSON-RPC messages the client reads, through the SDK's
// LoggingTransport: what the server really sent, not the SDK's decoded types.
type wire struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *wire) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// results returns the result of every tools/call response the client read,
// as JSON values, in order.
func (w *wire) results(t *testing.T) []map[string]any {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(w.buf.Bytes()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "read: ")
		if !ok {
			continue
		}
		var msg struct {
			Result map[string]any `json:"result"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &msg))
		if _, isCall := msg.Result["content"]; isCall {
			out = append(out, msg.Result)
		}
	}
	return out
}

// requireValidResults checks each result against CallToolResult of both MCP
// schemas.
func requireValidResults(t *testing.T, results []map[string]any) {
	t.Helper()
	require.NotEmpty(t, results)
	for name, s := range callToolResultSchemas(t) {
		for i, r := range results {
			require.NoError(t, s.Validate(r), "%s: result %d: %v", name, i, r)
		}
	}
}

// logged wraps a client transport so that w records what the client reads.
func logged(ct mcp.Transport, w *wire) mcp.Transport {
	return &mcp.LoggingTransport{Transport: ct, Writer: w}
}

// TestCallToolResultSchemas_discriminate shows the validators are live:
// resultType is required by 2026-07-28 only, and content must be an array.
func TestCallToolResultSchemas_discriminate(t *testing.T) {
	s := callToolResultSchemas(t)
	noType := map[string]any{"content": []any{map[string]any{"type": "text", "text": "x"}}, "isError": true}
	require.NoError(t, s[mcpSchemaFiles[0]].Validate(noType))
	require.Error(t, s[mcpSchemaFiles[1]].Validate(noType))
	for name, r := range s {
		require.Error(t, r.Validate(map[string]any{"content": "x", "resultType": "complete"}), name)
	}
}
