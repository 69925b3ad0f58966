package argscheck

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/toolerr/toolerr/core"
)

// Invoke is core.Invoke plus the op "validate_args"; it uses no cache (see
// Validator.Invoke).
//
// See docs/args.md.
func Invoke(req []byte) []byte { return new(Validator).Invoke(req) }

// Invoke is core.Invoke plus one op, for builds that carry the validator
// (native Go, and the C library if it chooses to):
//
//	{"op": "validate_args", "schema": <JSON Schema>, "args": <object, or the
//	 arguments as a JSON string>, "tool"?: "<name>"}
//	-> {"ok": {"valid": true}}
//	 | {"ok": {"valid": false, "error": <INVALID_ARGS envelope>}}
//
// "args" as a string is the raw text the model sent (OpenAI's
// function.arguments), so broken JSON there is reported as an INVALID_ARGS
// failure with keyword "json". A missing or mistyped member, or a schema that
// does not compile, is an {"error": INVALID_INPUT} response with details
// {op, path} as core.Invoke gives for any bad request. Every other op goes to
// core.Invoke unchanged. The response is canonical JSON (RFC 8785).
//
// See docs/args.md.
func (v *Validator) Invoke(req []byte) []byte {
	if len(req) > core.MaxRequestBytes {
		return core.Invoke(req)
	}
	var head struct {
		Op string `json:"op"`
	}
	if json.Unmarshal(req, &head) != nil || head.Op != "validate_args" {
		return core.Invoke(req)
	}
	var r struct {
		Schema json.RawMessage `json:"schema"`
		Args   json.RawMessage `json:"args"`
		Tool   json.RawMessage `json:"tool"`
	}
	if err := json.Unmarshal(req, &r); err != nil {
		return badRequest("", err.Error())
	}
	if isNull(r.Schema) {
		return badRequest("schema", "is required")
	}
	if isNull(r.Args) {
		return badRequest("args", "is required (an object, or the arguments as a JSON string)")
	}
	var tool string
	if !isNull(r.Tool) {
		if err := json.Unmarshal(r.Tool, &tool); err != nil {
			return badRequest("tool", "must be a string")
		}
	}
	args := []byte(r.Args)
	if bytes.HasPrefix(bytes.TrimSpace(args), []byte(`"`)) {
		var s string
		if err := json.Unmarshal(args, &s); err != nil {
			return badRequest("args", "must be an object or a JSON string")
		}
		args = []byte(s)
	}
	env, ok, err := v.Validate(r.Schema, args, tool)
	if err != nil {
		var se *SchemaError
		if errors.As(err, &se) {
			return badRequest("schema", "does not compile: "+se.Err.Error())
		}
		return badRequest("schema", err.Error())
	}
	if ok {
		return []byte(`{"ok":{"valid":true}}`)
	}
	b, err := env.MarshalJSON()
	if err != nil {
		return []byte(internalError)
	}
	out := append([]byte(`{"ok":{"error":`), b...)
	return append(out, `,"valid":false}}`...)
}

func isNull(m json.RawMessage) bool {
	t := bytes.TrimSpace(m)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

// badRequest is the INVALID_INPUT response core.Invoke gives for a bad
// member: source orchestrator, details {op, path}.
func badRequest(path, msg string) []byte {
	text := "toolerr: "
	if path != "" {
		text += path + ": "
	}
	e, err := core.NewEnvelope(core.CodeInvalidInput, text+msg,
		map[string]any{"op": "validate_args", "path": path}, core.SourceOrchestrator)
	if err != nil {
		return []byte(internalError)
	}
	b, err := e.MarshalJSON()
	if err != nil {
		return []byte(internalError)
	}
	return append(append([]byte(`{"error":`), b...), '}')
}

// internalError is the response when an envelope cannot be encoded (its
// details hold a value JSON cannot carry), as core.Invoke words it.
const internalError = `{"error":{"code":"INTERNAL","details":{"op":"validate_args"},"message":"toolerr could not encode its response.","retryable":false,"source":"orchestrator"}}`
