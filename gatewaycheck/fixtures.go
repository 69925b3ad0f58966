package gatewaycheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/toolerr/toolerr/gatewaycheck/fake"
)

// Family is a provider format by its toolerr wire name: the shape a client
// sends to a gateway (ingress) or a gateway sends to an upstream.
type Family string

// The five families gateway-check speaks.
const (
	OpenAIChat      Family = "openai-chat"
	OpenAIResponses Family = "openai-responses"
	Anthropic       Family = "anthropic"
	Gemini          Family = "gemini"
	Bedrock         Family = "bedrock"
)

// Families lists the five families in a stable order.
func Families() []Family {
	return []Family{OpenAIChat, OpenAIResponses, Anthropic, Gemini, Bedrock}
}

// fakeFamily is the fake upstream that serves f (Chat Completions and
// Responses share the OpenAI one).
func (f Family) fakeFamily() fake.Family {
	switch f {
	case OpenAIChat, OpenAIResponses:
		return fake.OpenAI
	case Anthropic:
		return fake.Anthropic
	case Gemini:
		return fake.Gemini
	default:
		return fake.Bedrock
	}
}

// Test is one fixture test: a client request in the ingress format, routed
// to the upstream family, and what must arrive or come back
// (conformance/gateway.schema.json).
type Test struct {
	// ID is <file>/<case>/<test>, descriptions with spaces as "_".
	ID string
	// File, Case and Description name the test.
	File, Case, Description string
	// Ingress is the format the client sends; Upstream the fake it must reach.
	Ingress, Upstream Family
	// Model is the model the client asks for; "" means gwcheck-<upstream>
	// (Options.Model).
	Model string
	// Request is the body without model.
	Request json.RawMessage
	// Script is what the upstream answers valid requests (nil: successes).
	Script []fake.Reply
	// Expect is what the test checks.
	Expect Expect
}

// Expect is a test's expectation (see the schema for each member).
type Expect struct {
	Calls   *int           `json:"calls"`
	Results []ResultExpect `json:"results"`
	Client  *ClientExpect  `json:"client"`
	MaxHits int            `json:"max_hits"`
}

// ResultExpect is what must arrive for one call: a flagged failure with the
// given envelope or any envelope, or an unflagged success text.
type ResultExpect struct {
	Failure     bool            `json:"failure"`
	Envelope    json.RawMessage `json:"envelope"`
	AnyEnvelope bool            `json:"any_envelope"`
	Text        *string         `json:"text"`
}

// ClientExpect is what the client must get back from an upstream error.
type ClientExpect struct {
	Status            int      `json:"status"`
	RetryAfterAtLeast *float64 `json:"retry_after_at_least"`
	Classification    string   `json:"classification"`
}

// Hop names the test's route: "anthropic" or "openai-chat to anthropic".
func (t Test) Hop() string {
	if t.Ingress == t.Upstream {
		return string(t.Ingress)
	}
	return string(t.Ingress) + " to " + string(t.Upstream)
}

// LoadTests reads every *.json fixture file at the root of fsys, in name
// order. A file that does not parse, or a test naming an unknown family, is
// an error naming the file.
func LoadTests(fsys fs.FS) ([]Test, error) {
	names, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, fmt.Errorf("gatewaycheck: no fixture files")
	}
	known := map[Family]bool{}
	for _, f := range Families() {
		known[f] = true
	}
	var tests []Test
	for _, name := range names {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		var cases []struct {
			Description string `json:"description"`
			Tests       []struct {
				Description string          `json:"description"`
				Ingress     Family          `json:"ingress"`
				Upstream    Family          `json:"upstream"`
				Model       string          `json:"model"`
				Request     json.RawMessage `json:"request"`
				Script      []fake.Reply    `json:"script"`
				Expect      Expect          `json:"expect"`
			} `json:"tests"`
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		if err := dec.Decode(&cases); err != nil {
			return nil, fmt.Errorf("gatewaycheck: %s: %w", name, err)
		}
		file := strings.TrimSuffix(path.Base(name), ".json")
		for _, c := range cases {
			for _, t := range c.Tests {
				if !known[t.Ingress] || !known[t.Upstream] {
					return nil, fmt.Errorf("gatewaycheck: %s: %q: unknown family %q or %q", name, t.Description, t.Ingress, t.Upstream)
				}
				if t.Expect.MaxHits == 0 {
					t.Expect.MaxHits = 1
				}
				tests = append(tests, Test{
					ID:   file + "/" + slug(c.Description) + "/" + slug(t.Description),
					File: file, Case: c.Description, Description: t.Description,
					Ingress: t.Ingress, Upstream: t.Upstream, Model: t.Model, Request: t.Request, Script: t.Script, Expect: t.Expect,
				})
			}
		}
	}
	return tests, nil
}

func slug(d string) string { return strings.ReplaceAll(d, " ", "_") }
