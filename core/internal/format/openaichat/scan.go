package openaichat

import (
	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
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
func scanMessage(s *canonical.Scanner, depth int, mode dialect.ScanRaw) (dialect.Message, bool) {
	var (
		msg     dialect.Message
		role    string
		content any
		id      string
		calls   []dialect.Part
		// tool_calls was null (the tree holds nil, not an empty array)
		callsNull bool
		// the canonical JSON of tool_calls, for RawText
		callsText []byte
	)
	const hasContent, hasID, hasCalls = 1 << 1, 1 << 2, 1 << 3
	seen, ok := s.ReadObject([]string{"role", "content", "tool_call_id", "tool_calls"}, func(i int) bool {
		switch i {
		case 0:
			return s.StringMember(&role)
		case 1:
			var ok bool
			content, ok = scanContent(s, depth+1)
			return ok
		case 2:
			return s.StringMember(&id)
		}
		if s.Null() {
			callsNull = true
			return true
		}
		var ok bool
		calls, callsText, ok = scanCalls(s, mode == dialect.RawText)
		return ok
	})
	if !ok {
		return msg, false
	}
	msg.Raw = dialect.Scanned{}
	_, isArray := content.([]any)
	switch {
	case mode == dialect.RawText:
		// the message's canonical JSON: its members in RFC 8785 order
		text, _ := content.(string)
		b := make([]byte, 0, 64+len(callsText)+len(id)+len(role)+len(text)+len(text)/8)
		b = append(b, '{')
		if seen&hasContent != 0 {
			b = append(b, `"content":`...)
			var err error
			if b, err = canonical.Append(b, content); err != nil {
				return msg, false
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
		msg.Raw = canonical.Text(append(b, '}'))
	case mode == dialect.RawLint && (isArray || role == "system" || role == "developer" || seen&hasCalls != 0 && !callsNull && len(calls) == 0):
		// what lint reads: role, the content array, how many tool_calls;
		// any other message gives it nothing to find (see lint)
		raw := map[string]any{"role": role}
		if seen&hasContent != 0 {
			raw["content"] = content
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
		o, failed, err := ListResultContent(content, field.Unnamed)
		if err != nil {
			return msg, false
		}
		o.Call.ID = id
		msg.Role = dialect.RoleTool
		msg.Parts = []dialect.Part{{Kind: dialect.KindResult, Result: dialect.Result{Outcome: o, Failed: failed}, Raw: msg.Raw}}
		return msg, true
	}
	if msg.Role, ok = chatRole(role); !ok {
		return msg, false // an unknown role: UnknownRole keeps the tree
	}
	parts, err := ListContent(content, field.Unnamed)
	if err != nil {
		return msg, false
	}
	if msg.Role == dialect.RoleAssistant && len(calls) > 0 {
		parts = append(parts, calls...)
	}
	msg.Parts = parts
	return msg, true
}

// scanContent reads a message's content: a string, null, or an array parsed
// as the tree ListContent reads.
func scanContent(s *canonical.Scanner, depth int) (any, bool) {
	switch s.Next() {
	case '"':
		c, ok := s.String()
		return c, ok && s.Str(c)
	case 'n':
		return nil, s.Null()
	case '[':
		v, err := s.Value(depth)
		return v, err == nil
	}
	return nil, false
}

// scanCalls reads an array of tool calls {id, type, function: {name,
// arguments}} (id and type optional, every member a string; function with
// both members) into call parts, as readMessage reads them. With text, it
// also writes the array's canonical JSON, and each part's Raw is its call's
// (canonical.Text); else Scanned.
func scanCalls(s *canonical.Scanner, text bool) ([]dialect.Part, []byte, bool) {
	if !s.Byte('[') {
		return nil, nil, false
	}
	var (
		calls []dialect.Part
		b     []byte
	)
	if text {
		b = append(make([]byte, 0, 256), '[')
	}
	for n := 0; ; n++ {
		more, ok := s.Elem(n)
		if !ok {
			return nil, nil, false
		}
		if !more {
			if text {
				b = append(b, ']')
			}
			return calls, b, s.Array(n)
		}
		if calls == nil {
			calls = make([]dialect.Part, 0, 2)
		}
		calls = append(calls, dialect.Part{Kind: dialect.KindCall, Raw: dialect.Scanned{}})
		p := &calls[len(calls)-1]
		var typ string
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
				return s.StringMember(&p.Call.ArgsText)
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
			b = canonical.AppendString(append(b, `{"function":{"arguments":`...), p.Call.ArgsText)
			b = canonical.AppendString(append(b, `,"name":`...), p.Call.Name)
			b = append(b, '}')
			if seen&1 != 0 {
				b = canonical.AppendString(append(b, `,"id":`...), p.Call.ID)
			}
			if seen&2 != 0 {
				b = canonical.AppendString(append(b, `,"type":`...), typ)
			}
			b = append(b, '}')
			p.Raw = canonical.Text(b[at:len(b):len(b)])
		}
	}
}
