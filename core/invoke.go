package core

import (
	"errors"
	"strings"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/sanitize"
)

// ABIVersion is the version of the Invoke contract: the request and response
// shapes of every op. It grows by one on any incompatible change; new ops and
// new optional members do not change it. The wasm and C exports return it.
const ABIVersion = 1

// Version is the toolerr release this core belongs to.
const Version = "0.1.0"

// Invoke runs one request and returns one response; it is the only ABI of the
// WASI module and the C library.
//
// request is a JSON object {"op": "<name>", ...members of that op}. The
// response is always canonical JSON (RFC 8785): {"ok": <result>} on success,
// or {"error": <envelope>} with source "orchestrator" when the request itself
// is bad (code INVALID_INPUT, details {op, path, offset}) or toolerr failed
// (code INTERNAL); a request past one of the bounds in limits.go gets
// INVALID_INPUT with details {bound, limit, count}. Invoke never panics and
// keeps no state between calls: time
// (now_ms), random draws and breaker or budget state travel in the request.
// The ops and their members are listed in the README ("Invoke reference").
func Invoke(request []byte) (response []byte) {
	if len(request) > MaxRequestBytes {
		return limitResponse(requestTooLarge(len(request)))
	}
	return AppendInvoke(nil, string(request))
}

// AppendInvoke is Invoke for a request held as a string, with the response
// appended to dst (dst's spare capacity is written first, so a caller that
// copies the response out anyway, as the C library does, can reuse one
// buffer from call to call; a nil dst gets a response of its own). The
// response is the bytes Invoke returns for the same request.
//
// request is read in place, no copy made: its strings are referenced only
// during the call and never kept past it (Invoke keeps no state between
// calls, and the response is written into dst or a new buffer, never a
// slice of request), so a caller may pass a view of memory it reuses once
// the call returns; that memory must not change during the call.
func AppendInvoke(dst []byte, request string) (response []byte) {
	op := ""
	defer func() {
		if r := recover(); r != nil {
			response = append(dst, errorResponse(envelope.Envelope{
				Code:    envelope.Internal,
				Message: "toolerr failed internally while handling the request.",
				Details: map[string]any{"op": op},
				Source:  envelope.SourceOrchestrator,
			})...)
		}
	}()
	if len(request) > MaxRequestBytes {
		return appendResponse(dst, limitResponse(requestTooLarge(len(request))))
	}
	// A stream's chunk (egress_scan, framed) carries raw bytes no JSON
	// reader takes: answered by its own path, always with the op first.
	if strings.HasPrefix(request, scanOp) {
		if out, ok := fastScan(dst, request); ok {
			return out
		}
	}
	// A request whose first "op" member name is followed by a path's marker
	// (the bindings put the op first, or after a step's constant policy and
	// settings) is tried on that path at once, without a search of all its
	// bytes for the markers of the paths before it (three for a runtime's
	// failure step, 10% of it). Where that first "op": is another's (a
	// nested request's), the path declines or answers alike, and the
	// search below follows.
	tried := -1
	if at := strings.Index(request, `"op":`); at >= 0 {
		rest := request[at+len(`"op":`):]
		for i, f := range fastPaths {
			if strings.HasPrefix(rest, f.marker) {
				if out, ok := f.answer(dst, request); ok {
					return out
				}
				tried = i
				break
			}
		}
	}
	for i, f := range fastPaths {
		if i != tried && strings.Contains(request, f.marker) {
			if out, ok := f.answer(dst, request); ok {
				return out
			}
		}
	}
	return appendResponse(dst, invokeTree(request, &op))
}

// appendResponse appends the response out to dst, or returns out itself
// when dst is nil.
func appendResponse(dst, out []byte) []byte {
	if dst == nil {
		return out
	}
	return append(dst, out...)
}

// fastPaths are Invoke's typed fast paths, tried in turn before the general
// path: each reads the common requests of its ops member by member
// (canonical.Scanner) without a value tree of the request, and answers only
// a request it is sure of, ok false otherwise, so that the next path or the
// general one answers it; the bytes are the general path's either way
// (FuzzFastPaths_sameAsGeneral). marker is a literal every request a path
// answers holds: a request without it costs that path one strings.Contains.
// The paths answer disjoint ops, so their order changes no answer: the list
// path comes first, since its requests are the long ones (a transcript)
// and a marker they lack is looked for through all their bytes (serialize's
// was 3.5% of work item (b)'s repair), while a serialize or step request
// is short.
// answer appends the response to dst as AppendInvoke does.
var fastPaths = [...]struct {
	marker string
	answer func(dst []byte, request string) (response []byte, ok bool)
}{
	{listOp, func(dst []byte, request string) ([]byte, bool) {
		out, ok := fastList(request)
		return appendResponse(dst, out), ok
	}},
	{serializeOp, fastSerialize},
	{stepOp, fastStep},
}

// invokeTree is Invoke's general path: the request parsed into a value tree
// and given to its op's handler. It sets *op once the op is known.
func invokeTree(request string, opName *string) []byte {
	op := ""
	if sp, framed, re := readSplice(request); re != nil {
		return badRequest(re)
	} else if framed {
		if re := sp.check(request); re != nil {
			return badRequest(re)
		}
	}
	v, err := canonical.ParseRequestText(request)
	if err != nil {
		if le, ok := err.(*canonical.LimitError); ok {
			return limitResponse(parseLimit(le))
		}
		re := &RequestError{Offset: -1, Msg: "request is not valid JSON: " + err.Error(), err: err}
		if se, ok := err.(*canonical.SyntaxError); ok {
			re.Offset = se.Offset
			re.Msg = "request is not valid JSON: " + se.Msg
		}
		return badRequest(re)
	}
	req, ok := v.(map[string]any)
	if !ok {
		return badRequest(&RequestError{Offset: -1, Msg: "request must be a JSON object, got " + field.TypeName(v)})
	}
	op, err = field.RequiredString(req, "op", "")
	if err != nil {
		return badRequest(requestError("", err))
	}
	*opName = op
	result, err := dispatch(op, req)
	if err != nil {
		if le, isLimit := errors.AsType[*LimitError](err); isLimit {
			le.Op = op
			return limitResponse(le)
		}
		return badRequest(requestError(op, err))
	}
	return writeOK(op, result, len(request))
}

// serializeOp is in every request fastSerialize answers.
const serializeOp = `"serialize"`

// okPrefix opens every successful response.
const okPrefix = `{"ok":`

// okResponse is a whole successful response a handler wrote itself,
// okPrefix + canonical result + "}", so that Invoke returns it without a copy.
// As a value inside a tree it writes the result alone.
type okResponse []byte

// AppendCanonical appends the result inside r to dst.
func (r okResponse) AppendCanonical(dst []byte) ([]byte, error) {
	return append(dst, r[len(okPrefix):len(r)-1]...), nil
}

// responseCap is the first capacity of the response buffer for a request of n
// bytes: most responses are under 512 bytes or about the request's size, so
// one allocation usually holds the whole response.
func responseCap(n int) int {
	return max(512, min(n+n/4, 64<<10))
}

func badRequest(re *RequestError) []byte { return errorResponse(re.envelope()) }

// envelope returns the INVALID_INPUT envelope of re, as Invoke answers it
// (details {path, op?, offset?}; errorResponse sanitizes them).
func (re *RequestError) envelope() envelope.Envelope {
	d := map[string]any{"path": re.Path}
	if re.Op != "" {
		d["op"] = re.Op
	}
	if re.Offset >= 0 {
		d["offset"] = re.Offset
	}
	return envelope.Envelope{
		Code:    envelope.InvalidInput,
		Message: sanitize.Message(re.Error()),
		Details: d,
		Source:  envelope.SourceOrchestrator,
	}
}

// errorResponse encodes e as {"error": e}. Its details (the op name and the
// member path come from the request) are sanitized and capped like any
// envelope's: a secret in a member name or a 10 MB op name is not echoed.
func errorResponse(e envelope.Envelope) []byte {
	e.Details = sanitize.Details(e.Details)
	out := append(make([]byte, 0, 512), `{"error":`...)
	out, _ = e.AppendCanonical(out)
	return append(out, '}')
}

// opVersion: {} -> {"abi", "version"}.
func opVersion(map[string]any) (any, error) {
	return map[string]any{"abi": ABIVersion, "version": Version}, nil
}

// opCodes: {} -> the registry rows.
func opCodes(map[string]any) (any, error) {
	rows := envelope.Codes()
	out := make([]any, 0, len(rows))
	for _, r := range rows {
		st := make([]any, 0, len(r.Statuses))
		for _, s := range r.Statuses {
			st = append(st, s)
		}
		pe := make([]any, 0, len(r.ProviderErrors))
		for _, p := range r.ProviderErrors {
			pe = append(pe, p)
		}
		out = append(out, map[string]any{
			"code": string(r.Code), "retryable": r.Retryable, "source": string(r.Source),
			"statuses": st, "provider_errors": pe, "meaning": r.Meaning,
		})
	}
	return out, nil
}

// opCanonicalize returns "value" unchanged: Invoke's encoder makes it canonical.
func opCanonicalize(req map[string]any) (any, error) {
	v, ok := req["value"]
	if !ok {
		return nil, field.NewError("value", "is required")
	}
	return v, nil
}

// opSanitize: {"text": string, "max_chars"?: int} -> {"text", "truncated", "original_chars"}.
func opSanitize(req map[string]any) (any, error) {
	text, ok, err := field.Get[string](req, "text", "")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, field.NewError("text", "is required")
	}
	max, hasMax, err := field.Int(req, "max_chars", "", 1, 1<<30)
	if err != nil {
		return nil, err
	}
	out := sanitize.Text(text)
	info := sanitize.CapInfo{OriginalChars: -1}
	if hasMax {
		out, info = sanitize.Cap(out, int(max))
	}
	res := map[string]any{"text": out, "truncated": info.Truncated}
	if info.OriginalChars >= 0 {
		res["original_chars"] = info.OriginalChars
	}
	return res, nil
}

// NewEnvelope builds an envelope for code with the registry's defaults: the
// code's default retryable value and usual source when source is "". message
// and every string in details are sanitized (secrets redacted, one sentence).
// An unregistered code is kept with retryable false (and source
// orchestrator when source is ""). A code that is not a non-empty
// UPPER_SNAKE token, or a source other than "", tool, provider and
// orchestrator, is a *RequestError (Path "code" or "source"), exactly as
// the envelope op reports it. details that JSON cannot carry (a NaN or
// infinite number, a Go type outside the value tree of Parse, or nesting
// past canonical.MaxEncodeDepth, as a map that holds itself has) are a
// *RequestError (Path "details").
func NewEnvelope(code Code, message string, details map[string]any, source Source) (Envelope, error) {
	if err := envelope.CheckNew(code, source); err != nil {
		return Envelope{}, requestError("envelope", err)
	}
	if err := canonical.CheckValue(details); err != nil {
		return Envelope{}, requestError("envelope", field.NewError("details", "must be JSON values: "+err.Error()))
	}
	info, known := envelope.Lookup(code)
	if source == "" {
		source = SourceOrchestrator
		if known {
			source = info.Source
		}
	}
	return Envelope{
		Code:      code,
		Message:   sanitize.Message(message),
		Retryable: known && info.Retryable,
		Details:   sanitize.Details(details),
		Source:    source,
	}, nil
}

// opEnvelope: {"code", "message", "retryable"?, "details"?, "source"?} -> the
// normalized envelope: defaults from the registry, text sanitized.
func opEnvelope(req map[string]any) (any, error) {
	code, _, err := field.Get[string](req, "code", "")
	if err != nil {
		return nil, err
	}
	msg, _, err := field.Get[string](req, "message", "")
	if err != nil {
		return nil, err
	}
	details, _, err := field.Get[map[string]any](req, "details", "")
	if err != nil {
		return nil, err
	}
	src, _, err := field.Get[string](req, "source", "")
	if err != nil {
		return nil, err
	}
	r, hasR, err := field.Get[bool](req, "retryable", "")
	if err != nil {
		return nil, err
	}
	e, err := NewEnvelope(Code(code), msg, details, Source(src))
	if err != nil {
		return nil, err
	}
	if hasR {
		e.Retryable = r
	}
	return e, nil
}
