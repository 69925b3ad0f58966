package classify

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// now2025 is the fixed clock of the tests: 2025-01-01T00:00:00Z.
const now2025 = int64(1735689600000)

func TestHeader_get(t *testing.T) {
	h := Header{"Retry-After": {" 7 "}, "x-request-id": {"a", "b"}, "X-Should-Retry": {}}
	v, ok := h.Get("retry-after")
	assert.True(t, ok)
	assert.Equal(t, "7", v)
	v, ok = h.Get("x-request-id")
	assert.True(t, ok)
	assert.Equal(t, "a", v, "the first value wins, as in http.Header.Get")
	_, ok = h.Get("x-should-retry")
	assert.False(t, ok, "a name with no values is absent")
	_, ok = Header(nil).Get("retry-after")
	assert.False(t, ok)
	// Two spellings of one name: the lexically smallest wins, every time.
	for range 20 {
		v, _ = Header{"RETRY-AFTER": {"1"}, "Retry-after": {"2"}, "rEtry-after": {"3"}}.Get("retry-after")
		assert.Equal(t, "1", v)
	}
}

func TestWaitHint_headers(t *testing.T) {
	tests := []struct {
		name   string
		h      Header
		delay  string
		rl     bool
		now    int64
		want   any // seconds, or nil for absent
		source string
	}{
		{"delay-seconds", Header{"retry-after": {"12"}}, "", true, 0, int64(12), "retry-after"},
		{"canonical name", Header{"Retry-After": {"12"}}, "", true, 0, int64(12), "retry-after"},
		{"array value", Header{"retry-after": {"3", "9"}}, "", true, 0, int64(3), "retry-after"},
		{"zero", Header{"retry-after": {"0"}}, "", true, 0, int64(0), "retry-after"},
		{"non-integer seconds", Header{"retry-after": {"1.5"}}, "", true, 0, 1.5, "retry-after"},
		{"negative does not parse", Header{"retry-after": {"-1"}}, "", true, 0, nil, ""},
		{"exponent does not parse", Header{"retry-after": {"1e3"}}, "", true, 0, nil, ""},
		{"garbage does not parse", Header{"retry-after": {"soon"}}, "", true, 0, nil, ""},
		{"trailing dot does not parse", Header{"retry-after": {"5."}}, "", true, 0, nil, ""},
		{"absurd value is the cap", Header{"retry-after": {"99999999999999999999"}}, "", true, 0, MaxWaitNs / 1e9, "retry-after"},
		{"absurd fraction is the cap", Header{"retry-after": {"99999999999999999999.5"}}, "", true, 0, MaxWaitNs / 1e9, "retry-after"},
		{"absurd ms is the cap", Header{"retry-after-ms": {"1" + strings.Repeat("0", 308)}}, "", true, 0, MaxWaitNs / 1e9, "retry-after-ms"},
		{"absurd RetryInfo is the cap", nil, strings.Repeat("9", 400) + "s", true, 0, MaxWaitNs / 1e9, "retryDelay"},
		{"absurd garbage still does not parse", Header{"retry-after": {strings.Repeat("9", 400) + "x"}}, "", true, 0, nil, ""},
		{"date in the year 9999 is the cap", Header{"retry-after": {"Fri, 31 Dec 9999 23:59:59 GMT"}}, "", true, now2025, MaxWaitNs / 1e9, "retry-after"},
		{"IMF-fixdate", Header{"retry-after": {"Wed, 01 Jan 2025 00:00:30 GMT"}}, "", true, now2025, int64(30), "retry-after"},
		{"RFC 850 date", Header{"retry-after": {"Wednesday, 01-Jan-25 00:01:00 GMT"}}, "", true, now2025, int64(60), "retry-after"},
		{"asctime date", Header{"retry-after": {"Wed Jan  1 00:00:05 2025"}}, "", true, now2025, int64(5), "retry-after"},
		{"date in the past is zero", Header{"retry-after": {"Tue, 31 Dec 2024 23:59:00 GMT"}}, "", true, now2025, int64(0), "retry-after"},
		{"date against a fractional now", Header{"retry-after": {"Wed, 01 Jan 2025 00:00:30 GMT"}}, "", true, now2025 + 500, 29.5, "retry-after"},
		{"date without now is absent", Header{"retry-after": {"Wed, 01 Jan 2025 00:00:30 GMT"}}, "", true, -1, nil, ""},
		{"retry-after-ms first", Header{"retry-after-ms": {"1500"}, "retry-after": {"9"}}, "", true, 0, 1.5, "retry-after-ms"},
		{"bad retry-after-ms falls through", Header{"retry-after-ms": {"x"}, "retry-after": {"9"}}, "", true, 0, int64(9), "retry-after"},
		{"x-amz-retry-after is milliseconds", Header{"x-amz-retry-after": {"2500"}}, "", true, 0, 2.5, "x-amz-retry-after"},
		{"Retry-After before x-amz-retry-after", Header{"x-amz-retry-after": {"2500"}, "retry-after": {"4"}}, "", true, 0, int64(4), "retry-after"},
		{"RetryInfo 58s", nil, "58s", true, 0, int64(58), "retryDelay"},
		{"RetryInfo 1.250s", nil, "1.250s", true, 0, 1.25, "retryDelay"},
		{"RetryInfo nanoseconds", nil, "45.578569677s", true, 0, 45.578569677, "retryDelay"},
		{"RetryInfo without s is absent", nil, "58", true, 0, nil, ""},
		{"header before RetryInfo", Header{"retry-after": {"3"}}, "58s", true, 0, int64(3), "retry-after"},
		{"OpenAI resets need a rate limit", Header{"x-ratelimit-reset-requests": {"1s"}}, "", false, 0, nil, ""},
		{"OpenAI requests reset", Header{"x-ratelimit-reset-requests": {"20ms"}}, "", true, 0, 0.02, "x-ratelimit-reset-requests"},
		// Both present, no retry-after: the larger of the exhausted buckets.
		{"B18 larger of both", Header{"x-ratelimit-reset-requests": {"1s"}, "x-ratelimit-reset-tokens": {"6m0s"}}, "", true, 0, int64(360), "x-ratelimit-reset-tokens"},
		{"B18 only the exhausted bucket", Header{"x-ratelimit-reset-requests": {"1s"}, "x-ratelimit-remaining-requests": {"0"},
			"x-ratelimit-reset-tokens": {"6m0s"}, "x-ratelimit-remaining-tokens": {"1200"}}, "", true, 0, int64(1), "x-ratelimit-reset-requests"},
		{"B18 bad reset skipped", Header{"x-ratelimit-reset-requests": {"garbage"}, "x-ratelimit-reset-tokens": {"2m30.5s"}}, "", true, 0, 150.5, "x-ratelimit-reset-tokens"},
		{"retry-after beats resets", Header{"retry-after": {"2"}, "x-ratelimit-reset-tokens": {"6m0s"}}, "", true, 0, int64(2), "retry-after"},
		{"Anthropic reset", Header{"anthropic-ratelimit-requests-reset": {"2025-01-01T00:00:12Z"}, "anthropic-ratelimit-requests-remaining": {"0"},
			"anthropic-ratelimit-tokens-reset": {"2025-01-01T00:01:00Z"}, "anthropic-ratelimit-tokens-remaining": {"16000"}}, "", true, now2025, int64(12), "anthropic-ratelimit-requests-reset"},
		{"Anthropic fractional reset", Header{"anthropic-ratelimit-output-tokens-reset": {"2025-01-01T00:00:01.5Z"}}, "", true, now2025, 1.5, "anthropic-ratelimit-output-tokens-reset"},
		{"Anthropic offset reset", Header{"anthropic-ratelimit-tokens-reset": {"2025-01-01T01:00:30+01:00"}}, "", true, now2025, int64(30), "anthropic-ratelimit-tokens-reset"},
		{"Anthropic reset without now", Header{"anthropic-ratelimit-requests-reset": {"2025-01-01T00:00:12Z"}}, "", true, -1, nil, ""},
		{"Anthropic bad reset", Header{"anthropic-ratelimit-requests-reset": {"tomorrow"}}, "", true, now2025, nil, ""},
		{"nothing", Header{"content-type": {"application/json"}}, "", true, now2025, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hs := scanHeaders(tc.h)
			w, ok := waitHint(&hs, tc.delay, tc.rl, tc.now, tc.now >= 0)
			if tc.want == nil {
				assert.False(t, ok, "got %v from %d", w.Ns, w.From)
				return
			}
			require.True(t, ok)
			assert.Equal(t, tc.want, Seconds(w.Ns))
			from := "retryDelay"
			if w.From != fromRetryDelay {
				from = headerNames()[w.From]
			}
			assert.Equal(t, tc.source, from)
		})
	}
}

// TestParseGoDuration_B18: OpenAI's reset
// headers are Go durations, not Unix times.
func TestParseGoDuration_B18(t *testing.T) {
	tests := []struct {
		in   string
		want any
	}{
		{"1s", int64(1)}, {"6m0s", int64(360)}, {"12ms", 0.012}, {"2m30.5s", 150.5},
		{"1h2m3s", int64(3723)}, {"0s", int64(0)}, {"20ms", 0.02}, {"garbage", nil},
		{"-1s", nil}, {"", nil}, {"1", nil}, {"1.s", int64(1)}, {".5s", 0.5}, {".s", nil}, {"1x", nil},
		// Past time.ParseDuration's int64 (and past the cap): the cap.
		{"99999999999h", MaxWaitNs / 1e9}, {strings.Repeat("9", 400) + "s", MaxWaitNs / 1e9},
		{"87840h", MaxWaitNs / 1e9}, {"87839h", int64(87839 * 3600)}, {"1h" + strings.Repeat("9", 30) + "ms", MaxWaitNs / 1e9},
		{"9999999999999999999999x", nil}, {"1µs", 1e-6}, {"1μs", 1e-6},
	}
	for _, tc := range tests {
		ns, ok := parseGoDuration(tc.in)
		if tc.want == nil {
			assert.False(t, ok, tc.in)
			continue
		}
		require.True(t, ok, tc.in)
		assert.Equal(t, tc.want, Seconds(ns), tc.in)
	}
}

func TestSeconds(t *testing.T) {
	assert.Equal(t, int64(12), Seconds(12e9))
	assert.Equal(t, 0.5, Seconds(5e8))
	for ns, want := range map[int64]string{1e9: "1 second", 12e9: "12 seconds", 25e7: "0.25 seconds"} {
		var b strings.Builder
		writeSeconds(&b, ns)
		assert.Equal(t, want, b.String())
	}
}
