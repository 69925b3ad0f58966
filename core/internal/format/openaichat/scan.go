package openaichat

import (
	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// scanMessage reads one Chat Completions message straight from s (the
// Dialect's Scan), at nesting level depth, as readMessage reads its tree:
// a message of role system, developer, user, assistant or tool whose members
// are role, content (a string, null, or an array of content parts, which is
// parsed as a tree and read by ListContent), tool_call_id (a string) and,
// for an assistant message, tool_calls (null or calls {id, type, function:
// {name, arguments}} with string members). It charges s's budget as Parse
// would charge the tree. Any other member or shape (function_call, a
// function message, a name, an unknown role, a member of another type, a
// duplicate member) reports false, and the caller reads the tree: so
// nothing convert would count as dropped is ever skipped here.
func scanMessage(s *canonical.Scanner, depth int, mode dialect.ScanRaw, arena *dialect.Parts) (dialect.Message, bool) {
	var (
		msg     dialect.Message
		role    string
		content scanned
		id      string
		calls   = arena.Spare()
		// tool_calls was null (the tree holds nil, not an empty array)
		callsNull bool
		// the canonical JSON of tool_calls, for RawText
		callsText []byte
	)
	text := mode == dialect.RawText
	const hasContent, hasID, hasCalls = 1 << 1, 1 << 2, 1 << 3
	seen, ok := s.ReadObject([]string{"role", "content", "tool_call_id", "tool_calls"}, func(i int) bool {
		switch i {
		case 0:
			return s.StringMember(&role)
		case 1:
			return content.scan(s, depth+1)
		case 2:
			return s.StringMember(&id)
		}
		if s.Null() {
			callsNull = true
			return true
		}
		var ok bool
		calls, callsText, ok = scanCalls(s, calls, arena, text)
		return ok
	})
	if !ok {
		return msg, false
	}
	msg.Raw = dialect.Scanned{}
	switch {
	case text:
		// the message's canonical JSON: its members in RFC 8785 order
		b := arena.Buf(64 + len(callsText) + len(id) + len(role) + len(content.text) + len(content.text)/8)
		b = append(b, '{')
		if seen&hasContent != 0 {
			b = append(b, `"content":`...)
			if content.kind == '"' {
				b = appendQuoted(b, content.quoted, content.text)
			} else {
				var err error
				if b, err = canonical.Append(b, content.value()); err != nil {
					return msg, false
				}
			}
			b = append(b, ',')
		}
		b = canonical.AppendString(append(b, `"role":`...), role)
		if seen&hasID != 0 {
			b = canonical.AppendString(append(b, `,"tool_call_id":`...), id)
		}
		if seen&hasCalls != 0 {
			b = append(b, `,"tool_calls":`...)
			if callsNull {
				b = append(b, "null"...)
			} else {
				b = append(b, callsText...)
			}
		}
		msg.Raw = arena.Text(append(b, '}'), 0)
	case mode == dialect.RawLint && (content.kind == '[' || seen&hasCalls != 0 && !callsNull && len(calls) == 0):
		// what lint reads of a message beyond its role: the content
		// array, how many tool_calls; any other message gives it nothing
		// more to find (see lint)
		raw := map[string]any{"role": role}
		if seen&hasContent != 0 {
			raw["content"] = content.value()
		}
		if seen&hasCalls != 0 {
			raw["tool_calls"] = nil
			if !callsNull {
				raw["tool_calls"] = make([]any, len(calls))
			}
		}
		msg.Raw = raw
	}
	switch role {
	case "tool":
		if seen&hasCalls != 0 {
			return msg, false
		}
		var (
			o      outcome.Outcome
			failed bool
		)
		switch {
		case mode == dialect.RawLint && content.kind == '"':
			// Check reads whether the text is blank (EmptyResult), not
			// the text: an envelope or not, it is not recognized here
			if outcome.IsBlank(content.text) {
				o.Result = &outcome.Result{Kind: outcome.Empty}
			}
		case content.kind == '"':
			o, failed = arena.QuotedOutcome(content.text, content.quoted, outcome.Unflagged)
		default:
			var err error
			if o, failed, err = ListResultContent(content.value(), field.Unnamed); err != nil {
				return msg, false
			}
		}
		o.Call.ID = id
		msg.Role = dialect.RoleTool
		msg.Parts = arena.Keep(dialect.Part{Kind: dialect.KindResult, Result: dialect.Result{Outcome: o, Failed: failed}, Raw: msg.Raw})
		return msg, true
	}
	if msg.Role, ok = chatRole(role); !ok {
		return msg, false // an unknown role: UnknownRole keeps the tree
	}
	if msg.Role != dialect.RoleAssistant {
		calls = calls[:0]
	}
	switch content.kind {
	case '"':
		calls = append(calls, dialect.Part{})
		copy(calls[1:], calls)
		calls[0] = dialect.Part{Kind: dialect.KindText, Text: content.text}
	case '[':
		parts, err := ListContent(content.array, field.Unnamed)
		if err != nil {
			return msg, false
		}
		msg.Parts = append(parts, calls...)
		return msg, true
	}
	msg.Parts = arena.Keep(calls...)
	return msg, true
}

// scanned is a message's content as scanMessage read it.
type scanned struct {
	// kind is '"' for a string, '[' for an array, 0 for null or none
	kind byte
	// text is the string
	text string
	// quoted is the string's literal in the request when that is its
	// canonical form (canonical.Scanner.Quoted), else ""
	quoted string
	// array is an array parsed as the tree ListContent reads
	array []any
}

// scan reads a content member's value: a string, null, or an array.
func (c *scanned) scan(s *canonical.Scanner, depth int) bool {
	switch s.Next() {
	case '"':
		c.kind = '"'
		if !s.StringMember(&c.text) {
			return false
		}
		if q, canon := s.Quoted(); canon {
			c.quoted = q
		}
		return true
	case 'n':
		return s.Null()
	case '[':
		v, err := s.Value(depth)
		c.kind = '['
		c.array, _ = v.([]any)
		return err == nil
	}
	return false
}

// value is the content as the tree holds it (the string decoded).
func (c *scanned) value() any {
	switch c.kind {
	case '"':
		return c.text
	case '[':
		return c.array
	}
	return nil
}

// scanCalls reads an array of tool calls {id, type, function: {name,
// arguments}} (id and type optional, every member a string; function with
// both members) into call parts appended to calls, as readMessage reads
// them. With text, it also writes the array's canonical JSON in arena,
// and each part's Raw is its call's (arena.Text); else Scanned.
func scanCalls(s *canonical.Scanner, calls []dialect.Part, arena *dialect.Parts, text bool) ([]dialect.Part, []byte, bool) {
	if !s.Byte('[') {
		return nil, nil, false
	}
	var b []byte
	if text {
		b = append(arena.Buf(256), '[')
	}
	for n := 0; ; n++ {
		more, ok := s.Elem(n)
		if !ok {
			return nil, nil, false
		}
		if !more {
			if text {
				b = append(b, ']')
				arena.Used(b)
			}
			return calls, b, s.Array(n)
		}
		calls = append(calls, dialect.Part{Kind: dialect.KindCall, Raw: dialect.Scanned{}})
		p := &calls[len(calls)-1]
		var typ, args string // args: the arguments' literal, when canonical
		seen, ok := s.ReadObject([]string{"id", "type", "function"}, func(i int) bool {
			switch i {
			case 0:
				return s.StringMember(&p.Call.ID)
			case 1:
				return s.StringMember(&typ)
			}
			seen, ok := s.ReadObject([]string{"name", "arguments"}, func(i int) bool {
				if i == 0 {
					return s.StringMember(&p.Call.Name)
				}
				if !s.StringMember(&p.Call.ArgsText) {
					return false
				}
				if q, canon := s.Quoted(); canon && text {
					args = q
				}
				return true
			})
			return ok && seen == 3
		})
		if !ok || seen&4 == 0 {
			return nil, nil, false
		}
		if text {
			// {"function":{"arguments","name"},"id"?,"type"?} in RFC 8785 order
			if n > 0 {
				b = append(b, ',')
			}
			at := len(b)
			b = appendQuoted(append(b, `{"function":{"arguments":`...), args, p.Call.ArgsText)
			b = canonical.AppendString(append(b, `,"name":`...), p.Call.Name)
			b = append(b, '}')
			if seen&1 != 0 {
				b = canonical.AppendString(append(b, `,"id":`...), p.Call.ID)
			}
			if seen&2 != 0 {
				b = canonical.AppendString(append(b, `,"type":`...), typ)
			}
			b = append(b, '}')
			p.Raw = arena.Text(b, at)
		}
	}
}

// appendQuoted appends the canonical JSON of the string v to dst: quoted,
// its literal in the request, when that is its canonical form (not ""),
// copied as it is, else v encoded.
func appendQuoted(dst []byte, quoted, v string) []byte {
	if quoted != "" {
		return append(dst, quoted...)
	}
	return canonical.AppendString(dst, v)
}
