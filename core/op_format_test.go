package core

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/format"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// Every codec writes its bytes straight into the response for both request
// shapes, and they are those of the value tree Serialize returns.
func TestOpSerialize_fastPathBothShapes(t *testing.T) {
	const outcomeJSON = `"call":{"id":"call_1","name":"get_weather"},"error":{"code":"TIMEOUT","message":"Timed out after 10s.","retryable":true,"details":{"timeout_ms":10000},"source":"tool"}`
	fast := 0
	for _, name := range format.Names() {
		c := format.Lookup(name)
		fast++
		for _, body := range []string{outcomeJSON, `"results":[{` + outcomeJSON + `},{"call":{"id":"call_2","name":"search"},"result":{"text":"3 hits."}}]`} {
			v, err := canonical.Parse([]byte(`{"format":"` + name + `",` + body + `}`))
			require.NoError(t, err)
			req := v.(map[string]any)
			res, err := opSerialize(req)
			require.NoError(t, err, name)
			ok, isOK := res.(okResponse)
			require.True(t, isOK, "%s: %T, not the fast path", name)
			outs, err := outcome.Read(req, "")
			require.NoError(t, err)
			msgs, err := c.Serialize(outs)
			require.NoError(t, err)
			want, err := canonical.Append([]byte(okPrefix), msgs)
			require.NoError(t, err)
			assert.Equal(t, string(want)+"}", string(ok), name)
		}
	}
	assert.Positive(t, fast, "no codec has a fast path")
}
