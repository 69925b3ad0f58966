package gatewaycheck

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/conformance/gateway"
	"github.com/toolerr/toolerr/gatewaycheck/fake"
)

// testSpecs loads the vendor specs from ../shared when present (nil
// otherwise: the encoded rules still run).
func testSpecs(t *testing.T) *fake.Specs {
	t.Helper()
	specsOnce.Do(func() {
		dir := os.Getenv("TOOLERR_SHARED")
		if dir == "" {
			_, file, _, _ := runtime.Caller(0)
			dir = filepath.Join(filepath.Dir(file), "..", "..", "shared")
		}
		specs, specsErr = fake.LoadSpecs(filepath.Join(dir, "specs"))
	})
	require.NoError(t, specsErr)
	if specs == nil {
		t.Log("../shared/specs not found: the fakes run their encoded rules only")
	}
	return specs
}

var (
	specsOnce sync.Once
	specs     *fake.Specs
	specsErr  error
)

// stubGateway is a same-family gateway kept for the test: each endpoint is
// proxied (net/http/httputil) to the fake of its family. With dropFlags it
// behaves like the gateways the issue measured: the failure flag of every
// tool result is dropped on the way up (is_error, status "error", the error
// key, OpenAI's in-band envelope replaced by its message), and on the way
// back 529 becomes 500 and retry-after is not forwarded.
func stubGateway(t *testing.T, upstreamURL func(fake.Family) string, dropFlags bool) http.Handler {
	t.Helper()
	proxies := map[fake.Family]*httputil.ReverseProxy{}
	for _, f := range fake.Families() {
		target, err := url.Parse(upstreamURL(f))
		require.NoError(t, err)
		p := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			if dropFlags {
				dropRequestFlags(r.Out)
			}
		}}
		if dropFlags {
			p.ModifyResponse = func(resp *http.Response) error {
				resp.Header.Del("Retry-After")
				if resp.StatusCode == 529 {
					resp.StatusCode = http.StatusInternalServerError
				}
				return nil
			}
		}
		proxies[f] = p
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch p := r.URL.Path; {
		case p == "/v1/chat/completions" || p == "/v1/responses":
			proxies[fake.OpenAI].ServeHTTP(w, r)
		case p == "/v1/messages":
			proxies[fake.Anthropic].ServeHTTP(w, r)
		case strings.HasPrefix(p, "/v1beta/models/"):
			proxies[fake.Gemini].ServeHTTP(w, r)
		case strings.HasPrefix(p, "/model/"):
			proxies[fake.Bedrock].ServeHTTP(w, r)
		default:
			http.NotFound(w, r)
		}
	})
}

// dropRequestFlags rewrites a request body the way a flag-dropping gateway
// does.
func dropRequestFlags(r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var req map[string]any
	if json.Unmarshal(b, &req) == nil {
		for _, m := range list(req["messages"]) {
			mm := object(m)
			if mm["role"] == "tool" {
				if e := object(decodeString(text(mm["content"]))); e["message"] != nil {
					mm["content"] = "Error: " + text(e["message"])
				}
			}
			for _, blk := range list(mm["content"]) {
				delete(object(blk), "is_error")
				delete(object(object(blk)["toolResult"]), "status")
			}
		}
		for _, it := range list(req["input"]) {
			if e := object(decodeString(text(object(it)["output"]))); e["message"] != nil {
				object(it)["output"] = "Error: " + text(e["message"])
			}
		}
		for _, c := range list(req["contents"]) {
			for _, p := range list(object(c)["parts"]) {
				fr := object(object(p)["functionResponse"])
				if e := object(object(fr["response"])["error"]); e != nil {
					fr["response"] = e
				}
			}
		}
		b, _ = json.Marshal(req)
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	r.ContentLength = int64(len(b))
	r.Header.Set("Content-Length", strconv.Itoa(len(b)))
}

func decodeString(s string) any {
	var v any
	_ = json.Unmarshal([]byte(s), &v)
	return v
}

func runAgainst(t *testing.T, dropFlags bool) map[string]Result {
	t.Helper()
	set, err := fake.Start("", 0, testSpecs(t))
	require.NoError(t, err)
	defer set.Close()
	gw := httptest.NewServer(stubGateway(t, set.URL, dropFlags))
	defer gw.Close()
	tests, err := LoadTests(gateway.Files)
	require.NoError(t, err)
	rs, err := Run(context.Background(), set, tests, Options{BaseURL: map[Family]string{"": gw.URL}, Hops: "same", Timeout: 10 * time.Second})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, WriteMatrix(&buf, rs))
	t.Log("\n" + buf.String())
	out := map[string]Result{}
	for _, r := range rs {
		out[r.Test.ID] = r
	}
	return out
}

// verdicts maps each test ID to its verdict, for comparing whole matrices.
func verdicts(rs map[string]Result) map[string]Verdict {
	out := map[string]Verdict{}
	for id, r := range rs {
		out[id] = r.Verdict
	}
	return out
}

// byName keys results by "file: test description".
func byName(rs map[string]Result) map[string]Verdict {
	out := map[string]Verdict{}
	for _, r := range rs {
		out[r.Test.File+": "+r.Test.Description] = r.Verdict
	}
	return out
}

// wantMatrix is the verdict of every same-family test: the listed carried and
// lost ones, every other one rejected.
func wantMatrix(t *testing.T, got map[string]Verdict, carried, lost []string) map[string]Verdict {
	t.Helper()
	want := map[string]Verdict{}
	for name := range got {
		want[name] = Rejected
	}
	for _, n := range carried {
		require.Contains(t, got, n)
		want[n] = Carried
	}
	for _, n := range lost {
		require.Contains(t, got, n)
		want[n] = Lost
	}
	return want
}

var (
	flaggedEnvelopes = []string{
		"envelope: openai-chat: the flagged envelope arrives flagged and byte-equal",
		"envelope: openai-responses: the flagged envelope arrives flagged and byte-equal",
		"envelope: anthropic: the flagged envelope arrives flagged and byte-equal",
		"envelope: gemini: the flagged envelope arrives flagged and byte-equal",
		"envelope: bedrock: the flagged envelope arrives flagged and byte-equal",
	}
	unflaggedEnvelopes = []string{
		"envelope: anthropic: an envelope without the flag arrives flagged",
		"envelope: gemini: an envelope without the flag arrives flagged",
		"envelope: bedrock: an envelope without the flag arrives flagged",
		"gemini: gemini: envelope fields at the top of response arrive under error",
	}
	hintedErrors = []string{
		"errors: anthropic: 429 keeps its status and retry-after 7",
		"errors: openai-chat: 429 keeps its status and retry-after 7",
		"errors: openai-responses: 429 keeps its status and retry-after 7",
		"errors: anthropic: 529 stays 529",
	}
	plainErrors = []string{
		"errors: anthropic: 400 stays 400 and is not retried",
		"errors: openai-chat: 400 stays 400 and is not retried",
		"errors: openai-responses: 400 stays 400 and is not retried",
		"errors: gemini: 400 stays 400 and is not retried",
		"errors: bedrock: 400 stays 400 and is not retried",
		"errors: bedrock: ThrottlingException keeps 429",
	}
	retryInfo = "errors: gemini: RetryInfo 12s becomes retry-after 12 or more"
)

func concat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// TestRun_passThroughProxy grades a plain reverse proxy: what the client sent
// arrives as sent, so flagged envelopes and upstream errors with a header
// hint are carried, an unflagged envelope and RetryInfo (a body-only hint)
// are lost, and every repair case is rejected by the strict upstream.
func TestRun_passThroughProxy(t *testing.T) {
	got := byName(runAgainst(t, false))
	want := wantMatrix(t, got, concat(flaggedEnvelopes, hintedErrors, plainErrors), concat(unflaggedEnvelopes, []string{retryInfo}))
	assert.Equal(t, want, got)
	assert.Len(t, got, 37)
}

// TestRun_flagDroppingStub grades the flag-dropping stub: every failure it
// forwards is lost (flag, retry-after, 529), the repair cases are rejected,
// and only what it leaves alone (400s, a hint-less throttle) is carried.
func TestRun_flagDroppingStub(t *testing.T) {
	rs := runAgainst(t, true)
	got := byName(rs)
	want := wantMatrix(t, got, plainErrors, concat(flaggedEnvelopes, unflaggedEnvelopes, hintedErrors, []string{retryInfo}))
	assert.Equal(t, want, got)
	r := rs["envelope/A_failed_result_with_its_native_flag_reaches_the_same_provider_with_the_flag_and_the_five_fields_unchanged/anthropic:_the_flagged_envelope_arrives_flagged_and_byte-equal"]
	assert.Equal(t, "the failure of call 1 (toolu_a) arrived without is_error", r.Why)
	assert.Equal(t, 1, r.Hits)
	r = rs["errors/An_Anthropic_529_overloaded_error_reaches_the_client_as_529,_classified_as_overloaded,_not_as_a_500/anthropic:_529_stays_529"]
	assert.Equal(t, "the upstream's 529 reached the client as 500", r.Why)
}

// retryingGateway answers every request by calling the upstream up to three
// times while it fails, as a gateway with its own retries does.
func retryingGateway(t *testing.T, set *fake.Set) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var resp *http.Response
		for i := 0; i < 3; i++ {
			req, _ := http.NewRequest(r.Method, set.URL(fake.Anthropic)+r.URL.Path, bytes.NewReader(b))
			req.Header = r.Header.Clone()
			var err error
			if resp, err = http.DefaultClient.Do(req); err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			if resp.StatusCode < 500 && resp.StatusCode != 429 {
				break
			}
			resp.Body.Close()
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
}

func TestRun_retriesBehindTheClientAreLost(t *testing.T) {
	set, err := fake.Start("", 0, nil)
	require.NoError(t, err)
	defer set.Close()
	gw := retryingGateway(t, set)
	defer gw.Close()
	tests, err := LoadTests(gateway.Files)
	require.NoError(t, err)
	rs, err := Run(context.Background(), set, tests, Options{BaseURL: map[Family]string{"": gw.URL}, Hops: "same", Ingress: []Family{Anthropic}})
	require.NoError(t, err)
	got := map[string]Result{}
	for _, r := range rs {
		got[r.Test.File+": "+r.Test.Description] = r
	}
	r := got["errors: anthropic: 529 stays 529"]
	assert.Equal(t, Lost, r.Verdict)
	assert.Equal(t, 3, r.Hits)
	assert.Equal(t, "3 upstream requests for one client request (at most 1): the gateway retried behind the client", r.Why)
	assert.Equal(t, Carried, got["errors: anthropic: 400 stays 400 and is not retried"].Verdict)
}

// TestMain_exitStatus checks the command's usage errors (exit 2); the exit
// statuses 0 and 1 are checked by TestMain_gatewayCmd.
func TestMain_exitStatus(t *testing.T) {
	var out, errOut bytes.Buffer
	assert.Equal(t, 2, Main([]string{"--hops", "sideways"}, &out, &errOut))
	assert.Contains(t, errOut.String(), "--hops must be same, cross or all")
	errOut.Reset()
	assert.Equal(t, 2, Main([]string{"--base-url", "cohere=http://127.0.0.1:1"}, &out, &errOut))
	assert.Contains(t, errOut.String(), `unknown family "cohere"`)
	errOut.Reset()
	assert.Equal(t, 2, Main(nil, &out, &errOut))
	assert.Contains(t, errOut.String(), "--base-url is required")
	errOut.Reset()
	assert.Equal(t, 2, Main([]string{"--fake-host", "10.0.0.1", "--base-url", "http://127.0.0.1:1"}, &out, &errOut))
	assert.Contains(t, errOut.String(), "loopback only")
}

// TestMain_usage: -h prints the usage on standard output and exits 0, as
// every toolerr command does (README, "Command-line tool"); a bad flag
// prints it on standard error and exits 2.
func TestMain_usage(t *testing.T) {
	var out, errOut bytes.Buffer
	assert.Equal(t, 0, Main([]string{"-h"}, &out, &errOut))
	assert.Contains(t, out.String(), "usage: toolerr-gateway-check")
	assert.Contains(t, out.String(), "-base-url value")
	assert.Empty(t, errOut.String())
	out.Reset()
	assert.Equal(t, 2, Main([]string{"--no-such-flag"}, &out, &errOut))
	assert.Contains(t, errOut.String(), "flag provided but not defined: -no-such-flag")
	assert.Contains(t, errOut.String(), "usage: toolerr-gateway-check")
	assert.Empty(t, out.String())
}

// TestMain_gatewayCmd launches this test binary as the gateway (the
// GWCHECK_HELPER_GATEWAY branch of TestHelperGateway) with the fakes' URLs in
// its environment, runs the anthropic tests through it and stops it.
func TestMain_gatewayCmd(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	ln.Close()
	// One fixture file with the one anthropic test a pass-through proxy
	// carries, read with --fixtures.
	b, err := fs.ReadFile(gateway.Files, "envelope.json")
	require.NoError(t, err)
	var cases []map[string]any
	require.NoError(t, json.Unmarshal(b, &cases))
	one := cases[0]
	for _, tc := range one["tests"].([]any) {
		if tc.(map[string]any)["ingress"] == "anthropic" {
			one["tests"] = []any{tc}
		}
	}
	dir := t.TempDir()
	b, err = json.Marshal([]any{one})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "one.json"), b, 0o644))
	for _, tc := range []struct {
		mode  string
		extra []string
		code  int
		lines int
		first Verdict
	}{
		{"pass", []string{"--fixtures", dir}, 0, 1, Carried},
		{"drop", nil, 1, 9, Lost},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			cmd := "GWCHECK_HELPER_GATEWAY=" + tc.mode + " GWCHECK_HELPER_ADDR=" + addr + " exec " + os.Args[0] + " -test.run=^TestHelperGateway$"
			var out, errOut bytes.Buffer
			args := append([]string{"--gateway-cmd", cmd, "--base-url", "http://" + addr, "--hops", "same", "--ingress", "anthropic", "--format", "json", "--ready-timeout", "20s"}, tc.extra...)
			code := Main(args, &out, &errOut)
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			require.Len(t, lines, tc.lines, "stderr: %s", errOut.String())
			var first struct{ Verdict Verdict }
			require.NoError(t, json.Unmarshal([]byte(lines[0]), &first))
			assert.Equal(t, tc.code, code)
			assert.Equal(t, tc.first, first.Verdict)
			assert.Contains(t, errOut.String(), "GWCHECK_ANTHROPIC_URL=http://127.0.0.1:")
			// The gateway was stopped: its port is free again.
			l, err := net.Listen("tcp", addr)
			require.NoError(t, err)
			l.Close()
		})
	}
}

// TestHelperGateway is the gateway TestMain_gatewayCmd launches; it does
// nothing in a normal run.
func TestHelperGateway(t *testing.T) {
	mode := os.Getenv("GWCHECK_HELPER_GATEWAY")
	if mode == "" {
		t.Skip("run by TestMain_gatewayCmd as a child process")
	}
	fromEnv := func(f fake.Family) string { return os.Getenv(EnvVar(f)) }
	srv := &http.Server{Addr: os.Getenv("GWCHECK_HELPER_ADDR"), Handler: stubGateway(t, fromEnv, mode == "drop")}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	go func() { <-sig; srv.Close() }()
	_ = srv.ListenAndServe()
}

// TestMain_gatewayCmdPortTaken: with a server already listening on the
// --base-url address (a gateway started by hand, say), the launched gateway
// could not bind and the run would test the other server; the command
// refuses with exit 2 and says why, before launching anything.
func TestMain_gatewayCmdPortTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close() // the kernel completes a dial to it: no Accept needed
	addr := ln.Addr().String()
	var out, errOut bytes.Buffer
	code := Main([]string{"--gateway-cmd", "exit 0", "--base-url", "http://" + addr, "--hops", "same", "--ingress", "anthropic"}, &out, &errOut)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut.String(), "something already listens on "+addr)
	assert.Empty(t, out.String())
}

// TestMain_nothingReachedTheFakes: a gateway that never calls the fakes
// (pointed elsewhere) gets every test rejected, and the command says that no
// request reached them and how to point a gateway at them.
func TestMain_nothingReachedTheFakes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		_, _ = w.Write([]byte(`{"error":{"type":"api_error","message":"no upstream"}}`))
	}))
	defer srv.Close()
	var out, errOut bytes.Buffer
	code := Main([]string{"--base-url", srv.URL, "--hops", "same", "--ingress", "anthropic"}, &out, &errOut)
	assert.Equal(t, 0, code)
	assert.Contains(t, errOut.String(), "no request reached this run's fake upstreams")
	assert.Contains(t, out.String(), "rejected")
}
