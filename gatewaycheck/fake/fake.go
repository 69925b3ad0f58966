package fake

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Family is one provider family a fake upstream serves.
type Family string

// The four fake upstreams. OpenAI serves both Chat Completions and Responses
// on one base URL, as api.openai.com does.
const (
	OpenAI    Family = "openai"
	Anthropic Family = "anthropic"
	Gemini    Family = "gemini"
	Bedrock   Family = "bedrock"
)

// Families lists every family in a stable order.
func Families() []Family { return []Family{OpenAI, Anthropic, Gemini, Bedrock} }

// MaxBodyBytes is the largest request body a fake reads (8 MiB); a longer
// body is answered 413 in the family's error shape.
const MaxBodyBytes = 8 << 20

// Reply is one HTTP answer: status, headers and a JSON body (or none).
type Reply struct {
	// Status is the HTTP status code.
	Status int `json:"status"`
	// Headers are sent as given (one value each).
	Headers map[string]string `json:"headers,omitempty"`
	// Body is sent as is with content-type application/json; empty: no body.
	Body json.RawMessage `json:"body,omitempty"`
}

// Rejection says which vendor rule a request broke and what the fake
// answered for it.
type Rejection struct {
	// Rule names the rule (for example "anthropic.tool_use_without_result").
	Rule string
	// Message is the vendor's error text the fake answered.
	Message string
}

// Hit is one request a fake received and what it answered.
type Hit struct {
	// Method, Path and RawQuery are the request's.
	Method, Path, RawQuery string
	// Header is the request's header (credentials included: never log it).
	Header http.Header
	// Body is the request body as received.
	Body []byte
	// Rejection is non-nil when the request broke a wire rule; the fake then
	// answered the vendor's 4xx for it instead of the script or a success.
	Rejection *Rejection
	// Reply is what the fake answered.
	Reply Reply
}

// Upstream is one strict fake provider: an http.Handler that validates each
// request against the family's wire rules, records it, and answers the
// vendor's documented error for a broken rule, else the next scripted reply,
// else a minimal success in the family's response shape.
//
// An Upstream is safe for concurrent use.
type Upstream struct {
	family Family
	specs  *Specs

	mu     sync.Mutex
	hits   []Hit
	script []Reply
	served int
}

// New returns the fake upstream of family f. specs may be nil: then only the
// rules encoded in this package run; with specs, each body is also validated
// against the vendor's published schema (see LoadSpecs).
func New(f Family, specs *Specs) *Upstream {
	return &Upstream{family: f, specs: specs}
}

// Family returns the family the upstream serves.
func (u *Upstream) Family() Family { return u.family }

// Script sets the replies for the next valid requests, in order; when they
// run out the last one repeats, so a gateway that retries meets the same
// failure again (and its hits are counted). No replies: successes.
func (u *Upstream) Script(replies ...Reply) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.script = append([]Reply(nil), replies...)
	u.served = 0
}

// Reset forgets every hit and the script.
func (u *Upstream) Reset() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.hits, u.script, u.served = nil, nil, 0
}

// Hits returns a copy of the requests received since the last Reset.
func (u *Upstream) Hits() []Hit {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]Hit(nil), u.hits...)
}

// ServeHTTP validates, records and answers one request.
func (u *Upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	var rej *violation
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			rej = &violation{status: http.StatusRequestEntityTooLarge, rule: "body_too_large", msg: "request body too large"}
		} else {
			rej = &violation{status: http.StatusBadRequest, rule: "body_unreadable", msg: "the request body could not be read"}
		}
	}
	var reply Reply
	if rej == nil {
		rej = u.validate(r, body)
	}
	if rej != nil {
		reply = u.render(rej)
	} else {
		reply = u.next(r, body)
	}
	hit := Hit{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Header: r.Header.Clone(), Body: body, Reply: reply}
	if rej != nil {
		hit.Rejection = &Rejection{Rule: rej.rule, Message: rej.msg}
	}
	u.mu.Lock()
	u.hits = append(u.hits, hit)
	u.mu.Unlock()
	write(w, reply)
}

// next returns the next scripted reply, or a success.
func (u *Upstream) next(r *http.Request, body []byte) Reply {
	u.mu.Lock()
	n := len(u.script)
	i := u.served
	u.served++
	u.mu.Unlock()
	if n > 0 {
		if i >= n {
			i = n - 1
		}
		return u.script[i]
	}
	return u.success(r, body)
}

func write(w http.ResponseWriter, rep Reply) {
	for k, v := range rep.Headers {
		w.Header().Set(k, v)
	}
	if len(rep.Body) > 0 && w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(rep.Body)))
	w.WriteHeader(rep.Status)
	_, _ = w.Write(rep.Body)
}

// validate runs the family's rules on one request: the route, the
// credentials, the body's JSON, the published schema (when loaded) and the
// rules encoded in this package.
func (u *Upstream) validate(r *http.Request, body []byte) *violation {
	switch u.family {
	case OpenAI:
		return validateOpenAI(r, body, u.specs)
	case Anthropic:
		return validateAnthropic(r, body)
	case Gemini:
		return validateGemini(r, body)
	case Bedrock:
		return validateBedrock(r, body, u.specs)
	}
	return &violation{status: http.StatusNotFound, rule: "unknown_family", msg: "unknown family " + string(u.family)}
}

// violation is one broken rule: the status and text the vendor answers.
type violation struct {
	status int
	rule   string
	msg    string
	// param is OpenAI's error.param (JSON null when empty); code its
	// error.code; typ overrides the family's default error type.
	param, code, typ string
}

// render turns a violation into the family's documented error body.
func (u *Upstream) render(v *violation) Reply {
	switch u.family {
	case OpenAI:
		return openAIError(v)
	case Anthropic:
		return anthropicError(v)
	case Gemini:
		return geminiError(v)
	default:
		return bedrockError(v)
	}
}

// success is the minimal successful answer of the family's API to r.
func (u *Upstream) success(r *http.Request, body []byte) Reply {
	switch u.family {
	case OpenAI:
		return openAISuccess(r, body)
	case Anthropic:
		return anthropicSuccess(body)
	case Gemini:
		return geminiSuccess(r)
	default:
		return bedrockSuccess()
	}
}

// mustJSON marshals v, which is built here and always marshals.
func mustJSON(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// decode reads a JSON body keeping numbers exact (json.Number).
func decode(body []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}

// Set is the four fake upstreams, each on its own loopback listener.
type Set struct {
	ups     map[Family]*Upstream
	servers []*http.Server
	urls    map[Family]string
}

// Start starts one fake per family on host (127.0.0.1 when empty; a
// non-loopback host is refused). basePort 0 picks free ports; otherwise the
// fakes listen on basePort, basePort+1, ... in Families() order.
func Start(host string, basePort int, specs *Specs) (*Set, error) {
	if host == "" {
		host = "127.0.0.1"
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("gatewaycheck: fake upstreams bind loopback only, not %q", host)
	}
	s := &Set{ups: map[Family]*Upstream{}, urls: map[Family]string{}}
	for i, f := range Families() {
		port := 0
		if basePort > 0 {
			port = basePort + i
		}
		ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("gatewaycheck: fake %s upstream: %w", f, err)
		}
		u := New(f, specs)
		srv := &http.Server{Handler: u, ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		s.ups[f] = u
		s.servers = append(s.servers, srv)
		s.urls[f] = "http://" + ln.Addr().String()
	}
	return s, nil
}

// Upstream returns the fake of family f.
func (s *Set) Upstream(f Family) *Upstream { return s.ups[f] }

// URL returns the base URL of family f's fake, for example
// "http://127.0.0.1:41234" (paths are the vendor's: /v1/chat/completions,
// /v1/messages, /v1beta/models/M:generateContent, /model/M/converse).
func (s *Set) URL(f Family) string { return s.urls[f] }

// Reset resets every fake.
func (s *Set) Reset() {
	for _, u := range s.ups {
		u.Reset()
	}
}

// Close stops every listener.
func (s *Set) Close() {
	for _, srv := range s.servers {
		_ = srv.Close()
	}
}
