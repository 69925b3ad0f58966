package request

import (
	"slices"
	"sort"
	"strings"

	"github.com/toolerr/toolerr/core/internal/format"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
	"github.com/toolerr/toolerr/core/internal/transcript"
)

// Converted is a body written in another format: Body the whole body, IDMap
// the ids rewritten for the target's rules (new id -> original), Notes what
// could not travel as is, in plain words (a member the target has no place
// for, a hosted tool, a system block's cache_control, ...).
type Converted struct {
	Body    map[string]any
	IDMap   map[string]string
	NameMap map[string]string
	Notes   []string
}

// Convert writes b in the shape of format to, with the engine options o
// completed by Body.Options. To the same format, only the list is converted
// (which the engine keeps as it was but for the ids o.IDRules rewrite) and every other member is the value read. To
// another format, the list is converted by the transcript engine, and the
// system prompt (the body's own and any system messages of its list the
// target keeps outside the list), the function tools, the tool choice, the
// parallel-calls switch and the generation parameters go where the target
// has a place for them; every other member is dropped and named in a note.
// A member read but of the wrong JSON type is a *field.Error at its path.
func Convert(b *Body, to transcript.Format, o transcript.Options) (Converted, error) {
	o = b.Options(o)
	if err := transcript.CheckConvert(b.Format, to, o); err != nil {
		return Converted{}, err
	}
	msgs, err := b.Messages()
	if err != nil {
		return Converted{}, err
	}
	conv := transcript.Convert(b.Format, to, msgs, o)
	if to == b.Format {
		return Converted{Body: b.result(conv.Messages, len(conv.IDMap) > 0), IDMap: conv.IDMap, NameMap: conv.NameMap, Notes: conv.Notes}, nil
	}
	return Carry(b.Format, to, copyMap(b.Raw), b.Path, conv, conv.Messages)
}

// Carry is Convert to another format once the list is converted: conv is
// the conversion of the list of a body of format from (at path in the
// request) whose members are rest (a copy Carry may change; its list
// member is ignored), and list is what the written body holds as its list
// (conv.Messages, or the canonical JSON of the list, conv.List, as a
// canonical.Text when the conversion was Options.Encoded; to must then be a
// format whose WriteSystem does not read the list: not openai-chat). It
// carries the system prompt, the tools, the tool choice, the parallel-calls
// switch and the generation parameters of rest to to's places for them,
// and notes every other member, as Convert describes.
func Carry(from, to transcript.Format, rest map[string]any, path string, conv transcript.Converted, list any) (Converted, error) {
	src, dst := format.RequestShape(string(from)), format.RequestShape(string(to))
	var n dialect.Notes
	var err error
	delete(rest, src.List)
	var system []string
	if src.ReadSystem != nil {
		if system, err = src.ReadSystem(rest, path, &n); err != nil {
			return Converted{}, err
		}
	}
	if conv.System != "" {
		system = append(system, conv.System)
	}
	tools, err := src.ReadTools(rest, path, &n)
	if err != nil {
		return Converted{}, err
	}
	if src.Server != nil {
		if s := src.Server(rest); s.Any() {
			n.Add("the body builds on server-side state (previous_response_id or conversation) that " + string(to) + " has no place for: its list holds only the turns given here and the open calls passed")
		}
	}
	params, parents := readParams(src, rest)

	out := map[string]any{dst.List: list}
	if len(system) > 0 {
		dst.WriteSystem(out, system)
	}
	renameTools(&tools, conv.NameMap)
	dst.WriteTools(out, tools, &n)
	writeParams(dst, out, params, to, &n)

	return Converted{Body: out, IDMap: conv.IDMap, NameMap: conv.NameMap, Notes: CarryNotes(from, to, conv.Notes, n.List, leftover(rest, parents))}, nil
}

// CarryNotes are the notes of a body carried from format from to format to,
// in Carry's order: the list conversion's notes (list; but the one saying
// system text moved out of the list, which the body holds in the target's
// place), then those of reading and writing the body's members (members),
// then one naming the members no reader took (left, as read: each shown by
// its dialect.DisplayName, "(unnamed)" when it has none, sorted), when
// there are any. It changes none of its slices.
func CarryNotes(from, to transcript.Format, list, members, left []string) []string {
	var notes []string
	add := func(s string) {
		if notes == nil {
			notes = make([]string, 0, len(list)+len(members)+1)
		}
		notes = append(notes, s)
	}
	for _, s := range list {
		if !strings.HasPrefix(s, "system text moved out of the list") { // the body holds it in the target's place
			add(s)
		}
	}
	for _, s := range members {
		add(s)
	}
	if len(left) > 0 {
		shown := make([]string, len(left))
		for i, s := range left {
			if shown[i] = dialect.DisplayName(s); shown[i] == "" {
				shown[i] = "(unnamed)"
			}
		}
		sort.Strings(shown)
		add("dropped body members " + string(from) + " carries that " + string(to) + " has no place for: " + strings.Join(shown, ", "))
	}
	if notes == nil {
		return []string{} // Converted.Notes is never nil
	}
	return notes
}

// renameTools gives the tools the names the conversion gave their calls
// (names: new name -> original), so that the body stays whole.
func renameTools(tools *dialect.Tools, names map[string]string) {
	for n, orig := range names {
		for i := range tools.Defs {
			if tools.Defs[i].Name == orig {
				tools.Defs[i].Name = n
			}
		}
		if tools.Choice.Name == orig {
			tools.Choice.Name = n
		}
	}
}

// readParams takes the generation parameters of shape s out of rest, by
// neutral name. parents are the nested objects a parameter was read from
// (generationConfig), whose other members leftover names one by one.
func readParams(s *dialect.Request, rest map[string]any) (map[string]any, map[string]bool) {
	got := map[string]any{}
	parents := map[string]bool{}
	for _, p := range s.Params {
		for _, alt := range strings.Split(p.Path, "|") {
			parent, key, nested := strings.Cut(alt, ".")
			if !nested {
				if v, ok := dialect.Take(rest, alt, s.ProtoJSON); ok && v != nil {
					if _, seen := got[p.Name]; !seen {
						got[p.Name] = v
					}
				}
				continue
			}
			obj := nestedCopy(rest, parent, s.ProtoJSON)
			if obj == nil {
				continue
			}
			parents[parent] = true
			if v, ok := dialect.Take(obj, key, s.ProtoJSON); ok && v != nil {
				if _, seen := got[p.Name]; !seen {
					got[p.Name] = v
				}
			}
		}
	}
	return got, parents
}

// nestedCopy replaces the object member parent of rest (read under its
// snake_case name too when proto) by a copy, stored under parent, and
// returns it; nil when there is no such object.
func nestedCopy(rest map[string]any, parent string, proto bool) map[string]any {
	v, ok := rest[parent]
	if !ok && proto {
		if v, ok = rest[dialect.Snake(parent)]; ok {
			delete(rest, dialect.Snake(parent))
		}
	}
	m, isObj := v.(map[string]any)
	if !ok || !isObj {
		return nil
	}
	c := copyMap(m)
	rest[parent] = c
	return c
}

// writeParams puts the parameters in dst's places (the first name of each
// path), and notes those dst has no place for and those it requires but the
// body lacks.
func writeParams(dst *dialect.Request, out map[string]any, params map[string]any, to transcript.Format, n *dialect.Notes) {
	given := make([]string, 0, len(params))
	for name := range params {
		given = append(given, name)
	}
	for _, p := range dst.Params {
		v, ok := params[p.Name]
		if !ok {
			continue
		}
		if s, isStr := v.(string); isStr && p.Name == "stop" {
			v = []any{s} // Chat Completions also takes one string; every format takes a list
		}
		path, _, _ := strings.Cut(p.Path, "|")
		parent, key, nested := strings.Cut(path, ".")
		if !nested {
			out[path] = v
			continue
		}
		obj, _ := out[parent].(map[string]any)
		if obj == nil {
			obj = map[string]any{}
			out[parent] = obj
		}
		obj[key] = v
	}
	ParamNotes(dst, to, given, n)
}

// ParamNotes notes, as a conversion of a body to format to (shape dst)
// does, the generation parameters of given (their neutral names, in any
// order) that dst has no place for, sorted by name, then each parameter dst
// requires that given lacks. It sorts given.
func ParamNotes(dst *dialect.Request, to transcript.Format, given []string, n *dialect.Notes) {
	sort.Strings(given)
	for _, name := range given {
		if dst.HasParam(name) {
			continue
		}
		why := " has no place for it"
		if name == "model" {
			why = " takes the model in the URL, not the body"
		} else if name == "stream" {
			why = " streams through another endpoint, not a body member"
		}
		n.Add("dropped the " + name + " parameter: " + string(to) + why)
	}
	for _, name := range dst.Require {
		if !slices.Contains(given, name) {
			n.Add(string(to) + " requires " + name + " and the body gives none: set it before sending")
		}
	}
}

// leftover names the members of rest no reader took, in no order; a nested
// parameter object is named member by member (generationConfig.candidateCount).
func leftover(rest map[string]any, parents map[string]bool) []string {
	var out []string
	for k, v := range rest {
		if m, ok := v.(map[string]any); ok && parents[k] {
			for nk := range m {
				out = append(out, k+"."+nk)
			}
			continue
		}
		out = append(out, k)
	}
	return out
}
