package main

import (
	"errors"
	"io"

	"github.com/toolerr/toolerr/core"
)

// runWrap: toolerr wrap --provider P [--call-id ID] [--name NAME] [FILE]
//
// The input is an envelope (the five keys), one outcome {"call", "error" |
// "result"}, or {"results": [...]} for a whole turn. With a bare envelope,
// --call-id and --name say which call it answers.
func runWrap(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("wrap", args, stdout, stderr)
	provider := fs.String("provider", "", "wire format: "+formatList(core.Formats())+"; "+aliasList()+" (required)")
	callID := fs.String("call-id", "", "the tool call id the failure answers (tool_call_id, call_id, tool_use_id, toolUseId)")
	name := fs.String("name", "", "the function name (required by gemini)")
	if err := fs.Parse(args); err != nil {
		return parseStatus(err)
	}
	if *provider == "" {
		return fail(stderr, errors.New("wrap needs --provider"))
	}
	in, err := readInput(fs.Args(), stdin)
	if err != nil {
		return fail(stderr, err)
	}
	v, err := decodeJSON(in)
	if err != nil {
		return fail(stderr, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fail(stderr, errors.New("input must be a JSON object: an envelope, an outcome or {\"results\": [...]}"))
	}
	req := map[string]any{"op": "serialize", "format": *provider}
	_, hasResults := m["results"]
	_, hasCall := m["call"]
	switch {
	case hasResults || hasCall:
		for k, val := range m {
			req[k] = val
		}
	default: // a bare envelope, completed from the registry when members are missing
		env, code := completeEnvelope(m, stderr)
		if code != 0 {
			return code
		}
		m = env
		call := map[string]any{}
		if *callID != "" {
			call["id"] = *callID
		}
		if *name != "" {
			call["name"] = *name
		}
		req["call"] = call
		req["error"] = m
	}
	return invoke(req, stdout, stderr)
}

// completeEnvelope fills the members an envelope lacks (retryable, details,
// source) with the registry's defaults through the envelope op, so that
// {"code": "TIMEOUT", "message": "..."} is enough. A complete envelope is
// returned as it is.
func completeEnvelope(m map[string]any, stderr io.Writer) (map[string]any, int) {
	complete := true
	for _, k := range []string{"code", "message", "retryable", "details", "source"} {
		if _, ok := m[k]; !ok {
			complete = false
		}
	}
	if complete {
		return m, 0
	}
	req := map[string]any{"op": "envelope"}
	for k, v := range m {
		req[k] = v
	}
	b, err := core.AppendJSON(nil, req)
	if err != nil {
		return nil, fail(stderr, err)
	}
	resp := core.Invoke(b)
	ok := okMember(resp)
	if ok == nil {
		return nil, printResponse(resp, io.Discard, stderr)
	}
	return ok, 0
}
