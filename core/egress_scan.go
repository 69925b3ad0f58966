package core

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/toolerr/toolerr/core/internal/egress"
)

// MaxEventBytes is the largest event of a text/event-stream (or element of
// a JSON-array stream) EgressScan holds to read, in bytes (4 MiB); a longer
// one (an image chunk) passes unread as it arrives, but for an error one,
// which is dropped to its end and replaced there, read without its data.
const MaxEventBytes = 4 << 20

// The kinds of stream EgressScan frames (ScanState.Kind).
const (
	// ScanSSE is a text/event-stream: frames are events, each ended by a
	// blank line.
	ScanSSE = "sse"
	// ScanArray is Gemini's streamGenerateContent without alt=sse, one JSON
	// array streamed element by element: frames are its elements.
	ScanArray = "array"
)

// The modes of a frame in progress (ScanState.Mode).
const (
	scanRead = iota // held to be read at its end
	scanSkip        // too long to hold, no error: passes as it arrives
	scanDrop        // too long to hold, an error: dropped to its end, replaced there
)

// The phases of an array scan (ScanState.Phase).
const (
	arrayStart = iota // before the first byte that is not white space or the BOM
	arrayIn           // inside the array, or after it (depth 0)
	arrayPass         // no array: the rest passes unread
)

// ScanState is where the scan of one stream stands between two EgressScan
// calls: the zero value but Kind (ScanSSE or ScanArray) starts a stream.
// A caller keeps it as EgressScan returned it and gives it back with the
// next call; the egress_scan op carries it as an opaque string (String,
// ParseScanState). Its members are the scanner's own: Pos is how far the
// held bytes were scanned, Line (SSE) where their unfinished line begins
// (below 0: in bytes already passed), Mode whether the frame in progress
// is held, passed or dropped, DropName the name of an event being dropped,
// Emitted whether content was streamed (details.partial_output), Started
// (SSE) whether the first event was read (its BOM stripped); Phase, Seen,
// BOM, Depth, Base, InStr, Esc and Elem the array's scan (before, inside or
// without the array; bytes before it and how many are a BOM's; nesting, the
// outer array counted; the depth the element began at; inside a string,
// after a backslash, inside an element); Cut the scan of a frame passing
// unread for its top-level "error" object (nesting, string flags, a member
// name up to 48 bytes, whether an object is being cut).
type ScanState struct {
	Kind                          string
	Pos, Line, Mode               int
	DropName                      string
	Emitted, Started              bool
	Phase, Seen, BOM, Depth, Base int
	InStr, Esc, Elem              bool
	Cut                           egress.Cutter
}

// ScanCut is one replacement EgressScan asks for: the bytes in[Start:End]
// of its input go as Write instead (nil: dropped, as the part of an error
// event too long to hold, whose reply comes at its end). Reply is the
// error op's reply Write carries (nil for a drop without one), for the
// transport's report.
type ScanCut struct {
	Start, End int
	Write      []byte
	Reply      *ErrorReply
}

// ScanResult is EgressScan's answer for one input: its bytes in[:Hold]
// go to the client as they are but for the Cuts (in order, inside
// in[:Hold], not overlapping), which go replaced; in[Hold:] is held, the
// start of the frame in progress, given again at the front of the next
// call's input; State is the next call's.
type ScanResult struct {
	Hold  int
	Cuts  []ScanCut
	State ScanState
}

// AppendOutput appends what the client gets for in, the input r answers:
// in[:r.Hold] with r.Cuts replaced.
func (r ScanResult) AppendOutput(dst, in []byte) []byte {
	from := 0
	for _, c := range r.Cuts {
		dst = append(append(dst, in[from:c.Start]...), c.Write...)
		from = c.End
	}
	return append(dst, in[from:r.Hold]...)
}

// EgressScan frames in, the bytes of a stream that began with 200 held
// since the last call (ScanResult.Hold) followed by the ones that arrived
// since, and tells the transport what passes, what is replaced and what it
// holds: every transport of every binding runs this one scanner, per chunk
// (docs/egress.md, "Streams"). eof says the stream ended after in: an
// unfinished frame is then read as a complete one (an error there is
// replaced, so the upstream's text never passes), and nothing is held.
//
// For ScanSSE, each complete event (its blank line included) passes byte
// for byte unless it is an error event: named "error" (Anthropic, the
// Responses API), or with data that is a JSON object with an "error" object
// (Chat Completions and Gemini chunks), or data a lenient reader would find
// one in (bytes after the object, a chunk cut short, a member twice); it is
// replaced by the error op's event for it (EgressStreamError; its lines
// ended as the upstream's were), details.partial_output set when an event
// with data went before. The stream's leading UTF-8 BOM is read past and
// passes. An event past MaxEventBytes passes as it arrives, unread, unless
// its start says error (EgressStreamHead): then it is dropped to its end and
// replaced there, read without its data. In one that passes, the value of
// a top-level "error" member that is an object (its name's escapes
// decoded), whatever members go before it, is cut out as it passes (the
// cut spans chunks: dropped, then replaced at its "}") and replaced by the
// "error" member of the error op's object for an error read without its
// data ("null" when the op refuses), so the frame stays JSON and the
// upstream's text never passes.
//
// For ScanArray, what lies outside the elements (the brackets, commas and
// white space) passes, and each element, once complete, passes unless it is
// an error element (what an error event's data is above): then it is
// replaced by the error object the error op gives for it. An element past
// MaxEventBytes is handled as a long event (EgressElementHead). A body whose
// first byte, after white space and a UTF-8 BOM, is not "[" passes unread.
//
// opt are the error op's options (Upstream, NowMs, DropUpstreamMessage);
// ContentEmitted is the state's own. An error op that refuses (an unknown
// ingress) leaves the frame as it came. A state that is not one EgressScan
// returned for a stream of in (an unknown Kind, Pos past in, a negative
// count) is a *RequestError at "state"; in is read in place, never kept.
func EgressScan(ingress Format, st ScanState, in []byte, eof bool, opt EgressOptions) (ScanResult, error) {
	if err := st.check(len(in)); err != nil {
		return ScanResult{}, err
	}
	sc := scanner{ingress: ingress, opt: opt, st: st, in: in, guard: egress.NewGuard(in)}
	if st.Kind == ScanSSE {
		sc.sse(eof)
	} else {
		sc.array(eof)
	}
	sc.st.Pos -= sc.hold
	return ScanResult{Hold: sc.hold, Cuts: sc.cuts, State: sc.st}, nil
}

// EgressScanTail is EgressScan for an input whose first skip bytes, the
// front of the frame the last answer held, are left out: in is the rest of
// the held bytes (at least the ones from st.Pos) and then the new ones,
// and the answer's offsets (Hold, the Cuts) are in the whole input, held
// and new, as EgressScan's are. A binding that holds a long frame sends
// it so, and the frame crosses the boundary between it and the core once,
// not once per chunk. resend is true when the answer needs the bytes left
// out (the held frame ends in in, or the stream does, or it grows past
// MaxEventBytes, or skip is past where the state scanned to, or the state
// is not one of a frame held to be read): the caller then calls EgressScan
// with all of them. skip 0 is EgressScan; below 0 it is a *RequestError
// at "skip".
func EgressScanTail(ingress Format, st ScanState, skip int, in []byte, eof bool, opt EgressOptions) (r ScanResult, resend bool, err error) {
	if skip == 0 {
		r, err = EgressScan(ingress, st, in, eof, opt)
		return r, false, err
	}
	if skip < 0 {
		return ScanResult{}, false, &RequestError{Op: "egress_scan", Path: "skip", Offset: -1, Msg: "must be 0 or more, got " + strconv.Itoa(skip)}
	}
	if err := st.check(len(in) + skip); err != nil {
		return ScanResult{}, false, err
	}
	if skip > st.Pos || eof || st.Mode != scanRead || len(in)+skip > MaxEventBytes || st.Kind == ScanArray && (!st.Elem || st.Phase != arrayIn) {
		return ScanResult{}, true, nil
	}
	sc := scanner{ingress: ingress, opt: opt, st: st, in: in, tail: true}
	sc.st.Pos -= skip
	if st.Kind == ScanSSE {
		// No event ends in in: the held one goes on (EventEnd from where it
		// stopped; a line that began before in begins below 0 here).
		end, line, pos := egress.EventEnd(in, st.Line-skip, st.Pos-skip, bytes.IndexByte(in[st.Pos-skip:], '\r') < 0)
		if end > 0 {
			return ScanResult{}, true, nil
		}
		sc.st.Line, sc.st.Pos = line+skip, pos+skip
		return ScanResult{State: sc.st}, false, nil
	}
	if sc.array(false); sc.resend {
		return ScanResult{}, true, nil
	}
	sc.st.Pos += skip
	return ScanResult{State: sc.st}, false, nil
}

// check holds st to what EgressScan returns, for an input of n bytes.
func (st ScanState) check(n int) error {
	bad := func(msg string) error {
		return &RequestError{Op: "egress_scan", Path: "state", Offset: -1, Msg: msg}
	}
	switch {
	case st.Kind != ScanSSE && st.Kind != ScanArray:
		return bad("must be a state of an sse or array scan, got kind " + strconv.Quote(st.Kind))
	case st.Pos < 0 || st.Pos > n:
		return bad("scans to " + strconv.Itoa(st.Pos) + ", outside the input's " + strconv.Itoa(n) + " bytes")
	case st.Line > st.Pos || st.Mode < scanRead || st.Mode > scanDrop || st.Phase < arrayStart || st.Phase > arrayPass ||
		st.Seen < 0 || st.BOM < 0 || st.BOM > len(egress.BOM) || st.BOM > st.Seen || st.Depth < 0 || st.Base < 0 ||
		st.Mode != scanDrop && st.DropName != "" || st.Cut.Depth < 0 || st.Cut.State < egress.CutScan || st.Cut.State > egress.CutDrop ||
		len(st.Cut.Name) > egress.MaxNameBytes || st.Mode != scanSkip && st.Cut != (egress.Cutter{}):
		return bad("is not a state the scan returned")
	}
	return nil
}

// scanner is one EgressScan call: the state it moves, the input and what
// it answers.
type scanner struct {
	ingress Format
	opt     EgressOptions
	st      ScanState
	in      []byte
	guard   egress.Guard // which frames may be errors: only they are read
	hold    int          // in[:hold] is answered
	cuts    []ScanCut
	tail    bool // in leaves out the front of the element in progress (EgressScanTail's array scan)
	resend  bool // ... and it ends in in: the scan stopped, it needs the bytes left out
}

// pass lets in[start:end], of a frame too long to hold, pass unread but
// for the value of its top-level "error" object, cut as the Cutter finds
// it (dropped to its end, replaced there); ends: the frame ends with it.
// A frame that ends inside that value has it replaced at its end, followed
// (SSE) by the blank line that went with it.
func (sc *scanner) pass(start, end int, ends bool) {
	cut := &sc.st.Cut
	from := start // where the value being cut begins, once open
	cut.Scan(sc.in[start:end], func(i int) { from = start + i }, func(i int) { sc.cutError(from, start+i+1, "") })
	if cut.State == egress.CutDrop {
		switch {
		case !ends:
			sc.drop(from, end)
		case sc.st.Kind == ScanSSE:
			eol := egress.LineEnd(sc.in[start:end])
			sc.cutError(from, end, eol+eol)
		default:
			sc.cutError(from, end, "")
		}
	}
	if ends {
		*cut = egress.Cutter{}
	}
}

// cutError replaces in[start:end], an "error" object's value in a frame
// passing unread, by the "error" member of the error op's object for an
// error read without its data (the whole object when it has none; "null"
// when the op refuses), followed by after.
func (sc *scanner) cutError(start, end int, after string) {
	rep, err := EgressStreamError(sc.ingress, "", nil, sc.options())
	if err != nil {
		sc.cuts = append(sc.cuts, ScanCut{Start: start, End: end, Write: append([]byte("null"), after...)})
		return
	}
	write := egress.ErrorMember(rep.Body)
	sc.replace(start, end, rep, append(write[:len(write):len(write)], after...))
}

// options are the error op's options for a frame read now.
func (sc *scanner) options() EgressOptions {
	o := sc.opt
	o.ContentEmitted = sc.st.Emitted
	return o
}

// replace cuts in[start:end] for rep, written as write(rep).
func (sc *scanner) replace(start, end int, rep ErrorReply, write []byte) {
	sc.cuts = append(sc.cuts, ScanCut{Start: start, End: end, Write: write, Reply: &rep})
}

// drop cuts in[start:end] without a reply (joined to a drop just before).
func (sc *scanner) drop(start, end int) {
	if n := len(sc.cuts); n > 0 && sc.cuts[n-1].Write == nil && sc.cuts[n-1].End == start {
		sc.cuts[n-1].End = end
		return
	}
	sc.cuts = append(sc.cuts, ScanCut{Start: start, End: end})
}

// dropped is the reply for the frame being dropped, read without its data
// (EgressStreamHead's and EgressElementHead's); false when the op refuses.
func (sc *scanner) dropped() (ErrorReply, bool) {
	rep, _, err := headReply(sc.ingress, sc.st.DropName, true, sc.options())
	return rep, err == nil
}

// sse scans in as a text/event-stream.
func (sc *scanner) sse(eof bool) {
	st := &sc.st
	off := 0 // where the frame in progress begins in in
	lfOnly := bytes.IndexByte(sc.in[st.Pos:], '\r') < 0
	for {
		end, line, pos := egress.EventEnd(sc.in[off:], st.Line, st.Pos-off, lfOnly)
		st.Line, st.Pos = line, off+pos
		if end > 0 {
			sc.sseEnd(off, off+end)
			off += end
			st.Line, st.Pos = 0, off
			continue
		}
		if eof {
			if off < len(sc.in) || st.Mode != scanRead {
				// The stream ended inside an event (no blank line after it).
				// A WHATWG parser discards it, a line reader may not: an error
				// event there is replaced as a complete one is, so the
				// upstream's text never passes; anything else passes as it
				// came, and so does the rest of an event too long to read.
				sc.sseEnd(off, len(sc.in))
			}
			sc.hold, st.Line, st.Pos = len(sc.in), 0, len(sc.in)
			return
		}
		if st.Mode == scanRead && len(sc.in)-off > MaxEventBytes {
			// Too long to hold: an error event, as far as its first part tells
			// (EgressStreamHead), is dropped to its end and replaced there, read
			// without its data; anything else passes as it arrives, unread.
			head := sc.in[off:]
			if !st.Started {
				head, st.Started = bytes.TrimPrefix(head, []byte(egress.BOM)), true
			}
			if name, isError := egress.HeadError(head); isError {
				st.Mode, st.DropName = scanDrop, name
			} else {
				st.Mode = scanSkip
			}
		}
		if st.Mode != scanRead {
			// What has been scanned goes now (a CR left at the end stays, to
			// be read with the byte after it: a CRLF is one line end).
			if st.Mode == scanDrop {
				sc.drop(off, st.Pos)
			} else {
				sc.pass(off, st.Pos, false)
			}
			st.Line = max(st.Line-(st.Pos-off), -1) // below 0: the line began in bytes passed
			off = st.Pos
		}
		sc.hold = off
		return
	}
}

// sseEnd handles the event in[start:end], complete (or cut by the end of
// the stream).
func (sc *scanner) sseEnd(start, end int) {
	st := &sc.st
	raw := sc.in[start:end]
	switch st.Mode {
	case scanSkip:
		st.Mode = scanRead
		sc.pass(start, end, true)
		return
	case scanDrop:
		rep, ok := sc.dropped()
		st.Mode, st.DropName = scanRead, ""
		if ok {
			sc.replace(start, end, rep, sseWrite(rep, egress.LineEnd(raw)))
		} else {
			sc.drop(start, end)
		}
		return
	}
	if st.Emitted && st.Started && !sc.guard.Suspect(start, end) {
		return // no needle: no error event, and content was streamed before
	}
	fields := raw
	if !st.Started {
		// The stream's first bytes may be a UTF-8 BOM, which the WHATWG
		// parser strips before reading fields ("One leading U+FEFF BYTE
		// ORDER MARK character must be ignored if any are present"): read
		// without it, or "\ufeffdata" hides an error event. It stays in
		// the bytes passed through.
		fields, st.Started = bytes.TrimPrefix(raw, []byte(egress.BOM)), true
	}
	name, data := egress.ParseEvent(fields)
	if !egress.IsErrorEvent(name, data) {
		st.Emitted = st.Emitted || len(data) > 0 && name != "ping"
		return
	}
	if rep, err := EgressStreamError(sc.ingress, name, data, sc.options()); err == nil {
		sc.replace(start, end, rep, sseWrite(rep, egress.LineEnd(raw)))
	}
}

// sseWrite is rep, the error op's event, its lines ended by eol: the line
// end of the event it replaces, since a reader that splits on one kind only
// (go-genai splits on "\n\n" before "\r\n\r\n") would otherwise join a CRLF
// stream's previous event to it.
func sseWrite(rep ErrorReply, eol string) []byte {
	var b []byte
	if rep.Event != "" {
		b = append(append(append(b, "event: "...), rep.Event...), eol...)
	}
	return append(append(append(append(b, "data: "...), rep.Body...), eol...), eol...)
}

// array scans in as a JSON-array stream.
func (sc *scanner) array(eof bool) {
	st, b := &sc.st, sc.in
	from := 0 // the start of the element in progress, or of what is not yet answered
	i := st.Pos
	for ; i < len(b) && st.Phase != arrayPass; i++ {
		c := b[i]
		if st.Phase == arrayStart {
			switch {
			case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			case st.BOM == st.Seen && st.BOM < len(egress.BOM) && c == egress.BOM[st.BOM]:
				st.BOM++ // a BOM, at the stream's start only
			case c == '[':
				st.Phase, st.Depth = arrayIn, 1
			default:
				st.Phase = arrayPass
			}
			st.Seen++
			continue
		}
		if st.InStr {
			switch {
			case st.Esc:
				st.Esc = false
			case c == '\\':
				st.Esc = true
			case c == '"':
				st.InStr = false
			default:
				// A long string (an image's base64) is scanned by IndexIn,
				// not byte by byte.
				if k := egress.IndexIn(b[i:], inString); k < 0 {
					i = len(b)
				} else {
					i += k - 1
				}
			}
			continue
		}
		switch c {
		case '"':
			st.InStr = true
		case '{', '[':
			if !st.Elem && (st.Depth == 1 || c == '{' && st.Depth == 0) {
				from = i // an element begins: what went before it passes
				st.Elem, st.Base = true, st.Depth
			}
			st.Depth++
		case '}', ']':
			if st.Depth > 0 {
				st.Depth--
			}
			if st.Elem && st.Depth == st.Base {
				if sc.tail {
					sc.resend = true
					return
				}
				sc.element(from, i+1)
				from = i + 1
			}
		default:
			if k := egress.IndexIn(b[i:], structural); k < 0 {
				i = len(b)
			} else {
				i += k - 1
			}
		}
	}
	switch {
	case !st.Elem || st.Phase == arrayPass:
		sc.hold, st.Pos = len(b), len(b)
		return
	case eof:
		// The stream ended inside an element: an error element there is
		// replaced as a complete one is, so the upstream's text never
		// passes; anything else passes as it came.
		sc.element(from, len(b))
		sc.hold, st.Pos = len(b), len(b)
		return
	}
	st.Pos = len(b)
	if st.Mode == scanRead && len(b)-from > MaxEventBytes {
		// Too long to hold: its start tells (EgressElementHead).
		if egress.ElementHeadError(b[from:]) {
			st.Mode = scanDrop
		} else {
			st.Mode, st.Emitted = scanSkip, true
		}
	}
	switch st.Mode {
	case scanDrop:
		sc.drop(from, len(b))
	case scanSkip:
		sc.pass(from, len(b), false)
	case scanRead:
		sc.hold = from
		return
	}
	sc.hold = len(b)
}

// The bytes an array scan stops at: inside a string, its end or an escape;
// outside, a string's start or a bracket.
var (
	inString   = egress.NewByteSet(`"\`)
	structural = egress.NewByteSet(`"{}[]`)
)

// element handles the element in[start:end], complete (or cut by the end
// of the stream): its replacement when it is an error element, else the
// element as it came.
func (sc *scanner) element(start, end int) {
	st := &sc.st
	mode := st.Mode
	st.Elem, st.Mode = false, scanRead
	switch mode {
	case scanSkip:
		sc.pass(start, end, true)
		return
	case scanDrop:
		if rep, ok := sc.dropped(); ok {
			sc.replace(start, end, rep, rep.Body)
		} else {
			sc.drop(start, end)
		}
		return
	}
	el := sc.in[start:end]
	if sc.guard.Suspect(start, end) && egress.IsErrorEvent("", el) {
		if rep, err := EgressStreamError(sc.ingress, "", el, sc.options()); err == nil {
			sc.replace(start, end, rep, rep.Body)
			return
		}
	}
	st.Emitted = true
}

// String is st as the egress_scan op carries it: an opaque string of
// ASCII, read back by ParseScanState. The Cutter's state follows only
// while a frame passing unread is being scanned (four parts more).
func (st ScanState) String() string {
	b := make([]byte, 0, 48)
	b = append(b, st.Kind...)
	for _, n := range [...]int{st.Pos, st.Line, st.Mode, flagBits(st.Emitted, st.Started, st.InStr, st.Esc, st.Elem), st.Phase, st.Seen, st.BOM, st.Depth, st.Base} {
		b = strconv.AppendInt(append(b, '.'), int64(n), 10)
	}
	b = appendHex(append(b, '.'), st.DropName)
	if c := st.Cut; c != (egress.Cutter{}) {
		for _, n := range [...]int{flagBits(c.Object, c.InStr, c.Esc, c.Naming), c.Depth, c.State} {
			b = strconv.AppendInt(append(b, '.'), int64(n), 10)
		}
		b = appendHex(append(b, '.'), c.Name)
	}
	return string(b)
}

// flagBits is fs as the bits of an int, the first the lowest.
func flagBits(fs ...bool) int {
	n := 0
	for i, f := range fs {
		if f {
			n |= 1 << i
		}
	}
	return n
}

// appendHex appends s in lower-case hex digits, two a byte.
func appendHex(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		b = append(b, hexDigits[s[i]>>4], hexDigits[s[i]&15])
	}
	return b
}

const hexDigits = "0123456789abcdef"

// unhex reads s, pairs of lower-case hex digits, back to its bytes.
func unhex(s string) (string, bool) {
	if len(s)%2 != 0 {
		return "", false
	}
	b := make([]byte, len(s)/2)
	for i := range b {
		hi, lo := strings.IndexByte(hexDigits, s[2*i]), strings.IndexByte(hexDigits, s[2*i+1])
		if hi < 0 || lo < 0 {
			return "", false
		}
		b[i] = byte(hi<<4 | lo)
	}
	return string(b), true
}

// ParseScanState reads s, a state's String, back; ok is false for a
// string no state writes.
func ParseScanState(s string) (st ScanState, ok bool) {
	parts := strings.Split(s, ".")
	if len(parts) != 11 && len(parts) != 15 {
		return ScanState{}, false
	}
	var n [12]int
	for i, p := range append(parts[1:10:10], parts[11:min(len(parts), 14)]...) {
		v, err := strconv.Atoi(p)
		if err != nil || v > MaxRequestBytes || v < -MaxRequestBytes {
			return ScanState{}, false
		}
		n[i] = v
	}
	name, ok := unhex(parts[10])
	cutName := ""
	if len(parts) == 15 && ok {
		cutName, ok = unhex(parts[14])
	}
	if !ok || n[3] < 0 || n[3] >= 1<<5 || n[9] < 0 || n[9] >= 1<<4 {
		return ScanState{}, false
	}
	f := func(bits, i int) bool { return bits&(1<<i) != 0 }
	return ScanState{Kind: parts[0], Pos: n[0], Line: n[1], Mode: n[2],
		Emitted: f(n[3], 0), Started: f(n[3], 1), InStr: f(n[3], 2), Esc: f(n[3], 3), Elem: f(n[3], 4),
		Phase: n[4], Seen: n[5], BOM: n[6], Depth: n[7], Base: n[8], DropName: name,
		Cut: egress.Cutter{Object: f(n[9], 0), InStr: f(n[9], 1), Esc: f(n[9], 2), Naming: f(n[9], 3), Depth: n[10], State: n[11], Name: cutName}}, true
}
