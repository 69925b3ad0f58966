package oracles

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mcpSchemas are the two MCP schema versions whose CallToolResult our output
// must satisfy: 2026-07-28 requires resultType, 2025-11-25 allows it as an
// extra member (MCP schema CallToolResult).
var mcpSchemas = []string{"mcp-schema-2025-11-25.json", "mcp-schema-2026-07-28.json"}

func mcpOutputs(t *testing.T) map[string]any {
	results := []any{
		map[string]any{"call": map[string]any{"name": "get_weather"}, "error": oracleEnvelope()},
		map[string]any{"call": map[string]any{}, "result": map[string]any{"text": "Sunny"}},
		map[string]any{"call": map[string]any{}, "result": map[string]any{"json": map[string]any{"city": "東京"}}},
		map[string]any{"call": map[string]any{}, "result": map[string]any{"json": []any{1, 2}}},
		map[string]any{"call": map[string]any{}, "result": map[string]any{}},
		map[string]any{"call": map[string]any{}, "result": map[string]any{"blocks": []any{
			map[string]any{"type": "text", "text": "captured"}, map[string]any{"type": "image", "media_type": "image/png", "data": oraclePNG}}}},
	}
	got, ok := invokeOK(t, map[string]any{"op": "serialize", "format": "mcp", "results": results}).([]any)
	require.True(t, ok)
	names := []string{"failure", "text", "json object", "json array", "empty", "blocks"}
	require.Len(t, got, len(names))
	out := map[string]any{}
	for i, n := range names {
		out[n] = got[i]
	}
	// A tool that declares no outputSchema: the envelope is structuredContent too.
	noSchema, ok := invokeOK(t, map[string]any{"op": "serialize", "format": "mcp", "output_schema": false, "results": results[:1]}).([]any)
	require.True(t, ok)
	require.Len(t, noSchema, 1)
	out["failure, no outputSchema"] = noSchema[0]
	return out
}

func TestMCP_validatesAgainstBothSchemas(t *testing.T) {
	outs := mcpOutputs(t)
	for _, file := range mcpSchemas {
		s := compileSpecSchema(t, file, "/$defs/CallToolResult")
		for name, m := range outs {
			t.Run(file+"/"+name, func(t *testing.T) { requireValid(t, s, m, name) })
		}
	}
}

func TestMCP_failureShape(t *testing.T) {
	f := mcpOutputs(t)["failure"].(map[string]any)
	assert.Equal(t, true, f["isError"])
	assert.Equal(t, "complete", f["resultType"])
	assert.NotContains(t, f, "structuredContent", "no structuredContent on errors (MCP schema CallToolResult)")
	assert.Equal(t, []any{map[string]any{"type": "text", "text": oracleEnvelopeText}}, f["content"])

	// Declaring no outputSchema adds the envelope as an object, equal to the text's.
	s := mcpOutputs(t)["failure, no outputSchema"].(map[string]any)
	assert.Equal(t, true, s["isError"])
	assert.Equal(t, f["content"], s["content"])
	var env map[string]any
	require.NoError(t, json.Unmarshal([]byte(oracleEnvelopeText), &env))
	assert.Equal(t, env, s["structuredContent"])
}

// TestMCP_schemasDiscriminate shows the validators are live: resultType is
// required by 2026-07-28 only, and 2025-11-25 rejects a non-object
// structuredContent.
func TestMCP_schemasDiscriminate(t *testing.T) {
	noType := map[string]any{"content": []any{map[string]any{"type": "text", "text": "x"}}}
	require.NoError(t, validateJSON(compileSpecSchema(t, mcpSchemas[0], "/$defs/CallToolResult"), noType))
	require.Error(t, validateJSON(compileSpecSchema(t, mcpSchemas[1], "/$defs/CallToolResult"), noType))
	arr := map[string]any{"content": []any{}, "structuredContent": []any{1}, "resultType": "complete"}
	require.Error(t, validateJSON(compileSpecSchema(t, mcpSchemas[0], "/$defs/CallToolResult"), arr))
	require.NoError(t, validateJSON(compileSpecSchema(t, mcpSchemas[1], "/$defs/CallToolResult"), arr))
}
