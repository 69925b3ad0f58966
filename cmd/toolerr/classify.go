package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// runClassify: toolerr classify [--source S] [--tool T] [--provider P] [--now-ms N] [--attempt N] [FILE]
//
// The input is one of: a recording ({"provider", "response": {"status",
// "headers", "body"}}, the shape of shared/fixtures/real), a bare response
// {"status", "headers", "body"}, the members of a classify request ("http",
// "sse_event" or "error_text"), or plain text, taken as error text.
func runClassify(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("classify", args, stdout, stderr)
	source := fs.String("source", "", "who made the failing call: provider or tool (default: tool when --tool is given, else provider)")
	tool := fs.String("tool", "", "tool name, copied to details.tool")
	provider := fs.String("provider", "", "provider hint: a vendor (openai, anthropic, gemini, bedrock, mistral, ...) or any wire-format name or alias --format takes ("+aliasList()+"), read as its vendor; detected from the body when absent")
	nowMs := fs.Int64("now-ms", 0, "the time of the response in ms since the Unix epoch (default: the response's Date header)")
	attempt := fs.Int("attempt", 0, "attempt number, copied to details.attempt")
	if err := fs.Parse(args); err != nil {
		return parseStatus(err)
	}
	var bad error
	fs.Visit(func(f *flag.Flag) { // given, so meant: zero or below is a mistake to say
		if bad == nil && (f.Name == "attempt" && *attempt <= 0 || f.Name == "now-ms" && *nowMs <= 0) {
			bad = fmt.Errorf("--%s must be a positive whole number, got %s", f.Name, f.Value)
		}
	})
	if bad != nil {
		return fail(stderr, bad)
	}
	in, err := readInput(fs.Args(), stdin)
	if err != nil {
		return fail(stderr, err)
	}
	req, err := classifyRequest(in)
	if err != nil {
		return fail(stderr, err)
	}
	if *source != "" {
		req["source"] = *source
	}
	if *tool != "" {
		req["tool"] = *tool
	}
	if *provider != "" {
		req["provider"] = *provider
	}
	if *attempt > 0 {
		req["attempt"] = *attempt
	}
	if *nowMs > 0 {
		req["now_ms"] = *nowMs
	}
	return invoke(req, stdout, stderr)
}

// classifyRequest builds a classify request from any accepted input shape.
func classifyRequest(in []byte) (map[string]any, error) {
	v, err := decodeJSON(in)
	if err != nil {
		text := strings.TrimSpace(string(in))
		if text == "" {
			return nil, err
		}
		// Meant as JSON: a typo must not pass as error text, nor JSON behind
		// a byte-order mark (the parser's error names it).
		if j := strings.TrimLeft(strings.TrimPrefix(text, "\uFEFF"), " \t\r\n"); j != "" && (j[0] == '{' || j[0] == '[') {
			return nil, err
		}
		return map[string]any{"op": "classify", "error_text": text}, nil
	}
	req := map[string]any{"op": "classify"}
	m, ok := v.(map[string]any)
	if !ok {
		if s, isStr := v.(string); isStr {
			req["error_text"] = s
			return req, nil
		}
		return nil, errString("input must be a JSON object (a recording or a response) or error text")
	}
	if resp, ok := m["response"].(map[string]any); ok { // a recording
		m = resp
		if p, ok := v.(map[string]any)["provider"].(string); ok {
			req["provider"] = recordingProvider(p)
		}
	}
	if _, ok := m["status"]; ok {
		httpReq := map[string]any{"status": m["status"]}
		if h, ok := m["headers"].(map[string]any); ok {
			httpReq["headers"] = lowerKeys(h)
			if ms, ok := dateHeaderMs(h); ok {
				req["now_ms"] = ms
			}
		} else if hv, present := m["headers"]; present {
			httpReq["headers"] = hv // not an object: the core names the member in its error
		}
		if b, ok := m["body"]; ok {
			httpReq["body"] = b
		}
		req["http"] = httpReq
		return req, nil
	}
	for k, val := range m {
		req[k] = val
	}
	req["op"] = "classify"
	return req, nil
}

// recordingProvider maps a recording's provider field to the classify hint.
func recordingProvider(p string) string {
	switch p {
	case "openai", "anthropic", "gemini", "bedrock", "mistral":
		return p
	}
	return ""
}

// dateHeaderMs reads the HTTP Date header (RFC 9110, 6.6.1) of a recorded
// response: the server's clock when it answered, the right "now" for
// turning an HTTP-date or RFC 3339 reset into a wait.
func dateHeaderMs(h map[string]any) (int64, bool) {
	for k, v := range h {
		if !strings.EqualFold(k, "date") {
			continue
		}
		s, ok := v.(string)
		if !ok {
			if arr, isArr := v.([]any); isArr && len(arr) > 0 {
				s, ok = arr[0].(string)
			}
		}
		if !ok {
			return 0, false
		}
		t, err := http.ParseTime(s)
		if err != nil {
			return 0, false
		}
		return t.UnixMilli(), true
	}
	return 0, false
}

type errString string

func (e errString) Error() string { return string(e) }
