package conformance

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Description rules, as JSON-Schema-Test-Suite's sanity tests enforce them.
const (
	maxCaseChars = 150
	maxTestChars = 70
)

var forbiddenWords = regexp.MustCompile(`(?i)\bshould\b|\btest that\b`)

// TestFixtures_lint checks every fixture file: the schema, unique and short
// present-tense descriptions, and responses that core's canonicalize op and
// an independent RFC 8785 implementation (gowebpki/jcs, which the runner uses
// for the expected bytes) write identically.
func TestFixtures_lint(t *testing.T) {
	schema, err := jsonschema.NewCompiler().Compile("fixtures.schema.json")
	require.NoError(t, err)
	var paths []string
	require.NoError(t, filepath.WalkDir(fixtureDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			paths = append(paths, p)
		}
		return err
	}))
	require.NotEmpty(t, paths)
	for _, p := range paths {
		t.Run(filepath.ToSlash(p), func(t *testing.T) {
			require.Equal(t, ".json", filepath.Ext(p), "only .json files belong under fixtures/")
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
			require.NoError(t, err)
			require.NoError(t, schema.Validate(inst))
		})
	}
	files, fixtures := loadFixtures(t)
	for _, f := range files {
		lintDescriptions(t, f)
	}
	for _, f := range fixtures {
		t.Run(f.ID, func(t *testing.T) {
			independent := expected(t, f.Test.Response)
			ours, ok := coreCanonical(t, f.Test.Response)
			if !ok {
				t.Skip("response nests too deep to wrap in a canonicalize request")
			}
			assert.Equal(t, string(independent), string(ours), "core and gowebpki/jcs canonicalize the response differently")
		})
	}
}

func lintDescriptions(t *testing.T, f File) {
	t.Helper()
	cases := map[string]bool{}
	for _, c := range f.Cases {
		lintDescription(t, f.Path, c.Description, maxCaseChars)
		assert.False(t, cases[c.Description], "%s: case %q appears twice", f.Path, c.Description)
		cases[c.Description] = true
		tests := map[string]bool{}
		for _, tc := range c.Tests {
			lintDescription(t, f.Path+": "+c.Description, tc.Description, maxTestChars)
			assert.False(t, tests[tc.Description], "%s / %s: test %q appears twice", f.Path, c.Description, tc.Description)
			tests[tc.Description] = true
		}
	}
}

// reporter is the part of *testing.T the lint needs (a fake in tests).
type reporter interface {
	Helper()
	Errorf(format string, args ...any)
}

type fakeT struct{ failed bool }

func (f *fakeT) Helper()               {}
func (f *fakeT) Errorf(string, ...any) { f.failed = true }

func lintDescription(t reporter, where, d string, maxChars int) {
	t.Helper()
	assert.LessOrEqual(t, utf8.RuneCountInString(d), maxChars, "%s: %q is longer than %d characters", where, d, maxChars)
	assert.False(t, forbiddenWords.MatchString(d), "%s: %q: say what happens (\"X becomes Y\"), without \"should\" or \"test that\"", where, d)
	assert.NotContains(t, d, "/", "%s: %q: a \"/\" would split the fixture ID", where, d)
}

func TestLintDescription_rules(t *testing.T) {
	tests := []struct {
		name, description string
		maxChars          int
	}{
		{"should", "429 should be retryable", 70},
		{"test that", "Test that 429 is retryable", 70},
		{"too long", strings.Repeat("é", 71), 70},
		{"slash", "HTTP 429 / Retry-After", 70},
		{"fits", strings.Repeat("é", 70), 70},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := &fakeT{}
			lintDescription(fake, "x.json", tc.description, tc.maxChars)
			assert.Equal(t, tc.name != "fits", fake.failed, "lint of %q", tc.description)
		})
	}
}

// TestFixtures_readmeCount keeps the README's count of request/response
// pairs ("Build targets and the ABI") the number the fixtures hold.
func TestFixtures_readmeCount(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	m := regexp.MustCompile(`\(([0-9,]+)\s+request/response pairs today`).FindSubmatch(readme)
	require.NotNil(t, m, "README no longer says how many request/response pairs the fixtures hold")
	_, fixtures := loadFixtures(t)
	require.Equal(t, strings.ReplaceAll(string(m[1]), ",", ""), strconv.Itoa(len(fixtures)),
		"README's count of conformance pairs is stale: the fixtures hold %d", len(fixtures))
}
