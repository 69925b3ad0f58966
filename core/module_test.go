package core

import (
	"os"
	"strings"
	"testing"
)

// TestRootModule_noValidator: the JSON Schema validator behind argscheck
// lives in argscheck's own module, so that depending on the core (the root
// module) never pulls it in.
func TestRootModule_noValidator(t *testing.T) {
	b, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "jsonschema") {
		t.Fatalf("go.mod of the root module requires the validator:\n%s", b)
	}
	if _, err := os.Stat("../argscheck/go.mod"); err != nil {
		t.Fatalf("argscheck is not a module of its own: %v", err)
	}
}
