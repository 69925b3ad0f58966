package classify

import "strings"

// Header is a set of HTTP response headers, as net/http's Header is: a name
// maps to its values. Names match case-insensitively, so a caller may pass
// resp.Header (canonical names) or lower-case names from JSON.
type Header map[string][]string

// Get returns the first value of the header named name (lower case), and
// whether it is present. When the map holds the same name in several cases,
// the lexically smallest spelling wins, so the result never depends on map
// order.
func (h Header) Get(name string) (string, bool) {
	if len(h) == 0 {
		return "", false
	}
	if v, ok := h[name]; ok && len(v) > 0 {
		return strings.TrimSpace(v[0]), true
	}
	best, found := "", false
	var val string
	for k, v := range h {
		if len(v) == 0 || len(k) != len(name) || !strings.EqualFold(k, name) {
			continue
		}
		if !found || k < best {
			best, val, found = k, v[0], true
		}
	}
	return strings.TrimSpace(val), found
}

// The response headers classification reads, as indexes into headers.
const (
	hRetryAfterMs = iota
	hRetryAfter
	hAmzRetryAfter
	hShouldRetry
	hAmznErrorType
	hRequestID
	hXRequestID
	hAmznRequestID
	hResetRequests
	hRemainingRequests
	hResetTokens
	hRemainingTokens
	hAnthRequestsReset
	hAnthRequestsRemaining
	hAnthTokensReset
	hAnthTokensRemaining
	hAnthInputReset
	hAnthInputRemaining
	hAnthOutputReset
	hAnthOutputRemaining
	nHeaders
)

// headerNames are the lower-case names of the headers classification reads.
func headerNames() [nHeaders]string {
	return [nHeaders]string{
		"retry-after-ms", "retry-after", "x-amz-retry-after", "x-should-retry", "x-amzn-errortype",
		"request-id", "x-request-id", "x-amzn-requestid",
		"x-ratelimit-reset-requests", "x-ratelimit-remaining-requests",
		"x-ratelimit-reset-tokens", "x-ratelimit-remaining-tokens",
		"anthropic-ratelimit-requests-reset", "anthropic-ratelimit-requests-remaining",
		"anthropic-ratelimit-tokens-reset", "anthropic-ratelimit-tokens-remaining",
		"anthropic-ratelimit-input-tokens-reset", "anthropic-ratelimit-input-tokens-remaining",
		"anthropic-ratelimit-output-tokens-reset", "anthropic-ratelimit-output-tokens-remaining",
	}
}

// headers holds the first value of each header classification reads, found
// in one pass over the map (names compared case-insensitively; the lexically
// smallest spelling wins when a name appears in several cases, as in
// Header.Get).
type headers struct {
	val [nHeaders]string
	key [nHeaders]string
	has [nHeaders]bool
}

func scanHeaders(h Header) headers {
	var out headers
	if len(h) == 0 {
		return out
	}
	names := headerNames()
	for k, v := range h {
		if len(v) == 0 || len(k) < 10 || len(k) > 43 {
			continue
		}
		for i := range names {
			if len(names[i]) != len(k) || !strings.EqualFold(names[i], k) {
				continue
			}
			if !out.has[i] || k < out.key[i] {
				out.val[i], out.key[i], out.has[i] = strings.TrimSpace(v[0]), k, true
			}
			break
		}
	}
	return out
}

func (hs *headers) get(i int) (string, bool) { return hs.val[i], hs.has[i] }

// MaxWaitNs bounds every wait hint: ten years in nanoseconds. A hint of at
// least this long, in any form and of any size (delay-seconds with 400
// digits, a RetryInfo of 1e12 s, a reset date in the year 9999), is given as
// exactly MaxWaitNs, which reads "at least ten years": the wait is monotonic
// in the hint, so every hint above a retry policy's limit gives the same
// decision as the limit. No real server asks for so long, and ten years stay
// well inside an int64 of nanoseconds (292 years).
const MaxWaitNs = int64(10 * 366 * 24 * 3600 * 1e9)

// Wait is a parsed wait hint in nanoseconds, and the header (an index into
// headerNames, or fromRetryDelay) it came from.
type Wait struct {
	Ns   int64
	From int
}

// fromRetryDelay marks a wait read from google.rpc.RetryInfo.retryDelay.
const fromRetryDelay = -1

// waitHint returns the wait the response asks for, in precedence order:
//
//  1. retry-after-ms (milliseconds; openai-python and anthropic-sdk-python read it first)
//  2. Retry-After: delay-seconds (non-integer seconds accepted, as the SDKs do)
//     or an HTTP-date minus nowMs (RFC 9110, 10.2.3)
//  3. x-amz-retry-after (milliseconds; AWS SDK retry behaviour)
//  4. google.rpc.RetryInfo.retryDelay in the body ("58s", "1.250s")
//  5. only for a rate limit (rateLimited): OpenAI x-ratelimit-reset-requests /
//     -tokens (Go durations), then Anthropic anthropic-ratelimit-*-reset
//     (RFC 3339 minus nowMs); the larger wait of the exhausted buckets
//     (remaining "0"), or of all buckets when none says it is exhausted.
//
// A hint that does not parse is skipped, never guessed; the next one is
// tried. hasNow false makes the date-based hints absent.
func waitHint(h *headers, retryDelay string, rateLimited bool, nowMs int64, hasNow bool) (Wait, bool) {
	if v, ok := h.get(hRetryAfterMs); ok {
		if ns, ok := parseDecimal(v, 1e6); ok {
			return Wait{ns, hRetryAfterMs}, true
		}
	}
	if v, ok := h.get(hRetryAfter); ok {
		if ns, ok := parseDecimal(v, 1e9); ok {
			return Wait{ns, hRetryAfter}, true
		}
		if hasNow {
			if ms, ok := parseHTTPDate(v); ok {
				return Wait{untilNs(ms, nowMs), hRetryAfter}, true
			}
		}
	}
	if v, ok := h.get(hAmzRetryAfter); ok {
		if ns, ok := parseDecimal(v, 1e6); ok {
			return Wait{ns, hAmzRetryAfter}, true
		}
	}
	if retryDelay != "" {
		if ns, ok := parseProtoDuration(retryDelay); ok {
			return Wait{ns, fromRetryDelay}, true
		}
	}
	if !rateLimited {
		return Wait{}, false
	}
	if w, ok := bucketWait(h, openAIBuckets(), parseGoDuration); ok {
		return w, true
	}
	if hasNow {
		if w, ok := bucketWait(h, anthropicBuckets(), func(v string) (int64, bool) {
			ms, ok := parseRFC3339(v)
			if !ok {
				return 0, false
			}
			return untilNs(ms, nowMs), true
		}); ok {
			return w, true
		}
	}
	return Wait{}, false
}

// bucket indexes the reset and remaining headers of one rate-limit bucket.
type bucket struct{ reset, remaining int }

// openAIBuckets are OpenAI's rate-limit buckets.
//
// See https://platform.openai.com/docs/guides/rate-limits#rate-limits-in-headers.
func openAIBuckets() []bucket {
	return []bucket{
		{hResetRequests, hRemainingRequests},
		{hResetTokens, hRemainingTokens},
	}
}

// anthropicBuckets are Anthropic's rate-limit buckets.
//
// See https://docs.claude.com/en/api/rate-limits#response-headers.
func anthropicBuckets() []bucket {
	return []bucket{
		{hAnthRequestsReset, hAnthRequestsRemaining},
		{hAnthTokensReset, hAnthTokensRemaining},
		{hAnthInputReset, hAnthInputRemaining},
		{hAnthOutputReset, hAnthOutputRemaining},
	}
}

// bucketWait implements the rate-limit bucket rule (our choice; OpenAI sends
// "time until the bucket is full" for each bucket, see openAIBuckets): the
// larger reset of the exhausted buckets (remaining "0"); when no bucket says
// it is exhausted, the larger reset of all buckets that have one.
func bucketWait(h *headers, buckets []bucket, parse func(string) (int64, bool)) (Wait, bool) {
	var all, exhausted Wait
	var anyAll, anyExhausted bool
	for _, b := range buckets {
		v, ok := h.get(b.reset)
		if !ok {
			continue
		}
		ns, ok := parse(v)
		if !ok {
			continue
		}
		if !anyAll || ns > all.Ns {
			all, anyAll = Wait{ns, b.reset}, true
		}
		if r, ok := h.get(b.remaining); ok && r == "0" {
			if !anyExhausted || ns > exhausted.Ns {
				exhausted, anyExhausted = Wait{ns, b.reset}, true
			}
		}
	}
	if anyExhausted {
		return exhausted, true
	}
	return all, anyAll
}

// untilNs returns the nanoseconds from nowMs to atMs, 0 when atMs is past.
func untilNs(atMs, nowMs int64) int64 {
	d := atMs - nowMs
	if d <= 0 {
		return 0
	}
	if d > MaxWaitNs/1e6 {
		return MaxWaitNs
	}
	return d * 1e6
}

// parseDecimal parses unsigned decimal digits with an optional fraction
// ("7", "1.5", " 120 ") as a count of units of unitNs nanoseconds. Signs,
// exponents, "inf" and anything else do not parse. RFC 9110's delay-seconds
// is 1*DIGIT; the fraction is accepted because openai-python and
// anthropic-sdk-python read Retry-After with float(). A value of MaxWaitNs or
// more, however many digits it has, is MaxWaitNs.
func parseDecimal(s string, unitNs int64) (int64, bool) {
	s = strings.TrimSpace(s)
	var whole int64
	saturated := false
	i := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		if !saturated {
			whole = whole*10 + int64(s[i]-'0')
			saturated = whole > MaxWaitNs/unitNs
		}
	}
	if i == 0 {
		return 0, false
	}
	ns := whole * unitNs
	if i < len(s) {
		if s[i] != '.' || i+1 == len(s) {
			return 0, false
		}
		scale := unitNs
		for i++; i < len(s); i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			scale /= 10
			ns += int64(c-'0') * scale
		}
	}
	if saturated || ns > MaxWaitNs {
		return MaxWaitNs, true
	}
	return ns, true
}

// parseProtoDuration parses the JSON form of a google.protobuf.Duration:
// decimal seconds with up to nine fractional digits and an "s" suffix
// ("58s", "1.250s"). A negative duration does not parse.
//
// See google/protobuf/duration.proto (JSON mapping).
func parseProtoDuration(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 2 || s[len(s)-1] != 's' {
		return 0, false
	}
	return parseDecimal(s[:len(s)-1], 1e9)
}

// parseGoDuration parses a Go duration string as OpenAI sends it in
// x-ratelimit-reset-* ("1s", "6m0s", "20ms", "2m30.5s", "1h2m3s"); see
// time.ParseDuration. A negative duration does not parse; one of MaxWaitNs or
// more, including one too long for time.ParseDuration ("99999999999h"), is
// MaxWaitNs.
//
// See https://platform.openai.com/docs/guides/rate-limits (headers).
func parseGoDuration(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if s == "" || s[0] == '-' || s[0] == '+' {
		return 0, false
	}
	d, ok := parseDuration(s)
	switch {
	case ok && d >= MaxWaitNs:
		return MaxWaitNs, true
	case ok:
		return d, true
	case isGoDuration(s):
		return MaxWaitNs, true // well formed, too long for an int64
	}
	return 0, false
}

// isGoDuration reports whether s has the syntax time.ParseDuration accepts
// without a sign: one or more decimal numbers (digits, an optional fraction,
// at least one digit in all), each followed by a unit ns, us, µs, μs, ms, s,
// m or h.
func isGoDuration(s string) bool {
	if s == "" {
		return false
	}
	for s != "" {
		digits, i := 0, 0
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			digits++
		}
		if i < len(s) && s[i] == '.' {
			for i++; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
				digits++
			}
		}
		if digits == 0 {
			return false
		}
		s = s[i:]
		unit := ""
		for _, u := range [...]string{"ns", "us", "\u00b5s", "\u03bcs", "ms", "s", "m", "h"} {
			if strings.HasPrefix(s, u) && len(u) > len(unit) {
				unit = u
			}
		}
		if unit == "" {
			return false
		}
		s = s[len(unit):]
	}
	return true
}

// parseHTTPDate parses an HTTP-date in any of the three forms RFC 9110, 5.6.7
// requires a recipient to accept (IMF-fixdate, RFC 850, asctime) and returns
// milliseconds since the Unix epoch, as time.Parse reads each layout.
func parseHTTPDate(s string) (int64, bool) {
	for _, layout := range [...][]chunk{imfFixdate[:], rfc850Date[:], asctimeDate[:]} {
		if ms, ok := parseLayout(layout, s); ok {
			return ms, true
		}
	}
	return 0, false
}

// parseRFC3339 parses an RFC 3339 timestamp ("2024-03-26T20:00:00Z") as
// Anthropic sends it in anthropic-ratelimit-*-reset, in milliseconds since the
// Unix epoch, as time.Parse(time.RFC3339Nano, s) reads it.
func parseRFC3339(s string) (int64, bool) {
	return parseLayout(rfc3339Nano[:], strings.TrimSpace(s))
}

// Seconds returns ns as seconds for details.retry_after_seconds: an int64
// when whole, else a float64.
func Seconds(ns int64) any {
	if ns%1e9 == 0 {
		return ns / 1e9
	}
	return float64(ns) / 1e9
}
