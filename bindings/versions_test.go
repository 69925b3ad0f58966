// Package bindings holds the checks that tie the language packages to the
// core: one release version everywhere, and README code that is the example
// file the tests run.
package bindings

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core"
)

// readVersion returns the release version in the repository's VERSION file,
// the one place a release number is written by hand.
func readVersion(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../VERSION")
	require.NoError(t, err)
	v := strings.TrimSpace(string(b))
	require.Regexp(t, `^\d+\.\d+\.\d+(-[0-9A-Za-z.]+)?$`, v, "VERSION holds one semantic version")
	return v
}

// tomlVersion returns the version key of a TOML file's first table named
// section ("project" in pyproject.toml, "package" in Cargo.toml).
func tomlVersion(t *testing.T, path, section string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			in = line == "["+section+"]"
			continue
		}
		if m := regexp.MustCompile(`^version\s*=\s*"([^"]*)"`).FindStringSubmatch(line); in && m != nil {
			return m[1]
		}
	}
	t.Fatalf("%s: no version in [%s]", path, section)
	return ""
}

// cargoLockVersion returns the version of the toolerr package in Cargo.lock.
func cargoLockVersion(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^name = "toolerr"\nversion = "([^"]*)"`).FindSubmatch(b)
	require.NotNil(t, m, "%s: no toolerr package", path)
	return string(m[1])
}

func jsonFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, v), path)
}

// TestVersionsAgree fails when any package, lock file or the core names a
// release other than VERSION: bump VERSION with scripts/set-version.sh, which
// rewrites every place listed here.
func TestVersionsAgree(t *testing.T) {
	want := readVersion(t)
	var pkg struct{ Version string }
	jsonFile(t, "node/package.json", &pkg)
	var nativePkg struct{ Version string }
	jsonFile(t, "node-native/package.json", &nativePkg)
	var lock struct {
		Version  string
		Packages map[string]struct{ Version string }
	}
	jsonFile(t, "node/package-lock.json", &lock)
	var fixture []struct {
		Tests []struct {
			Response struct {
				Ok struct{ Version string }
			}
		}
	}
	jsonFile(t, "../conformance/fixtures/version/version.json", &fixture)
	require.True(t, len(fixture) == 1 && len(fixture[0].Tests) == 1, "version.json holds one case of one test")

	got := map[string]string{
		"core.Version (core/invoke.go)":                core.Version,
		"bindings/python/pyproject.toml [project]":     tomlVersion(t, "python/pyproject.toml", "project"),
		"bindings/node/package.json":                   pkg.Version,
		"bindings/node-native/package.json":            nativePkg.Version,
		"bindings/node/package-lock.json":              lock.Version,
		`bindings/node/package-lock.json packages[""]`: lock.Packages[""].Version,
		"bindings/rust/Cargo.toml [package]":           tomlVersion(t, "rust/Cargo.toml", "package"),
		"bindings/rust/Cargo.lock":                     cargoLockVersion(t, "rust/Cargo.lock"),
		"conformance/fixtures/version/version.json":    fixture[0].Tests[0].Response.Ok.Version,
	}
	for where, v := range got {
		assert.Equal(t, want, v, "%s names %q, VERSION %q: run scripts/set-version.sh %s", where, v, want, want)
	}
}

// TestVersionFilesExist guards the list above: a new package manifest must
// join TestVersionsAgree (and scripts/set-version.sh).
func TestVersionFilesExist(t *testing.T) {
	manifests, err := filepath.Glob("*/*")
	require.NoError(t, err)
	known := map[string]bool{
		"python/pyproject.toml": true, "node/package.json": true, "node/package-lock.json": true, "node-native/package.json": true,
		"rust/Cargo.toml": true, "rust/Cargo.lock": true,
	}
	for _, m := range manifests {
		switch filepath.Base(m) {
		case "pyproject.toml", "setup.cfg", "package.json", "package-lock.json", "Cargo.toml", "Cargo.lock":
			assert.True(t, known[filepath.ToSlash(m)], "%s carries a version that TestVersionsAgree does not check", m)
		}
	}
}
