package core

import (
	"strings"

	"github.com/toolerr/toolerr/core/internal/canonical"
)

// A binding that is given a member's value as JSON text (a transcript list or
// a whole request body) writes it into the request unparsed, to spare a
// parse, and frames it: the text is the value of the request's last member
// but one, and the last member, "raw_len", is the text's length in bytes:
//
//	{"op":"check","format":"openai-chat","messages":<text>,"raw_len":N}
//
// The core then holds the text to exactly one JSON value (white space around
// it allowed): a text such as `[],"id_rules":{...}` would otherwise add
// members to the request, and a service that hands a client's body to
// check or repair would let the client set its options. A request without
// the framing is read as it always was.

// rawLenTail is what a framed request ends with before N and its '}'.
const rawLenTail = `,"raw_len":`

// splice is where a framed request's spliced value lies: request[at:at+n],
// the value of member key.
type splice struct {
	at, n int
	key   string
}

// readSplice finds the framing at the end of request, reading back from its
// closing '}' (no search of the rest): framed is false for a request without
// it. A framing whose length or member does not fit the request is a
// *RequestError at "raw_len".
func readSplice(request string) (sp splice, framed bool, err *RequestError) {
	end := len(request) - 1
	if end < 0 || request[end] != '}' {
		return splice{}, false, nil
	}
	i := end
	for i > 0 && request[i-1] >= '0' && request[i-1] <= '9' {
		i--
	}
	if i == end || !strings.HasSuffix(request[:i], rawLenTail) {
		return splice{}, false, nil
	}
	if end-i > 10 || request[i] == '0' && end-i > 1 {
		return splice{}, true, badRawLen()
	}
	n := 0
	for _, c := range request[i:end] {
		n = n*10 + int(c-'0')
	}
	at := i - len(rawLenTail) - n
	// the value is the member `"key":` before it, key a plain name
	if at < 4 || request[at-1] != ':' || request[at-2] != '"' {
		return splice{}, true, badRawLen()
	}
	q := strings.LastIndexByte(request[:at-2], '"')
	if q < 1 || request[q-1] != ',' && request[q-1] != '{' || strings.ContainsAny(request[q+1:at-2], `\`) {
		return splice{}, true, badRawLen()
	}
	return splice{at: at, n: n, key: request[q+1 : at-2]}, true, nil
}

// badRawLen is readSplice's error for a framing that does not fit.
func badRawLen() *RequestError {
	return &RequestError{Path: "raw_len", Offset: -1,
		Msg: "must be the length in bytes of the value before it, the last member but one"}
}

// check reports whether the spliced value is exactly one JSON value with
// white space around it, as the general path reads it (a second reading of
// its bytes, with canonical.Scanner.Skip: no tree). A value that is not is
// a *RequestError at the member, its offset where the request goes wrong;
// a value past a bound is left to the request's own parse, which says
// which bound.
func (sp splice) check(request string) *RequestError {
	s := canonical.NewScanner(request[sp.at : sp.at+sp.n])
	err := s.Skip(1)
	re := &RequestError{Path: sp.key, Offset: -1}
	switch e := err.(type) {
	case nil:
		if s.End() {
			return nil
		}
		re.Offset = int64(sp.at + sp.n - s.Rest())
		re.Msg = "must be exactly one JSON value: more follows it"
	case *canonical.SyntaxError:
		re.Offset = int64(sp.at) + e.Offset
		re.Msg = "must be exactly one JSON value: " + e.Msg
	default:
		return nil // a bound: the request's parse says which
	}
	return re
}

// spans reports whether a value a Scanner read from start to end (offsets in
// request, before and after it) is the whole spliced value: it begins where
// the text does and only white space follows it in the text. The fast paths
// check it instead of reading the text twice.
func (sp splice) spans(request string, start, end int) bool {
	return start == sp.at && end <= sp.at+sp.n && strings.TrimLeft(request[end:sp.at+sp.n], " \t\r\n") == ""
}
