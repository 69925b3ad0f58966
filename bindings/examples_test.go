package bindings

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// codeBlock is a fenced code block of a Markdown file and the source file
// the paragraph just before it names (empty when it names none).
type codeBlock struct {
	doc  string
	line int // 1-based line of the opening fence
	file string
	body []string
}

var sourceRef = regexp.MustCompile("`([A-Za-z0-9_./-]+\\.(?:py|mjs|js|ts|rs|go))`")

// fenceLang is the info string of a Markdown fence showing a file of each
// extension.
var fenceLang = map[string]string{".py": "python", ".mjs": "js", ".js": "js", ".ts": "ts", ".rs": "rust", ".go": "go"}

// blocksNamingFiles returns the code blocks of doc (a path relative to the
// repository root) whose preceding paragraph names a file that exists, the
// way the README introduces an example: "Python
// (`bindings/python/examples/readme_example.py`, run by the tests):".
func blocksNamingFiles(t *testing.T, doc string) []codeBlock {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", doc))
	require.NoError(t, err)
	lines := strings.Split(string(b), "\n")
	var out []codeBlock
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "```") {
			continue
		}
		start, lang := i, strings.TrimSpace(strings.TrimPrefix(lines[i], "```"))
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
		}
		// The paragraph before the fence: the non-blank lines above it.
		file := ""
		j := start - 1
		for j >= 0 && strings.TrimSpace(lines[j]) == "" {
			j--
		}
		for ; j >= 0 && strings.TrimSpace(lines[j]) != "" && !strings.HasPrefix(lines[j], "```"); j-- {
			if ms := sourceRef.FindAllStringSubmatch(lines[j], -1); file == "" && ms != nil {
				cand := ms[len(ms)-1][1]
				if _, err := os.Stat(filepath.Join("..", cand)); err == nil && fenceLang[filepath.Ext(cand)] == lang {
					file = cand
				}
			}
		}
		if file != "" {
			out = append(out, codeBlock{doc: doc, line: start + 1, file: file, body: lines[start+1 : min(i, len(lines))]})
		}
	}
	return out
}

// isExcerpt reports whether block is a run of consecutive lines of src, each
// with the same leading indentation removed (so a README may show the body
// of a Go Example function without its tabs).
func isExcerpt(block, src []string) bool {
	for at := 0; at+len(block) <= len(src); at++ {
		indent, ok := "", true
		for k, b := range block {
			s := src[at+k]
			if k == 0 {
				if !strings.HasSuffix(s, b) || strings.TrimSpace(s[:len(s)-len(b)]) != "" {
					ok = false
					break
				}
				indent = s[:len(s)-len(b)]
				continue
			}
			if s != indent+b && !(b == "" && strings.TrimSpace(s) == "") {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// TestDocExamplesAreTheRunFiles fails when a code block that the README or a
// doc introduces with a file's name is not that file's text: the whole file
// or a run of its lines. The named files are what the bindings' tests and
// the package install tests (scripts/test-packages.sh) run, so the code a
// reader copies is the code that was run.
func TestDocExamplesAreTheRunFiles(t *testing.T) {
	docs := []string{"README.md"}
	more, err := filepath.Glob("../docs/*.md")
	require.NoError(t, err)
	for _, d := range more {
		docs = append(docs, filepath.ToSlash(strings.TrimPrefix(d, "../")))
	}
	seen := 0
	for _, doc := range docs {
		for _, blk := range blocksNamingFiles(t, doc) {
			seen++
			src, err := os.ReadFile(filepath.Join("..", blk.file))
			require.NoError(t, err)
			srcLines := strings.Split(strings.TrimRight(string(src), "\n"), "\n")
			assert.True(t, isExcerpt(blk.body, srcLines),
				"%s:%d: the code block is not the text of %s (copy the file's lines into the block, or change the file)",
				blk.doc, blk.line, blk.file)
		}
	}
	// The README shows at least the three bindings' examples.
	assert.GreaterOrEqual(t, seen, 3, "no README code block names its example file")
}

// quickStartModules is the Quick start's list of the modules that the
// root module's replace line does not cover.
var quickStartModules = regexp.MustCompile("((?:`[a-z]+`(?:,|\\s+and)?\\s+)+)are modules of their own")

// TestReadmeQuickStartNamesEveryModule fails when the README names a
// package path github.com/toolerr/toolerr/X whose folder is a module of its
// own (X/go.mod) and the Quick start's list of modules that need their own
// replace line leaves X out: a user who imports it then has go mod tidy ask
// the module proxy for it, and fail (argscheck was once left out).
func TestReadmeQuickStartNamesEveryModule(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	m := quickStartModules.FindSubmatch(b)
	require.NotNil(t, m, "the Quick start no longer lists the modules of their own")
	listed := map[string]bool{}
	for _, w := range regexp.MustCompile("`([a-z]+)`").FindAllSubmatch(m[1], -1) {
		listed[string(w[1])] = true
	}
	named := 0
	for _, p := range regexp.MustCompile(`github\.com/toolerr/toolerr/([a-z]+)`).FindAllSubmatch(b, -1) {
		dir := string(p[1])
		if _, err := os.Stat(filepath.Join("..", dir, "go.mod")); err != nil {
			continue // a package of the root module (core, resilience, egress)
		}
		named++
		assert.True(t, listed[dir], "README names github.com/toolerr/toolerr/%s, a module of its own, which the Quick start's list (%s) leaves out", dir, strings.TrimSpace(string(m[1])))
	}
	assert.Positive(t, named)
}
