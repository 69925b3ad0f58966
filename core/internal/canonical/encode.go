package canonical

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Appender is a value that writes its own canonical JSON form.
//
// AppendCanonical appends the RFC 8785 form of the value to dst and returns
// the extended slice. Implementations must emit canonical bytes themselves.
type Appender interface {
	AppendCanonical(dst []byte) ([]byte, error)
}

// ErrUnsupported is returned (wrapped in an *UnsupportedError) for a Go value
// the writer does not know, or for a number JSON cannot carry (NaN, ±Inf).
var ErrUnsupported = errors.New("canonical: unsupported value")

// UnsupportedError names the value Append could not write.
type UnsupportedError struct {
	What string
}

// Error returns "canonical: unsupported value: <what>".
func (e *UnsupportedError) Error() string { return "canonical: unsupported value: " + e.What }

// Is reports whether target is ErrUnsupported.
func (e *UnsupportedError) Is(target error) bool { return target == ErrUnsupported }

// Marshal returns the canonical JSON (RFC 8785) of v.
//
// v is a value tree as returned by Parse, possibly with int, int64, uint64,
// []string, map[string]string and Appender values mixed in. Returns an
// *UnsupportedError for NaN, ±Inf and any other Go type.
func Marshal(v any) ([]byte, error) {
	return Append(make([]byte, 0, 128), v)
}

// Canonicalize parses JSON text and returns its canonical form.
//
// It returns the *SyntaxError of Parse for malformed input.
func Canonicalize(data []byte) ([]byte, error) {
	v, err := Parse(data)
	if err != nil {
		return nil, err
	}
	return Marshal(v)
}

// Append appends the canonical JSON of v to dst; see Marshal.
func Append(dst []byte, v any) ([]byte, error) {
	return appendValue(dst, v, math.MaxInt, 0)
}

// MaxEncodeDepth is the deepest nesting of arrays and objects Append writes:
// four times MaxDepth, room for any tree Parse accepts inside the members an
// op wraps around it. A deeper value is a Go value built by a caller, most
// likely one that holds itself (a map or slice in its own tree), and gets a
// *LimitError (Bound "depth") instead of a stack overflow, which would end
// the process beyond any recover.
const MaxEncodeDepth = 4 * MaxDepth

func tooDeep(depth int) error {
	return &LimitError{Bound: "depth", Limit: MaxEncodeDepth, Count: int64(depth), Offset: -1}
}

// AppendMax is Append that stops once dst would grow past max bytes: it
// returns a *LimitError (Bound "output_bytes", Limit max, Count the length
// dst had reached) as soon as a string, an element or a member takes dst
// past max, so a value whose JSON is far longer is never written out whole.
// A value that writes itself (an Appender) is checked once it has.
func AppendMax(dst []byte, v any, max int) ([]byte, error) {
	dst, err := appendValue(dst, v, max, 0)
	if err == nil && len(dst) > max {
		err = tooLong(dst, max)
	}
	return dst, err
}

func tooLong(dst []byte, max int) error {
	return &LimitError{Bound: "output_bytes", Limit: int64(max), Count: int64(len(dst)), Offset: -1}
}

func appendValue(dst []byte, v any, max, depth int) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		if x {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case string:
		if len(dst)+len(x) > max {
			return dst, tooLong(dst, max)
		}
		return AppendString(dst, x), nil
	case float64:
		return AppendFloat(dst, x)
	case int:
		return AppendFloat(dst, float64(x))
	case int64:
		return AppendFloat(dst, float64(x))
	case uint64:
		return AppendFloat(dst, float64(x))
	case map[string]any:
		return appendObject(dst, x, max, depth+1)
	case []any:
		if depth++; depth > MaxEncodeDepth {
			return dst, tooDeep(depth)
		}
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendValue(dst, e, max, depth); err != nil {
				return dst, err
			}
			if len(dst) > max {
				return dst, tooLong(dst, max)
			}
		}
		return append(dst, ']'), nil
	case []string:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			if len(dst)+len(e) > max {
				return dst, tooLong(dst, max)
			}
			dst = AppendString(dst, e)
		}
		return append(dst, ']'), nil
	case map[string]string:
		m := make(map[string]any, len(x))
		for k, s := range x {
			m[k] = s
		}
		return appendObject(dst, m, max, depth+1)
	case Appender:
		return x.AppendCanonical(dst)
	default:
		return dst, &UnsupportedError{What: "Go type not in the value tree"}
	}
}

func appendObject(dst []byte, m map[string]any, max, depth int) ([]byte, error) {
	if depth > MaxEncodeDepth {
		return dst, tooDeep(depth)
	}
	// Small objects (the common case: envelopes, details, wire messages) sort
	// their keys in a stack array, so writing them allocates nothing.
	var buf [16]string
	var keys []string
	if len(m) <= len(buf) {
		keys = buf[:0]
		for k := range m {
			keys = append(keys, k)
		}
		insertionSort(keys)
	} else {
		keys = SortedKeys(m)
	}
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		if len(dst)+len(k) > max {
			return dst, tooLong(dst, max)
		}
		dst = AppendString(dst, k)
		dst = append(dst, ':')
		var err error
		if dst, err = appendValue(dst, m[k], max, depth); err != nil {
			return dst, err
		}
		if len(dst) > max {
			return dst, tooLong(dst, max)
		}
	}
	return append(dst, '}'), nil
}

// SortedKeys returns the keys of m in RFC 8785 order (section 3.2.3): by their
// UTF-16 code units, compared as unsigned integers.
func SortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareUTF16) // not sort.Slice, whose reflection is 40 KB of the wasm module
	return keys
}

// insertionSort sorts a few keys in RFC 8785 order without allocating.
func insertionSort(keys []string) {
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && LessUTF16(keys[j], keys[j-1]); j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
}

// compareUTF16 is LessUTF16 as a three-way comparison, for slices.SortFunc.
func compareUTF16(a, b string) int {
	switch {
	case LessUTF16(a, b):
		return -1
	case LessUTF16(b, a):
		return 1
	}
	return 0
}

// LessUTF16 reports whether a sorts before b when both are compared as
// sequences of UTF-16 code units (RFC 8785 section 3.2.3). For text without
// characters above U+FFFF this is plain byte order.
func LessUTF16(a, b string) bool {
	// ASCII up to the first difference: byte order is UTF-16 order there
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] && a[i] < 0x80 {
		i++
	}
	switch {
	case i == len(a) || i == len(b):
		return len(a) == i && len(b) > i
	case a[i] < 0x80 && b[i] < 0x80:
		return a[i] < b[i]
	}
	a, b = a[i:], b[i:]
	for len(a) > 0 && len(b) > 0 {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			return utf16First(ra) < utf16First(rb)
		}
		a, b = a[na:], b[nb:]
	}
	return len(a) == 0 && len(b) > 0
}

// utf16First returns the first UTF-16 code unit of r.
func utf16First(r rune) rune {
	if r >= 0x10000 {
		return 0xD800 + ((r - 0x10000) >> 10)
	}
	return r
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a canonical JSON string (RFC 8785 section
// 3.2.2.2): only '"', '\\' and control characters are escaped, with the short
// forms \b \t \n \f \r where they exist and \u00xx (lower-case hex) otherwise.
// Invalid UTF-8 becomes U+FFFD.
func AppendString(dst []byte, s string) []byte { return appendString(dst, s) }

// AppendBytesString appends b as a canonical JSON string, as
// AppendString(dst, string(b)) does, without converting b.
func AppendBytesString(dst []byte, b []byte) []byte { return appendString(dst, b) }

// appendString is AppendString for a string or the bytes of one.
func appendString[T string | []byte](dst []byte, s T) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; ; {
		if i = plainRun(s, i); i >= len(s) {
			break
		}
		c := s[i]
		if c >= 0x80 {
			// At most one rune's bytes: a conversion of so few costs no allocation.
			r, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
			if r == utf8.RuneError && size == 1 {
				dst = append(dst, s[start:i]...)
				dst = append(dst, "\uFFFD"...)
				i++
				start = i
				continue
			}
			i += size
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendFloat appends f in the ECMAScript Number-to-String form that RFC 8785
// section 3.2.2.3 prescribes: the shortest digits that round-trip, plain
// notation for exponents in [-6, 21), otherwise d.ddde±x. -0 is written as 0.
// Returns an *UnsupportedError for NaN and ±Inf.
func AppendFloat(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, &UnsupportedError{What: "NaN or infinite number"}
	}
	if f == 0 {
		return append(dst, '0'), nil
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	// Integers up to 2^53 take the fast path.
	if f < 1e21 && f == math.Trunc(f) && f <= 1<<53 {
		return strconv.AppendUint(dst, uint64(f), 10), nil
	}
	var tmp [32]byte
	e := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64) // d[.ddd]e±xx
	mant := e
	exp := 0
	for i := range e {
		if e[i] == 'e' {
			mant = e[:i]
			x, _ := strconv.Atoi(string(e[i+1:]))
			exp = x
			break
		}
	}
	var digits [24]byte
	k := 0
	for _, c := range mant {
		if c != '.' {
			digits[k] = c
			k++
		}
	}
	ds := digits[:k]
	n := exp + 1 // position of the decimal point
	switch {
	case k <= n && n <= 21:
		dst = append(dst, ds...)
		for i := 0; i < n-k; i++ {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, ds[:n]...)
		dst = append(dst, '.')
		dst = append(dst, ds[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for i := 0; i < -n; i++ {
			dst = append(dst, '0')
		}
		dst = append(dst, ds...)
	default:
		dst = append(dst, ds[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, ds[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst, nil
}

// ValidString returns s with every invalid UTF-8 sequence replaced by U+FFFD.
// It returns s itself, without copying, when s is already valid.
func ValidString(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, "\uFFFD"...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return string(b)
}

// CheckValue reports whether Append can write v, without writing it: nil,
// or the *UnsupportedError (a Go type outside the value tree, NaN, ±Inf) or
// *LimitError (Bound "depth": nesting past MaxEncodeDepth, as a value that
// holds itself has) Append would return. An Appender is trusted.
func CheckValue(v any) error { return checkValue(v, 0) }

func checkValue(v any, depth int) error {
	switch x := v.(type) {
	case nil, bool, string, int, int64, uint64, []string, map[string]string, Appender:
		return nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return &UnsupportedError{What: "NaN or infinite number"}
		}
		return nil
	case map[string]any:
		if depth++; depth > MaxEncodeDepth {
			return tooDeep(depth)
		}
		for _, e := range x {
			if err := checkValue(e, depth); err != nil {
				return err
			}
		}
		return nil
	case []any:
		if depth++; depth > MaxEncodeDepth {
			return tooDeep(depth)
		}
		for _, e := range x {
			if err := checkValue(e, depth); err != nil {
				return err
			}
		}
		return nil
	}
	return &UnsupportedError{What: "Go type not in the value tree"}
}

// Text is JSON text already in canonical form (RFC 8785), as a codec that
// writes canonical bytes wrote it: inside a value tree, Append and AppendMax
// copy it as is. It is for a tree encoded right away (Invoke's answer), not
// for one a caller reads.
type Text []byte

// AppendCanonical appends t to dst.
func (t Text) AppendCanonical(dst []byte) ([]byte, error) { return append(dst, t...), nil }

// Tree parses t back into a value tree. t is text toolerr wrote from a
// value the request's own bounds admitted, so it is held to MaxTreeBytes
// alone, not to a budget per byte of its own length.
func (t Text) Tree() (any, error) {
	v, _, err := parse(string(t), MaxTreeBytes)
	return v, err
}
