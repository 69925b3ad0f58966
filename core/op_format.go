package core

import (
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format"
	"github.com/toolerr/toolerr/core/internal/format/mcp"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// codecOf reads the "format" member and returns its codec.
func codecOf(req map[string]any) (format.Codec, error) {
	name, err := field.RequiredString(req, "format", "")
	if err != nil {
		return nil, err
	}
	return format.Named(name, "format")
}

// opSerialize: {"format", "results": [{"call", "error"|"result"}]} (or one
// outcome as top-level "call" and "error"|"result"), "output_schema"? (mcp
// only: whether the tool declares an outputSchema) -> the messages to append.
func opSerialize(req map[string]any) (any, error) {
	c, err := codecOf(req)
	if err != nil {
		return nil, err
	}
	if c, err = withOutputSchema(c, req); err != nil {
		return nil, err
	}
	outs, err := outcome.Read(req, "")
	if err != nil {
		return nil, err
	}
	// The codec writes the wire bytes once, straight into the response
	// buffer (okResponse): no value tree.
	buf := append(make([]byte, 0, min(512*len(outs), 64<<10)+len(okPrefix)+1), okPrefix...)
	b, err := c.AppendSerialized(buf, outs)
	if err != nil {
		if _, many := req["results"]; !many {
			err = shorthandPath(err)
		}
		return nil, err
	}
	return okResponse(append(b, '}')), nil
}

// withOutputSchema applies the request's "output_schema" member to c: a
// boolean saying whether the tool whose calls the results answer declares an
// MCP outputSchema. false puts a failure's envelope in structuredContent too;
// true, or no member, leaves it to the text block (see package mcp). The
// member belongs to the mcp format only: another format's request that holds
// it is refused rather than silently ignored.
func withOutputSchema(c format.Codec, req map[string]any) (format.Codec, error) {
	declared, ok, err := field.Get[bool](req, "output_schema", "")
	if err != nil || !ok {
		return c, err
	}
	m, isMCP := c.(mcp.Codec)
	if !isMCP {
		return nil, field.NewError("output_schema", "applies to the mcp format only (whether the tool declares an MCP outputSchema)")
	}
	m.NoOutputSchema = !declared
	return m, nil
}

// shorthandPath rewrites an error path "results[0].x" to "x" for a request
// that gave its one outcome at the top level, so the path names a member the
// request really has.
func shorthandPath(err error) error {
	fe, ok := err.(*field.Error)
	if !ok {
		return err
	}
	const p = "results[0]"
	switch {
	case fe.Path == p:
		return &field.Error{Path: "", Msg: fe.Msg}
	case len(fe.Path) > len(p) && fe.Path[:len(p)+1] == p+".":
		return &field.Error{Path: fe.Path[len(p)+1:], Msg: fe.Msg}
	}
	return err
}

// opParse: {"format", "messages": [...]} -> [{"call", "error"|"result"}].
func opParse(req map[string]any) (any, error) {
	c, err := codecOf(req)
	if err != nil {
		return nil, err
	}
	msgs, ok, err := field.Get[[]any](req, "messages", "")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, field.NewError("messages", "is required")
	}
	outs, err := format.Parse(c, msgs)
	if err != nil {
		return nil, err
	}
	res := make([]any, 0, len(outs))
	for _, o := range outs {
		res = append(res, outcome.Value(o))
	}
	return res, nil
}
