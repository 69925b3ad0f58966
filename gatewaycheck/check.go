package gatewaycheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/toolerr/toolerr/core"
	"github.com/toolerr/toolerr/gatewaycheck/fake"
)

// Verdict is what happened to one test's request through the gateway.
type Verdict string

// The three verdicts.
const (
	// Carried: what arrived (upstream, or back at the client) meets the
	// expectation: every failure flag, the five fields, the status, the wait.
	Carried Verdict = "carried"
	// Lost: the request went through, but something the test holds to did not
	// survive the hop (a flag, a field, a result, the status, the
	// retry-after, the classification), or the gateway called the upstream
	// more often than the client asked.
	Lost Verdict = "lost"
	// Rejected: the request did not go through: the strict upstream answered
	// the vendor's 400 for a rule the gateway let through, or the gateway
	// refused it itself.
	Rejected Verdict = "rejected"
)

// Result is one test's verdict.
type Result struct {
	Test    Test
	Verdict Verdict
	// Why says what was lost or rejected ("" when carried).
	Why string
	// Hits is the number of upstream requests the client request caused.
	Hits int
	// Status is the status the client got (0: no answer).
	Status int
}

// Options configure a run.
type Options struct {
	// BaseURL is the gateway's base URL per ingress family; the "" key is the
	// default for every family. Paths are appended: /v1/chat/completions,
	// /v1/responses, /v1/messages, /v1beta/models/M:generateContent,
	// /model/M/converse.
	BaseURL map[Family]string
	// Hops selects tests: "same" (ingress = upstream, what an egress gateway
	// serves), "cross" or "all" (the default, "").
	Hops string
	// Ingress, when not empty, keeps only tests whose ingress is listed (the
	// endpoints the gateway serves).
	Ingress []Family
	// Model names the model the client asks for to reach upstream u; default
	// "gwcheck-" + u. A gateway routes on it (LiteLLM's model_list).
	Model func(u Family) string
	// Timeout bounds each client request (default 30 s).
	Timeout time.Duration
	// Client sends the requests (default: a new http.Client).
	Client *http.Client
	// Dump, when not empty, is a folder that gets one JSON file per test:
	// what the client sent and got, and every upstream request and answer.
	Dump string
	// APIKey is the credential the client sends in its family's header
	// (Authorization: Bearer, x-api-key, x-goog-api-key); default
	// "gwcheck-key". A gateway that authenticates its clients (LiteLLM's
	// master key) needs its own.
	APIKey string
}

// Selected reports whether opts select test t.
func (o Options) Selected(t Test) bool {
	switch o.Hops {
	case "same":
		if t.Ingress != t.Upstream {
			return false
		}
	case "cross":
		if t.Ingress == t.Upstream {
			return false
		}
	}
	if len(o.Ingress) == 0 {
		return true
	}
	for _, f := range o.Ingress {
		if f == t.Ingress {
			return true
		}
	}
	return false
}

// Run sends each selected test through the gateway to the fakes in set, one
// at a time, and returns the verdicts in test order. It returns an error
// only when ctx ends.
func Run(ctx context.Context, set *fake.Set, tests []Test, opts Options) ([]Result, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	if opts.Client == nil {
		opts.Client = &http.Client{}
	}
	if opts.APIKey == "" {
		opts.APIKey = "gwcheck-key"
	}
	if opts.Model == nil {
		opts.Model = func(u Family) string { return "gwcheck-" + string(u) }
	}
	var out []Result
	for _, t := range tests {
		if !opts.Selected(t) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return out, err
		}
		out = append(out, runOne(ctx, set, t, opts))
	}
	return out, nil
}

// clientAnswer is what the gateway answered the client.
type clientAnswer struct {
	status int
	header http.Header
	body   []byte
	err    error
}

func runOne(ctx context.Context, set *fake.Set, t Test, opts Options) Result {
	set.Reset()
	up := set.Upstream(t.Upstream.fakeFamily())
	if len(t.Script) > 0 {
		up.Script(t.Script...)
	}
	ans := send(ctx, t, opts)
	hits := up.Hits()
	res := Result{Test: t, Hits: len(hits), Status: ans.status}
	verdict, why := judge(t, set, hits, ans, opts)
	res.Verdict, res.Why = verdict, why
	if opts.Dump != "" {
		dump(opts.Dump, res, ans, hits)
	}
	return res
}

// dump writes one test's exchange to dir/<id>.json (credentials left out).
func dump(dir string, r Result, ans clientAnswer, hits []fake.Hit) {
	raw := func(b []byte) any {
		var v any
		if json.Unmarshal(b, &v) == nil {
			return v
		}
		return string(b)
	}
	var ups []any
	for _, h := range hits {
		u := map[string]any{"path": h.Path, "body": raw(h.Body), "status": h.Reply.Status, "answer": raw(h.Reply.Body)}
		if h.Rejection != nil {
			u["rejection"] = h.Rejection.Rule
		}
		ups = append(ups, u)
	}
	hdr := map[string]string{}
	for k := range ans.header {
		hdr[strings.ToLower(k)] = ans.header.Get(k)
	}
	b, _ := json.MarshalIndent(map[string]any{"id": r.Test.ID, "verdict": r.Verdict, "why": r.Why,
		"request": raw(r.Test.Request), "client": map[string]any{"status": ans.status, "headers": hdr, "body": raw(ans.body)},
		"upstream": ups}, "", "  ")
	name := strings.NewReplacer("/", "__", ":", "", " ", "_").Replace(r.Test.File + "/" + r.Test.Hop() + "/" + r.Test.Description)
	_ = os.MkdirAll(dir, 0o755)
	_ = os.WriteFile(filepath.Join(dir, name+".json"), b, 0o644)
}

// send posts the test's request to the gateway as a client of the ingress
// family would.
func send(ctx context.Context, t Test, opts Options) clientAnswer {
	base := opts.BaseURL[t.Ingress]
	if base == "" {
		base = opts.BaseURL[""]
	}
	base = strings.TrimRight(base, "/")
	model := t.Model
	if model == "" {
		model = opts.Model(t.Upstream)
	}
	var req map[string]any
	if err := json.Unmarshal(t.Request, &req); err != nil {
		return clientAnswer{err: err}
	}
	var path string
	header := http.Header{"Content-Type": {"application/json"}}
	switch t.Ingress {
	case OpenAIChat, OpenAIResponses:
		req["model"] = model
		path = "/v1/chat/completions"
		if t.Ingress == OpenAIResponses {
			path = "/v1/responses"
		}
		header.Set("Authorization", "Bearer "+opts.APIKey)
	case Anthropic:
		req["model"] = model
		path = "/v1/messages"
		header.Set("X-Api-Key", opts.APIKey)
		header.Set("Anthropic-Version", "2023-06-01")
	case Gemini:
		path = "/v1beta/models/" + url.PathEscape(model) + ":generateContent"
		header.Set("X-Goog-Api-Key", opts.APIKey)
	case Bedrock:
		path = "/model/" + url.PathEscape(model) + "/converse"
		header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=gwcheck/20260101/us-east-1/bedrock/aws4_request, SignedHeaders=content-type;host, Signature=0")
	}
	body, err := json.Marshal(req)
	if err != nil {
		return clientAnswer{err: err}
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, base+path, bytes.NewReader(body))
	if err != nil {
		return clientAnswer{err: err}
	}
	hr.Header = header
	resp, err := opts.Client.Do(hr)
	if err != nil {
		return clientAnswer{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, fake.MaxBodyBytes))
	return clientAnswer{status: resp.StatusCode, header: resp.Header, body: b, err: err}
}

func judge(t Test, set *fake.Set, hits []fake.Hit, ans clientAnswer, opts Options) (Verdict, string) {
	if ans.err != nil && ans.status == 0 {
		if len(hits) == 0 {
			return Rejected, "no answer from the gateway: " + ans.err.Error()
		}
		return Lost, "the upstream was called but the client got no answer: " + ans.err.Error()
	}
	var accepted []fake.Hit
	var firstRejection *fake.Rejection
	for _, h := range hits {
		if h.Rejection == nil {
			accepted = append(accepted, h)
		} else if firstRejection == nil {
			firstRejection = h.Rejection
		}
	}
	if len(hits) == 0 {
		for _, f := range fake.Families() {
			if f != t.Upstream.fakeFamily() && len(set.Upstream(f).Hits()) > 0 {
				return Rejected, fmt.Sprintf("the gateway sent the request to the %s upstream, not %s", f, t.Upstream)
			}
		}
		if ans.status >= 400 {
			return Rejected, fmt.Sprintf("the gateway answered %d without calling the upstream: %s", ans.status, excerpt(ans.body))
		}
		return Lost, fmt.Sprintf("the gateway answered %d without calling the upstream", ans.status)
	}
	if len(accepted) == 0 {
		return Rejected, fmt.Sprintf("the upstream answered %d (%s): %s", hits[0].Reply.Status, firstRejection.Rule, firstRejection.Message)
	}
	var lost []string
	if len(hits) > t.Expect.MaxHits {
		lost = append(lost, fmt.Sprintf("%d upstream requests for one client request (at most %d): the gateway retried behind the client", len(hits), t.Expect.MaxHits))
	}
	last := accepted[len(accepted)-1]
	if why := checkResults(t, last); why != "" {
		lost = append(lost, why)
	}
	if t.Expect.Client != nil {
		if why := checkClient(t, ans); why != "" {
			lost = append(lost, why)
		}
	} else if ans.status != last.Reply.Status {
		lost = append(lost, fmt.Sprintf("the upstream answered %d, the client got %d: %s", last.Reply.Status, ans.status, excerpt(ans.body)))
	}
	if len(lost) > 0 {
		return Lost, strings.Join(lost, "; ")
	}
	return Carried, ""
}

// upstreamFormat is the format the fake actually read the body as: for the
// OpenAI fake, the endpoint the gateway called.
func upstreamFormat(t Test, h fake.Hit) Family {
	if t.Upstream.fakeFamily() != fake.OpenAI {
		return t.Upstream
	}
	if strings.HasSuffix(h.Path, "/responses") {
		return OpenAIResponses
	}
	return OpenAIChat
}

func checkResults(t Test, h fake.Hit) string {
	f := upstreamFormat(t, h)
	turn := readTurn(f, h.Body)
	if t.Expect.Calls != nil && len(turn.Calls) != *t.Expect.Calls {
		return fmt.Sprintf("%d calls arrived in the last call turn, %d were sent", len(turn.Calls), *t.Expect.Calls)
	}
	if len(t.Expect.Results) > 0 && len(turn.Calls) < len(t.Expect.Results) {
		return fmt.Sprintf("%d calls arrived, %d were sent", len(turn.Calls), len(t.Expect.Results))
	}
	ids := map[string]bool{}
	for _, c := range turn.Calls {
		if c.ID != "" && ids[c.ID] {
			return "two calls arrived with the same id " + c.ID
		}
		ids[c.ID] = true
	}
	for k, want := range t.Expect.Results {
		call := turn.Calls[k]
		var got []upResult
		for i, r := range turn.Results {
			if call.ID != "" && r.ID == call.ID || call.ID == "" && i == k {
				got = append(got, r)
			}
		}
		name := fmt.Sprintf("call %d (%s)", k+1, call.ID)
		if len(got) != 1 {
			return fmt.Sprintf("%d results arrived for %s", len(got), name)
		}
		r := got[0]
		if f == Gemini && r.Name != call.Name {
			return fmt.Sprintf("the functionResponse for %s is named %q, the call %q", name, r.Name, call.Name)
		}
		switch {
		case want.Failure && !r.Flag:
			return fmt.Sprintf("the failure of %s arrived without %s", name, flagName(f))
		case want.Failure && r.Envelope == "":
			return fmt.Sprintf("the failure of %s arrived flagged but without the five-field envelope", name)
		case want.Failure && len(want.Envelope) > 0:
			var w any
			_ = json.Unmarshal(want.Envelope, &w)
			if exp := canonical(w); r.Envelope != exp {
				return fmt.Sprintf("the five fields of %s changed: %s", name, r.Envelope)
			}
		case !want.Failure && r.Flag:
			return fmt.Sprintf("the success of %s arrived flagged as a failure", name)
		case !want.Failure && want.Text != nil && !contains(r.Texts, *want.Text):
			return fmt.Sprintf("the result text of %s changed: %q", name, r.Texts)
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func checkClient(t Test, ans clientAnswer) string {
	want := t.Expect.Client
	var lost []string
	if ans.status != want.Status {
		lost = append(lost, fmt.Sprintf("the upstream's %d reached the client as %d", want.Status, ans.status))
	}
	if want.RetryAfterAtLeast != nil {
		v := ans.header.Get("Retry-After")
		secs, ok := retryAfterSeconds(v, ans.header.Get("Date"))
		switch {
		case v == "":
			lost = append(lost, fmt.Sprintf("no retry-after reached the client (the upstream asked for %v s)", *want.RetryAfterAtLeast))
		case !ok:
			lost = append(lost, fmt.Sprintf("retry-after %q is neither delay-seconds nor an HTTP-date", v))
		case secs < *want.RetryAfterAtLeast:
			lost = append(lost, fmt.Sprintf("retry-after %q is shorter than the upstream's %v s", v, *want.RetryAfterAtLeast))
		}
	}
	if want.Classification == "direct" && len(t.Script) > 0 {
		up := t.Script[len(t.Script)-1]
		direct := classify(t.Upstream, up.Status, up.Headers, up.Body)
		hdr := map[string]string{}
		for k := range ans.header {
			hdr[strings.ToLower(k)] = ans.header.Get(k)
		}
		through := classify(t.Ingress, ans.status, hdr, ans.body)
		if direct.Code != through.Code || direct.Retryable != through.Retryable {
			lost = append(lost, fmt.Sprintf("classified %s (retryable %t) through the gateway, %s (retryable %t) direct", through.Code, through.Retryable, direct.Code, direct.Retryable))
		} else if direct.Wait > 0 && through.Wait < direct.Wait {
			lost = append(lost, fmt.Sprintf("the wait classified through the gateway (%v s) is shorter than direct (%v s)", through.Wait, direct.Wait))
		}
	}
	return strings.Join(lost, "; ")
}

// retryAfterSeconds reads a Retry-After value: delay-seconds or an
// HTTP-date, against the response's Date (else now) (RFC 9110, 10.2.3).
func retryAfterSeconds(v, date string) (float64, bool) {
	if n, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && n >= 0 && !math.IsInf(n, 0) {
		return n, true
	}
	at, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	now := time.Now()
	if d, err := http.ParseTime(date); err == nil {
		now = d
	}
	return at.Sub(now).Seconds(), true
}

// classification is the part of toolerr's classify envelope compared.
type classification struct {
	Code      string
	Retryable bool
	Wait      float64
}

// classify runs toolerr's classify op on one response as a client of family
// f reads it. It is the user's view of the failure; the check compares the
// view through the gateway with the view direct, so it grades the gateway,
// not the classifier.
func classify(f Family, status int, headers map[string]string, body []byte) classification {
	var b any = string(body)
	var parsed any
	if json.Unmarshal(body, &parsed) == nil {
		b = parsed
	}
	if len(body) == 0 {
		b = nil
	}
	req, _ := json.Marshal(map[string]any{"op": "classify", "provider": string(f), "now_ms": time.Now().UnixMilli(),
		"http": map[string]any{"status": status, "headers": headers, "body": b}})
	var resp struct {
		OK struct {
			Code      string         `json:"code"`
			Retryable bool           `json:"retryable"`
			Details   map[string]any `json:"details"`
		} `json:"ok"`
	}
	_ = json.Unmarshal(core.Invoke(req), &resp)
	wait, _ := resp.OK.Details["retry_after_seconds"].(float64)
	return classification{Code: resp.OK.Code, Retryable: resp.OK.Retryable, Wait: wait}
}

func excerpt(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 160 {
		s = s[:160] + "..."
	}
	return s
}
