package conformance

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core"
	"github.com/toolerr/toolerr/internal/redactcorpus"
)

var updateShapes = flag.Bool("update-shapes", false, "write fixtures/sanitize/shapes.json from the redaction corpus")

// shapesFile is the fixture file that carries a representative subset of the
// redaction corpus to every target.
var shapesFile = filepath.Join(fixtureDir, "sanitize", "shapes.json")

// shapeCase is one test of shapes.json and the corpus case it comes from.
type shapeCase struct {
	group string
	test  Test
	c     redactcorpus.Case
}

// shapeCases picks the subset: in every group of docs/sanitize.md, four
// kinds spread over the group in a sentence, and the group's first kind in
// every other context (JSON, percent- and base64-encoded, split by a line
// break, a traceback). The secrets are drawn with G.Fake: each body starts
// with FAKE (or 0fa1 where the alphabet has no such letters), so the file
// holds no value a scanner takes for a live key.
func shapeCases(t *testing.T) []shapeCase {
	byGroup := map[string][]redactcorpus.Case{}
	var groups []string
	for _, c := range redactcorpus.Cases(true) {
		if _, ok := byGroup[c.Shape.Group]; !ok {
			groups = append(groups, c.Shape.Group)
		}
		byGroup[c.Shape.Group] = append(byGroup[c.Shape.Group], c)
	}
	var out []shapeCase
	for _, g := range groups {
		cs := byGroup[g]
		var kinds []string
		for _, c := range cs {
			if len(kinds) == 0 || kinds[len(kinds)-1] != c.Shape.Kind {
				kinds = append(kinds, c.Shape.Kind)
			}
		}
		pick := map[string]bool{}
		for _, k := range []int{0, len(kinds) / 3, 2 * len(kinds) / 3, len(kinds) - 1} {
			pick[kinds[k]] = true
		}
		for _, c := range cs {
			if !(pick[c.Shape.Kind] && c.Context.Name == "sentence" || c.Shape.Kind == kinds[0]) {
				continue
			}
			req, err := json.Marshal(map[string]any{"op": "sanitize", "text": c.Text})
			require.NoError(t, err)
			out = append(out, shapeCase{g, Test{Description: c.Shape.Kind + ", " + c.Context.Name, Request: req, Response: core.Invoke(req)}, c})
		}
	}
	return out
}

// TestSanitizeShapes_fixture keeps fixtures/sanitize/shapes.json the
// corpus's subset (go test -run TestSanitizeShapes_fixture -update-shapes
// writes it) and checks that no expected response in it carries a secret
// part, a fragment of it or an encoded form. TestConformance then proves
// every target gives those bytes.
func TestSanitizeShapes_fixture(t *testing.T) {
	scs := shapeCases(t)
	var cases []Case
	for _, sc := range scs {
		if len(cases) == 0 || cases[len(cases)-1].Description != sc.group+": each secret becomes [REDACTED], whatever wraps it" {
			cases = append(cases, Case{
				Description: sc.group + ": each secret becomes [REDACTED], whatever wraps it",
				Comment:     "Generated from the redaction corpus (internal/redactcorpus) by TestSanitizeShapes_fixture; every body is made up and starts with FAKE or 0fa1. The full corpus runs in core's TestRedactionCorpus.",
				Source:      []string{"https://github.com/gitleaks/gitleaks/blob/master/config/gitleaks.toml", "https://github.com/trufflesecurity/trufflehog/tree/main/pkg/detectors", "docs/sanitize.md"},
			})
		}
		cases[len(cases)-1].Tests = append(cases[len(cases)-1].Tests, sc.test)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	require.NoError(t, enc.Encode(cases))
	if *updateShapes {
		require.NoError(t, os.WriteFile(shapesFile, buf.Bytes(), 0o644))
	}
	got, err := os.ReadFile(shapesFile)
	require.NoError(t, err, "run go test -run TestSanitizeShapes_fixture -update-shapes")
	var file []Case
	require.NoError(t, json.Unmarshal(got, &file))
	i := 0
	for _, c := range file {
		for _, tc := range c.Tests {
			require.Less(t, i, len(scs), "%s has more tests than the corpus gives: run -update-shapes", shapesFile)
			sc := scs[i]
			i++
			assert.Equal(t, sc.test.Description, tc.Description)
			assert.JSONEq(t, string(sc.test.Request), string(tc.Request), "%s: the request is not the corpus's: run -update-shapes", tc.Description)
			assert.Empty(t, sc.c.Check.Leak(string(tc.Response)), "%s: the expected response carries the secret", tc.Description)
		}
	}
	assert.Equal(t, len(scs), i, "%s has fewer tests than the corpus gives: run -update-shapes", shapesFile)
}
