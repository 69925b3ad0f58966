package egress

import (
	"bytes"
	"encoding/json"

	"github.com/toolerr/toolerr/core"
)

// errorCutter passes the bytes of a stream event or an array element too
// long to hold (past MaxEventBytes, which the readers pass unread unless
// its head opens an "error" object) and cuts out of them the value of a
// member named "error" (its name's escapes decoded) of the top-level
// object when that value is an object: the member a lenient reader (the
// SDKs' JSON parsers) raises as the upstream's error, whatever members go
// before it. The value is dropped from its "{" to its "}", never held,
// and replaced there by the error op's error object (core.EgressStreamError
// read without the data, as for an event's head), so the text around it
// stays valid JSON and the upstream's text never passes; everything else
// passes byte for byte. It scans the bytes once, strings by IndexAny.
//
// The zero errorCutter is ready for the first byte of an event (the bytes
// before its JSON, "data: ", are read as bare bytes) or of an element.
type errorCutter struct {
	depth   int    // nesting of objects and arrays
	object  bool   // the top-level value is an object
	inStr   bool   // inside a JSON string
	esc     bool   // after a backslash inside it
	name    []byte // the string read at depth 1, quotes included (capped at maxNameBytes: then not "error")
	naming  bool   // the string being read opened at depth 1 in an object
	state   int    // cutScan, cutName, cutColon, cutDrop
	replied int    // values replaced
}

// The states of an errorCutter.
const (
	cutScan  = iota // reading
	cutName         // after a member name "error" at depth 1: a ':' may follow
	cutColon        // after its ':': an object value is cut
	cutDrop         // inside that value: dropped to its end
)

// maxNameBytes bounds a member name held to compare with "error" (its
// escapes, \u0065 for each letter, take at most 32 bytes).
const maxNameBytes = 48

// replier is the reader an errorCutter cuts for: cutReply is the value
// written in place of a value cut (see cutReply).
type replier interface{ cutReply() []byte }

// pass appends b, the next bytes of the event or element, to dst, the
// value of a top-level "error" member that is an object cut out and
// replaced by r.cutReply() at its end (called once per value cut).
func (c *errorCutter) pass(dst, b []byte, r replier) []byte {
	from := 0 // the start of b not yet appended
	for i := 0; i < len(b); i++ {
		ch := b[i]
		if c.inStr {
			switch {
			case c.esc:
				c.esc = false
			case ch == '\\':
				c.esc = true
			case ch == '"':
				c.inStr = false
			default:
				// A long string (an image's base64) is skipped by
				// IndexByte to its closing quote, the one after an even
				// run of backslashes.
				k := stringRun(b[i:])
				if k == len(b)-i {
					c.esc = trailingEscape(b[i:])
				}
				c.keep(b[i : i+k])
				i += k - 1
				continue
			}
			c.keep(b[i : i+1])
			if !c.inStr && c.naming {
				c.naming = false
				if c.state == cutScan && isErrorName(c.name) {
					c.state = cutName
				}
			}
			continue
		}
		switch c.state {
		case cutName, cutColon:
			switch {
			case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r':
				continue
			case c.state == cutName && ch == ':':
				c.state = cutColon
				continue
			case c.state == cutColon && ch == '{':
				dst = append(dst, b[from:i]...) // up to the value
				c.state, c.depth = cutDrop, c.depth+1
				continue
			}
			c.state = cutScan // no object value: read the byte as any other
		}
		switch ch {
		case '"':
			c.inStr = true
			if c.state == cutScan && c.depth == 1 && c.object {
				if c.name == nil {
					c.name = make([]byte, 0, maxNameBytes)
				}
				c.naming, c.name = true, append(c.name[:0], '"')
			}
		case '{', '[':
			if c.depth == 0 {
				c.object = ch == '{'
			}
			c.depth++
		case '}', ']':
			if c.depth > 0 {
				c.depth--
			}
			if c.state == cutDrop && c.depth == 1 {
				dst = append(dst, r.cutReply()...)
				c.state, c.replied, from = cutScan, c.replied+1, i+1
			}
		}
	}
	if c.state != cutDrop {
		dst = append(dst, b[from:]...)
	}
	return dst
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
func (c *errorCutter) keep(s []byte) {
	if c.naming && len(c.name)+len(s) <= maxNameBytes {
		c.name = append(c.name, s...)
	} else {
		c.naming = false
	}
}

// end appends r.cutReply() to dst when the event or element ended inside a
// value being cut (a truncated one), and reports whether it did; the
// cutter is then ready for the next one.
func (c *errorCutter) end(dst []byte, r replier) ([]byte, bool) {
	cut := c.state == cutDrop
	if cut {
		dst = append(dst, r.cutReply()...)
	}
	*c = errorCutter{name: c.name[:0]}
	return dst, cut
}

// cutReply is the value an errorCutter writes in place of an upstream's
// "error" object inside a stream read by c, after content (emitted) or
// none: the "error" member of the error op's error object for an error
// event read without its data (the whole object when it has no such
// member; null when the op refuses the ingress), reported to OnError.
func cutReply(c StreamConfig, emitted bool) []byte {
	rep, err := core.EgressStreamError(c.Ingress, "", nil, eventOptions(c, emitted))
	if err != nil {
		return []byte("null")
	}
	if c.OnError != nil {
		c.OnError(rep)
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(rep.Body, &m) == nil && len(m["error"]) > 0 {
		return m["error"]
	}
	return rep.Body
}
