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
func scanMessage(s *canonical.Scanner, depth int, lint bool) (dialect.Message, bool) {
	var (
		msg     dialect.Message
		role    string
		content any
		id      string
		calls   []dialect.Part
		// tool_calls was null (the tree holds nil, not an empty array)
		callsNull bool
	)
	const hasContent, hasCalls = 1 << 1, 1 << 3
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
		calls, ok = scanCalls(s)
		return ok
	})
	if !ok {
		return msg, false
	}
	msg.Raw = dialect.Scanned{}
	_, isArray := content.([]any)
	if lint && (isArray || role == "system" || role == "developer" || seen&hasCalls != 0 && !callsNull && len(calls) == 0) {
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
// both members) into call parts, as readMessage reads them.
func scanCalls(s *canonical.Scanner) ([]dialect.Part, bool) {
	if !s.Byte('[') {
		return nil, false
	}
	var calls []dialect.Part
	for n := 0; ; n++ {
		more, ok := s.Elem(n)
		if !ok {
			return nil, false
		}
		if !more {
			return calls, s.Array(n)
		}
		c, ok := scanCall(s)
		if !ok {
			return nil, false
		}
		if calls == nil {
			calls = make([]dialect.Part, 0, 2)
		}
		calls = append(calls, dialect.Part{Kind: dialect.KindCall, Call: c, Raw: dialect.Scanned{}})
	}
}

// scanCall reads one tool call object of scanCalls.
func scanCall(s *canonical.Scanner) (dialect.Call, bool) {
	var c dialect.Call
	seen, ok := s.ReadObject([]string{"id", "type", "function"}, func(i int) bool {
		switch i {
		case 0:
			return s.StringMember(&c.ID)
		case 1:
			var t string
			return s.StringMember(&t)
		}
		seen, ok := s.ReadObject([]string{"name", "arguments"}, func(i int) bool {
			if i == 0 {
				return s.StringMember(&c.Name)
			}
			return s.StringMember(&c.ArgsText)
		})
		return ok && seen == 3
	})
	return c, ok && seen&4 != 0
}
