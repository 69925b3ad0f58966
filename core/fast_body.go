package core

import (
	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/format"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
	"github.com/toolerr/toolerr/core/internal/request"
	"github.com/toolerr/toolerr/core/internal/transcript"
)

// The body form of fastList: {"op": "check" | "repair", "format": f,
// "body": {...}} and {"op": "convert", "from": f, "to": f, "body": {...}}
// (a conversion to the body's own format), a whole request body of a format
// whose list fastList's scanner takes (openai-chat), read in the one pass
// over the request: its message list scanned as fastList scans a list
// (transcript.ScanList), its model read as a string, and each other member
// skipped (check) or transcoded to its canonical JSON straight from the
// bytes (canonical.Scanner.AppendCanonical: repair and convert write the
// body back with only its list replaced), never a value tree of the body.
// A conversion to a format whose request shape writes its tools, tool
// choice and system prompt as bytes (dialect.Request.AppendTools, carryTarget)
// whose to comes before the body reads the tools, the tool choice and the
// parameters from the bytes and writes the target's body from them (the
// carried form, fast_body_carry.go); one
// to another format, or whose to comes after the body, reads the other
// members as values and carries them with request.Carry. The answer is the
// bytes opCheckBody, opRepairBody and opConvertBody give
// (TestFastBody_sameAsGeneral, TestFastBody_carriedSameAsGeneral,
// FuzzFastBody).

// bodyListPath is the list's path in a body fastList answers
// (request.Body.ListPath).
const bodyListPath = "body.messages"

// maxBodyMembers is the most members a body fastList answers may have
// beside its list (a Chat Completions request has about 35 kinds): each
// new name is compared with those before it, for a duplicate.
const maxBodyMembers = 64

// scannedBody is a request body scanBody read.
type scannedBody struct {
	msgs []transcript.Message
	// model is the body's model when it is a string (request.Body.Options
	// reads no other)
	model string
	// members are the body's other members, each its name and where its
	// canonical JSON is in text (when scanBody was asked for them)
	members []scannedMember
	text    []byte
	// tree holds the other members as values (bodyTree), for a conversion
	// to another format
	tree map[string]any
	// carry is what the carried form reads of them (bodyCarry), their
	// values in text; carried says scanBody read it so
	carry   carriedMembers
	carried bool
	// membersAt holds the first members, so that a body of a few members
	// keeps them without a slice of their own
	membersAt [8]scannedMember
}

// bodyRead is what scanBody keeps of a body's other members.
type bodyRead uint8

const (
	bodySkip  bodyRead = iota // nothing (check)
	bodyText                  // their canonical JSON (repair, convert to the body's format)
	bodyTree                  // their values (convert to another format)
	bodyCarry                 // what the carried form reads (convert to a carryTarget: fast_body_carry.go)
)

// scannedMember is one member of a scanned body: its name and its value's
// canonical JSON, text[from:to] of its scannedBody.
type scannedMember struct {
	name     string
	from, to int
}

// bodyShaped reports whether f's request bodies are ones scanBody reads as
// request.Read reads them: the list under "messages", required, an array
// only, and no server-side state.
func bodyShaped(f transcript.Format) bool {
	sh := format.RequestShape(string(f))
	return sh != nil && sh.List == "messages" && sh.Required && sh.TextList == nil && sh.Server == nil
}

// scanBody reads a request body of format f at s (a member of the request,
// nesting level 1): its list as transcript.ScanList reads one (raw and
// arena as there), the other members as Parse would read them, each kept
// as keep says. It reports false for
// anything it is not sure of (not an object, no list or one ScanList does
// not take, a duplicate member, more than maxBodyMembers members, a value
// Parse refuses): fastList then declines the request. b is filled in place
// (its carried tools may be held in b itself).
func scanBody(s *canonical.Scanner, f transcript.Format, raw dialect.ScanRaw, arena *dialect.Parts, keep bodyRead, b *scannedBody) (ok bool) {
	if !bodyShaped(f) || keep == bodyCarry && !carrySource(f) || !s.Byte('{') {
		return false
	}
	if b.carried = keep == bodyCarry; b.carried {
		b.carry.src = format.RequestShape(string(f))
	}
	var (
		names  = make([]string, 0, 8)
		hasMsg bool
		tc     = canonical.TakeTranscoder()
	)
	defer canonical.PutTranscoder(tc)
	switch keep {
	case bodyCarry, bodyText:
		// the members' canonical JSON (then, carried, the target's tools
		// written from it): room for the members of a body with a few tools
		b.text = make([]byte, 0, min(s.Rest(), 8<<10))
		b.members = b.membersAt[:0]
	}
	n := 0
	for ; ; n++ {
		name, more, ok := s.Member(n)
		if !ok || n > maxBodyMembers {
			return false
		}
		if !more {
			break
		}
		for _, seen := range names {
			if seen == name {
				return false // a duplicate, which Parse refuses
			}
		}
		names = append(names, name)
		if name == "messages" {
			if b.msgs, ok = transcript.ScanList(f, s, 2, raw, arena); !ok {
				return false
			}
			hasMsg = true
			continue
		}
		from := len(b.text)
		switch {
		case keep == bodyCarry:
			if !b.carryMember(s, name, tc) {
				return false
			}
			continue
		case keep == bodyTree:
			v, err := s.Value(2)
			if err != nil {
				return false
			}
			if b.tree == nil {
				b.tree = make(map[string]any, 8)
			}
			b.tree[name] = v
			if name == "model" {
				b.model, _ = v.(string)
			}
			continue
		case name == "model" && s.Next() == '"':
			if !s.StringMember(&b.model) {
				return false
			}
			if keep == bodyText {
				b.text = canonical.AppendString(b.text, b.model)
			}
		case keep == bodyText:
			if b.text, ok = s.AppendCanonical(b.text, 2, tc); !ok {
				return false
			}
		default:
			if s.Skip(2) != nil {
				return false
			}
		}
		if keep == bodyText {
			b.members = append(b.members, scannedMember{name, from, len(b.text)})
		}
	}
	return hasMsg && s.Object(n)
}

// options completes o for the body as request.Body.Options does: the list's
// path, and the body's model when o names none.
func (b *scannedBody) options(o transcript.Options) transcript.Options {
	o.Path = bodyListPath
	if o.Model == "" {
		o.Model = b.model
	}
	return o
}

// appendBody appends the canonical JSON of the body with its list replaced
// by list (what canonical.Append writes for request.Body.Write(list)): the
// members in RFC 8785 order, each other member's value as scanBody
// transcoded it. It reports false when the bytes would pass
// MaxResponseBytes.
func (b *scannedBody) appendBody(dst []byte, list []any) ([]byte, bool) {
	// the members' order: indices into b.members, len(b.members) the list
	var orderAt [maxBodyMembers + 1]int
	order := orderAt[:0]
	name := func(i int) string {
		if i == len(b.members) {
			return "messages"
		}
		return b.members[i].name
	}
	for i := range len(b.members) + 1 {
		j := len(order)
		order = append(order, i)
		for ; j > 0 && canonical.LessUTF16(name(i), name(order[j-1])); j-- {
			order[j] = order[j-1]
		}
		order[j] = i
	}
	dst = append(dst, '{')
	for k, i := range order {
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = append(canonical.AppendString(dst, name(i)), ':')
		if i < len(b.members) {
			m := b.members[i]
			dst = append(dst, b.text[m.from:m.to]...)
			continue
		}
		dst = append(dst, '[')
		for j, e := range list {
			if j > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = canonical.AppendMax(dst, e, MaxResponseBytes-2); err != nil {
				return nil, false
			}
		}
		dst = append(dst, ']')
	}
	dst = append(dst, '}')
	return dst, len(dst) < MaxResponseBytes-2
}

// convertedBody answers fastList's conversion of a body (its list msgs, its
// other members b.tree) from ff to another format tt, as opConvertBody
// does: the list converted and written straight as its canonical JSON
// (Options.Encoded), the body's other members carried to tt's places
// (request.Carry) around it. ok is false, for the general path to answer,
// for anything the conversion refuses, a value it cannot encode or an
// answer that would reach MaxResponseBytes.
func convertedBody(req string, ff, tt transcript.Format, b *scannedBody, msgs []transcript.Message, o transcript.Options) (response []byte, ok bool) {
	if tt == transcript.Format("openai-chat") {
		return nil, false // its WriteSystem reads the list as a tree (request.Carry)
	}
	if o = b.options(o); transcript.CheckConvert(ff, tt, o) != nil {
		return nil, false
	}
	o.Encoded, o.Into = true, make([]byte, 0, len(req)+len(req)/4) // the list about as long as its text
	c := transcript.Convert(ff, tt, msgs, o)
	if c.List == nil || len(c.List) >= MaxResponseBytes {
		return nil, false
	}
	rest := b.tree
	if rest == nil {
		rest = map[string]any{}
	}
	bc, err := request.Carry(ff, tt, rest, "body", c, c.List)
	if err != nil {
		return nil, false
	}
	out := append(make([]byte, 0, responseCap(len(req))), okPrefix...)
	out, err = canonical.AppendMax(out, conversionValue(Conversion{IDMap: bc.IDMap, NameMap: bc.NameMap, Notes: bc.Notes}, "body", bc.Body), MaxResponseBytes-1)
	if err != nil {
		return nil, false
	}
	return append(out, '}'), true
}

// appendConverted returns the answer of a conversion of the body to its own
// format, c its id_map, name_map and notes and list its converted list, as
// canonical.Append writes opConvertBody's result, conversionValue(c,
// "body", ...): the body written straight into the response (it sorts
// first), then the members c gives, in order, each as the encoder writes
// it. capacity is the response buffer's first capacity. ok is false when a
// value cannot be encoded or the answer would reach MaxResponseBytes.
func (b *scannedBody) appendConverted(capacity int, c Conversion, list []any) (response []byte, ok bool) {
	out := append(make([]byte, 0, capacity), okPrefix+`{"body":`...)
	if out, ok = b.appendBody(out, list); !ok {
		return nil, false
	}
	if out, ok = appendConversionMembers(out, c.IDMap, c.NameMap, c.Notes); !ok {
		return nil, false
	}
	if out = append(out, "}}"...); len(out) > MaxResponseBytes-2 {
		return nil, false
	}
	return out, true
}

// appendConversionMembers appends the id_map, name_map and notes members
// of a conversion's answer, those not empty, each after its ',', in RFC
// 8785 order: what canonical.Append writes for them in conversionValue's
// tree. ok is false when the bytes would pass MaxResponseBytes-2.
func appendConversionMembers(out []byte, ids, names map[string]string, notes []string) ([]byte, bool) {
	var err error
	if len(ids) > 0 {
		if out, err = canonical.AppendMax(append(out, `,"id_map":`...), ids, MaxResponseBytes-2); err != nil {
			return nil, false
		}
	}
	if len(names) > 0 {
		if out, err = canonical.AppendMax(append(out, `,"name_map":`...), names, MaxResponseBytes-2); err != nil {
			return nil, false
		}
	}
	if len(notes) > 0 {
		out = append(out, `,"notes":[`...)
		for i, s := range notes {
			if i > 0 {
				out = append(out, ',')
			}
			out = canonical.AppendString(out, s)
		}
		out = append(out, ']')
	}
	return out, len(out) <= MaxResponseBytes-2
}
