package sdktest

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core"
	"github.com/toolerr/toolerr/egress"
	"github.com/toolerr/toolerr/gatewaycheck"
	"github.com/toolerr/toolerr/gatewaycheck/fake"
)

// The strict fake upstreams of gatewaycheck (they answer a broken wire rule
// with the vendor's own 400, record every body and count hits), one per
// family on 127.0.0.1, and a toolerr-gateway process pointed at them, for
// the whole test binary. Tests run one at a time and Reset the fakes.
var (
	fakes      *fake.Set
	gatewayURL string
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	var err error
	if fakes, err = fake.Start("", 0, nil); err != nil {
		fmt.Fprintln(os.Stderr, "sdktest:", err)
		return 1
	}
	defer fakes.Close()
	dir, err := os.MkdirTemp("", "sdktest")
	if err != nil {
		fmt.Fprintln(os.Stderr, "sdktest:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	logPath := filepath.Join(dir, "gateway.log")
	stop, err := startGateway(dir, logPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sdktest:", err)
		return 1
	}
	code := m.Run()
	stop()
	if code != 0 {
		if b, err := os.ReadFile(logPath); err == nil {
			fmt.Fprintf(os.Stderr, "toolerr-gateway's log:\n%s\n", b)
		}
	}
	return code
}

// startGateway builds toolerr-gateway from ../gateway (its own module) and
// launches it on a free loopback port with -openai-base, -anthropic-base
// and -gemini-base set to the fakes, as a user would run it.
func startGateway(dir, logPath string) (stop func(), err error) {
	bin := filepath.Join(dir, "toolerr-gateway")
	build := exec.Command("go", "build", "-o", bin, "./cmd/toolerr-gateway")
	build.Dir = filepath.Join("..", "gateway")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building toolerr-gateway: %v: %s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := "exec " + bin + " -addr " + addr + ` -openai-base "$GWCHECK_OPENAI_URL" -anthropic-base "$GWCHECK_ANTHROPIC_URL" -gemini-base "$GWCHECK_GEMINI_URL"`
	g, err := gatewaycheck.Launch(context.Background(), cmd, fakes, log, "http://"+addr, 30*time.Second)
	if err != nil {
		log.Close()
		return nil, err
	}
	gatewayURL = "http://" + addr
	return func() { g.Stop(); log.Close() }, nil
}

// hop is one way from an SDK to the fake upstreams: in-process (the SDK's
// http.Client has egress.Transport, its base URL is the fake's) or through
// toolerr-gateway (a plain http.Client, its base URL the gateway's).
type hop struct {
	name   string
	client *http.Client
	base   func(fake.Family) string
	// streamErrors are the error events egress.Transport reported through
	// OnStreamError (in-process only).
	streamErrors *reports
	// seen records the responses the SDK got (status and header), from
	// the outermost RoundTripper of its client.
	seen *recorder
}

// recorder is a RoundTripper that records each response's status and
// header on its way to the SDK.
type recorder struct {
	base  http.RoundTripper
	mu    sync.Mutex
	resps []http.Response
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.base.RoundTrip(req)
	if err == nil {
		r.mu.Lock()
		r.resps = append(r.resps, http.Response{StatusCode: resp.StatusCode, Header: resp.Header.Clone()})
		r.mu.Unlock()
	}
	return resp, err
}

// last returns the last response recorded.
func (r *recorder) last(t *testing.T) http.Response {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	require.NotEmpty(t, r.resps)
	return r.resps[len(r.resps)-1]
}

type reports struct {
	mu   sync.Mutex
	reps []core.ErrorReply
}

func (r *reports) add(rep core.ErrorReply) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reps = append(r.reps, rep)
}

func (r *reports) codes() []core.Code {
	r.mu.Lock()
	defer r.mu.Unlock()
	var c []core.Code
	for _, rep := range r.reps {
		c = append(c, rep.Envelope.Code)
	}
	return c
}

// hops returns both hops, the fakes reset.
func hops(t *testing.T) []hop {
	t.Helper()
	require.NotEmpty(t, gatewayURL)
	fakes.Reset()
	reps := &reports{}
	inProcess := &recorder{base: &egress.Transport{
		OnStreamError: func(_ *http.Request, _ egress.Endpoint, rep core.ErrorReply) { reps.add(rep) },
	}}
	viaGateway := &recorder{base: http.DefaultTransport}
	return []hop{
		{name: "in-process", client: &http.Client{Transport: inProcess}, base: fakes.URL, streamErrors: reps, seen: inProcess},
		{name: "gateway", client: &http.Client{Transport: viaGateway}, base: func(fake.Family) string { return gatewayURL }, seen: viaGateway},
	}
}

// hits returns the requests family f's fake received since the last reset.
func hits(f fake.Family) []fake.Hit { return fakes.Upstream(f).Hits() }

// envelopeOf decodes an envelope's JSON.
func envelopeOf(t *testing.T, raw string) map[string]any {
	t.Helper()
	var env map[string]any
	require.NoError(t, json.Unmarshal([]byte(raw), &env), "%q", raw)
	return env
}

// decodeBody decodes a request body the upstream received.
func decodeBody(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal(b, &v))
	return v
}

// timeoutEnvelope is a tool's TIMEOUT failure as toolerr writes it.
const timeoutEnvelope = `{"code":"TIMEOUT","details":{},"message":"Weather service timed out.","retryable":true,"source":"tool"}`

// errorCase is one upstream failure the fakes answer, and what the SDK
// must see for it.
type errorCase struct {
	name   string
	reply  fake.Reply
	status int
	code   string // the envelope's code
	// hits is the number of upstream requests with the SDK's retries
	// (MaxRetries 1 for the Stainless SDKs: 2 when it retries).
	hits       int
	retryAfter string // the Retry-After the SDK reads, "" for none
	minElapsed time.Duration
}

// sdkError is what a test reads of an SDK's own error for an upstream
// failure.
type sdkError struct {
	status    int
	typ       string      // the native error type the SDK parsed
	code      string      // the native error code it parsed, "" when it has none
	envelope  string      // the envelope's JSON where the SDK keeps it in the body
	header    http.Header // the response headers it kept
	requestID string      // the upstream's request id as the SDK reads it
	raw       string      // the error body it keeps
}

// upstreamErrors runs each case on every hop: the fake of family answers
// with the case's reply, call sends one request through an SDK, which must
// fail, and read reads its error. The SDK must see the status, the native
// error type and code, the envelope in its body and in the header, the
// retry-after, and the upstream's request id (its header idHeader); it must
// wait the retry-after, hit the upstream as often as the case says (its own
// retries counted, x-should-retry deciding) and get the same error body
// in-process and through the gateway.
func upstreamErrors(t *testing.T, family fake.Family, cases []errorCase, idHeader string, call func(h hop) error, read func(t *testing.T, err error) sdkError) {
	seen := map[string]string{} // the body each case gave the SDK on the first hop
	for _, h := range hops(t) {
		for _, tc := range cases {
			t.Run(h.name+"/"+tc.name, func(t *testing.T) {
				fakes.Reset()
				fakes.Upstream(family).Script(tc.reply)
				start := time.Now()
				err := call(h)
				elapsed := time.Since(start)
				require.Error(t, err)
				e := read(t, err)
				assert.Equal(t, tc.status, e.status)
				assert.Equal(t, tc.hits, len(hits(family)), "upstream hits, the SDK's retries counted")
				native := member(t, string(tc.reply.Body), "error")
				assert.Equal(t, native["type"], e.typ, "the native error type")
				if code, _ := native["code"].(string); code != "" {
					assert.Equal(t, code, e.code, "the native error code")
				}
				assert.Equal(t, tc.code, envelopeOf(t, e.envelope)["code"], "the envelope in the body the SDK keeps")
				assert.Equal(t, tc.retryAfter, e.header.Get("Retry-After"))
				assert.Equal(t, tc.code, envelopeOf(t, e.header.Get(core.EnvelopeHeader))["code"])
				if id := tc.reply.Headers[idHeader]; id != "" {
					assert.Equal(t, id, e.requestID, "the upstream's %s passes", idHeader)
				}
				assert.GreaterOrEqual(t, elapsed, tc.minElapsed, "the SDK waited the retry-after")
				if first, ok := seen[tc.name]; ok {
					assert.Equal(t, first, e.raw, "the same error body in-process and through the gateway")
				}
				seen[tc.name] = e.raw
			})
		}
	}
}

func jsonReply(status int, headers map[string]string, body string) fake.Reply {
	return fake.Reply{Status: status, Headers: headers, Body: json.RawMessage(body)}
}

// member returns the object at path inside the JSON text raw.
func member(t *testing.T, raw string, path ...string) map[string]any {
	t.Helper()
	v := envelopeOf(t, raw)
	for _, k := range path {
		next, ok := v[k].(map[string]any)
		require.True(t, ok, "no object %q in %s", k, raw)
		v = next
	}
	return v
}

// keys returns the member names of m, sorted.
func keys(m map[string]any) []any {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	out := make([]any, len(ks))
	for i, k := range ks {
		out[i] = k
	}
	return out
}
