package classify

import (
	"testing"
	"time"
)

// clockCorpus holds dates and durations near every rule of time.Parse and
// time.ParseDuration that clock.go follows: spaces, case, two-digit years
// and their signs, fractions after seconds, offsets up to 24:60, day ranges,
// leap years, overflow.
var clockCorpus = []string{
	"", "0", "00", "0s", "1s", "6m0s", "20ms", "2m30.5s", "1h2m3s", ".5s", "5.s", ".s", "1.0000000001s",
	"1.2345678901234567890123h", "0.000000001ns", "1us", "1\u00b5s", "1\u03bcs", "1µ", "1sec", "1m1",
	"9223372036854775807ns", "9223372036854775808ns", "2562047h47m16.854775807s", "2562048h",
	"99999999999h", "18446744073709551616ns", "1.5h0.5m", "3m.25s", "1.ns", "1..5s", "-1s", "+1s", "1s ",
	"1e3s", "0.1h0.1h0.1h",
	"Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
	"sun, 06 nov 1994 08:49:37 GMT", "SUN, 06 NOV 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 gmt",
	"Sun,   06   Nov 1994 08:49:37  GMT", "Sun, 06 Nov 1994 8:49:37 GMT", "Sun, 6 Nov 1994 08:49:37 GMT",
	"Sun, 06 Nov 1994 08:49:37.123456789012 GMT", "Sun, 06 Nov 1994 08:49:37,5 GMT",
	"Sun, 06 Nov 1994 08:49:37. GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 23:60:00 GMT",
	"Sun, 06 Nov 1994 23:59:60 GMT", "Mon, 29 Feb 2000 00:00:00 GMT", "Mon, 29 Feb 1900 00:00:00 GMT",
	"Mon, 29 Feb 2024 00:00:00 GMT", "Mon, 31 Apr 2024 00:00:00 GMT", "Mon, 00 Jan 2024 00:00:00 GMT",
	"Mon, 01 Jan 0000 00:00:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT", "Mon, 01 Jan 1969 00:00:00 GMT",
	"Mon, 01 Jan 12a4 00:00:00 GMT", "Mon, 01 Jan 2024 00:00:00 GMTX", "Mon, 01 Jan 2024 00:00:00",
	"Monday, 01-Jan-69 00:00:00 GMT", "Monday, 01-Jan-68 00:00:00 GMT", "Monday, 01-Jan-+5 00:00:00 GMT",
	"Monday, 01-Jan--5 00:00:00 GMT", "Monday, 01-Jan-5 00:00:00 GMT", "monday, 01-jan-24 00:00:00 GMT",
	"Mon Jan 1 00:00:00 2024", "Mon Jan 01 00:00:00 2024", "Mon Jan  1 00:00:00.5 2024", "Mon Jan 32 00:00:00 2024",
	"Mon Jan 1 00:00:00 2024 ", "Mon Jan\t1 00:00:00 2024",
	"2024-03-26T20:00:00Z", "2024-03-26T20:00:00.123Z", "2024-03-26T20:00:00,123Z", "2024-03-26T20:00:00.Z",
	"2024-03-26T20:00:00.1234567891Z", "2024-03-26T2:00:00Z", "2024-03-26T20:00:00+01:00",
	"2024-03-26T20:00:00-23:59", "2024-03-26T20:00:00+24:60", "2024-03-26T20:00:00+25:00",
	"2024-03-26T20:00:00+01:61", "2024-03-26T20:00:00+0100", "2024-03-26T20:00:00z", "2024-03-26t20:00:00Z",
	"2024-13-26T20:00:00Z", "2024-02-30T20:00:00Z", "2024-3-26T20:00:00Z", "0000-01-01T00:00:00Z",
	"9999-12-31T23:59:59.999999999-24:00", " 2024-03-26T20:00:00Z ", "2024-03-26T20:00:00", "2024-03-26T20:00:00Z ",
	"2024-03-26T20:00:00+01:00:00", "+024-03-26T20:00:00Z", "1969-12-31T23:59:59.5Z",
}

// timeParseMs is what classification read through the time package before
// clock.go: time.Parse's UnixMilli, or false.
func timeParseMs(layout, s string) (int64, bool) {
	t, err := time.Parse(layout, s)
	if err != nil {
		return 0, false
	}
	return t.UnixMilli(), true
}

// checkClock compares each of clock.go's parsers with the time package on s.
func checkClock(t *testing.T, s string) {
	t.Helper()
	if s == "" || (s[0] != '-' && s[0] != '+') {
		want, err := time.ParseDuration(s)
		got, ok := parseDuration(s)
		if ok != (err == nil) || got != int64(want) {
			t.Errorf("parseDuration(%q) = %d, %v; time.ParseDuration = %d, %v", s, got, ok, want, err)
		}
	}
	for _, tc := range []struct {
		layout string
		chunks []chunk
	}{
		{"Mon, 02 Jan 2006 15:04:05 GMT", imfFixdate[:]},
		{"Monday, 02-Jan-06 15:04:05 GMT", rfc850Date[:]},
		{"Mon Jan _2 15:04:05 2006", asctimeDate[:]},
		{time.RFC3339Nano, rfc3339Nano[:]},
	} {
		want, wok := timeParseMs(tc.layout, s)
		got, ok := parseLayout(tc.chunks, s)
		if ok != wok || got != want {
			t.Errorf("parseLayout(%q, %q) = %d, %v; time.Parse = %d, %v", tc.layout, s, got, ok, want, wok)
		}
	}
}

// TestClockParsers_matchTime: the wait hints' dates and durations parse as
// the time package parses them, on the corpus and on every date of a
// 400-year cycle's boundaries.
func TestClockParsers_matchTime(t *testing.T) {
	for _, s := range clockCorpus {
		checkClock(t, s)
	}
	for _, year := range []int{0, 1, 4, 100, 399, 400, 1600, 1900, 1969, 1970, 2000, 2023, 2024, 2100, 9999} {
		for day := time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC); day.Year() == year; day = day.AddDate(0, 0, 1) {
			checkClock(t, day.Format(time.RFC3339Nano))
			checkClock(t, day.Add(23*time.Hour+59*time.Minute+59*time.Second+999*time.Millisecond).Format(time.RFC3339Nano))
			checkClock(t, day.Format(time.RFC1123))
		}
	}
	for d := time.Duration(1); d > 0 && d < 1<<62; d = d*3 + 7 {
		checkClock(t, d.String())
	}
}

// TestClockParsers_waitHints: the wait hints that read them give the
// values of the time package (Sun, 06 Nov 1994 08:49:37 GMT is
// 784111777000 ms; a Go duration past MaxWaitNs is MaxWaitNs).
func TestClockParsers_waitHints(t *testing.T) {
	for _, s := range []string{"Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"} {
		if ms, ok := parseHTTPDate(s); !ok || ms != 784111777000 {
			t.Errorf("parseHTTPDate(%q) = %d, %v; want 784111777000", s, ms, ok)
		}
	}
	if ms, ok := parseRFC3339(" 2024-03-26T20:00:00.5+01:00 "); !ok || ms != 1711479600500 {
		t.Errorf("parseRFC3339 = %d, %v; want 1711479600500", ms, ok)
	}
	if ns, ok := parseGoDuration("99999999999h"); !ok || ns != MaxWaitNs {
		t.Errorf("parseGoDuration(99999999999h) = %d, %v; want MaxWaitNs", ns, ok)
	}
	if MaxWaitNs != int64(10*366*24*time.Hour) {
		t.Errorf("MaxWaitNs = %d; want ten 366-day years", MaxWaitNs)
	}
}

// FuzzClockParsers: any text parses as the time package parses it.
func FuzzClockParsers(f *testing.F) {
	for _, s := range clockCorpus {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkClock(t, s) })
}
