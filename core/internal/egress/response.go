package egress

import (
	"strconv"
	"strings"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/field"
	"github.com/toolerr/toolerr/core/internal/format"
	"github.com/toolerr/toolerr/core/internal/format/dialect"
	"github.com/toolerr/toolerr/core/internal/transcript"
)

// responseNames lists the formats with a response shape, for errors.
func responseNames() string { return strings.Join(format.ResponseNames(), ", ") }

// ResponseFormatNamed returns the format that name (a format name or an
// alias) stands for when it has a non-streaming response shape; any other
// name is a *field.Error at path naming those that have one.
func ResponseFormatNamed(name, path string) (transcript.Format, error) {
	n, ok := format.Canonical(name)
	if name == "" {
		return "", field.NewError(path, "is required (one of "+responseNames()+")")
	}
	if !ok || format.ResponseShape(n) == nil {
		return "", field.NewError(path, "unknown response format "+strconv.Quote(strings.TrimSpace(name))+"; known: "+responseNames())
	}
	return transcript.Format(n), nil
}

// ConvertedResponse is a response body written in another format: Body the
// whole body, Notes what could not travel as is (a reasoning block the
// client's format has no place for, a second candidate).
type ConvertedResponse struct {
	Body  map[string]any
	Notes []string
}

// ConvertResponse writes body, a non-streaming response of format from
// (found at path "body"), in the shape of format to, for a client of to
// whose request went to an upstream of from: the model's message converted
// by the transcript engine (its calls with their ids and arguments, its
// text, its images), the finish reason (a turn that ends in calls is
// tool_calls, tool_use, or STOP for Gemini, whatever the upstream said),
// the token usage, the id and the model. names maps function names the
// request's conversion rewrote for from's rules back to the client's
// originals (the name_map of that conversion; nil when none), so the
// client reads its own tool names in the calls. createdSec is the time
// written where to wants one and from gave none (Chat Completions'
// created), in seconds. A member of the wrong type is a *field.Error.
//
// See each format's Response (dialect.Response) for the members read and
// written, with their vendor sources.
//
// A body that is no response of from is a *field.Error, never an empty
// success: one holding an error object (Anthropic's {"type":"error",
// "error":{...}}, OpenAI's and Gemini's {"error":{...}}, sent by a proxy
// or an upstream under a 200) at path "body.error", which egress_error
// answers; one holding none of the shape's Members (an empty {}) at path
// "body".
func ConvertResponse(from, to transcript.Format, body map[string]any, names map[string]string, createdSec int64) (ConvertedResponse, error) {
	src, dst := format.ResponseShape(string(from)), format.ResponseShape(string(to))
	if err := isResponse(src, from, body); err != nil {
		return ConvertedResponse{}, err
	}
	t, err := src.Read(body, "body")
	if err != nil {
		return ConvertedResponse{}, err
	}
	var out ConvertedResponse
	if t.Message != nil {
		msgs, err := transcript.ReadList(from, []any{t.Message}, "body")
		if err != nil {
			return ConvertedResponse{}, err
		}
		restoreNames(msgs, names)
		if calls(msgs) {
			t.Finish = dialect.FinishToolCalls
		}
		conv := transcript.Convert(from, to, msgs, transcript.Options{IDSeed: idSeed(msgs, body)})
		out.Notes = conv.Notes
		t.Message = nil
		if len(conv.Messages) > 0 {
			t.Message = conv.Messages[0]
		}
		if len(conv.Messages) > 1 {
			out.Notes = append(out.Notes, strconv.Itoa(len(conv.Messages)-1)+" more messages of the converted turn dropped: a response holds one")
		}
	}
	if t.CreatedSec == 0 {
		t.CreatedSec = createdSec
	}
	out.Body = dst.Write(t)
	return out, nil
}

// isResponse returns the *field.Error for body when it is no response of
// shape src (format from): an error object, or none of src.Members.
//
// See https://docs.claude.com/en/api/errors (the error shape),
// https://platform.openai.com/docs/guides/error-codes and
// https://ai.google.dev/gemini-api/docs/troubleshooting (google.rpc.Status
// under "error").
func isResponse(src *dialect.Response, from transcript.Format, body map[string]any) error {
	if _, isObj := body["error"].(map[string]any); isObj || body["type"] == "error" {
		return field.NewError("body.error", "is an error object, not a response of the "+string(from)+" format: answer it with egress_error, as the failure it is")
	}
	for _, m := range src.Members {
		if _, has := body[m]; has {
			return nil
		}
	}
	return field.NewError("body", "holds no "+strings.Join(src.Members, " or ")+", so it is not a response of the "+string(from)+" format")
}

// restoreNames renames the calls of msgs whose name the request's
// conversion rewrote (names: new -> original), in their raw trees too.
func restoreNames(msgs []transcript.Message, names map[string]string) {
	if len(names) == 0 {
		return
	}
	for i := range msgs {
		for j := range msgs[i].Parts {
			p := &msgs[i].Parts[j]
			if orig, ok := names[p.Call.Name]; ok && p.Kind == transcript.KindCall {
				p.Call.Name, p.Dirty, msgs[i].Dirty = orig, true, true
			}
		}
	}
}

// idSeed is the seed of the ids convert generates for the calls of a
// response that have none (transcript.Options.IDSeed): the response body's
// canonical JSON, which differs from one response of a transcript to the
// next (Gemini's responseId, "used to identify each response",
// GenerateContentResponse in generativelanguage v1beta
// generative_service.proto; the usage, the content), so each response's
// calls get their own ids and the same response the same ones. "" when
// every call has an id (nothing is generated, nothing is hashed).
func idSeed(msgs []transcript.Message, body map[string]any) string {
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Kind == transcript.KindCall && p.Call.ID == "" {
				b, err := canonical.Marshal(body)
				if err != nil {
					return ""
				}
				return string(b)
			}
		}
	}
	return ""
}

// calls reports whether msgs hold a tool call.
func calls(msgs []transcript.Message) bool {
	for _, m := range msgs {
		if dialect.HasKind(m, transcript.KindCall) {
			return true
		}
	}
	return false
}
