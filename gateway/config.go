package gateway

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolerr/toolerr/core"
	"github.com/toolerr/toolerr/egress"
)

// The upstream families, each a base URL in Config.Upstreams.
const (
	FamilyOpenAI    = "openai"    // /v1/chat/completions, /v1/responses
	FamilyAnthropic = "anthropic" // /v1/messages, /v1/messages/count_tokens
	FamilyGemini    = "gemini"    // /v1beta/models/{model}:generateContent, :streamGenerateContent
)

// Defaults of Config.
const (
	DefaultAddr         = "127.0.0.1:8787"
	DefaultMaxBodyBytes = core.MaxRequestBytes     // 32 MiB: the largest body the request op reads
	DefaultReadTimeout  = time.Minute              // reading the client's request body
	DefaultTimeout      = 10 * time.Minute         // the whole upstream exchange, stream included (openai-python's default timeout)
	DefaultMaxErrorBody = egress.MaxErrorBodyBytes // 1 MiB of an upstream error body read for the error op
	// DefaultMaxConcurrent is the most route requests served at once: each
	// may hold a body of up to DefaultMaxBodyBytes (twice, compressed and
	// decoded, for one with a Content-Encoding) and the request op's work
	// on it, so 64 bounds that memory near 64 times the largest body.
	DefaultMaxConcurrent = 64
)

// DefaultUpstreams are the providers' own API base URLs.
func DefaultUpstreams() map[string]string {
	return map[string]string{
		FamilyOpenAI:    "https://api.openai.com",
		FamilyAnthropic: "https://api.anthropic.com",
		FamilyGemini:    "https://generativelanguage.googleapis.com",
	}
}

// Config configures a Gateway. The zero value of every field means its
// default.
type Config struct {
	// Upstreams maps a family (FamilyOpenAI, FamilyAnthropic, FamilyGemini)
	// to the base URL its requests go to; the request path is appended to
	// the base URL's path ("https://host/prefix" + "/v1/messages"). A
	// family absent from the map takes DefaultUpstreams' URL.
	Upstreams map[string]string
	// MaxBodyBytes is the largest request body read, in bytes; a larger
	// one is answered 413 in the client's native error shape, and so is a
	// body with a Content-Encoding whose decoded content is larger. 0 means
	// DefaultMaxBodyBytes; it cannot exceed core.MaxRequestBytes.
	MaxBodyBytes int64
	// ReadTimeout bounds reading the client's request body (a slow or
	// stalled client gets 408). 0 means DefaultReadTimeout; negative, none.
	ReadTimeout time.Duration
	// Timeout bounds the whole upstream exchange: connecting, the
	// response headers and, for a stream, its last byte. When it passes
	// before the headers, the client gets 504 (TIMEOUT) in its native
	// shape; a stream still running is cut. The writes to the client end
	// by then too (and a second after, for the last of them), so a client
	// that never reads its answer holds nothing past it. 0 means
	// DefaultTimeout; negative, none.
	Timeout time.Duration
	// Routes sends the requests of a client API to an upstream of another
	// family, by format name: {"openai-chat": "anthropic"} serves
	// /v1/chat/completions from the Anthropic upstream. Both sides must be
	// one of openai-chat, anthropic and gemini (the formats with a
	// response shape); the request body is converted (core.ConvertBody,
	// every failure flag carried), the response converted back
	// (core.ConvertResponse) and errors answered in the client's shape.
	// Streaming requests are refused (400) on a routed API. nil: every API
	// goes to its own family.
	Routes map[string]string
	// MaxConcurrent is the most route requests served at once, streams
	// included until their last byte (/healthz and /metrics are not
	// counted): one more is answered at once, before its body is read,
	// with 503 in the client's native error shape (x-should-retry: true,
	// no retry-after: no wait is known), so the client's SDK retries it
	// with its own backoff. 0 means DefaultMaxConcurrent; negative, no
	// bound.
	MaxConcurrent int
	// DefaultMaxTokens is the max_tokens a request routed to Anthropic
	// gets when it names none (the Messages API requires it). 0 means
	// 4096.
	DefaultMaxTokens int
	// DropUpstreamMessage puts toolerr's own sentence in the message
	// member of every native error body instead of the upstream's
	// sanitized message (the egress_error op's upstream_message "drop").
	DropUpstreamMessage bool
	// Transport makes the upstream requests; nil means a clone of
	// http.DefaultTransport keeping as many idle connections per host as
	// in all (MaxIdleConnsPerHost = MaxIdleConns, 100). The gateway never
	// retries a request.
	Transport http.RoundTripper
	// Logger receives one record per request (route, status, duration,
	// what the request op changed, the upstream's error code) and never
	// a header, a query string or a body. nil means slog.Default().
	Logger *slog.Logger
	// Registerer receives the gateway's metrics; nil means a registry of
	// the gateway's own, served at /metrics.
	Registerer prometheus.Registerer
	// Now is the clock (for now_ms of the error op and the durations);
	// nil means time.Now.
	Now func() time.Time
}

// ErrConfig is matched (errors.Is) by every error New returns for a bad
// Config.
var ErrConfig = errors.New("gateway: bad config")

// withDefaults returns c with every zero field set to its default, and
// the upstream base URLs parsed.
func (c Config) withDefaults() (Config, map[string]*url.URL, error) {
	ups := DefaultUpstreams()
	for k, v := range c.Upstreams {
		if _, ok := ups[k]; !ok {
			return c, nil, fmt.Errorf("%w: unknown upstream family %q (want %s, %s or %s)", ErrConfig, k, FamilyOpenAI, FamilyAnthropic, FamilyGemini)
		}
		ups[k] = v
	}
	parsed := make(map[string]*url.URL, len(ups))
	for k, v := range ups {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return c, nil, fmt.Errorf("%w: upstream %s: %q is not an http(s) base URL", ErrConfig, k, v)
		}
		u.Path = strings.TrimSuffix(u.Path, "/")
		parsed[k] = u
	}
	c.Upstreams = ups
	for from, to := range c.Routes {
		f, okF := core.CanonicalFormat(from)
		t, okT := core.CanonicalFormat(to)
		if !okF || !okT || familyOf(f) == "" || familyOf(t) == "" || f == t {
			return c, nil, fmt.Errorf("%w: route %s=%s: both sides must be two of openai-chat, anthropic and gemini", ErrConfig, from, to)
		}
	}
	if c.DefaultMaxTokens == 0 {
		c.DefaultMaxTokens = 4096
	}
	switch {
	case c.MaxBodyBytes == 0:
		c.MaxBodyBytes = DefaultMaxBodyBytes
	case c.MaxBodyBytes < 0 || c.MaxBodyBytes > core.MaxRequestBytes:
		return c, nil, fmt.Errorf("%w: MaxBodyBytes %d is outside 1-%d", ErrConfig, c.MaxBodyBytes, core.MaxRequestBytes)
	}
	if c.MaxConcurrent == 0 {
		c.MaxConcurrent = DefaultMaxConcurrent
	}
	if c.ReadTimeout == 0 {
		c.ReadTimeout = DefaultReadTimeout
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Transport == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		// Every request of a family goes to one host, so the per-host
		// bound on idle connections is the whole pool's: net/http's default
		// of 2 (DefaultMaxIdleConnsPerHost) would close and dial again all
		// but 2 connections after every burst of concurrent requests.
		t.MaxIdleConnsPerHost = t.MaxIdleConns
		c.Transport = t
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c, parsed, nil
}
