package core

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/egress"
)

// typedEgressError runs an egress_error request through the typed Go API:
// members decoded by type assertion alone, the typed function called, its
// reply encoded as the op encodes it. ok is false when the Go types cannot
// express the request (a member of the wrong JSON type, a source, tool or
// attempt, which the typed API has no place for, not exactly one failure).
func typedEgressError(req map[string]any) (any, error, bool) {
	ingress, ok1 := str(req, "ingress")
	pol, ok2 := str(req, "upstream_message")
	if present(req, "gateway") {
		return typedGatewayError(req, ingress, ok1 && ok2 && !present(req, "upstream"))
	}
	up, ok3 := req["upstream"].(map[string]any)
	if !ok1 || !ok2 || !ok3 || pol != "" && pol != "keep" && pol != "drop" {
		return nil, nil, false
	}
	opt := EgressOptions{DropUpstreamMessage: pol == "drop"}
	var ok bool
	if opt.Upstream, ok = str(up, "provider"); !ok {
		return nil, nil, false
	}
	now, ok := num(up, "now_ms")
	if !ok || present(up, "now_ms") && (now <= 0 || now != float64(int64(now))) || present(up, "source") || present(up, "tool") || present(up, "attempt") {
		return nil, nil, false
	}
	opt.NowMs = int64(now)
	n := 0
	for _, k := range [...]string{"http", "sse_event", "error_text"} {
		if up[k] != nil {
			n++
		}
	}
	if n != 1 {
		return nil, nil, false
	}
	var r ErrorReply
	var err error
	switch {
	case up["http"] != nil:
		h, isObj := up["http"].(map[string]any)
		status, ok := num(h, "status")
		if !isObj || !ok || !present(h, "status") || status != float64(int(status)) {
			return nil, nil, false
		}
		header := map[string][]string{}
		hm, _ := h["headers"].(map[string]any)
		for k, v := range hm {
			s, isStr := v.(string)
			if !isStr {
				return nil, nil, false
			}
			header[k] = []string{s}
		}
		if head, isHead := h["head"].(string); isHead {
			// A success given by its head: EgressSuccessHead tells read or pass
			// (the op's refusals of a head beside a body, with a status that is
			// no success's or past 3*EgressSuccessHeadBytes of text have no
			// typed form).
			if present(h, "body") || status < 200 || status > 299 || len(head) > 3*EgressSuccessHeadBytes {
				return nil, nil, false
			}
			if read, _ := EgressSuccessHead([]byte(head)); read {
				return map[string]any{"read": true}, nil, true
			}
			return map[string]any{"pass": true}, nil, true
		}
		if present(h, "head") {
			return nil, nil, false
		}
		if status >= 200 && status <= 299 {
			var isError bool
			if r, isError, err = EgressSuccessError(Format(ingress), header, bodyBytes(h["body"]), opt); err == nil && !isError {
				return map[string]any{"pass": true}, nil, true
			}
			break
		}
		r, err = EgressHTTPError(Format(ingress), int(status), header, bodyBytes(h["body"]), opt)
	case up["sse_event"] != nil:
		s, isObj := up["sse_event"].(map[string]any)
		event, ok := str(s, "event")
		emitted, isBool := s["content_emitted"].(bool)
		if !isObj || !ok || !isBool && present(s, "content_emitted") {
			return nil, nil, false
		}
		opt.ContentEmitted = emitted
		if head, isHead := s["head"].(string); isHead && !present(s, "event") && !present(s, "data") {
			var isError bool
			if r, isError, err = EgressStreamHead(Format(ingress), []byte(head), opt); err == nil && !isError {
				return map[string]any{"pass": true}, nil, true
			}
			break
		}
		if present(s, "head") {
			return nil, nil, false
		}
		r, err = EgressStreamError(Format(ingress), event, bodyBytes(s["data"]), opt)
	default:
		text, isStr := up["error_text"].(string)
		if !isStr {
			return nil, nil, false
		}
		r, err = EgressTransportError(Format(ingress), errors.New(text), opt)
	}
	if err != nil {
		return nil, err, true
	}
	return typedReplyValue(r), nil, true
}

// typedGatewayError is typedEgressError for a request with a gateway
// member, through EgressGatewayError; ok as typedEgressError's (a request
// with an upstream too has no typed form).
func typedGatewayError(req map[string]any, ingress string, ok bool) (any, error, bool) {
	g, isObj := req["gateway"].(map[string]any)
	status, okStatus := num(g, "status")
	msg, okMsg := str(g, "message")
	param, okParam := str(g, "param")
	if !ok || !isObj || !okStatus || !present(g, "status") || status != float64(int(status)) || !okMsg || !okParam {
		return nil, nil, false
	}
	r, err := EgressGatewayError(Format(ingress), GatewayError{Status: int(status), Message: msg, Param: param})
	if err != nil {
		return nil, err, true
	}
	return typedReplyValue(r), nil, true
}

// typedReplyValue is the op's result for r, a reply of the typed API.
func typedReplyValue(r ErrorReply) any {
	body, err := canonical.Parse(r.Body)
	if err != nil {
		panic(err)
	}
	return errorReplyValue(egress.Response{Status: r.Status, Header: r.Header, Event: r.Event, Body: body.(map[string]any), Envelope: r.Envelope})
}

// TestEgressTypedAPI_agreesWithOps: for every egress_error fixture the Go
// types can express, the typed API gives the same reply, or the same error,
// as Invoke.
func TestEgressTypedAPI_agreesWithOps(t *testing.T) {
	agreesWithOp(t, "egress_error", typedEgressError)
}

func TestEgressTransportError_goErrors(t *testing.T) {
	r, err := EgressTransportError(FormatAnthropic, errTimeout{}, EgressOptions{Upstream: "anthropic"})
	require.NoError(t, err)
	assert.Equal(t, 504, r.Status)
	assert.Equal(t, CodeTimeout, r.Envelope.Code)
	assert.JSONEq(t, `{"type":"error","error":{"type":"timeout_error","message":"The Anthropic API timed out; retry later.","toolerr":`+
		string(mustJSON(t, r.Envelope))+`}}`, string(r.Body))
	_, err = EgressTransportError("mcp", errTimeout{}, EgressOptions{})
	var re *RequestError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "ingress", re.Path)
	_, err = EgressHTTPError(FormatOpenAIChat, 500, nil, nil, EgressOptions{NowMs: -1})
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "upstream.now_ms", re.Path)
}

type errTimeout struct{}

func (errTimeout) Error() string { return "i/o timeout" }
func (errTimeout) Timeout() bool { return true }

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// TestEgressRequestTypedAPI_agreesWithOps: every egress_request fixture the
// Go types can express gives, through PrepareRequest (the body as bytes),
// the same result or error as Invoke.
func TestEgressRequestTypedAPI_agreesWithOps(t *testing.T) {
	agreesWithOp(t, "egress_request", func(req map[string]any) (any, error, bool) {
		f, ok1 := str(req, "format")
		rules, ok2 := str(req, "id_rules")
		model, ok3 := str(req, "model")
		body, isObj := req["body"].(map[string]any)
		caps, okCaps := capabilities(req)
		if !ok1 || !ok2 || !ok3 || !okCaps || !isObj || present(req, "open_calls") {
			return nil, nil, false
		}
		raw := bodyBytes(body)
		p, err := PrepareRequest(Format(f), raw, TranscriptOptions{IDRules: rules, Model: model, Capabilities: caps})
		if err != nil {
			return nil, err, true
		}
		if !p.Changed {
			require.Equal(t, raw, p.Body, "an unchanged body is the bytes given")
		}
		bv, err := canonical.Parse(p.Body)
		require.NoError(t, err)
		return preparedValue(bv, p), nil, true
	})
}

// capabilities returns the request's capabilities member as the Go type;
// ok is false when it is present but not an object of booleans.
func capabilities(req map[string]any) (map[string]bool, bool) {
	v, has := req["capabilities"]
	if !has {
		return nil, true
	}
	m, isObj := v.(map[string]any)
	if !isObj {
		return nil, false
	}
	out := map[string]bool{}
	for k, x := range m {
		b, isBool := x.(bool)
		if !isBool {
			return nil, false
		}
		out[k] = b
	}
	return out, true
}

func TestPrepareRequest_bytes(t *testing.T) {
	in := []byte(`{"model": "gpt-4o",  "messages": [{"role": "user", "content": "hi"}], "seed": 12345678901234567}`)
	p, err := PrepareRequest("openai", in, TranscriptOptions{})
	require.NoError(t, err)
	assert.False(t, p.Changed)
	assert.Equal(t, in, p.Body, "an unchanged body passes byte for byte, white space and big integers included")
	_, err = PrepareRequest(FormatAnthropic, []byte(`{"messages":[}`), TranscriptOptions{})
	var re *RequestError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "body", re.Path)
	assert.Equal(t, int64(13), re.Offset)
	_, err = PrepareRequest(FormatAnthropic, []byte(`{"messages":[],"messages":[]}`), TranscriptOptions{})
	require.ErrorAs(t, err, &re)
	assert.Contains(t, re.Msg, "duplicate")
	_, err = PrepareRequest(FormatAnthropic, make([]byte, MaxRequestBytes+1), TranscriptOptions{})
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "body", re.Path)
}

// TestEgressResponseTypedAPI_agreesWithOps: every egress_response fixture
// gives, through ConvertResponse (the body as bytes), the same result or
// error as Invoke.
func TestEgressResponseTypedAPI_agreesWithOps(t *testing.T) {
	agreesWithOp(t, "egress_response", func(req map[string]any) (any, error, bool) {
		from, ok1 := str(req, "from")
		to, ok2 := str(req, "to")
		now, ok3 := num(req, "now_ms")
		body, isObj := req["body"].(map[string]any)
		nm, _ := req["name_map"].(map[string]any)
		names := map[string]string{}
		okNames := true
		for k, x := range nm {
			s, isStr := x.(string)
			okNames = okNames && isStr
			names[k] = s
		}
		if !ok1 || !ok2 || !ok3 || !isObj || !okNames || from == "" || to == "" {
			return nil, nil, false
		}
		c, err := ConvertResponse(Format(from), Format(to), bodyBytes(body), names, int64(now))
		if err != nil {
			return nil, err, true
		}
		bv, err := canonical.Parse(c.Body)
		require.NoError(t, err)
		res := map[string]any{"body": bv}
		if len(c.Notes) > 0 {
			n := make([]any, len(c.Notes))
			for i, s := range c.Notes {
				n[i] = s
			}
			res["notes"] = n
		}
		return res, nil, true
	})
}

// TestEgressElementHead: an array element's head that opens an "error"
// object gets the reply a data-only event's head gets (EgressStreamHead),
// one that does not passes, and an unknown ingress is an error whatever
// the head.
func TestEgressElementHead(t *testing.T) {
	opt := EgressOptions{Upstream: "gemini", NowMs: 1, ContentEmitted: true}
	rep, ok, err := EgressElementHead(FormatGemini, []byte("{ \"error\" : {\"code\":503,\"message\":\"cut"), opt)
	require.NoError(t, err)
	require.True(t, ok)
	want, ok, err := EgressStreamHead(FormatGemini, []byte("data: {\"error\":{\"code\":503"), opt)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, string(want.Body), string(rep.Body))
	assert.Equal(t, Code("SERVER_ERROR"), rep.Envelope.Code)
	assert.Equal(t, true, rep.Envelope.Details["partial_output"])
	_, ok, err = EgressElementHead(FormatGemini, []byte(`{"candidates":[{"content":`), opt)
	require.NoError(t, err)
	assert.False(t, ok)
	_, _, err = EgressElementHead(Format("nope"), []byte(`{"error":{`), opt)
	var re *RequestError
	require.ErrorAs(t, err, &re)
}
