package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core"
)

// protoRE matches one C prototype of a toolerr_ function on one line.
var protoRE = regexp.MustCompile(`(?m)^(?:extern\s+)?([A-Za-z_][\w\s\*]*?)\s*\b(toolerr_\w+)\(([^)]*)\);`)

// prototypes returns "ret name(type,type)" for every toolerr_ prototype in a
// header, with const, parameter names and spacing removed.
func prototypes(header string) []string {
	var out []string
	for _, m := range protoRE.FindAllStringSubmatch(header, -1) {
		var params []string
		for _, p := range strings.Split(m[3], ",") {
			params = append(params, cType(p, true))
		}
		out = append(out, cType(m[1], false)+" "+m[2]+"("+strings.Join(params, ",")+")")
	}
	sort.Strings(out)
	return out
}

// cType normalizes a C type (dropping a trailing parameter name when named).
func cType(s string, named bool) string {
	s = strings.ReplaceAll(s, "*", " * ")
	var words []string
	for _, w := range strings.Fields(s) {
		if w != "const" {
			words = append(words, w)
		}
	}
	if named && len(words) > 1 && words[len(words)-1] != "*" {
		words = words[:len(words)-1]
	}
	return strings.Join(words, "")
}

func TestHeader_matchesExports(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found: cannot build the c-archive")
	}
	dir := t.TempDir()
	cmd := exec.Command("go", "build", "-buildmode=c-archive", "-o", filepath.Join(dir, "lib.a"), ".")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	generated, err := os.ReadFile(filepath.Join(dir, "lib.h"))
	require.NoError(t, err)
	public, err := os.ReadFile("toolerr.h")
	require.NoError(t, err)

	// cgo exports the two calls that enter Go, under toolerr_go_ names;
	// entry.c defines the header's four (gcc holds it to toolerr.h, which it
	// includes), two of them calling those exports with the same types.
	var exported []string
	for _, p := range prototypes(string(generated)) {
		exported = append(exported, strings.Replace(p, " toolerr_go_", " toolerr_", 1))
	}
	assert.Equal(t, []string{
		"uint8_t* toolerr_invoke(uint8_t*,size_t,size_t*)",
		"uint8_t* toolerr_invoke_into(uint8_t*,size_t,uint8_t*,size_t,size_t*)",
	}, exported, "cgo header exports")
	header := prototypes(string(public))
	require.Len(t, header, 4, "toolerr.h: %v", header)
	assert.Subset(t, header, exported)
	entry, err := os.ReadFile("entry.c")
	require.NoError(t, err)
	for _, p := range header {
		name := p[strings.Index(p, " toolerr_")+1 : strings.Index(p, "(")]
		assert.Regexp(t, `(?m)^[\w\s\*]*\b`+name+`\([^)]*\) \{`, string(entry), "entry.c defines %s", name)
	}
}

func TestHeader_constants(t *testing.T) {
	public, err := os.ReadFile("toolerr.h")
	require.NoError(t, err)
	tests := []struct {
		name, re string
		want     int
	}{
		{"TOOLERR_ABI_VERSION", `#define TOOLERR_ABI_VERSION (\d+)`, core.ABIVersion},
		{"TOOLERR_MAX_REQUEST_BYTES", `#define TOOLERR_MAX_REQUEST_BYTES \((\d+)u << (\d+)\)`, core.MaxRequestBytes},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := regexp.MustCompile(tc.re).FindStringSubmatch(string(public))
			require.NotNil(t, m, "%s not found", tc.name)
			got, _ := strconv.Atoi(m[1])
			if len(m) > 2 {
				shift, _ := strconv.Atoi(m[2])
				got <<= shift
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestPrototypes_normalize(t *testing.T) {
	got := prototypes("extern uint8_t* toolerr_invoke(uint8_t* req, size_t n, size_t* outLen);\nuint32_t toolerr_abi_version(void);\n")
	assert.Equal(t, []string{"uint32_t toolerr_abi_version(void)", "uint8_t* toolerr_invoke(uint8_t*,size_t,size_t*)"}, got)
}

// TestHeader_docsListEveryFunction holds the C ABI blocks of the README
// ("Build targets and the ABI") and docs/targets.md to the public header:
// the same prototypes, every one of them (the README once listed three of
// the four).
func TestHeader_docsListEveryFunction(t *testing.T) {
	public, err := os.ReadFile("toolerr.h")
	require.NoError(t, err)
	want := prototypes(string(public))
	require.Len(t, want, 4, "toolerr.h: %v", want)
	block := regexp.MustCompile("(?s)```c\n(.*?)```")
	for _, doc := range []string{"../README.md", "../docs/targets.md"} {
		b, err := os.ReadFile(doc)
		require.NoError(t, err)
		var got []string
		for _, m := range block.FindAllSubmatch(b, -1) {
			got = append(got, prototypes(string(m[1]))...)
		}
		sort.Strings(got)
		assert.Equal(t, want, got, "%s: its C blocks' prototypes differ from toolerr.h's", doc)
	}
}
