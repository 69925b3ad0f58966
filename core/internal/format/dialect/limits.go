package dialect

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// The finding kinds a dialect's Lint raises (stable snake_case tokens, as
// the engine's own; docs/transcripts.md gives each one's rule and source).
const (
	FindLength               = "length_out_of_range"
	FindInvalidName          = "invalid_name"
	FindInvalidPart          = "invalid_part"
	FindMultipleDataFields   = "multiple_data_fields"
	FindNoDataField          = "no_data_field"
	FindUnsupportedContent   = "unsupported_content"
	FindUnsupportedRole      = "unsupported_role"
	FindUnsupportedMember    = "unsupported_member"
	FindReasoningWithoutNext = "reasoning_without_following_item"
)

// NoBound is a Limit bound that is not set.
const NoBound = -1

// Unit is what a Limit counts.
type Unit uint8

// The units of a Limit.
const (
	Items Unit = iota + 1 // the elements of an array (minItems, maxItems)
	Chars                 // the characters (code points) of a string (minLength, maxLength)
	Value                 // a number's value (minimum, maximum)
)

// Limit is one bound a vendor schema puts on a member of the messages of a
// list: Min and Max (NoBound when unset) in Unit, and Match, when set, a
// pattern the string must match. Where names the items it applies to (a
// message's "type", as "function_call_output"; "" = every message). Path
// is the member below the message, its segments joined by ".": "name" a
// member, "name[]" each element of an array, "name[t]" each element whose
// "type" is t. Schema is the vendor's name of the schema that states the
// bound ("ToolName", "FunctionCallOutputItemParam.output"), for the finding;
// Kind is the finding kind (FindLength when "").
type Limit struct {
	Where, Path string
	Min, Max    int
	Unit        Unit
	Match       func(s string) bool
	Pattern     string
	Schema      string
	Kind        string
	segs        []string // Path split, by Compile
}

// Compile returns ls ready for CheckLimits (each path split once).
func Compile(ls []Limit) []Limit {
	for i := range ls {
		ls[i].segs = strings.Split(ls[i].Path, ".")
	}
	return ls
}

// CheckLimits returns an Issue for every member of raw (a message as read)
// that breaks one of limits, in the order of limits.
func CheckLimits(raw any, limits []Limit) []Issue {
	m, _ := raw.(map[string]any)
	if m == nil {
		return nil
	}
	var out []Issue
	for i := range limits {
		l := &limits[i]
		if l.Where != "" && m["type"] != l.Where {
			continue
		}
		segs := l.segs
		if segs == nil {
			segs = strings.Split(l.Path, ".")
		}
		visit(m, segs, "", func(v any, path string) {
			if text, bad := l.broken(v); bad {
				kind := l.Kind
				if kind == "" {
					kind = FindLength
				}
				out = append(out, Issue{Kind: kind, Path: path, Text: text})
			}
		})
	}
	return out
}

// visit calls at with every value at the segments segs below v (an object),
// with its path (prefix joined with the concrete member names and indexes).
func visit(v any, segs []string, prefix string, at func(v any, path string)) {
	obj, ok := v.(map[string]any)
	if !ok || len(segs) == 0 {
		return
	}
	seg := segs[0]
	name, filter, isArray := strings.Cut(seg, "[")
	path := name
	if prefix != "" {
		path = prefix + "." + name
	}
	x, present := obj[name]
	if !present || x == nil {
		return
	}
	if !isArray {
		if len(segs) == 1 {
			at(x, path)
		} else {
			visit(x, segs[1:], path, at)
		}
		return
	}
	arr, ok := x.([]any)
	if !ok {
		return
	}
	typ := strings.TrimSuffix(filter, "]")
	for i, e := range arr {
		if typ != "" {
			if em, _ := e.(map[string]any); em == nil || em["type"] != typ {
				continue
			}
		}
		ep := path + "[" + strconv.Itoa(i) + "]"
		if len(segs) == 1 {
			at(e, ep)
		} else {
			visit(e, segs[1:], ep, at)
		}
	}
}

// broken reports whether v breaks the limit, and the sentence saying so.
func (l *Limit) broken(v any) (string, bool) {
	n, unit := 0, ""
	switch l.Unit {
	case Items:
		arr, ok := v.([]any)
		if !ok {
			return "", false
		}
		n, unit = len(arr), "items"
	case Chars:
		s, ok := v.(string)
		if !ok {
			return "", false
		}
		if l.Match != nil && s != "" && !l.Match(s) {
			return "This value does not match the pattern " + l.Pattern + " that " + l.Schema + " requires.", true
		}
		n, unit = utf8.RuneCountInString(s), "characters"
	case Value:
		f, ok := v.(float64)
		if !ok {
			return "", false
		}
		if l.Min != NoBound && f < float64(l.Min) || l.Max != NoBound && f > float64(l.Max) {
			return "This value is outside the range " + l.bounds("") + " that " + l.Schema + " allows.", true
		}
		return "", false
	}
	if l.Min != NoBound && n < l.Min || l.Max != NoBound && n > l.Max {
		return "This member holds " + strconv.Itoa(n) + " " + unit + "; " + l.Schema + " allows " + l.bounds(unit) + ".", true
	}
	return "", false
}

// bounds words the limit's range ("at least 1 item", "1 to 64 characters").
func (l *Limit) bounds(unit string) string {
	u := ""
	if unit != "" {
		u = " " + unit
		if l.Max == 1 || l.Max == NoBound && l.Min == 1 {
			u = " " + strings.TrimSuffix(unit, "s")
		}
	}
	switch {
	case l.Min != NoBound && l.Max != NoBound:
		return strconv.Itoa(l.Min) + " to " + strconv.Itoa(l.Max) + u
	case l.Min != NoBound:
		return "at least " + strconv.Itoa(l.Min) + u
	}
	return "at most " + strconv.Itoa(l.Max) + u
}
