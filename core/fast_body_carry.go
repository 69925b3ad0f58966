package core

import (
	"strings"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/format"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
	"github.com/toolerr/toolerr/core/internal/request"
	"github.com/toolerr/toolerr/core/internal/transcript"
)

// The carried form of fastList's body conversion: a body of a format whose
// request shape reads its tools and tool choice from the bytes (carrySource:
// dialect.Request's ScanTools and ScanChoice) converted to a format whose
// request shape writes its tools, tool choice and system prompt as bytes
// (carryTarget: dialect.Request's AppendTools, AppendChoice and
// AppendSystem, each tool's JSON Schema copied as read), without a value
// tree of its other members. scanBody (bodyCarry) reads the function tools
// (name, description, the parameters as their canonical JSON, strict) and
// the tool choice through the source's hooks, the parallel switch, and the
// generation parameters from the bytes, each value as its canonical JSON
// (canonical.Scanner.AppendCanonical), and the names of the members no
// reader takes; carriedBody writes the target's body straight from them
// around the converted list, in RFC 8785 order, as request.Carry and
// canonical.Append write it: the generation parameters where the target's
// Params place them, the tools, the choice and the system prompt through
// its hooks (each provider's wire shape lives in its own package). It
// declines (the general path answers) anything that would make
// request.Carry note or refuse a member by its value (a hosted tool, a
// tool or function member other than those, a tool choice the target
// cannot take, a value of the wrong type) and any conversion that renames
// functions (name_map), so that the answer is the general path's byte for
// byte (TestFastBody_sameAsGeneral, TestFastBody_hostileSameAsGeneral,
// FuzzFastBody).

// carriedMembers is what scanBody (bodyCarry) keeps of a body's members
// beside its list and model: each value a span of the scannedBody's text.
type carriedMembers struct {
	// tools are the function tools read (the source's ScanTools), their
	// schemas spans of text
	tools []dialect.RawTool
	// choice is the tool choice read (Mode "" for none)
	choice dialect.Choice
	// parallel is the parallel switch (the source's ParallelMember): 0 not
	// given (or null), 1 true, -1 false
	parallel int8
	// params are the generation parameters given, by their index in the
	// source shape's Params (maxCarriedParams at most)
	params [maxCarriedParams]carriedParam
	// left are the names of the members no reader takes, as read
	left []string
	// src is the source format's request shape (carrySource)
	src *dialect.Request
	// toolsAt holds the first tools, so that a body of a few tools reads
	// them without a slice of their own
	toolsAt [8]dialect.RawTool
}

// maxCarriedParams is the most generation parameters a source shape of the
// carried form may have (the widest has 15).
const maxCarriedParams = 24

// carriedParam is one generation parameter as given: set when a member of
// one of its names is (not null), alt the index of that name among the
// names of its Path (the first one's kept, as request.Carry's readParams
// keeps it), its canonical JSON text[from:to].
type carriedParam struct {
	set      bool
	alt      int
	from, to int
}

// carrySource reports whether a body of format f is one scanBody reads in
// the carried form: its request shape reads tools and tool choice from the
// bytes (dialect.Request's ScanTools and ScanChoice, and the members they
// and the parallel switch are under), and has no system member, no
// server-side state, no proto names and no nested parameter.
func carrySource(f transcript.Format) bool {
	src := format.RequestShape(string(f))
	if src == nil || src.ScanTools == nil || src.ScanChoice == nil || src.ToolsMember == "" || src.ChoiceMember == "" || src.ParallelMember == "" ||
		src.ReadSystem != nil || src.Server != nil || src.ProtoJSON || len(src.Params) > maxCarriedParams {
		return false
	}
	for _, p := range src.Params {
		if strings.Contains(p.Path, ".") {
			return false
		}
	}
	return true
}

// carryTarget reports whether carriedBody writes bodies of format t: its
// request shape writes tools, tool choice and system prompt as bytes.
func carryTarget(t transcript.Format) bool {
	dst := format.RequestShape(string(t))
	return dst != nil && dst.AppendTools != nil && dst.AppendChoice != nil && dst.AppendSystem != nil
}

// paramOf finds name among the member names of src's generation
// parameters: its parameter's index and its index in that Path.
func paramOf(src *dialect.Request, name string) (param, alt int, ok bool) {
	for i, p := range src.Params {
		rest := p.Path
		for k := 0; rest != ""; k++ {
			var alt string
			alt, rest, _ = strings.Cut(rest, "|")
			if alt == name {
				return i, k, true
			}
		}
	}
	return 0, 0, false
}

// carryMember reads the value of the body member name (neither messages
// nor a duplicate) at s for the carried form, at nesting level 2. It
// reports false for a value the carried form does not take.
func (b *scannedBody) carryMember(s *canonical.Scanner, name string, tc *canonical.Transcoder) bool {
	c := &b.carry
	switch name {
	case c.src.ToolsMember:
		if c.tools == nil {
			c.tools = c.toolsAt[:0]
		}
		var ok bool
		b.text, ok = c.src.ScanTools(s, 2, b.text, tc, &c.tools)
		return ok
	case c.src.ChoiceMember:
		return c.src.ScanChoice(s, 2, &c.choice)
	case c.src.ParallelMember:
		if s.Null() {
			return true
		}
		v, ok := s.Bool()
		c.parallel = -1
		if v {
			c.parallel = 1
		}
		return ok
	}
	i, alt, ok := paramOf(c.src, name)
	if !ok {
		c.left = append(c.left, name)
		return s.Skip(2) == nil
	}
	if s.Null() {
		return true // taken, and not carried: request.Carry reads no null parameter
	}
	from := len(b.text)
	if name == "model" && s.Next() == '"' {
		if !s.StringMember(&b.model) {
			return false
		}
		b.text = canonical.AppendString(b.text, b.model)
	} else if b.text, ok = s.AppendCanonical(b.text, 2, tc); !ok {
		return false
	}
	if p := &c.params[i]; !p.set || alt < p.alt {
		*p = carriedParam{true, alt, from, len(b.text)}
	}
	return true
}

// bodyEntry is one member of the body carriedBody writes (the list's
// aside): its name and its value's canonical JSON, text[from:to] of the
// scannedBody.
type bodyEntry struct {
	name     string
	from, to int
}

// carriedBody answers fastList's conversion of a body read in the carried
// form (scanBody, bodyCarry) from ff to tt (carryTarget), as opConvertBody
// does: the response written from its head, the body's members that sort
// before the list, the list converted straight after them
// (Options.Encoded, Options.Into), then the members after it and the
// answer's id_map and notes. ok is false, for the general path to answer,
// for a conversion that refuses the list, renames functions or cannot
// encode a value, and for an answer that would reach MaxResponseBytes.
func carriedBody(req string, ff, tt transcript.Format, b *scannedBody, msgs []transcript.Message, o transcript.Options) (response []byte, ok bool) {
	src, dst := format.RequestShape(string(ff)), format.RequestShape(string(tt))
	if !carryTarget(tt) || src == nil {
		return nil, false
	}
	if o = b.options(o); transcript.CheckConvert(ff, tt, o) != nil {
		return nil, false
	}
	c := &b.carry
	var n dialect.Notes
	entries := make([]bodyEntry, 0, 16)
	// the generation parameters: each the first of its names given, in the
	// target's place for it (request.Carry's readParams and writeParams)
	var givenAt [maxCarriedParams]string
	given := givenAt[:0]
	for i, p := range c.params[:len(src.Params)] {
		if p.set {
			given = append(given, src.Params[i].Name)
		}
	}
	var nestedAt [16]bodyEntry
	nested := nestedAt[:0] // members of the target's nested parameter objects, named parent.key
	for _, p := range dst.Params {
		i := srcParam(src, p.Name)
		if i < 0 || !c.params[i].set {
			continue
		}
		v := c.params[i]
		if p.Name == "stop" && b.text[v.from] == '"' {
			// one string: every format takes a list
			from := len(b.text)
			b.text = append(append(append(b.text, '['), b.text[v.from:v.to]...), ']')
			v.from, v.to = from, len(b.text)
		}
		path, _, _ := strings.Cut(p.Path, "|")
		if _, _, isNested := strings.Cut(path, "."); isNested {
			nested = append(nested, bodyEntry{path, v.from, v.to})
			continue
		}
		entries = append(entries, bodyEntry{path, v.from, v.to})
	}
	// each parent object written as one value, its members in order: sorted
	// by their whole names, those of one parent are next to each other
	nested = sortEntries(nested)
	for i := 0; i < len(nested); {
		parent, _, _ := strings.Cut(nested[i].name, ".")
		from := len(b.text)
		b.text = append(b.text, '{')
		for k := i; i < len(nested) && strings.HasPrefix(nested[i].name, parent) && nested[i].name[len(parent)] == '.'; i++ {
			if i > k {
				b.text = append(b.text, ',')
			}
			e := nested[i]
			b.text = append(canonical.AppendString(b.text, e.name[len(parent)+1:]), ':')
			b.text = append(b.text, b.text[e.from:e.to]...)
		}
		b.text = append(b.text, '}')
		entries = append(entries, bodyEntry{parent, from, len(b.text)})
	}
	request.ParamNotes(dst, tt, given, &n)
	// the tools and the tool choice (the target's AppendTools and
	// AppendChoice, as its WriteTools)
	var key string
	if len(c.tools) > 0 {
		from := len(b.text)
		if key, b.text = dst.AppendTools(b.text, c.tools); key != "" {
			entries = append(entries, bodyEntry{key, from, len(b.text)})
		}
	}
	from := len(b.text)
	if key, b.text = dst.AppendChoice(b.text, c.choice, c.parallel); key != "" {
		entries = append(entries, bodyEntry{key, from, len(b.text)})
	}
	var toolNotes []string
	if c.parallel < 0 || c.anyStrict() {
		// the notes WriteTools writes for a strict flag or the
		// parallel-calls switch off, its body thrown away
		var tn dialect.Notes
		dst.WriteTools(map[string]any{}, c.neutralTools(), &tn)
		toolNotes = tn.List
	}
	entries = sortEntries(entries)

	// the response up to the list, then the list (Options.Into)
	o.Encoded = true
	o.Into = append(make([]byte, 0, responseCap(len(req))+len(req)/4), okPrefix+`{"body":{`...)
	at := 0 // the first entry after the list
	for at < len(entries) && canonical.LessUTF16(entries[at].name, dst.List) {
		at++
	}
	o.Into = b.appendEntries(o.Into, entries[:at], nil)
	if at > 0 {
		o.Into = append(o.Into, ',')
	}
	o.Into = append(canonical.AppendString(o.Into, dst.List), ':')
	conv := transcript.Convert(ff, tt, msgs, o)
	if conv.List == nil || len(conv.List) >= MaxResponseBytes || len(conv.NameMap) > 0 {
		return nil, false // name_map: the tools would be renamed too (request.Carry's renameTools)
	}
	after := entries[at:]
	if conv.System != "" {
		from := len(b.text)
		if key, b.text = dst.AppendSystem(b.text, conv.System); key == "" || canonical.LessUTF16(key, dst.List) {
			return nil, false // it would sort before the list, written already
		}
		after = sortEntries(append(after, bodyEntry{key, from, len(b.text)}))
	}
	out := b.appendEntries([]byte(conv.List), after, []byte{','})
	out = append(out, '}')
	if len(toolNotes) > 0 {
		n.List = append(toolNotes, n.List...) // WriteTools notes before writeParams
	}
	notes := request.CarryNotes(ff, tt, conv.Notes, n.List, c.left)
	if out, ok = appendConversionMembers(out, conv.IDMap, nil, notes); !ok {
		return nil, false
	}
	if out = append(out, "}}"...); len(out) > MaxResponseBytes-2 {
		return nil, false
	}
	return out, true
}

// srcParam is the index in src.Params of the parameter of neutral name
// name, or -1.
func srcParam(src *dialect.Request, name string) int {
	for i, p := range src.Params {
		if p.Name == name {
			return i
		}
	}
	return -1
}

// sortEntries sorts es by name in RFC 8785 order and returns it.
func sortEntries(es []bodyEntry) []bodyEntry {
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && canonical.LessUTF16(es[j].name, es[j-1].name); j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
	return es
}

// appendEntries appends each of es as "name":value, each after lead (a
// ',', or nothing) and separated by commas.
func (b *scannedBody) appendEntries(dst []byte, es []bodyEntry, lead []byte) []byte {
	for k, e := range es {
		if k > 0 {
			dst = append(dst, ',')
		} else {
			dst = append(dst, lead...)
		}
		dst = append(canonical.AppendString(dst, e.name), ':')
		dst = append(dst, b.text[e.from:e.to]...)
	}
	return dst
}

// anyStrict reports whether a tool has strict true (a note in the target).
func (c *carriedMembers) anyStrict() bool {
	for _, t := range c.tools {
		if t.Strict > 0 {
			return true
		}
	}
	return false
}

// neutralTools are the tools, choice and parallel switch as
// dialect.Tools, without their schemas: what WriteTools notes from.
func (c *carriedMembers) neutralTools() dialect.Tools {
	t := dialect.Tools{Defs: make([]dialect.Tool, len(c.tools)), Choice: c.choice}
	for i, d := range c.tools {
		t.Defs[i] = dialect.Tool{Name: d.Name, Description: d.Description}
		if d.Strict != 0 {
			v := d.Strict > 0
			t.Defs[i].Strict = &v
		}
	}
	if c.parallel != 0 {
		v := c.parallel > 0
		t.Parallel = &v
	}
	return t
}
