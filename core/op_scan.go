package core

import (
	"strconv"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/classify"
	"github.com/toolerr/toolerr/core/internal/egress"
	"github.com/toolerr/toolerr/core/internal/field"
)

// scanOp opens every egress_scan request a binding writes (the op first).
const scanOp = `{"op":"egress_scan",`

// scanInput is the member whose raw bytes a framed egress_scan request
// carries: {"op":"egress_scan",...,"input":<N bytes>,"raw_len":N}.
const scanInput = "input"

// opEgressScan: {"ingress", "state", "input", "eof"?, "provider"?,
// "now_ms"?, "upstream_message"?} -> {"cuts", "hold", "state"}: EgressScan
// for one chunk of a stream. "input" is the held bytes and the new ones,
// as a JSON string here (its UTF-8 bytes) or, as the bindings send it, raw
// bytes framed by "raw_len" (fastScan); "state" is "sse" or "array" for a
// stream's first call, else the state the last answer gave. "skip"
// (EgressScanTail) says how many held bytes input leaves out of its front;
// when the answer needs them it is {"resend": true}, and the caller sends
// the chunk again with them.
func opEgressScan(req map[string]any) (any, error) {
	in, ok, err := field.Get[string](req, scanInput, "")
	if err == nil && !ok {
		err = field.NewError(scanInput, "is required (the held bytes of the stream, then the new ones)")
	}
	if err != nil {
		return nil, err
	}
	r, resend, err := scanRequest(req, []byte(in))
	switch {
	case err != nil:
		return nil, err
	case resend:
		return map[string]any{"resend": true}, nil
	}
	return scanValue(r), nil
}

// fastScan answers a framed egress_scan request, its input raw bytes
// (which the general path cannot read: they need not be JSON, nor UTF-8).
// The members before the input are read as the general path reads a
// request. ok is false for a request that is not framed: the general path
// answers it.
func fastScan(dst []byte, request string) ([]byte, bool) {
	sp, framed, re := readSplice(request)
	if !framed || re == nil && sp.key != scanInput {
		return nil, false
	}
	if re != nil {
		return appendResponse(dst, badRequest(re)), true
	}
	// The members before "input": the request up to its comma, closed.
	head := request[:sp.at-len(`,"`+scanInput+`":`)] + "}"
	v, err := canonical.ParseRequestText(head)
	req, isObj := v.(map[string]any)
	if err != nil || !isObj {
		return appendResponse(dst, badRequest(&RequestError{Op: "egress_scan", Offset: -1,
			Msg: "the members before input must be a JSON object's"})), true
	}
	if err := checkOpMembers("egress_scan", req); err != nil {
		return appendResponse(dst, badRequest(requestError("egress_scan", err))), true
	}
	r, resend, err := scanRequest(req, []byte(request[sp.at:sp.at+sp.n]))
	switch {
	case err != nil:
		return appendResponse(dst, badRequest(requestError("egress_scan", err))), true
	case resend:
		return append(dst, scanResend...), true
	case len(r.Cuts) == 0:
		return scanOK(dst, r), true
	}
	return appendResponse(dst, writeOK("egress_scan", scanValue(r), len(request))), true
}

// scanResend is the answer of a scan that needs the held bytes its input
// left out (EgressScanTail).
const scanResend = `{"ok":{"resend":true}}`

// scanRequest runs EgressScanTail for the members of req on in.
func scanRequest(req map[string]any, in []byte) (ScanResult, bool, error) {
	names, err := stringMembers(req, "", "ingress", "state")
	if err != nil {
		return ScanResult{}, false, err
	}
	st, ok := ParseScanState(names[1])
	switch names[1] {
	case ScanSSE, ScanArray:
		st, ok = ScanState{Kind: names[1]}, true
	}
	if !ok {
		return ScanResult{}, false, field.NewError("state", `must be "sse", "array" or the state an egress_scan answer gave`)
	}
	eof, _, err := field.Bool(req, "eof", "")
	if err != nil {
		return ScanResult{}, false, err
	}
	provider, _, err := field.Get[string](req, "provider", "")
	if err != nil {
		return ScanResult{}, false, err
	}
	now, _, err := field.Int(req, "now_ms", "", 0, classify.MaxNowMs)
	if err != nil {
		return ScanResult{}, false, err
	}
	pol, _, err := field.Get[string](req, "upstream_message", "")
	if err != nil {
		return ScanResult{}, false, err
	}
	msg, err := egress.PolicyNamed(pol, "upstream_message")
	if err != nil {
		return ScanResult{}, false, err
	}
	skip, _, err := field.Int(req, "skip", "", 0, MaxRequestBytes)
	if err != nil {
		return ScanResult{}, false, err
	}
	opt := EgressOptions{Upstream: provider, NowMs: now, DropUpstreamMessage: msg == egress.DropMessage}
	return EgressScanTail(Format(names[0]), st, int(skip), in, eof, opt)
}

// scanValue is the op's result for r: {"cuts": [{start, end, write?,
// event?, data?, envelope?}], "hold", "state"}, each cut's write the bytes
// that replace input[start:end] (absent: dropped), its event, data and
// envelope the error op's reply written.
func scanValue(r ScanResult) map[string]any {
	cuts := make([]any, len(r.Cuts))
	for i, c := range r.Cuts {
		m := map[string]any{"start": c.Start, "end": c.End}
		if c.Reply != nil {
			m["write"], m["event"], m["data"], m["envelope"] = string(c.Write), c.Reply.Event, string(c.Reply.Body), c.Reply.Envelope
		}
		cuts[i] = m
	}
	return map[string]any{"cuts": cuts, "hold": r.Hold, "state": r.State.String()}
}

// scanOK writes the answer of a scan without cuts (a clean chunk's) as
// writeOK would, without the tree.
func scanOK(dst []byte, r ScanResult) []byte {
	dst = append(dst, `{"ok":{"cuts":[],"hold":`...)
	dst = strconv.AppendInt(dst, int64(r.Hold), 10)
	return append(append(append(dst, `,"state":"`...), r.State.String()...), `"}}`...)
}
