package egress

import "bytes"

// Cutter scans the bytes of a stream event or an array element too long
// to hold (past core.MaxEventBytes, which passes unread unless its head
// opens an "error" object) for the value of a member named "error" (its
// name's escapes decoded) of the top-level object when that value is an
// object: the member a lenient reader (the SDKs' JSON parsers) raises as
// the upstream's error, whatever members go before it. Scan reports where
// such a value opens and closes, so the scan cuts it out as it passes,
// never held, and writes the error op's error object there; it scans the
// bytes once, strings by IndexByte. Its state is bounded: the nesting, two
// string flags, the member name up to MaxNameBytes and the cut's state,
// carried across chunks in core.ScanState.
//
// The zero Cutter is ready for the first byte of an event (the bytes
// before its JSON, "data: ", are read as bare bytes) or of an element.
type Cutter struct {
	Depth  int    // nesting of objects and arrays
	Object bool   // the top-level value is an object
	InStr  bool   // inside a JSON string
	Esc    bool   // after a backslash inside it
	Naming bool   // the string being read opened at depth 1 in an object
	Name   string // that string so far, quotes included (at most MaxNameBytes: then not "error")
	State  int    // CutScan, CutName, CutColon or CutDrop
}

// The states of a Cutter.
const (
	CutScan  = iota // reading
	CutName         // after a member name "error" at depth 1: a ':' may follow
	CutColon        // after its ':': an object value is cut
	CutDrop         // inside that value: dropped to its end
)

// MaxNameBytes bounds a member name held to compare with "error" (its
// escapes, \u0065 for each letter, take at most 32 bytes).
const MaxNameBytes = 48

// Scan reads b, the next bytes of the event or element: open(i) is called
// where b[i] opens an "error" object to cut, close(i) where b[i] closes it.
// A value open when b ends stays open (State CutDrop) into the next call.
func (c *Cutter) Scan(b []byte, open, close func(i int)) {
	for i := 0; i < len(b); i++ {
		ch := b[i]
		if c.InStr {
			switch {
			case c.Esc:
				c.Esc = false
			case ch == '\\':
				c.Esc = true
			case ch == '"':
				c.InStr = false
			default:
				// A long string (an image's base64) is skipped by
				// IndexByte to its closing quote, the one after an even
				// run of backslashes.
				k := stringRun(b[i:])
				if k == len(b)-i {
					c.Esc = trailingEscape(b[i:])
				}
				c.keep(b[i : i+k])
				i += k - 1
				continue
			}
			c.keep(b[i : i+1])
			if !c.InStr && c.Naming {
				c.Naming = false
				if c.State == CutScan && isErrorName([]byte(c.Name)) {
					c.State = CutName
				}
			}
			continue
		}
		switch c.State {
		case CutName, CutColon:
			switch {
			case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r':
				continue
			case c.State == CutName && ch == ':':
				c.State = CutColon
				continue
			case c.State == CutColon && ch == '{':
				open(i)
				c.State, c.Depth = CutDrop, c.Depth+1
				continue
			}
			c.State = CutScan // no object value: read the byte as any other
		}
		switch ch {
		case '"':
			c.InStr = true
			if c.State == CutScan && c.Depth == 1 && c.Object {
				c.Naming, c.Name = true, `"`
			}
		case '{', '[':
			if c.Depth == 0 {
				c.Object = ch == '{'
			}
			c.Depth++
		case '}', ']':
			if c.Depth > 0 {
				c.Depth--
			}
			if c.State == CutDrop && c.Depth == 1 {
				close(i)
				c.State = CutScan
			}
		}
	}
}

// stringRun returns the length of b's run of string bytes up to its first
// unescaped quote (b[0] is neither a quote nor escaped), all of b when it
// holds none.
func stringRun(b []byte) int {
	for k := 0; ; {
		q := bytes.IndexByte(b[k:], '"')
		if q < 0 {
			return len(b)
		}
		k += q
		n := 0 // the backslashes before it
		for j := k - 1; j >= 0 && b[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			return k
		}
		k++
	}
}

// trailingEscape reports whether b, string bytes that do not start escaped,
// ends in an odd run of backslashes: the next byte is escaped.
func trailingEscape(b []byte) bool {
	n := 0
	for j := len(b) - 1; j >= 0 && b[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// keep adds s, bytes of the string being read, to the name held.
func (c *Cutter) keep(s []byte) {
	if c.Naming && len(c.Name)+len(s) <= MaxNameBytes {
		c.Name += string(s)
	} else {
		c.Naming, c.Name = false, ""
	}
}

// ErrorMember returns the value of the top-level "error" member of body,
// a JSON object, as its bytes, when that value is an object (as a Cutter
// finds it); body itself when there is none.
func ErrorMember(body []byte) []byte {
	var c Cutter
	start, end := -1, -1
	c.Scan(body, func(i int) {
		if start < 0 {
			start = i
		}
	}, func(i int) {
		if end < 0 {
			end = i + 1
		}
	})
	if start < 0 || end <= start {
		return body
	}
	return body[start:end]
}
