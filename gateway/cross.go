package gateway

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/toolerr/toolerr/core"
	"github.com/toolerr/toolerr/egress"
)

// crossing is a request routed to an upstream of another family (Config.Routes).
type crossing struct {
	to    core.Format       // the upstream's format
	path  string            // the upstream's path
	names map[string]string // the request conversion's renamed functions (new -> the client's)
}

// errConvertResponse is the error modifyResponse returns for an upstream
// success it could not convert into the client's shape, one longer than
// core.MaxRequestBytes, or one in a content coding egress.DecodeBody
// cannot undo (the client gets the gateway's own 502).
var errConvertResponse = errors.New("gateway: the upstream's response could not be converted")

// cross converts a request body of route rt (the model from its path, for
// Gemini) for an upstream of format to, and the auth header with it. On
// failure it has answered the client (400 in the route's native shape) and
// failed is true.
func (g *Gateway) cross(w http.ResponseWriter, r *http.Request, rt route, to core.Format, body []byte, model string) (out []byte, c *crossing, failed bool) {
	v, err := core.ParseJSON(body)
	m, isObj := v.(map[string]any)
	if err != nil || !isObj {
		g.refuse(w, rt, "the request body is not a JSON object, so it cannot be converted for the "+string(to)+" upstream", "body")
		return nil, nil, true
	}
	if rt == routeCountTokens {
		g.refuse(w, rt, "toolerr gateway routes Anthropic requests to "+string(to)+", which counts no tokens apart", "body")
		return nil, nil, true
	}
	if rt == routeStreamGenerate || m["stream"] == true {
		g.refuse(w, rt, "toolerr gateway routes "+string(rt.Format)+" requests to "+string(to)+" without streaming; send the request without stream, or route this API to its own family", "stream")
		return nil, nil, true
	}
	if rt.Format != core.FormatGemini {
		model, _ = m["model"].(string)
	}
	if to == core.FormatGemini && model == "" {
		g.refuse(w, rt, "a request routed to Gemini names its model in the model member", "model")
		return nil, nil, true
	}
	bc, err := core.ConvertBody(rt.Format, to, m, core.TranscriptOptions{Model: model})
	if err != nil {
		var re *core.RequestError
		path := "body"
		if errors.As(err, &re) {
			path = re.Path
		}
		g.refuse(w, rt, "the request body cannot be converted for the "+string(to)+" upstream", path)
		return nil, nil, true
	}
	switch to {
	case core.FormatGemini:
		delete(bc.Body, "model") // in the path
	case core.FormatAnthropic:
		if _, has := bc.Body["max_tokens"]; !has {
			bc.Body["max_tokens"] = g.cfg.DefaultMaxTokens // required by the Messages API
		}
		fallthrough
	default:
		if model != "" {
			bc.Body["model"] = model
		}
	}
	out, err = core.AppendJSON(nil, bc.Body)
	if err != nil {
		g.refuse(w, rt, "the converted request body cannot be written", "body")
		return nil, nil, true
	}
	translateAuth(r, rt.Format, to)
	g.log.LogAttrs(r.Context(), slog.LevelDebug, "toolerr gateway converted a request", slog.String("route", rt.Name), slog.String("to", string(to)), slog.Int("notes", len(bc.Notes)))
	return out, &crossing{to: to, path: upstreamPath(to, model), names: bc.NameMap}, false
}

// refuse answers a request the gateway cannot route with its own 400 in
// the route's native shape (core.EgressGatewayError): its sentence msg as
// the native message, param naming the member at fault.
func (g *Gateway) refuse(w http.ResponseWriter, rt route, msg, param string) {
	g.writeOwn(w, rt, core.GatewayError{Status: http.StatusBadRequest, Message: msg, Param: param})
}

// translateAuth moves the client's credential from the header its API
// takes to the one the upstream's takes: OpenAI's Authorization: Bearer,
// Anthropic's x-api-key (with anthropic-version 2023-06-01 when the client
// sent none), Gemini's x-goog-api-key (or its ?key= query parameter). The
// gateway holds no credential of its own: the client sends the upstream's.
//
// See https://platform.openai.com/docs/api-reference/authentication,
// https://docs.claude.com/en/api/overview#authentication and
// https://ai.google.dev/gemini-api/docs/api-key.
func translateAuth(r *http.Request, from, to core.Format) {
	h := r.Header
	key := ""
	switch from {
	case core.FormatAnthropic:
		key = h.Get("X-Api-Key")
	case core.FormatGemini:
		if key = h.Get("X-Goog-Api-Key"); key == "" {
			key = r.URL.Query().Get("key")
		}
	}
	if key == "" {
		key, _ = strings.CutPrefix(h.Get("Authorization"), "Bearer ")
	}
	h.Del("Authorization")
	h.Del("X-Api-Key")
	h.Del("X-Goog-Api-Key")
	if key == "" {
		return
	}
	switch to {
	case core.FormatAnthropic:
		h.Set("X-Api-Key", key)
		if h.Get("Anthropic-Version") == "" {
			h.Set("Anthropic-Version", "2023-06-01")
		}
	case core.FormatGemini:
		h.Set("X-Goog-Api-Key", key)
	default:
		h.Set("Authorization", "Bearer "+key)
	}
}

// convertResponse turns an upstream success of a routed request into the
// client's shape, or, when it is no success of the upstream's format,
// into the error op's 502 in the client's shape.
func (g *Gateway) convertResponse(resp *http.Response, ex *exchange) error {
	// A body left in a content coding is read decoded; one in a coding no
	// reader here undoes (br, zstd) cannot be converted.
	if err := egress.DecodeResponse(resp); err != nil {
		return errConvertResponse
	}
	// One byte past the bound is read, so that a longer body is refused
	// whole instead of cut at the bound (a cut body might parse: a value
	// followed by whitespace up to the bound, then more).
	raw, err := io.ReadAll(io.LimitReader(resp.Body, core.MaxRequestBytes+1))
	_ = resp.Body.Close()
	if err != nil {
		return err // a body cut, or one not what its coding says (egress.ErrContentCoding): transportError answers
	}
	if len(raw) > core.MaxRequestBytes {
		return errConvertResponse
	}
	c, err := core.ConvertResponse(ex.cross.to, ex.route.Format, raw, ex.cross.names, g.cfg.Now().UnixMilli())
	if err != nil {
		// No success of the upstream's format (an error object under a
		// 200, an empty {}, a member of the wrong type): never an empty
		// completion. It goes through the error op as the 502 it is, so
		// the client gets its own family's error shape with the envelope
		// the upstream's error type gives (an overloaded_error stays
		// retryable).
		resp.StatusCode, resp.Status = http.StatusBadGateway, "502 Bad Gateway"
		resp.Body = io.NopCloser(bytes.NewReader(raw))
		rep, rewritten, err := egress.RewriteError(resp, ex.route.Format, g.errorOptions(ex))
		if err != nil || !rewritten { // unreachable: the body is in memory, 502 is in range
			return errConvertResponse
		}
		ex.upstream = rep.Envelope.Code
		g.metrics.upstreamError(ex.route, rep.Envelope.Code, false)
		return nil
	}
	resp.Header.Set("Content-Type", "application/json")
	resp.Header.Del("Content-Encoding")
	resp.Header.Set("Content-Length", strconv.Itoa(len(c.Body)))
	resp.ContentLength = int64(len(c.Body))
	resp.Body = io.NopCloser(bytes.NewReader(c.Body))
	resp.Trailer = nil // the upstream's describe its own body (RFC 9110, 6.5.1), not the conversion
	return nil
}
