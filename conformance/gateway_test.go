package conformance

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGatewayFixtures_lint checks the gateway-check fixtures (gateway/*.json):
// gateway.schema.json, and unique, short, present-tense descriptions without
// "/", as for the op fixtures.
func TestGatewayFixtures_lint(t *testing.T) {
	for p, data := range validFiles(t, "gateway.schema.json", filepath.Join("gateway", "*.json")) {
		f := File{Path: p}
		require.NoError(t, json.Unmarshal(data, &f.Cases))
		lintDescriptions(t, f)
	}
}

// TestGatewayFixtures_schemaRejects shows the schema can fail: each test
// breaks one of its rules.
func TestGatewayFixtures_schemaRejects(t *testing.T) {
	schema, err := jsonschema.NewCompiler().Compile("gateway.schema.json")
	require.NoError(t, err)
	test := func(extra string) string {
		return `[{"description":"d","source":["s"],"tests":[{"description":"t","ingress":"anthropic","upstream":"anthropic","request":{},` + extra + `}]}]`
	}
	for name, doc := range map[string]string{
		"unknown family":        `[{"description":"d","source":["s"],"tests":[{"description":"t","ingress":"cohere","upstream":"anthropic","request":{},"expect":{"max_hits":1}}]}]`,
		"empty expect":          test(`"expect":{}`),
		"failure without shape": test(`"expect":{"results":[{"failure":true}]}`),
		"success with envelope": test(`"expect":{"results":[{"failure":false,"envelope":{"code":"X","message":"m","retryable":false,"details":{},"source":"tool"}}]}`),
		"four-field envelope":   test(`"expect":{"results":[{"failure":true,"envelope":{"code":"X","message":"m","retryable":false,"details":{}}}]}`),
		"client without status": test(`"expect":{"client":{"retry_after_at_least":1}}`),
	} {
		t.Run(name, func(t *testing.T) {
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(doc)))
			require.NoError(t, err)
			assert.Error(t, schema.Validate(inst))
		})
	}
}
