// Package sharedtest finds the real recordings the core's tests read from
// ../shared (beside the repository; TOOLERR_SHARED overrides), which are
// never copied into the repository. Only test files import it.
package sharedtest

import (
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"testing"

	"github.com/toolerr/toolerr/core/internal/canonical"
)

// Dir returns $TOOLERR_SHARED when set, else the shared folder beside the
// repository. It may not exist.
func Dir() string {
	if d := os.Getenv("TOOLERR_SHARED"); d != "" {
		return d
	}
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "shared")
}

// Real returns the folder of the real recordings (Dir/fixtures/real), or
// skips t, saying where it looked, when it is not there.
func Real(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(Dir(), "fixtures", "real")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("the real recordings were not found at %s; set TOOLERR_SHARED", dir)
	}
	return dir
}

// Recordings returns the recordings of every provider folder of
// fixtures/real whose name matches pattern ("transcript_*.json"), sorted,
// or nil when there are none (or no recordings at all).
func Recordings(pattern string) []string {
	files, _ := filepath.Glob(filepath.Join(Dir(), "fixtures", "real", "*", pattern))
	sort.Strings(files)
	return files
}

// Format returns the transcript format whose lists the recording file
// holds, by its provider folder (openai_chat, openai_responses, anthropic,
// gemini, bedrock, mistral: Mistral's chat lists are openai-chat lists), or
// "" for another folder.
func Format(file string) string {
	switch dir := filepath.Base(filepath.Dir(file)); dir {
	case "openai_chat", "mistral":
		return "openai-chat"
	case "openai_responses":
		return "openai-responses"
	case "anthropic", "gemini", "bedrock":
		return dir
	}
	return ""
}

// Read returns the recording file as its parsed JSON object, failing t
// when it cannot be read or is not one.
func Read(t testing.TB, file string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	v, err := canonical.Parse(b)
	m, ok := v.(map[string]any)
	if err != nil || !ok {
		t.Fatalf("%s: not a JSON object (%v)", file, err)
	}
	return m
}
