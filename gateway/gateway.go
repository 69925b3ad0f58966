package gateway

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/toolerr/toolerr/core"
	"github.com/toolerr/toolerr/egress"
)

// Gateway is an http.Handler serving the routes of the gateway, /metrics
// and /healthz. Make one with New; it is safe for concurrent use.
type Gateway struct {
	cfg     Config
	bases   map[string]*url.URL
	routes  map[core.Format]core.Format // Config.Routes, names resolved
	proxy   *httputil.ReverseProxy
	metrics *metrics
	metricH http.Handler
	log     *slog.Logger
	slots   chan struct{} // one per route request being served (Config.MaxConcurrent); nil: no bound
	bodies  sync.Pool     // *bytes.Buffer: request bodies read, lent back when the upstream is done with them
}

var _ http.Handler = (*Gateway)(nil)

// New returns a Gateway for cfg (zero fields take their defaults). An
// unknown upstream family, a base URL that is not http(s) or a body limit
// out of range is an error matching ErrConfig; a Registerer that already
// holds the gateway's metrics is the registry's error.
func New(cfg Config) (*Gateway, error) {
	cfg, bases, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	g := &Gateway{cfg: cfg, bases: bases, log: cfg.Logger, routes: map[core.Format]core.Format{}}
	if cfg.MaxConcurrent > 0 {
		g.slots = make(chan struct{}, cfg.MaxConcurrent)
	}
	for from, to := range cfg.Routes {
		f, _ := core.CanonicalFormat(from)
		t, _ := core.CanonicalFormat(to)
		g.routes[f] = t
	}
	reg := cfg.Registerer
	if reg == nil {
		r := prometheus.NewRegistry()
		reg, g.metricH = r, promhttp.HandlerFor(r, promhttp.HandlerOpts{})
	} else if gatherer, ok := reg.(prometheus.Gatherer); ok {
		g.metricH = promhttp.HandlerFor(gatherer, promhttp.HandlerOpts{})
	}
	if g.metrics, err = newMetrics(reg); err != nil {
		return nil, err
	}
	g.proxy = &httputil.ReverseProxy{
		Rewrite:        g.rewrite,
		Transport:      hopTransport{rt: cfg.Transport},
		FlushInterval:  -1, // every write reaches the client at once: a stream passes event by event
		ModifyResponse: g.modifyResponse,
		ErrorHandler:   g.transportError,
		BufferPool:     &bufferPool{},
		ErrorLog:       ErrorLog(cfg.Logger.Handler()), // its messages quote the upstream's bytes
	}
	return g, nil
}

// exchange is one request on its way through the gateway: its route, the
// model named in its path, and what happened, for the log record.
type exchange struct {
	route      route
	model      string
	cross      *crossing // nil: the route's own family
	status     int
	upstream   core.Code // the upstream failure's code, "" when none
	streamErrs int
	interim    int                // the upstream's 1xx so far (statusWriter)
	cancel     context.CancelFunc // ends the upstream exchange: past maxInterim 1xx
}

type ctxKey struct{}

func exchangeOf(ctx context.Context) *exchange {
	ex, _ := ctx.Value(ctxKey{}).(*exchange)
	return ex
}

// ServeHTTP serves one request: /healthz, /metrics, or a route, whose body
// goes through the request op (decoded, when it has a Content-Encoding the
// gateway undoes), then upstream, and whose answer comes back through the
// error op when it is a failure.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/healthz":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "ok\n")
		return
	case "/metrics":
		if g.metricH != nil {
			g.metricH.ServeHTTP(w, r)
			return
		}
	}
	rt, model, ok := match(r)
	if !ok {
		notFound(w, r)
		return
	}
	start := g.cfg.Now()
	g.metrics.inFlight.Inc()
	defer g.metrics.inFlight.Dec()
	ex := &exchange{route: rt, model: model}
	sw := &statusWriter{ResponseWriter: w, ex: ex}
	defer func() {
		g.metrics.requests.WithLabelValues(rt.Name, strconv.Itoa(sw.code())).Inc()
		g.metrics.duration.WithLabelValues(rt.Name).Observe(g.cfg.Now().Sub(start).Seconds())
	}()

	if g.slots != nil {
		select {
		case g.slots <- struct{}{}:
			defer func() { <-g.slots }()
		default:
			g.ownError(sw, rt, http.StatusServiceUnavailable)
			g.log.LogAttrs(r.Context(), slog.LevelWarn, "toolerr gateway request", slog.String("route", rt.Name), slog.Int("status", sw.code()), slog.String("error", "over the bound of concurrent requests"))
			return
		}
	}
	buf, failed := g.readBody(sw, r, rt)
	if failed {
		g.log.LogAttrs(r.Context(), slog.LevelInfo, "toolerr gateway request", slog.String("route", rt.Name), slog.Int("status", sw.code()), slog.String("error", "request body not read"))
		return
	}
	// body is the body to send: as it came, unless the op changed it or it
	// is routed to another family. content is what the op and the
	// conversion read: the body with its content codings undone.
	body := buf.Bytes()
	content, dec, codingErr := g.decodeBody(r, body)
	if codingErr != nil && isTooLarge(codingErr) {
		g.putBody(buf)
		g.ownError(sw, rt, http.StatusRequestEntityTooLarge)
		g.log.LogAttrs(r.Context(), slog.LevelInfo, "toolerr gateway request", slog.String("route", rt.Name), slog.Int("status", sw.code()), slog.String("error", "request body past the bound once decoded"))
		return
	}
	identity := false // the body sent is decoded content: its Content-Encoding goes
	// The log record's attributes are gathered only when it is written.
	logged := g.log.Enabled(r.Context(), slog.LevelInfo)
	var attrs []slog.Attr
	if logged {
		attrs = make([]slog.Attr, 1, 8) // route, the changes (usually none), routed_to, status, duration, upstream_code
		attrs[0] = slog.String("route", rt.Name)
	}
	err := codingErr
	if err == nil {
		var p core.PreparedRequest
		if p, err = (egress.Endpoint{API: rt.Name, Format: rt.Format, Model: model}).Prepare(content); err == nil {
			content = p.Body
			if p.Changed {
				body, identity = p.Body, dec != nil
			}
			g.metrics.prepared(rt, p)
			if logged && p.Changed {
				attrs = append(attrs, changeAttrs(p)...)
			}
		}
	}
	if err != nil {
		// A body the op cannot read goes as it came: the upstream answers
		// it in its own words, and the gateway never blocks a request.
		g.metrics.opFailures.WithLabelValues(rt.Name).Inc()
		var re *core.RequestError
		switch {
		case !logged:
		case codingErr != nil:
			attrs = append(attrs, slog.String("request_op_error", "content-encoding"))
		case errors.As(err, &re):
			attrs = append(attrs, slog.String("request_op_error", re.Path))
		}
	}

	if to, ok := g.routes[rt.Format]; ok {
		var failed bool
		if codingErr != nil {
			g.refuse(sw, rt, "the request body's Content-Encoding cannot be read, so it cannot be converted for the "+string(to)+" upstream", "content-encoding")
			failed = true
		} else if body, ex.cross, failed = g.cross(sw, r, rt, to, content, model); !failed {
			identity = dec != nil
		}
		if failed {
			g.putBody(buf)
			g.putDecoded(dec)
			g.log.LogAttrs(r.Context(), slog.LevelInfo, "toolerr gateway request", slog.String("route", rt.Name), slog.Int("status", sw.code()), slog.String("error", "not routed to "+string(to)))
			return
		}
		attrs = append(attrs, slog.String("routed_to", string(to)))
	}
	// The body sent is raw's bytes, the op's or the conversion's, never
	// dec's: its buffer goes back now.
	g.putDecoded(dec)
	if identity {
		r.Header.Del("Content-Encoding")
	}

	ctx := context.WithValue(r.Context(), ctxKey{}, ex)
	if g.cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, g.cfg.Timeout)
		defer cancel()
		ex.cancel = cancel
		// Cancelling the upstream's exchange ends no write blocked on a
		// client that never reads: the writes get the Timeout too, and a
		// grace for the last of them (a 504 written at the deadline).
		rc := http.NewResponseController(sw)
		_ = rc.SetWriteDeadline(g.cfg.Now().Add(g.cfg.Timeout + writeGrace))
		defer func() { _ = rc.SetWriteDeadline(time.Time{}) }()
	} else {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		ex.cancel = cancel
	}
	// A shallow copy with the body to send: the proxy clones it (headers
	// included) for the outbound request, so a deep Clone here would copy
	// every header twice.
	out := r.WithContext(ctx)
	// A client's Upgrade (websocket, h2c) never goes upstream: a 101 would
	// open a raw tunnel between them, past every rule here. The request
	// goes without it; an upstream that switches anyway gets 502.
	out.Header.Del("Upgrade")
	sent := newSentBody(g, body, buf)
	out.Body = sent
	out.ContentLength = int64(len(body))
	out.TransferEncoding = nil
	g.metrics.upstreamCalls.WithLabelValues(rt.Name).Inc()
	cut := g.serveProxy(sw, out)
	_ = sent.Close()
	if cut {
		// The response was cut after its headers: the connection must
		// end without the rest, as net/http ends it for the proxy.
		defer panic(http.ErrAbortHandler)
	}

	if !logged {
		return
	}
	attrs = append(attrs, slog.Int("status", sw.code()), slog.Int64("duration_ms", g.cfg.Now().Sub(start).Milliseconds()))
	if ex.upstream != "" {
		attrs = append(attrs, slog.String("upstream_code", string(ex.upstream)))
	}
	if ex.streamErrs > 0 {
		attrs = append(attrs, slog.Int("stream_errors", ex.streamErrs))
	}
	if cut {
		attrs = append(attrs, slog.String("cut", cutCause(r.Context(), ctx)))
	}
	g.log.LogAttrs(r.Context(), slog.LevelInfo, "toolerr gateway request", attrs...)
}

// serveProxy serves r through the proxy; cut is true when the response
// was cut after its headers were sent (the upstream's body failed, the
// Timeout passed or the client went away in the middle of it), which
// ReverseProxy tells by panicking with http.ErrAbortHandler: recovered
// here, so that the request is still logged, and raised again by the
// caller. Any other panic goes on as it was.
func (g *Gateway) serveProxy(w http.ResponseWriter, r *http.Request) (cut bool) {
	defer func() {
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler { //nolint:errorlint // ReverseProxy panics with the sentinel itself
				panic(v)
			}
			cut = true
		}
	}()
	g.proxy.ServeHTTP(w, r)
	return false
}

// cutCause names, for the log, why a response was cut: "timeout" when
// Config.Timeout passed (out, the upstream exchange's), "client" when the
// client went away before (in, its request's context, ended), else "upstream"
// (its body failed: a connection cut, a coding that did not decode).
func cutCause(in, out context.Context) string {
	// The Timeout first: a write to a client that stopped reading fails
	// at its deadline, and ends the client's context after it.
	switch {
	case errors.Is(out.Err(), context.DeadlineExceeded):
		return "timeout"
	case in.Err() != nil:
		return "client"
	}
	return "upstream"
}

// writeGrace is how long past Config.Timeout the gateway may still write
// to a client: the answer the Timeout's end gives (504, or the stream's
// last event) must get out, but no write blocks longer.
const writeGrace = time.Second

// presizeLimit is the most readBody reserves ahead of the bytes received.
const presizeLimit = 1 << 20

// readBody reads the request body within the size and time limits into a
// buffer of g.bodies. On failure it has answered the client (413 for a body
// over the limit, 408 for one that did not arrive in time, 400 for a broken
// one, each in the route's native error shape) and failed is true.
func (g *Gateway) readBody(w http.ResponseWriter, r *http.Request, rt route) (body *bytes.Buffer, failed bool) {
	rc := http.NewResponseController(w)
	if g.cfg.ReadTimeout > 0 {
		_ = rc.SetReadDeadline(g.cfg.Now().Add(g.cfg.ReadTimeout))
		// The deadline is for the body alone: a stream's response may run
		// far longer, and the server's background read must not hit it.
		defer func() { _ = rc.SetReadDeadline(time.Time{}) }()
	}
	if r.ContentLength > g.cfg.MaxBodyBytes {
		g.ownError(w, rt, http.StatusRequestEntityTooLarge)
		return nil, true
	}
	// A body of known length is read into one buffer of its size (plus
	// the room ReadFrom wants to see EOF), not grown by doubling; up to
	// presizeLimit only, so that a Content-Length claimed but never sent
	// reserves no more than that.
	buf := g.getBody()
	if r.ContentLength > 0 {
		buf.Grow(int(min(r.ContentLength, presizeLimit)) + bytes.MinRead)
	}
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, g.cfg.MaxBodyBytes))
	if err == nil {
		return buf, false
	}
	g.putBody(buf)
	var tooLarge *http.MaxBytesError
	var timeout interface{ Timeout() bool }
	switch {
	case errors.As(err, &tooLarge):
		g.ownError(w, rt, http.StatusRequestEntityTooLarge)
	case errors.As(err, &timeout) && timeout.Timeout():
		g.ownError(w, rt, http.StatusRequestTimeout)
	default:
		g.ownError(w, rt, http.StatusBadRequest)
	}
	return nil, true
}

// getBody returns an empty buffer of g.bodies.
func (g *Gateway) getBody() *bytes.Buffer {
	buf, _ := g.bodies.Get().(*bytes.Buffer)
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	buf.Reset()
	return buf
}

// decodeBody returns the content of raw, the request body of r, with the
// content codings of its Content-Encoding undone (egress.DecodeBody: gzip,
// x-gzip, deflate) in a buffer of g.bodies, dec; content is raw and dec
// nil when r names no coding. At most Config.MaxBodyBytes of content are
// read (a body of a few KiB may decode to GiB): past them err is an
// *http.MaxBytesError. err matches egress.ErrContentCoding for a coding it
// cannot undo (br, zstd), else is the coding's read error (a body that is
// not what its coding says); content is then raw and dec nil.
func (g *Gateway) decodeBody(r *http.Request, raw []byte) (content []byte, dec *bytes.Buffer, err error) {
	if _, has := r.Header["Content-Encoding"]; !has { // most bodies: no reader made
		return raw, nil, nil
	}
	src, coded, err := egress.DecodeBody(r.Header, io.NopCloser(bytes.NewReader(raw)))
	if err != nil || !coded {
		return raw, nil, err
	}
	dec = g.getBody()
	n, err := dec.ReadFrom(io.LimitReader(src, g.cfg.MaxBodyBytes+1))
	if err == nil && n > g.cfg.MaxBodyBytes {
		err = &http.MaxBytesError{Limit: g.cfg.MaxBodyBytes}
	}
	if err != nil {
		g.putBody(dec)
		return raw, nil, err
	}
	return dec.Bytes(), dec, nil
}

// isTooLarge reports an *http.MaxBytesError in err's chain.
func isTooLarge(err error) bool {
	var tooLarge *http.MaxBytesError
	return errors.As(err, &tooLarge)
}

// putDecoded lends dec, a buffer of decodeBody, back to g.bodies; nil is
// none.
func (g *Gateway) putDecoded(dec *bytes.Buffer) {
	if dec != nil {
		g.putBody(dec)
	}
}

// putBody lends buf back to g.bodies, unless it grew past what readBody
// reserves for one body (a pool of such buffers would hold their memory
// for the next request of any size).
func (g *Gateway) putBody(buf *bytes.Buffer) {
	if buf.Cap() <= presizeLimit+bytes.MinRead {
		g.bodies.Put(buf)
	}
}

// sentBody is the body of the outbound request: the bytes to send, read
// from r, whose read buffer buf goes back to the pool at Close, which
// ServeHTTP calls once the proxy has answered. ReverseProxy keeps the
// Transport from closing it (its noopCloseReader), and a write the
// upstream never waited for (an early answer) may still be reading it
// then: Read and Close hold mu, so that no read ever meets a buffer lent
// again, and a read after Close ends that write.
type sentBody struct {
	mu     sync.Mutex
	r      bytes.Reader
	g      *Gateway
	buf    *bytes.Buffer
	closed bool
}

func newSentBody(g *Gateway, body []byte, buf *bytes.Buffer) *sentBody {
	b := &sentBody{g: g, buf: buf}
	b.r.Reset(body)
	return b
}

func (b *sentBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return 0, errBodyClosed
	}
	return b.r.Read(p)
}

func (b *sentBody) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.closed = true
		b.r.Reset(nil)
		b.g.putBody(b.buf)
	}
	return nil
}

// errUnreadableStream is the error modifyResponse returns for an upstream
// stream in a content coding egress.DecodeBody cannot undo (the client gets
// the gateway's own 502).
var errUnreadableStream = errors.New("gateway: the upstream's stream is in a content coding the gateway cannot read")

// errUpstreamAnswer is the error modifyResponse returns for an upstream
// answer the gateway never passes on, a redirect (3xx) or a switch of
// protocols (101): the client gets the gateway's own 502.
var errUpstreamAnswer = errors.New("gateway: the upstream answered with a redirect or a switch of protocols")

// errInterimFlood is the error modifyResponse returns for a final response
// of an exchange cancelled past maxInterim 1xx (the client gets the
// gateway's own 502).
var errInterimFlood = errors.New("gateway: the upstream sent more interim responses than the gateway passes")

var errBodyClosed = errors.New("toolerr gateway: request body read after close")

// ownError answers the client with a failure the gateway found itself (a
// body too large, too slow or broken, the bound of concurrent requests
// reached, an upstream answer it cannot pass on) as the error op answers
// its own refusal (core.EgressGatewayError): the client's native shape, in
// the gateway's name (source orchestrator, "The gateway ..."), never as the
// model provider's.
func (g *Gateway) ownError(w http.ResponseWriter, rt route, status int) {
	g.writeOwn(w, rt, core.GatewayError{Status: status})
}

// writeOwn answers the client with e, a refusal of the gateway's own. A
// param the op refuses (a member path with a character outside a token's,
// from a key of the client's body) is left out rather than the reply.
func (g *Gateway) writeOwn(w http.ResponseWriter, rt route, e core.GatewayError) {
	rep, err := core.EgressGatewayError(rt.Format, e)
	if err != nil && e.Param != "" {
		e.Param = ""
		rep, err = core.EgressGatewayError(rt.Format, e)
	}
	if err != nil { // unreachable: a route's format has an error shape and status is 400-599
		http.Error(w, http.StatusText(e.Status), e.Status)
		return
	}
	writeReply(w, rep)
}

// writeReply writes an error reply of the error op as the whole response.
func writeReply(w http.ResponseWriter, rep core.ErrorReply) {
	h := w.Header()
	for k, v := range rep.Header {
		h.Set(k, v)
	}
	h.Set("Content-Length", strconv.Itoa(len(rep.Body)))
	w.WriteHeader(rep.Status)
	_, _ = w.Write(rep.Body)
}

// rewrite points the outbound request at the route's upstream: its base
// URL joined with the request's path and query, the upstream's Host. Every
// header but the hop-by-hop ones passes (Authorization, x-api-key,
// x-goog-api-key, anthropic-version, anthropic-beta, OpenAI-Organization,
// ...), but Upgrade (ServeHTTP drops it) and Expect; none is added (no
// X-Forwarded-For). The client's Accept-Encoding is replaced with
// egress.AcceptEncoding (gzip), asked for by name so that the transport
// hands back the body in its coding and the gateway undoes it
// (egress.DecodeBody) for the error op, the stream reader and the client
// (who gets it decoded): bytes that are not what their coding says are
// then told from a connection cut (egress.ErrContentCoding).
func (g *Gateway) rewrite(pr *httputil.ProxyRequest) {
	ex := exchangeOf(pr.In.Context())
	if ex.cross != nil {
		base := g.bases[familyOf(ex.cross.to)]
		pr.SetURL(base)
		// The path is sent as escaped (RawPath); Path is its decoded form.
		raw := base.EscapedPath() + ex.cross.path
		path, err := url.PathUnescape(raw)
		if err != nil { // unreachable: both parts are escaped by the url package
			path = base.Path + ex.cross.path
		}
		pr.Out.URL.Path, pr.Out.URL.RawPath, pr.Out.URL.RawQuery = path, raw, ""
	} else {
		pr.SetURL(g.bases[ex.route.Family])
	}
	pr.Out.Header["Accept-Encoding"] = egress.AcceptEncoding
	// The gateway has the whole body already and its server answered the
	// client's Expect: 100-continue; forwarded, the transport would hold
	// the body back for a 100 (ExpectContinueTimeout) on every request.
	pr.Out.Header.Del("Expect")
	// The body sent is the request op's, of its own length (pr.Out.ContentLength).
	pr.Out.Header.Del("Content-Length")
	pr.Out.Header.Del("Transfer-Encoding")
	// The client's trailers describe the body it sent (RFC 9110, 6.5.1);
	// the one sent is the gateway's, of a known length, with none.
	pr.Out.Trailer = nil
}

// modifyResponse passes a success through (a stream through the stream
// reader), turns an upstream failure into the error op's reply, and
// refuses a 3xx or a 101 (errUpstreamAnswer: the gateway's own 502).
func (g *Gateway) modifyResponse(resp *http.Response) error {
	ex := exchangeOf(resp.Request.Context())
	if ex.interim > maxInterim {
		return errInterimFlood // a final response after the exchange was cancelled
	}
	if resp.StatusCode < 200 || resp.StatusCode >= 300 && resp.StatusCode < 400 {
		// A 101 (the request asked for no upgrade) or a 3xx is no answer
		// the client may have: a redirect's Location would take its SDK
		// past the gateway, to any host, with the body and the credential
		// headers it keeps across origins (httpx drops only Authorization).
		return errUpstreamAnswer
	}
	if resp.StatusCode < 400 && ex.cross != nil {
		return g.convertResponse(resp, ex)
	}
	if resp.StatusCode < 400 {
		if !egress.IsEventStream(resp.Header) && ex.route != routeStreamGenerate {
			// A success passes unread, but decoded when the transport left
			// it in a coding the gateway undoes (x-gzip, deflate): the
			// client's Accept-Encoding never reached the upstream (rewrite
			// drops it), so it gets the body as the transport hands back a
			// gzip one. One in another coding (br) passes as it came.
			// A success that is an error object in place of the answer
			// (Gemini's 200 {"error":{...}}) is answered as the failure
			// it is; one whose head is not what its coding says, with the
			// gateway's own 502 (transportError), not a 200 cut short.
			if egress.DecodeResponse(resp) == nil && resp.StatusCode >= 200 && resp.StatusCode <= 299 {
				_, err := g.successError(resp, ex)
				return err
			}
			return nil
		}
		// A stream left in a content coding is read decoded; one in a
		// coding no reader here undoes (br, zstd) would pass unread,
		// its error events with the upstream's text in them: the
		// client gets the gateway's own 502 instead.
		if err := egress.DecodeResponse(resp); err != nil {
			return errUnreadableStream
		}
		if !egress.IsEventStream(resp.Header) && resp.StatusCode >= 200 && resp.StatusCode <= 299 {
			if ok, err := g.successError(resp, ex); ok || err != nil {
				return err // an array stream answered with one error object, no array, or unreadable
			}
		}
		// An error event rewritten changes the length: the stream goes
		// out chunked.
		resp.Header.Del("Content-Length")
		resp.ContentLength = -1
		resp.Body = egress.ReadStream(resp, egress.StreamConfig{Ingress: ex.route.Format, Options: g.errorOptions(ex), Now: g.cfg.Now,
			OnError: func(rep core.ErrorReply) {
				ex.streamErrs++
				ex.upstream = rep.Envelope.Code
				g.metrics.upstreamError(ex.route, rep.Envelope.Code, true)
			}})
		return nil
	}
	rep, rewritten, err := egress.RewriteError(resp, ex.route.Format, g.errorOptions(ex))
	if err != nil {
		return err // a body cut short: answered by transportError
	}
	if rewritten { // else a status past 599: passed as it came
		ex.upstream = rep.Envelope.Code
		g.metrics.upstreamError(ex.route, rep.Envelope.Code, false)
	}
	return nil
}

// successError answers resp, an upstream's success, as the failure it is
// when its body is an error object in place of the answer
// (egress.RewriteSuccessError), and reports whether it was; err (matching
// egress.ErrContentCoding) is a body whose head is not what its coding
// says, which transportError answers.
func (g *Gateway) successError(resp *http.Response, ex *exchange) (bool, error) {
	rep, ok, err := egress.RewriteSuccessError(resp, ex.route.Format, g.errorOptions(ex))
	if ok {
		ex.upstream = rep.Envelope.Code
		g.metrics.upstreamError(ex.route, rep.Envelope.Code, false)
	}
	return ok, err
}

// transportError answers a request the upstream never answered (a refused
// connection, the Timeout passed before the response headers) in the
// client's native shape: 502, 504, or 499 for a client that went away.
func (g *Gateway) transportError(w http.ResponseWriter, r *http.Request, err error) {
	ex := exchangeOf(r.Context())
	switch {
	case errors.Is(err, egress.ErrContentCoding) || errors.Is(err, errUnreadableStream):
		// A body the gateway must read but cannot: never the decoder's
		// words, nor a transport failure of the upstream's.
		g.writeOwn(w, ex.route, core.GatewayError{Status: http.StatusBadGateway, Message: egress.UnreadableMessage})
		return
	case ex.interim > maxInterim || errors.Is(err, errConvertResponse) || errors.Is(err, errUpstreamAnswer):
		// An exchange cancelled for its 1xx flood fails with the
		// cancellation: no transport failure of the upstream's either.
		g.ownError(w, ex.route, http.StatusBadGateway)
		return
	}
	rep, rerr := core.EgressTransportError(ex.route.Format, err, g.errorOptions(ex))
	if rerr != nil {
		http.Error(w, http.StatusText(http.StatusBadGateway), http.StatusBadGateway)
		return
	}
	ex.upstream = rep.Envelope.Code
	g.metrics.upstreamError(ex.route, rep.Envelope.Code, false)
	writeReply(w, rep)
}

func (g *Gateway) errorOptions(ex *exchange) core.EgressOptions {
	up := ex.route.Format
	if ex.cross != nil {
		up = ex.cross.to
	}
	return core.EgressOptions{Upstream: string(up), NowMs: g.cfg.Now().UnixMilli(), DropUpstreamMessage: g.cfg.DropUpstreamMessage}
}

// changeAttrs are the log attributes of what the request op changed:
// counts only (ids are the conversation's, and stay out of the log).
func changeAttrs(p core.PreparedRequest) []slog.Attr {
	var a []slog.Attr
	for _, kv := range [...]struct {
		k string
		n int
	}{
		{"synthesized", p.Changes.Synthesized}, {"dropped_orphans", p.Changes.DroppedOrphans},
		{"dropped_duplicates", p.Changes.DroppedDuplicates}, {"moved", p.Changes.Moved}, {"merged", p.Changes.Merged},
		{"filled", p.Changes.Filled}, {"renamed", p.Changes.Renamed}, {"split", p.Changes.Split}, {"named", len(p.Named)}, {"flags_restored", len(p.FlagsRestored)},
		{"rewritten_ids", p.Rewritten},
	} {
		if kv.n > 0 {
			a = append(a, slog.Int(kv.k, kv.n))
		}
	}
	return a
}

// notFound answers a method or path the gateway does not serve.
func notFound(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	_, _ = io.WriteString(w, `{"error":{"message":"toolerr gateway serves POST /v1/chat/completions, /v1/responses, /v1/messages, /v1/messages/count_tokens and /v1beta/models/{model}:generateContent and :streamGenerateContent","type":"not_found_error","param":null,"code":"unknown_route"}}`)
}

// bufferPool lends the ReverseProxy its copy buffers (32 KiB, as it
// allocates one per response without a pool): one fewer allocation of
// that size per request. It follows httputil.BufferPool.
type bufferPool struct{ p sync.Pool }

func (b *bufferPool) Get() []byte {
	if v, ok := b.p.Get().(*[32 << 10]byte); ok {
		return v[:]
	}
	return new([32 << 10]byte)[:]
}

// Put takes back a buffer Get lent (the array it slices, so that no
// slice header is allocated to hold it).
func (b *bufferPool) Put(buf []byte) {
	if cap(buf) == 32<<10 {
		b.p.Put((*[32 << 10]byte)(buf[:32<<10]))
	}
}

// maxInterim is the most 1xx of one upstream exchange the gateway takes
// (net/http's transport takes five without a trace hook; with
// ReverseProxy's it takes any number): past it, the exchange is cancelled
// and the client gets the gateway's own 502.
const maxInterim = 5

// statusWriter records the final status written (never a 1xx), filters
// the upstream's interim responses, and passes Flush and the rest of
// http.ResponseController's methods through (Unwrap).
type statusWriter struct {
	http.ResponseWriter
	ex     *exchange
	status int
}

// WriteHeader writes the status code. A 1xx is an interim response (RFC
// 9110, 15.2), which ReverseProxy forwards as the upstream sends it, with
// every header of the upstream's: not the request's status. A 100
// Continue is the upstream's answer to an Expect the gateway never sent
// (its server answered the client's), and is dropped; any other (103 Early
// Hints, RFC 8297) passes with its Link header only, the one an interim
// response is for. Past maxInterim of them the upstream exchange is
// cancelled (ex.cancel) and none passes: transportError or modifyResponse
// answers with the gateway's 502.
func (s *statusWriter) WriteHeader(code int) {
	if code >= 100 && code < 200 && s.ex != nil {
		h := s.Header() // the 1xx's headers alone: ReverseProxy clears them after
		s.ex.interim++
		if s.ex.interim > maxInterim {
			if s.ex.interim == maxInterim+1 && s.ex.cancel != nil {
				s.ex.cancel()
			}
			return
		}
		if code == http.StatusContinue {
			return
		}
		for k := range h {
			if k != "Link" {
				delete(h, k)
			}
		}
	}
	if s.status == 0 && code >= 200 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func (s *statusWriter) code() int {
	if s.status == 0 {
		return http.StatusOK
	}
	return s.status
}
