package classify

import (
	"strings"

	"github.com/toolerr/toolerr/core/internal/envelope"
)

// Repairable values of details.repairable: the request failed because of a
// hole in the conversation history that the transcript repair pass can fix;
// the caller repairs once and resends (a second identical 400 is final).
const (
	// RepairUnansweredToolUse: a tool call has no result.
	RepairUnansweredToolUse = "unanswered_tool_use"
	// RepairOrphanToolResult: a tool result answers no call.
	RepairOrphanToolResult = "orphan_tool_result"
)

// repairPhrases are the provider messages that name a history hole, lower
// case, each with the repair it calls for.
//
// See the provider answers in https://github.com/anthropics/claude-code/issues/8210
// and /issues/18947 (Anthropic),
// https://github.com/openai/openai-agents-python/issues/1061 (Responses),
// https://github.com/microsoft/semantic-kernel/issues/12708 (Chat) and
// https://github.com/microsoft/semantic-kernel/issues/12528 (Gemini).
func repairPhrases() [6][2]string {
	return [...][2]string{
		{"ids were found without `tool_result` blocks", RepairUnansweredToolUse},                                     // Anthropic
		{"must be followed by tool messages responding to each", RepairUnansweredToolUse},                            // OpenAI Chat
		{"no tool output found for function call", RepairUnansweredToolUse},                                          // OpenAI Responses
		{"number of function response parts is equal to the number of function call parts", RepairUnansweredToolUse}, // Gemini
		{"unexpected `tool_use_id` found in `tool_result` blocks", RepairOrphanToolResult},                           // Anthropic
		{"must be a response to a preceding message with 'tool_calls'", RepairOrphanToolResult},                      // OpenAI Chat
	}
}

// overflowPhrases are provider messages that say the context window is full,
// lower case: resending the same body cannot succeed
// (https://github.com/charmbracelet/crush/issues/3480).
func overflowPhrases() [5]string {
	return [...]string{
		"prompt is too long",                    // Anthropic 400
		"exceeds model context window",          // Anthropic 413
		"maximum context length",                // OpenAI context_length_exceeded
		"exceeds the maximum number of tokens",  // Gemini INVALID_ARGUMENT
		"input is too long for requested model", // Bedrock ValidationException
	}
}

// phrases reads the fixed phrases in the provider's texts.
func phrases(texts []string) (repair string, overflow bool) {
	for _, t := range texts {
		l := strings.ToLower(t)
		for _, p := range repairPhrases() {
			if repair == "" && strings.Contains(l, p[0]) {
				repair = p[1]
			}
		}
		for _, p := range overflowPhrases() {
			if strings.Contains(l, p) {
				overflow = true
			}
		}
	}
	return repair, overflow
}

// StatusInText returns the HTTP status that error text names, or 0.
//
// It finds "status code: 400", "status 503", "HTTP 429", "HTTP/1.1 502",
// "Error code: 429", "HTTPError 503", "returned 503" and "503 Service
// Unavailable", and a 4xx or 5xx at the very start ("429 Rate limit
// reached..."). Statuses after "status" and "HTTP" may be 100-599; after the
// looser words ("code", "error", "returned") only 400-599 count, so "exit
// code 1" or "returned 200 rows" are not statuses.
//
// See https://github.com/BerriAI/litellm/issues/19216 (400s retried across
// deployments) and https://github.com/topcheer/ggcode/issues/306 (a 400 in
// text, "status code: 400", retried 20 times).
func StatusInText(text string) int {
	l := strings.ToLower(text)
	if n := leadingStatus(l); n != 0 {
		return n
	}
	for _, kw := range [...]struct {
		word string
		min  int
	}{
		{"status code", 100}, {"status_code", 100}, {"statuscode", 100}, {"status", 100},
		{"http/1.1", 100}, {"http/1.0", 100}, {"http/2", 100}, {"http/3", 100},
		{"httperror", 400}, {"http error", 400}, {"http", 100},
		{"error code", 400}, {"code", 400}, {"error", 400}, {"returned", 400}, {"received", 400}, {"got", 400},
	} {
		for from := 0; ; {
			i := strings.Index(l[from:], kw.word)
			if i < 0 {
				break
			}
			i += from
			from = i + len(kw.word)
			if i > 0 && isAlnum(l[i-1]) {
				continue
			}
			if n := statusAfter(l[from:]); n >= kw.min {
				return n
			}
		}
	}
	// "503 Service Unavailable": a number followed by its reason phrase.
	for i := 0; i+3 <= len(l); i++ {
		if n := threeDigits(l, i); n >= 400 {
			if p := reasonPhrase(n); p != "" && strings.HasPrefix(strings.TrimLeft(l[i+3:], " "), p) {
				return n
			}
		}
	}
	return 0
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
}

// statusAfter reads a status right after a keyword: at most five separator
// bytes (space : = " ' ( [ #), then three digits not followed by a digit.
func statusAfter(s string) int {
	i := 0
	for i < len(s) && i < 5 && strings.IndexByte(" :=\"'([#", s[i]) >= 0 {
		i++
	}
	return threeDigits(s, i)
}

// threeDigits returns the number 100-599 at s[i:i+3] when it stands alone
// (no digit or '.' before or after), else 0.
func threeDigits(s string, i int) int {
	if i+3 > len(s) || (i > 0 && (isDigit(s[i-1]) || s[i-1] == '.')) {
		return 0
	}
	if i+3 < len(s) && (isDigit(s[i+3]) || (s[i+3] == '.' && i+4 < len(s) && isDigit(s[i+4]))) {
		return 0
	}
	if !isDigit(s[i]) || !isDigit(s[i+1]) || !isDigit(s[i+2]) {
		return 0
	}
	n := int(s[i]-'0')*100 + int(s[i+1]-'0')*10 + int(s[i+2]-'0')
	if n < 100 || n > 599 {
		return 0
	}
	return n
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// leadingStatus returns a 4xx or 5xx that starts the text ("429 Rate limit
// reached", "503: upstream"), else 0.
func leadingStatus(l string) int {
	l = strings.TrimLeft(l, " \t\r\n")
	n := threeDigits(l, 0)
	if n < 400 || len(l) < 4 || strings.IndexByte(" :-", l[3]) < 0 {
		return 0
	}
	return n
}

// Transport causes, the values of details.cause.
const (
	CauseTimeout           = "timeout"
	CauseCancelled         = "cancelled"
	CauseConnectionRefused = "connection_refused"
	CauseConnectionReset   = "connection_reset"
	CauseDNS               = "dns"
	CauseTLS               = "tls"
	CauseTLSCertificate    = "tls_certificate"
	CauseNetwork           = "network"
)

// causePhrases maps lower-case phrases of transport error text to a cause, in
// the order they are tried: a "TLS handshake timeout" is a timeout, a refused
// connection during a DNS-named dial is a refusal.
//
// Sources: Go net and context error strings, Node.js system error codes
// (ETIMEDOUT, ECONNREFUSED, ECONNRESET, ENOTFOUND, EAI_AGAIN), undici's
// SocketError (code UND_ERR_SOCKET, "there is an error with the socket",
// undici docs/api/Errors.md; "other side closed" when the server ends the
// connection before the response is whole, lib/dispatcher/client-h1.js),
// Python socket, httpx and requests exceptions, Java java.net exceptions;
// Go's net/http of go1.26: an HTTP/1 response it cannot read (a malformed
// status line or header, repeated Content-Length) wrapped as "net/http:
// HTTP/1.x transport connection broken: %w" (transport.go), a body's
// "malformed chunked encoding" and "invalid byte in chunk length"
// (internal/chunked.go), and HTTP/2's GoAwayError ("http2: server sent
// GOAWAY and closed the connection; ...") and "http2: client connection
// lost" (h2_bundle.go): the connection failed under the request, as a
// reset does, and a new one may carry it; and "http: server gave HTTP
// response to HTTPS client" (transport.go, an https:// URL for a plain-HTTP
// port), a TLS failure, as Python's "[SSL: ...]" for the same mistake (a
// retryable TRANSPORT there too; Node's fetch reports ECONNRESET).
func causePhrases() [50][2]string {
	return [...][2]string{
		{"context canceled", CauseCancelled}, {"context cancelled", CauseCancelled},
		{"operation was canceled", CauseCancelled},
		{"deadline exceeded", CauseTimeout}, {"i/o timeout", CauseTimeout}, {"timed out", CauseTimeout},
		{"timeout", CauseTimeout}, {"etimedout", CauseTimeout}, {"deadline has elapsed", CauseTimeout},
		{"x509:", CauseTLSCertificate}, {"certificate", CauseTLSCertificate},
		{"tls:", CauseTLS}, {"tls handshake", CauseTLS}, {"ssl", CauseTLS},
		{"http response to https client", CauseTLS},
		{"connection refused", CauseConnectionRefused}, {"econnrefused", CauseConnectionRefused},
		{"connection reset", CauseConnectionReset}, {"econnreset", CauseConnectionReset},
		{"broken pipe", CauseConnectionReset}, {"epipe", CauseConnectionReset},
		{"connection aborted", CauseConnectionReset}, {"econnaborted", CauseConnectionReset},
		{"unexpected eof", CauseConnectionReset}, {"socket hang up", CauseConnectionReset},
		{"server closed", CauseConnectionReset}, {"remote end closed", CauseConnectionReset},
		{"remotedisconnected", CauseConnectionReset}, {"other side closed", CauseConnectionReset},
		{"und_err_socket", CauseConnectionReset},
		{"transport connection broken", CauseConnectionReset}, {"malformed chunked encoding", CauseConnectionReset},
		{"invalid byte in chunk length", CauseConnectionReset}, {"server sent goaway", CauseConnectionReset},
		{"client connection lost", CauseConnectionReset},
		{"no such host", CauseDNS}, {"enotfound", CauseDNS}, {"eai_again", CauseDNS},
		{"name resolution", CauseDNS}, {"name or service not known", CauseDNS},
		{"nodename nor servname", CauseDNS}, {"getaddrinfo", CauseDNS}, {"unknownhost", CauseDNS},
		{"network is unreachable", CauseNetwork}, {"no route to host", CauseNetwork},
		{"enetunreach", CauseNetwork}, {"ehostunreach", CauseNetwork},
		{"connection error", CauseNetwork}, {"failed to connect", CauseNetwork}, {"fetch failed", CauseNetwork},
	}
}

// CauseInText returns the transport cause error text names, or "".
func CauseInText(text string) string {
	l := strings.ToLower(text)
	for _, p := range causePhrases() {
		if strings.Contains(l, p[0]) {
			return p[1]
		}
	}
	if clientEOF(text) {
		return CauseConnectionReset
	}
	return ""
}

// clientEOF reports whether text is Go's net/http client error for a server
// that closed the connection before it answered: a *url.Error of a request
// whose transport read io.EOF, printed `Post "https://host/path": EOF`
// (url.Error.Error is Op + " " + strconv.Quote(URL) + ": " + Err; the client
// names Op by the method with only its first letter upper, client.go
// urlErrorOp). A bare "EOF", or any other text ending in it, is a tool's own
// and stays unclassified: a file read to its end is no transport failure.
func clientEOF(text string) bool {
	rest, ok := strings.CutSuffix(text, `": EOF`)
	if !ok {
		return false
	}
	op, url, ok := strings.Cut(rest, ` "`)
	if !ok || url == "" || strings.ContainsAny(url, "\"\n") {
		return false
	}
	switch op {
	case "Get", "Head", "Post", "Put", "Patch", "Delete", "Options", "Connect", "Trace":
		return true
	}
	return false
}

// CauseRule maps a transport cause. A certificate failure is not retried: it
// does not heal by itself, unlike a refused or reset connection.
func CauseRule(cause string) Rule {
	switch cause {
	case CauseTimeout:
		return Rule{envelope.Timeout, true}
	case CauseCancelled:
		return Rule{envelope.Cancelled, false}
	case CauseTLSCertificate:
		return Rule{envelope.Transport, false}
	}
	return Rule{envelope.Transport, true}
}
