package classify

import (
	"strconv"
	"strings"

	"github.com/toolerr/toolerr/core/internal/envelope"
)

// msgFacts is everything the message sentence is built from: registry facts
// and tokens (IsToken). No text of a response or an exception is among them:
// a provider's or a tool's own words never reach the sentence.
type msgFacts struct {
	code            envelope.Code
	retryable       bool
	source          envelope.Source
	tool, provider  string // tokens, or "" (then the sentence names neither)
	status          int
	stream, partial bool
	waitNs          int64
	hasWait         bool
	repair, cause   string
	param           string // a token, or ""
	excType         string // a token, or ""
	exception       bool   // the failure is an exception the tool raised
	excNamesCause   bool   // excType names the transport cause ("httpx.ReadTimeout", not "Error")
}

// message writes the one sentence the model reads: who failed, what
// happened, the status, and what to do next, e.g. "The get_weather tool was
// rate limited (HTTP 429); retry after 12 seconds."
func message(m msgFacts) string {
	var b strings.Builder
	b.Grow(96)
	b.WriteString(subject(m))
	b.WriteByte(' ')
	if m.code == envelope.ToolError && m.exception {
		b.WriteString("raised ")
		if m.excType != "" {
			b.WriteString(m.excType)
		} else {
			b.WriteString("an exception")
		}
	} else {
		b.WriteString(predicate(m))
	}
	field := ""
	if m.code == envelope.InvalidArgs && m.param != "" {
		field = "field " + m.param
	}
	switch {
	case m.status != 0:
		b.WriteString(" (HTTP ")
		b.WriteString(strconv.Itoa(m.status))
		if field != "" {
			b.WriteString(", ")
			b.WriteString(field)
		}
		b.WriteByte(')')
	case field != "":
		b.WriteString(" (" + field + ")")
	case m.excNamesCause && m.excType != "":
		b.WriteString(" (")
		b.WriteString(m.excType)
		b.WriteByte(')')
	}
	if m.stream {
		if m.partial {
			b.WriteString(" in the response stream, after part of the output was sent")
		} else {
			b.WriteString(" in the response stream")
		}
	}
	advice(&b, m)
	b.WriteByte('.')
	return b.String()
}

func subject(m msgFacts) string {
	if m.source == envelope.SourceOrchestrator {
		// Only the egress error op's gateway member classifies with this
		// source (Options.Check refuses it from callers): a refusal of
		// toolerr's own gateway, in its own name.
		return "The gateway"
	}
	if m.source == envelope.SourceTool {
		if m.tool != "" {
			return "The " + m.tool + " tool"
		}
		return "The tool"
	}
	switch m.provider {
	case "":
		return "The model provider"
	case "openai":
		return "The OpenAI API"
	case "anthropic":
		return "The Anthropic API"
	case "gemini", "google", "vertex", "gemini-openai":
		return "The Gemini API"
	case "bedrock":
		return "The Bedrock API"
	case "mistral":
		return "The Mistral API"
	case "cohere":
		return "The Cohere API"
	case "ollama":
		return "The Ollama API"
	}
	return "The " + m.provider + " API"
}

// predicate says what happened, as the subject's verb phrase. A tool's
// variant says what the tool met (its service refused, its credentials were
// rejected), since the model called the tool, not the service behind it.
func predicate(m msgFacts) string {
	tool := m.source == envelope.SourceTool
	switch m.code {
	case envelope.RateLimited:
		return "was rate limited"
	case envelope.QuotaExhausted:
		return "reported a used-up quota or spend limit"
	case envelope.Overloaded:
		return "is overloaded"
	case envelope.ServerError:
		return "failed with a server error"
	case envelope.Transport:
		return transportPredicate(m.cause, tool)
	case envelope.Timeout:
		if m.source == envelope.SourceOrchestrator && m.status == 408 {
			return "timed out waiting for the request body" // the gateway's own 408: the client sent too slowly
		}
		return "timed out"
	case envelope.Conflict:
		return "reported a conflict"
	case envelope.InvalidRequest:
		return "rejected the request as invalid"
	case envelope.RequestTooLarge:
		return "rejected the request as too large"
	case envelope.Authentication:
		if tool {
			return "could not authenticate with its service"
		}
		return "rejected the credentials"
	case envelope.PermissionDenied:
		if tool {
			return "was denied permission by its service"
		}
		return "denied permission for the request"
	case envelope.NotFound:
		if tool {
			return "could not find what the arguments asked for"
		}
		return "could not find the requested model or resource"
	case envelope.Cancelled:
		return "call was cancelled"
	case envelope.Unsupported:
		return "does not support the request"
	case envelope.ClientError:
		return "rejected the request"
	case envelope.UnexpectedStatus:
		if m.status != 0 {
			return "returned an unexpected status"
		}
		return "failed with an error that could not be classified"
	case envelope.InvalidArgs:
		return "rejected the arguments"
	}
	return "failed"
}

// transportPredicate says which transport failure happened.
func transportPredicate(cause string, tool bool) string {
	switch cause {
	case CauseConnectionRefused:
		return "could not connect: the connection was refused"
	case CauseConnectionReset:
		return "lost the connection before an answer came"
	case CauseDNS:
		if tool {
			return "could not resolve the host name of its service"
		}
		return "could not be found by DNS"
	case CauseTLS:
		return "failed the TLS handshake"
	case CauseTLSCertificate:
		if tool {
			return "could not verify the TLS certificate of its service"
		}
		return "presented a TLS certificate that could not be verified"
	case CauseNetwork:
		if tool {
			return "could not reach its service"
		}
		return "could not be reached"
	}
	return "is unavailable"
}

// advice writes the clause after the semicolon: when to retry, or what to
// change.
func advice(b *strings.Builder, m msgFacts) {
	if m.retryable {
		if m.hasWait {
			b.WriteString("; retry after ")
			if m.waitNs >= MaxWaitNs {
				b.WriteString("at least ") // a saturated hint: it may have asked for longer
			}
			writeSeconds(b, m.waitNs)
			return
		}
		b.WriteString("; retry later")
		return
	}
	b.WriteString(adviceTerminal(m))
}

// adviceTerminal says what to do instead of retrying: what to fix, or not to
// call again. A tool's variant speaks to the model, which can change its
// arguments or its approach but not the tool's credentials or request.
func adviceTerminal(m msgFacts) string {
	switch m.repair {
	case RepairUnansweredToolUse:
		return "; give every tool call in the conversation a result, then send it once more"
	case RepairOrphanToolResult:
		return "; remove the tool results that answer no tool call, then send it once more"
	}
	tool := m.source == envelope.SourceTool
	switch m.code {
	case envelope.InvalidArgs:
		return "; fix the arguments before calling it again"
	case envelope.RequestTooLarge:
		if tool {
			return "; make the arguments smaller before calling it again"
		}
		return "; shorten the request before sending it again"
	case envelope.QuotaExhausted:
		// Even when the server names a wait: a used-up quota resets on its
		// own schedule (a per-day quota at midnight Pacific time), and
		// "do not retry for 34 seconds" reads as "retry in 34 seconds".
		return "; do not retry until the quota resets"
	case envelope.Authentication:
		if tool {
			return "; do not call it again until its credentials are fixed"
		}
		return "; check the credentials and their access, do not retry"
	case envelope.PermissionDenied:
		if tool {
			return "; do not repeat this call"
		}
		return "; check the credentials and their access, do not retry"
	case envelope.NotFound:
		if tool {
			return "; check the arguments, do not repeat the same call"
		}
		return "; change the request before sending it again"
	case envelope.InvalidRequest, envelope.ClientError, envelope.Unsupported:
		if tool {
			return "; change the arguments or the approach, do not repeat the same call"
		}
		return "; change the request before sending it again"
	case envelope.ToolError:
		return "; change the arguments or the approach, do not repeat the same call"
	case envelope.Cancelled:
		return "; do not retry it unless asked to"
	}
	return "; do not retry"
}

// writeSeconds writes a wait in words: "12 seconds", "1 second", "0.5 seconds".
func writeSeconds(b *strings.Builder, ns int64) {
	if ns == 1e9 {
		b.WriteString("1 second")
		return
	}
	var buf [32]byte
	if ns%1e9 == 0 {
		b.Write(strconv.AppendInt(buf[:0], ns/1e9, 10))
	} else {
		b.Write(strconv.AppendFloat(buf[:0], float64(ns)/1e9, 'f', -1, 64))
	}
	b.WriteString(" seconds")
}
