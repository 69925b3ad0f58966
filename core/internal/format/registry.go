// Package format holds the provider table: one row per provider, naming its
// room (the subpackage holding its codec and its transcript dialect) and
// what it takes part in. Every list of format names, every flag help and
// every "unknown format" error of the core reads this table.
//
// A provider's room is its own subpackage (openaichat, openairesponses,
// anthropic, gemini, geminiopenai, bedrock, mcp, mistral): the codec (a
// serializer and a parser over the neutral outcome model of package
// outcome) and, where toolerr reads and writes its whole message lists, its
// transcript dialect (package dialect). Adding a provider is a new room and
// one row here.
package format

import (
	"strconv"
	"strings"
	"sync"

	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format/anthropic"
	"github.com/toolerr/toolerr/core/internal/format/bedrock"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
	"github.com/toolerr/toolerr/core/internal/format/gemini"
	"github.com/toolerr/toolerr/core/internal/format/geminiopenai"
	"github.com/toolerr/toolerr/core/internal/format/mcp"
	"github.com/toolerr/toolerr/core/internal/format/mistral"
	"github.com/toolerr/toolerr/core/internal/format/openaichat"
	"github.com/toolerr/toolerr/core/internal/format/openairesponses"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// Codec serializes outcomes into one provider's wire messages and parses them
// back.
//
// AppendSerialized is the codec's one writer: it appends the canonical JSON
// (RFC 8785) of the messages to append to that provider's history for one
// turn of outcomes, in call order, to dst (on error dst may hold a partial
// message). Serialize returns the same messages as value trees, derived from
// those bytes (outcome.Values), so that the two never disagree. Parse reads
// such messages back; parse(serialize(x)) gives x for failures, and for
// results up to what the format can carry (README, "Wire formats").
type Codec interface {
	AppendSerialized(dst []byte, outs []outcome.Outcome) ([]byte, error)
	Serialize(outs []outcome.Outcome) ([]any, error)
	Parse(msgs []any) ([]outcome.Outcome, error)
}

// Provider is one row of the provider table. Name is the wire-format name
// (kebab-case, as the README and the ops spell it). Aliases are the other
// names every entry point accepts for the row (see Canonical); Vendor is the
// API vendor whose error bodies the row's endpoint returns, the name the
// classify op's provider hint resolves to (see Vendor). Codec, when not nil, is
// its serialize/parse codec; Dialect, when not nil, returns its transcript
// dialect, the package's one table, never changed (check, repair, trim, normalize_ids, convert read and write its
// lists); Request, when not nil, returns its request-body shape (the body
// form of those ops reads and writes whole request bodies with it). IDs, for
// a provider with id rules but no list shape of its own,
// returns them, and Lists names the format its lists take; Lint then checks
// the members of its lists in place of that format's own Lint (nil: its API
// states no such rule).
type Provider struct {
	Name    string
	Aliases []string
	Vendor  string
	Codec   Codec
	Dialect func() *dialect.Dialect
	Request func() *dialect.Request
	// Response, when not nil, is the row's non-streaming response shape
	// (a gateway routing between families answers in it).
	Response func() *dialect.Response
	IDs      func() dialect.IDRule
	Lists    string
	Lint     func(d *dialect.Dialect, msgs []dialect.Message, i int) []dialect.Issue
}

// table is the provider table, in README order. The aliases are the names
// users reach for first: the vendor's own name for its main format (openai,
// google, claude, aws), the product or API name (chat-completions,
// responses, vertex, converse). A name never belongs to two rows.
var table = [...]Provider{
	{Name: openaichat.Name, Aliases: []string{"openai", "chat", "chat-completions"}, Vendor: "openai", Codec: openaichat.Codec{}, Dialect: openaichat.Dialect, Request: openaichat.Request, Response: openaichat.Response},
	{Name: openairesponses.Name, Aliases: []string{"responses"}, Vendor: "openai", Codec: openairesponses.Codec{}, Dialect: openairesponses.Dialect, Request: openairesponses.Request},
	{Name: anthropic.Name, Aliases: []string{"claude"}, Vendor: "anthropic", Codec: anthropic.Codec(), Dialect: anthropic.Dialect, Request: anthropic.Request, Response: anthropic.Response},
	{Name: gemini.Name, Aliases: []string{"google", "vertex", "genai"}, Vendor: "gemini", Codec: gemini.Codec(), Dialect: gemini.Dialect, Request: gemini.Request, Response: gemini.Response},
	{Name: geminiopenai.Name, Vendor: "gemini", Codec: geminiopenai.Codec{}},
	{Name: bedrock.Name, Aliases: []string{"aws", "converse", "bedrock-converse"}, Vendor: "bedrock", Codec: bedrock.Codec(), Dialect: bedrock.Dialect, Request: bedrock.Request},
	{Name: mcp.Name, Vendor: "mcp", Codec: mcp.Codec{}},
	{Name: mistral.Name, Vendor: "mistral", IDs: mistral.IDs, Lists: mistral.Lists},
}

// Providers returns the provider table, a copy, in README order.
func Providers() []Provider { return append([]Provider(nil), table[:]...) }

// Parse runs c.Parse and makes every failure it reads what a model may
// read: an envelope found on the wire (a third party's in-band envelope, a
// Gemini response.error, a Bedrock json block) passes outcome.Safe, as every
// envelope toolerr writes does. The parse op and the typed API both read
// through it.
func Parse(c Codec, msgs []any) ([]outcome.Outcome, error) {
	outs, err := c.Parse(msgs)
	for i := range outs {
		if e := outs[i].Error; e != nil {
			safe := outcome.Safe(*e)
			outs[i].Error = &safe
		}
	}
	return outs, err
}

// Lookup returns the codec of a wire-format name or alias, or nil for an
// unknown one.
func Lookup(name string) Codec {
	if p := row(name); p != nil {
		return p.Codec
	}
	return nil
}

// Canonical returns the row name that name (a row name or one of its
// aliases, in any case, surrounding white space ignored) stands for, and
// false for a name of no row. Every entry point that takes a format name
// (the ops, the typed Go API, the CLI flags, the bindings) resolves it here,
// so one vocabulary holds everywhere.
func Canonical(name string) (string, bool) {
	if p := row(name); p != nil {
		return p.Name, true
	}
	return "", false
}

// Vendor returns the API vendor that name stands for, as the classify op's
// provider hint takes it: a row name or alias gives its row's Vendor
// (openai-chat and responses give openai, google gives gemini, claude
// anthropic, aws bedrock); any other name comes back lower-cased and
// trimmed (cohere, ollama), so that classification can still use it.
func Vendor(name string) string {
	if p := row(name); p != nil {
		return p.Vendor
	}
	return strings.ToLower(strings.TrimSpace(name))
}

// Aliases lists every accepted name other than the row names, each as
// "alias=name", in README order: the vocabulary the CLI's help and the
// README print.
func Aliases() []string {
	var out []string
	for i := range table {
		for _, a := range table[i].Aliases {
			out = append(out, a+"="+table[i].Name)
		}
	}
	return out
}

// Names lists the wire-format names with a codec, in README order.
func Names() []string {
	return names(func(p *Provider) bool { return p.Codec != nil })
}

// TranscriptNames lists the formats whose message lists the transcript ops
// read and write, in README order.
func TranscriptNames() []string {
	return names(func(p *Provider) bool { return p.Dialect != nil })
}

// RuleNames lists the names of id rules (every transcript format and every
// provider with rules of its own), in README order.
func RuleNames() []string {
	return names(func(p *Provider) bool { return p.Dialect != nil || p.IDs != nil })
}

func names(keep func(p *Provider) bool) []string {
	out := make([]string, 0, len(table))
	for i := range table {
		if keep(&table[i]) {
			out = append(out, table[i].Name)
		}
	}
	return out
}

// row returns the row that name (a row name or an alias, in any case)
// stands for, or nil.
func row(name string) *Provider {
	for i := range table {
		if table[i].Name == name { // a row name as it is: the common case
			return &table[i]
		}
	}
	name = strings.ToLower(strings.TrimSpace(name))
	for i := range table {
		if table[i].Name == name {
			return &table[i]
		}
	}
	for i := range table {
		for _, a := range table[i].Aliases {
			if a == name {
				return &table[i]
			}
		}
	}
	return nil
}

// Named returns the codec of the wire-format name; an unknown or empty name
// is a *field.Error at path that lists the known names. Every entry point
// (the serialize, parse and replay ops and the typed Go API) reads a format
// name through it, so all of them word the error alike.
func Named(name, path string) (Codec, error) {
	if c := Lookup(name); c != nil {
		return c, nil
	}
	return nil, unknown(name, path, "format", Names())
}

// CanonicalNamed returns the row name of a format name or alias that has a
// codec; an unknown or empty name is a *field.Error at path, as for Named.
func CanonicalNamed(name, path string) (string, error) {
	if p := row(name); p != nil && p.Codec != nil {
		return p.Name, nil
	}
	return "", unknown(name, path, "format", Names())
}

// TranscriptNamed returns the row name of the transcript format name or
// alias (Dialect gives its dialect); an unknown or empty name is a
// *field.Error at path that lists the transcript formats.
func TranscriptNamed(name, path string) (string, error) {
	if p := row(name); p != nil && p.Dialect != nil {
		return p.Name, nil
	}
	return "", unknown(name, path, "transcript format", TranscriptNames())
}

// RequestShape returns the request-body shape of a transcript format name
// or alias (how its whole request body holds the list, the system prompt,
// the tools and the generation parameters), or nil. Each row's shape is
// made once and shared by every caller, who reads it and never changes it
// (the request op and the body fast paths ask for it per request).
func RequestShape(name string) *dialect.Request {
	if p := row(name); p != nil && p.Request != nil {
		return requestShapes()[p.Name]
	}
	return nil
}

// requestShapes are the rows' request shapes by row name, each made once.
var requestShapes = sync.OnceValue(func() map[string]*dialect.Request {
	m := map[string]*dialect.Request{}
	for i := range table {
		if table[i].Request != nil {
			m[table[i].Name] = table[i].Request()
		}
	}
	return m
})

// ResponseShape returns the non-streaming response shape of a format name,
// or nil for a format without one.
func ResponseShape(name string) *dialect.Response {
	if p := row(name); p != nil && p.Response != nil {
		return p.Response()
	}
	return nil
}

// ResponseNames lists the formats with a response shape, in README order.
func ResponseNames() []string {
	return names(func(p *Provider) bool { return p.Response != nil })
}

// Dialect returns a copy of the transcript dialect of a format name, for
// its caller to change (the model and capabilities a list is read for), or
// nil.
func Dialect(name string) *dialect.Dialect {
	if d := Table(name); d != nil {
		return d.Copy()
	}
	return nil
}

// Table returns the transcript dialect of a format name as its package
// built it, the one table every caller shares, or nil: read it, never
// change it (Dialect returns a copy to change). The engine reads a list
// with it when neither a model nor capabilities nor another provider's id
// rules change the dialect, so that a call copies none.
func Table(name string) *dialect.Dialect {
	if p := row(name); p != nil && p.Dialect != nil {
		return p.Dialect()
	}
	return nil
}

// Rules returns the id rules named name (a transcript format's own, or a
// provider's such as mistral), and false for an unknown name.
func Rules(name string) (dialect.IDRule, bool) {
	p := row(name)
	switch {
	case p == nil:
		return dialect.IDRule{}, false
	case p.IDs != nil:
		return p.IDs(), true
	case p.Dialect != nil:
		return p.Dialect().IDs, true
	}
	return dialect.IDRule{}, false
}

// RulesNamed checks the id rules name ("" = the list format's own) and
// returns its row name (aliases resolved); an unknown name is a
// *field.Error at path that lists the known rules.
func RulesNamed(name, path string) (string, error) {
	if name == "" {
		return "", nil
	}
	if _, ok := Rules(name); ok {
		return row(name).Name, nil
	}
	return "", field.NewError(path, "unknown id rules "+strconv.Quote(name)+"; known: "+strings.Join(RuleNames(), ", "))
}

// ListFormat is the format of the lists whose ids follow the rules named
// rules: a provider's Lists (openai-chat for mistral), else the rules' own
// format.
func ListFormat(rules string) string {
	p := row(rules)
	switch {
	case p == nil:
		return rules
	case p.Lists != "":
		return p.Lists
	}
	return p.Name
}

// ListLint returns, for id rules of a provider whose lists take another
// format's shape (mistral), the Lint that checks its lists, and true; false
// for the rules of a transcript format, whose own Lint applies.
func ListLint(rules string) (func(d *dialect.Dialect, msgs []dialect.Message, i int) []dialect.Issue, bool) {
	if p := row(rules); p != nil && p.Lists != "" {
		return p.Lint, true
	}
	return nil, false
}

func unknown(name, path, what string, known []string) error {
	if name == "" {
		return field.NewError(path, "is required and must be a non-empty string")
	}
	return field.NewError(path, "unknown "+what+" "+strconv.Quote(name)+"; known: "+strings.Join(known, ", "))
}
