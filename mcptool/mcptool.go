package mcptool

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolerr/toolerr/core"
	"github.com/toolerr/toolerr/resilience"
)

// Envelope returns the envelope of a tool's failure, as the
// resilience.Executor reports it: an error that is (or wraps) a
// *resilience.Error keeps its Envelope; any other error goes to
// core.ClassifyError as the tool's failure (a context deadline is TIMEOUT, a
// status in the text, "HTTP 503", is classified like a typed one, anything
// else is TOOL_ERROR), never its raw text.
func Envelope(err error, tool string) core.Envelope {
	var te *resilience.Error
	if errors.As(err, &te) {
		return te.Envelope
	}
	return core.ClassifyError(err, core.ClassifyOptions{Source: core.SourceTool, Tool: tool})
}

// Result returns the CallToolResult of a failure for tool (nil: nothing is
// known of it): the core's mcp serialization of env (isError true, the
// envelope's JSON as the one text block, resultType complete), with the
// envelope as structuredContent too when tool declares no OutputSchema
// (core.SerializeMCP). It is the answer of a raw mcp.ToolHandler; a typed
// handler's result is For's. An envelope the core refuses to write (a value
// JSON cannot carry in its details) is written without its details, so a
// failure is always answered.
func Result(env core.Envelope, tool *mcp.Tool) *mcp.CallToolResult {
	var res mcp.CallToolResult
	if err := json.Unmarshal(resultBytes(env, declares(tool)), &res); err != nil {
		// Unreachable for the core's output; answer with the text alone.
		res.SetError(errors.New(text(env)))
	}
	return &res
}

// declares reports whether tool declares an output schema, or may: nil (an
// unknown tool) counts as declaring one, so that nothing is put in
// structuredContent that its schema could reject.
func declares(tool *mcp.Tool) bool { return tool == nil || tool.OutputSchema != nil }

// nameOf is the tool's name, "" for nil (the envelope then names no tool).
func nameOf(tool *mcp.Tool) string {
	if tool == nil {
		return ""
	}
	return tool.Name
}

// For wraps a typed handler for mcp.AddTool(server, tool, For(tool, h, x)).
// On success it returns h's result. On failure (h returns an error that is
// not a *jsonrpc.Error) the client reads isError true with the envelope's
// JSON as the one text block; the envelope is also the structuredContent
// when the tool declares no output schema, which for mcp.AddTool means Out
// is any and tool.OutputSchema is nil (otherwise the SDK declares the schema
// of Out, which the envelope would violate, and the SDK's own error path
// sends the text alone). x, when not nil, runs each call under the runtime:
// retryable failures are retried with full jitter, the breaker, budget and
// loop guard apply (the loop guard sees the typed input), and only the final
// failure reaches the client. tool.Name names the tool in the envelope.
// Arguments that fail the input schema never reach h: the SDK answers them
// itself.
func For[In, Out any](tool *mcp.Tool, h mcp.ToolHandlerFor[In, Out], x *resilience.Executor) mcp.ToolHandlerFor[In, Out] {
	// The rule of mcp.AddTool: an output schema is declared when the tool
	// has one or Out is not any.
	declared := declares(tool) || reflect.TypeFor[Out]() != reflect.TypeFor[any]()
	name := nameOf(tool)
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		res, out, err := call(ctx, x, name, in, func(ctx context.Context) (*mcp.CallToolResult, Out, error) { return h(ctx, req, in) })
		if _, protocol := err.(*jsonrpc.Error); err == nil || protocol { // the SDK sends a *jsonrpc.Error as it is
			return res, out, err
		}
		var zero Out
		env := Envelope(err, name)
		if !declared {
			// Out is any: the SDK passes a result with a nil Out through as it is.
			return Result(env, tool), zero, nil
		}
		// The SDK's typed path answers a handler's error with isError and the
		// error's text as the one text block: the core's text for the envelope.
		return nil, zero, envelopeError{text(env)}
	}
}

// Handler wraps a raw mcp.ToolHandler for server.AddTool(tool, Handler(tool,
// h, x)). On failure (h returns an error) it returns Result(envelope, tool)
// instead of the protocol error the SDK would send: structuredContent holds
// the envelope too unless tool.OutputSchema is set. x is as for For (the
// loop guard sees the raw arguments); tool.Name names the tool in the
// envelope.
func Handler(tool *mcp.Tool, h mcp.ToolHandler, x *resilience.Executor) mcp.ToolHandler {
	name := nameOf(tool)
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args any
		if req != nil && req.Params != nil {
			args = req.Params.Arguments
		}
		res, _, err := call(ctx, x, name, args, func(ctx context.Context) (*mcp.CallToolResult, struct{}, error) {
			res, err := h(ctx, req)
			return res, struct{}{}, err
		})
		if err != nil {
			return Result(Envelope(err, name), tool), nil
		}
		return res, nil
	}
}

// call runs fn once, or under x.
func call[Out any](ctx context.Context, x *resilience.Executor, tool string, args any,
	fn func(context.Context) (*mcp.CallToolResult, Out, error)) (*mcp.CallToolResult, Out, error) {
	if x == nil {
		return fn(ctx)
	}
	type both struct {
		res *mcp.CallToolResult
		out Out
	}
	b, err := resilience.Call(ctx, x, tool, func(ctx context.Context) (both, error) {
		res, out, err := fn(ctx)
		return both{res, out}, err
	}, resilience.Args(args))
	return b.res, b.out, err
}

// serialized is the core's mcp CallToolResult of env for a tool that
// declares an output schema or not, as a value tree. An envelope the core
// refuses to write (a hand-built one: details holding a value JSON cannot
// carry, a code that is no UPPER_SNAKE token, a source other than the
// three) is written as writable makes it.
func serialized(env core.Envelope, declared bool) map[string]any {
	opts := core.MCPOptions{OutputSchema: declared}
	msgs, err := core.SerializeMCP([]core.Outcome{{Error: &env}}, opts)
	if err != nil {
		env = writable(env)
		msgs, _ = core.SerializeMCP([]core.Outcome{{Error: &env}}, opts)
	}
	if len(msgs) != 1 {
		return nil
	}
	m, _ := msgs[0].(map[string]any)
	return m
}

// writable is env as the core always writes it: without its details, its
// code TOOL_ERROR when it is no UPPER_SNAKE token and its source tool when
// it is not one of the three (core.NewEnvelope's checks), so that free text
// there never reaches the model; the message and retryable stay (the core
// sanitizes the message as it writes it).
func writable(env core.Envelope) core.Envelope {
	out := core.Envelope{Code: core.CodeToolError, Message: env.Message, Retryable: env.Retryable, Source: core.SourceTool}
	if _, err := core.NewEnvelope(env.Code, "", nil, core.SourceTool); err == nil {
		out.Code = env.Code
	}
	if _, err := core.NewEnvelope(core.CodeToolError, "", nil, env.Source); err == nil && env.Source != "" {
		out.Source = env.Source
	}
	return out
}

// resultBytes is the JSON of the core's mcp CallToolResult of env.
func resultBytes(env core.Envelope, declared bool) []byte {
	b, _ := json.Marshal(serialized(env, declared))
	return b
}

// text is the one text block of the core's CallToolResult for env (the
// envelope's canonical JSON, sanitized).
func text(env core.Envelope) string {
	content, _ := serialized(env, true)["content"].([]any)
	if len(content) == 1 {
		if block, ok := content[0].(map[string]any); ok {
			if t, ok := block["text"].(string); ok {
				return t
			}
		}
	}
	// Unreachable: the core writes every writable envelope. Its code alone,
	// a token by then, never the message the core did not sanitize.
	return string(writable(env).Code)
}

// envelopeError is the error For hands the SDK: its text is the envelope's JSON.
type envelopeError struct{ text string }

func (e envelopeError) Error() string { return e.text }
