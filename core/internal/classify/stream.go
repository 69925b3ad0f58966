package classify

import "strings"

// streamError is the error event found in a raw text/event-stream body.
type streamError struct {
	event          string // the event name ("error" when the stream gave none)
	data           any    // its data, parsed as a body (see ParseBody)
	contentEmitted bool   // an event with output came before it
	found          bool   // false: no event is an error; data is the last event's
}

// findStreamError reads body as a text/event-stream (a recorded streaming
// response, whole) and returns its first error event, or, when no event is
// an error, the data of its last event (found false; an error status sent as
// a stream carries its error body so). ok is false when body is not a stream
// or holds no event with data. body counts as a stream only when its first
// line that is not blank is an SSE field line ("event:", "data:", "id:",
// "retry:") or a comment (":").
//
// Lines end in CRLF, LF or CR; a blank line ends an event; "data" lines are
// joined with LF; a line without ':' is a field with an empty value; an event
// without data is not dispatched (WHATWG HTML, "Interpreting an event
// stream"). Unlike a live client, an event the body ends in without a final
// blank line is read too: a recording is often cut there, and the error is
// the stream's last word.
//
// An event is an error when its name is "error" (Anthropic; OpenAI
// Responses), or its data is a JSON object of "type" "error" or
// "response.failed" (OpenAI Responses ResponseErrorEvent, ResponseFailedEvent)
// or with an "error" member (OpenAI Chat Completions and Gemini streamed
// errors: data: {"error": {...}}). Output was emitted before it when any
// earlier event is one other than a keep-alive or start event (Anthropic
// "ping", "message_start"; Responses "response.created",
// "response.in_progress", "response.queued").
//
// See https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation,
// https://docs.claude.com/en/docs/build-with-claude/streaming#error-events and
// https://platform.openai.com/docs/api-reference/responses-streaming/error.
func findStreamError(body string) (streamError, bool) {
	if !looksLikeStream(body) {
		return streamError{}, false
	}
	var (
		name    string
		data    strings.Builder
		hasData bool
		last    streamError // the last event with data
		seen    bool
	)
	// dispatch ends the event being read; true when it is an error.
	dispatch := func() bool {
		defer func() { name, hasData = "", false; data.Reset() }()
		if !hasData {
			return false
		}
		v := ParseBody([]byte(data.String()))
		if isStreamError(name, v) {
			if name == "" {
				name = "error"
			}
			last = streamError{event: name, data: v, contentEmitted: last.contentEmitted, found: true}
			return true
		}
		last.data, seen = v, true
		if !keepAlive(name, v) {
			last.contentEmitted = true
		}
		return false
	}
	for rest := body; ; {
		line, more := nextLine(&rest)
		if line == "" {
			if dispatch() {
				return last, true
			}
		} else if line[0] != ':' {
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch field {
			case "event":
				name = value
			case "data":
				if hasData {
					data.WriteByte('\n')
				}
				data.WriteString(value)
				hasData = true
			}
		}
		if !more {
			found := dispatch()
			return last, found || seen
		}
	}
}

// nextLine cuts the first line off *s at CRLF, LF or CR; more is false when
// *s held no line end.
func nextLine(s *string) (line string, more bool) {
	i := strings.IndexAny(*s, "\r\n")
	if i < 0 {
		line, *s = *s, ""
		return line, false
	}
	line = (*s)[:i]
	if (*s)[i] == '\r' && i+1 < len(*s) && (*s)[i+1] == '\n' {
		i++
	}
	*s = (*s)[i+1:]
	return line, true
}

// looksLikeStream reports whether the first line of s that is not blank is
// an SSE field line or comment.
func looksLikeStream(s string) bool {
	for rest := s; ; {
		line, more := nextLine(&rest)
		if t := strings.TrimSpace(line); t != "" {
			if t[0] == ':' {
				return true
			}
			field, _, ok := strings.Cut(t, ":")
			switch field {
			case "event", "data", "id", "retry":
				return ok
			}
			return false
		}
		if !more {
			return false
		}
	}
}

// isStreamError reports whether an event (name and parsed data) is an error.
func isStreamError(name string, data any) bool {
	if name == "error" {
		return true
	}
	m, ok := data.(map[string]any)
	if !ok {
		return false
	}
	switch str(m, "type") {
	case "error", "response.failed":
		return true
	}
	_, hasError := m["error"]
	return hasError && m["error"] != nil
}

// keepAlive reports whether an event carries no output: a ping or the event
// that opens a message or a response.
func keepAlive(name string, data any) bool {
	t := name
	if m, ok := data.(map[string]any); ok && str(m, "type") != "" {
		t = str(m, "type")
	}
	switch t {
	case "ping", "message_start", "response.created", "response.in_progress", "response.queued":
		return true
	}
	return false
}
