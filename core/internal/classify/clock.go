package classify

// The dates and durations that wait hints carry, parsed exactly as the time
// package parses them (time.Parse with the layouts below, in UTC, and
// time.ParseDuration) without importing it: time, and what its package
// initialisation links (GODEBUG parsing, internal/bisect, syscall's
// environment), is about 350 KB of the 5 MB wasm module, and it runs at every
// instantiation. clock_test.go checks every parser against the time package on
// a corpus of edge cases and by fuzzing (FuzzClockParsers).

// layoutField is one element of a time.Parse layout, named by its reference value.
type layoutField uint8

const (
	fEnd         layoutField = iota // the end of the layout: nothing may follow
	fWeekDay                        // "Mon": a day name, any case, not checked against the date
	fLongWeekDay                    // "Monday"
	fMonth                          // "Jan": a month name, any case
	fZeroMonth                      // "01": two digits, 1-12
	fZeroDay                        // "02": two digits (the day is checked against the month at the end)
	fUnderDay                       // "_2": one or two digits after an optional space
	fYear                           // "06": two characters, 69-99 the 1900s, else the 2000s
	fLongYear                       // "2006": four digits
	fHour                           // "15": one or two digits, 0-23
	fZeroMinute                     // "04": two digits, 0-59
	fZeroSecond                     // "05": two digits, 0-59; a fraction may follow when the layout has none
	fFrac                           // ".999999999": an optional fraction (a period or comma and digits)
	fZone                           // "Z07:00": Z, or a sign and hh:mm (up to 24:60)
)

// chunk is a layout's literal text before one layoutField, as time.Parse splits
// a layout: a space in prefix matches any run of spaces in the value.
type chunk struct {
	prefix string
	f      layoutField
}

// The layouts classification parses, as time.Parse reads them.
var (
	// imfFixdate is "Mon, 02 Jan 2006 15:04:05 GMT" (RFC 9110, 5.6.7).
	imfFixdate = [...]chunk{{"", fWeekDay}, {", ", fZeroDay}, {" ", fMonth}, {" ", fLongYear},
		{" ", fHour}, {":", fZeroMinute}, {":", fZeroSecond}, {" GMT", fEnd}}
	// rfc850Date is "Monday, 02-Jan-06 15:04:05 GMT" (RFC 9110, 5.6.7, obsolete).
	rfc850Date = [...]chunk{{"", fLongWeekDay}, {", ", fZeroDay}, {"-", fMonth}, {"-", fYear},
		{" ", fHour}, {":", fZeroMinute}, {":", fZeroSecond}, {" GMT", fEnd}}
	// asctimeDate is "Mon Jan _2 15:04:05 2006" (RFC 9110, 5.6.7, ANSI C asctime()).
	asctimeDate = [...]chunk{{"", fWeekDay}, {" ", fMonth}, {" ", fUnderDay}, {" ", fHour},
		{":", fZeroMinute}, {":", fZeroSecond}, {" ", fLongYear}, {"", fEnd}}
	// rfc3339Nano is time.RFC3339Nano, "2006-01-02T15:04:05.999999999Z07:00".
	rfc3339Nano = [...]chunk{{"", fLongYear}, {"-", fZeroMonth}, {"-", fZeroDay}, {"T", fHour},
		{":", fZeroMinute}, {":", fZeroSecond}, {"", fFrac}, {"", fZone}, {"", fEnd}}
)

var (
	shortDayNames   = [...]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
	longDayNames    = [...]string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	shortMonthNames = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
)

// parseLayout parses value as time.Parse(layout, value) does in UTC and
// returns the instant in milliseconds since the Unix epoch (Time.UnixMilli),
// and whether it parsed.
func parseLayout(layout []chunk, value string) (int64, bool) {
	year, month, day := 0, -1, -1
	hour, minute, sec, nsec, offset := 0, 0, 0, 0, 0
	for i, c := range layout {
		var ok bool
		if value, ok = skipLiteral(value, c.prefix); !ok {
			return 0, false
		}
		if c.f == fEnd {
			if value != "" {
				return 0, false
			}
			break
		}
		switch c.f {
		case fWeekDay:
			_, value, ok = lookupName(shortDayNames[:], value)
		case fLongWeekDay:
			_, value, ok = lookupName(longDayNames[:], value)
		case fMonth:
			month, value, ok = lookupName(shortMonthNames[:], value)
			month++
		case fZeroMonth:
			month, value, ok = twoDigits(value, true)
			ok = ok && month >= 1 && month <= 12
		case fZeroDay, fUnderDay:
			if c.f == fUnderDay && value != "" && value[0] == ' ' {
				value = value[1:]
			}
			day, value, ok = twoDigits(value, c.f == fZeroDay)
		case fYear:
			if len(value) < 2 {
				return 0, false
			}
			year, ok = signedInt(value[:2])
			value = value[2:]
			if year >= 69 {
				year += 1900
			} else {
				year += 2000
			}
		case fLongYear:
			if len(value) < 4 || !digitAt(value, 0) {
				return 0, false
			}
			year, ok = signedInt(value[:4])
			value = value[4:]
		case fHour:
			hour, value, ok = twoDigits(value, false)
			ok = ok && hour < 24
		case fZeroMinute:
			minute, value, ok = twoDigits(value, true)
			ok = ok && minute < 60
		case fZeroSecond:
			sec, value, ok = twoDigits(value, true)
			ok = ok && sec < 60
			// A fraction the layout does not name is read all the same.
			if ok && len(value) >= 2 && isPoint(value[0]) && digitAt(value, 1) && layout[i+1].f != fFrac {
				n := 2
				for n < len(value) && digitAt(value, n) {
					n++
				}
				nsec, value = nanoseconds(value, n), value[n:]
			}
		case fFrac:
			ok = true
			if len(value) >= 2 && isPoint(value[0]) && digitAt(value, 1) {
				n := 2
				for n < len(value) && digitAt(value, n) {
					n++
				}
				nsec, value = nanoseconds(value, n), value[n:]
			}
		case fZone:
			offset, value, ok = zoneOffset(value)
		}
		if !ok {
			return 0, false
		}
	}
	if day < 1 || day > daysIn(month, year) {
		return 0, false
	}
	secs := daysFromCivil(year, month, day)*86400 + int64(hour*3600+minute*60+sec) - int64(offset)
	return secs*1000 + int64(nsec/1e6), true
}

// zoneOffset reads "Z" or "±hh:mm" (hh up to 24, mm up to 60, as time.Parse
// allows) and returns the offset east of UTC in seconds.
func zoneOffset(value string) (int, string, bool) {
	if value != "" && value[0] == 'Z' {
		return 0, value[1:], true
	}
	if len(value) < 6 || value[3] != ':' {
		return 0, value, false
	}
	hr, _, ok1 := twoDigits(value[1:3], true)
	mm, _, ok2 := twoDigits(value[4:6], true)
	if !ok1 || !ok2 || hr > 24 || mm > 60 {
		return 0, value, false
	}
	off := (hr*60 + mm) * 60
	switch value[0] {
	case '+':
	case '-':
		off = -off
	default:
		return 0, value, false
	}
	return off, value[6:], true
}

// skipLiteral removes prefix from value; a space in prefix matches any run
// of spaces in value, and none at its end.
func skipLiteral(value, prefix string) (string, bool) {
	for prefix != "" {
		if prefix[0] == ' ' {
			if value != "" && value[0] != ' ' {
				return value, false
			}
			prefix, value = trimSpaces(prefix), trimSpaces(value)
			continue
		}
		if value == "" || value[0] != prefix[0] {
			return value, false
		}
		prefix, value = prefix[1:], value[1:]
	}
	return value, true
}

func trimSpaces(s string) string {
	for s != "" && s[0] == ' ' {
		s = s[1:]
	}
	return s
}

// lookupName returns the index of the first name value starts with (ASCII
// letters in any case) and the rest of value.
func lookupName(names []string, value string) (int, string, bool) {
	for i, name := range names {
		if len(value) >= len(name) && foldedEqual(value[:len(name)], name) {
			return i, value[len(name):], true
		}
	}
	return -1, value, false
}

// foldedEqual reports whether a and b (of one length) are equal with ASCII
// letters compared in any case.
func foldedEqual(a, b string) bool {
	for i := 0; i < len(a); i++ {
		c1, c2 := a[i], b[i]
		if c1 != c2 {
			c1 |= 'a' - 'A'
			c2 |= 'a' - 'A'
			if c1 != c2 || c1 < 'a' || c1 > 'z' {
				return false
			}
		}
	}
	return true
}

// twoDigits reads one or two leading digits (exactly two when fixed).
func twoDigits(s string, fixed bool) (int, string, bool) {
	if !digitAt(s, 0) {
		return 0, s, false
	}
	if !digitAt(s, 1) {
		if fixed {
			return 0, s, false
		}
		return int(s[0] - '0'), s[1:], true
	}
	return int(s[0]-'0')*10 + int(s[1]-'0'), s[2:], true
}

// signedInt reads s, a few characters, whole as an optional sign and digits.
func signedInt(s string) (int, bool) {
	neg := s != "" && s[0] == '-'
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	x := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		x = x*10 + int(s[i]-'0')
	}
	if neg {
		x = -x
	}
	return x, true
}

func digitAt(s string, i int) bool { return i < len(s) && isDigit(s[i]) }

func isPoint(c byte) bool { return c == '.' || c == ',' }

// nanoseconds reads the fraction value[:n] (a point and n-1 digits, only the
// first nine of which count) as nanoseconds.
func nanoseconds(value string, n int) int {
	n = min(n, 10)
	ns := 0
	for i := 1; i < n; i++ {
		ns = ns*10 + int(value[i]-'0')
	}
	for i := n; i < 10; i++ {
		ns *= 10
	}
	return ns
}

// daysIn returns the number of days of month (1-12) in the proleptic
// Gregorian year.
func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil returns the days from 1970-01-01 to the proleptic Gregorian
// date year-month-day (year >= 0).
//
// See http://howardhinnant.github.io/date_algorithms.html#days_from_civil.
func daysFromCivil(year, month, day int) int64 {
	y := int64(year)
	if month <= 2 {
		y--
	}
	era := y
	if era < 0 {
		era -= 399
	}
	era /= 400
	yoe := y - era*400
	m := int64(month)
	if m > 2 {
		m -= 3
	} else {
		m += 9
	}
	doy := (153*m+2)/5 + int64(day) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// parseDuration parses an unsigned Go duration string exactly as
// time.ParseDuration does ("1h2m3.5s", "20ms", ".5s", "0"): the value in
// nanoseconds, and false for bad syntax or a value past an int64.
func parseDuration(s string) (int64, bool) {
	if s == "0" {
		return 0, true
	}
	if s == "" {
		return 0, false
	}
	var d uint64
	for s != "" {
		if s[0] != '.' && (s[0] < '0' || s[0] > '9') {
			return 0, false
		}
		n := len(s)
		v, ok := uint64(0), true
		for s != "" && s[0] >= '0' && s[0] <= '9' {
			if v > 1<<63/10 {
				return 0, false
			}
			v = v*10 + uint64(s[0]-'0')
			if v > 1<<63 {
				return 0, false
			}
			s = s[1:]
		}
		pre := n != len(s)
		var f uint64
		scale, post := 1.0, false
		if s != "" && s[0] == '.' {
			s = s[1:]
			n = len(s)
			f, scale, s = leadingFraction(s)
			post = n != len(s)
		}
		if !pre && !post {
			return 0, false
		}
		i := 0
		for i < len(s) && s[i] != '.' && (s[i] < '0' || s[i] > '9') {
			i++
		}
		var unit uint64
		if unit, ok = durationUnit(s[:i]); !ok {
			return 0, false
		}
		s = s[i:]
		if v > 1<<63/unit {
			return 0, false
		}
		v *= unit
		if f > 0 {
			v += uint64(float64(f) * (float64(unit) / scale))
			if v > 1<<63 {
				return 0, false
			}
		}
		if d += v; d > 1<<63 {
			return 0, false
		}
	}
	if d > 1<<63-1 {
		return 0, false
	}
	return int64(d), true
}

// leadingFraction reads the digits after a duration's decimal point: their
// value while it fits, the power of ten it is scaled by, and the rest of s.
func leadingFraction(s string) (x uint64, scale float64, rem string) {
	i, scale, overflow := 0, 1.0, false
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		if overflow {
			continue
		}
		if x > (1<<63-1)/10 {
			overflow = true
			continue
		}
		y := x*10 + uint64(s[i]-'0')
		if y > 1<<63 {
			overflow = true
			continue
		}
		x = y
		scale *= 10
	}
	return x, scale, s[i:]
}

// durationUnit returns the nanoseconds of a Go duration unit.
func durationUnit(u string) (uint64, bool) {
	switch u {
	case "ns":
		return 1, true
	case "us", "\u00b5s", "\u03bcs": // micro sign, Greek small letter mu
		return 1e3, true
	case "ms":
		return 1e6, true
	case "s":
		return 1e9, true
	case "m":
		return 60e9, true
	case "h":
		return 3600e9, true
	}
	return 0, false
}
