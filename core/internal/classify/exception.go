package classify

import (
	"strings"
	"unicode/utf8"
)

// FinalException returns the type and message of the final exception line of
// a traceback as Python, JavaScript (Node.js), Go, Java or Rust print it, and
// false when none is found.
//
//   - Python: the last unindented "Type: message" (or bare "Type") line after
//     "Traceback (most recent call last):"; with chained exceptions the last
//     one is the one raised.
//   - Java: the last "Caused by: Type: message" (the root cause), else the
//     "Exception in thread "main" Type: message" line, else the line before
//     the first "\tat " frame.
//   - JavaScript: the line before the first "    at " frame ("TypeError: ...").
//   - Go: the "panic: message" line (type "panic").
//   - Rust: "thread 'main' panicked at src/x.rs:1:2:" followed by the message
//     line (Rust 1.73 and later), or "panicked at 'message', src/x.rs:1:2"
//     (earlier); type "panic".
func FinalException(tb string) (typ, msg string, ok bool) {
	lines := strings.Split(strings.ReplaceAll(tb, "\r\n", "\n"), "\n")
	// Rust
	for i, ln := range lines {
		j := strings.Index(ln, "panicked at ")
		if j < 0 {
			continue
		}
		rest := ln[j+len("panicked at "):]
		if strings.HasPrefix(rest, "'") { // old form: panicked at 'msg', file:line:col
			if k := strings.LastIndex(rest, "', "); k > 0 {
				return "panic", rest[1:k], true
			}
		}
		if i+1 < len(lines) {
			return "panic", strings.TrimSpace(lines[i+1]), true
		}
		return "panic", "", true
	}
	// Go
	for _, ln := range lines {
		if strings.HasPrefix(ln, "panic: ") {
			m := strings.TrimSpace(ln[len("panic: "):])
			m = strings.TrimSuffix(m, " [recovered]")
			return "panic", m, true
		}
	}
	// Java: the root cause
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "Caused by: ") {
			t, m, ok := splitExceptionLine(lines[i][len("Caused by: "):])
			if ok {
				return t, m, true
			}
		}
	}
	for _, ln := range lines {
		if strings.HasPrefix(ln, "Exception in thread ") {
			rest := ln[len("Exception in thread "):]
			if strings.HasPrefix(rest, "\"") { // the thread name
				if q := strings.IndexByte(rest[1:], '"'); q >= 0 {
					rest = rest[q+2:]
				}
			}
			if t, m, ok := splitExceptionLine(rest); ok {
				return t, m, true
			}
		}
	}
	// JavaScript and Java: the line before the first stack frame
	for i, ln := range lines {
		t := strings.TrimLeft(ln, " \t")
		if i > 0 && len(ln) > len(t) && strings.HasPrefix(t, "at ") { // an indented frame
			for k := i - 1; k >= 0; k-- {
				if strings.TrimSpace(lines[k]) == "" {
					continue
				}
				if t, m, ok := splitExceptionLine(lines[k]); ok {
					return t, m, true
				}
				break
			}
			break
		}
	}
	// Python: the last unindented exception line
	py := false
	for _, ln := range lines {
		if strings.HasPrefix(ln, "Traceback (most recent call last)") {
			py = true
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		ln := strings.TrimRight(lines[i], " \t")
		if ln == "" || ln[0] == ' ' || ln[0] == '\t' {
			continue
		}
		if t, m, ok := splitExceptionLine(ln); ok {
			return t, m, true
		}
		if py {
			continue
		}
		break
	}
	return "", "", false
}

// splitExceptionLine splits "pkg.Type: message" or a bare "pkg.Type" into its
// type and message. A type is a dotted, '$'- or '::'-joined identifier path
// with no spaces, so prose lines do not count.
func splitExceptionLine(s string) (typ, msg string, ok bool) {
	s = strings.TrimSpace(s)
	typ, msg = s, ""
	if i := strings.Index(s, ": "); i >= 0 {
		typ, msg = s[:i], strings.TrimSpace(s[i+2:])
	} else if strings.HasSuffix(s, ":") {
		typ = s[:len(s)-1]
	}
	if !IsTypeName(typ) {
		return "", "", false
	}
	return typ, msg, true
}

// IsTypeName reports whether s looks like an exception type name: letters,
// digits, '_', '.', '$' and "::", starting with a letter or '_', at most 200
// bytes.
func IsTypeName(s string) bool {
	if s == "" || len(s) > 200 {
		return false
	}
	c := s[0]
	if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '.', c == '$', c == ':':
		default:
			return false
		}
	}
	return true
}

// shortType returns the last component of a type path
// ("requests.exceptions.ConnectionError" -> "ConnectionError",
// "reqwest::Error" -> "Error").
func shortType(t string) string {
	if i := strings.LastIndexAny(t, ".:$"); i >= 0 {
		return t[i+1:]
	}
	return t
}

// exceptionCause returns the transport cause of a well-known transient
// exception type, or "" for any other type.
//
// Sources: Python builtins (TimeoutError, ConnectionError and subclasses),
// socket.timeout/gaierror, httpx (ConnectTimeout, ReadTimeout, ConnectError,
// ...), requests.exceptions (Timeout, ConnectionError), aiohttp; Node.js
// system error codes and DOMException names (AbortError, TimeoutError);
// undici's SocketError (docs/api/Errors.md: UND_ERR_SOCKET); Java
// java.net (SocketTimeoutException, ConnectException, UnknownHostException)
// and java.net.http.HttpTimeoutException.
func exceptionCause(typ string) string {
	switch {
	case lowerIs(typ, "socket.timeout"):
		return CauseTimeout
	case lowerIs(typ, "socket.gaierror"):
		return CauseDNS
	}
	switch shortType(typ) {
	case "TimeoutError", "ConnectTimeout", "ReadTimeout", "WriteTimeout", "PoolTimeout", "Timeout",
		"TimeoutException", "ReadTimeoutError", "ConnectTimeoutError", "SocketTimeoutException",
		"HttpTimeoutException", "ServerTimeoutError", "ETIMEDOUT", "AbortError", "Elapsed", "APITimeoutError":
		return CauseTimeout
	case "ConnectionRefusedError", "ECONNREFUSED", "ConnectException":
		return CauseConnectionRefused
	case "ConnectionResetError", "ConnectionAbortedError", "BrokenPipeError", "ECONNRESET", "EPIPE",
		"RemoteProtocolError", "ServerDisconnectedError", "RemoteDisconnected", "ChunkedEncodingError",
		"SocketError": // undici's (UND_ERR_SOCKET): the socket closed or failed under a request

		return CauseConnectionReset
	case "UnknownHostException", "ENOTFOUND", "EAI_AGAIN", "gaierror":
		return CauseDNS
	case "ConnectionError", "ConnectError", "NetworkError", "ClientConnectorError", "NewConnectionError",
		"NoRouteToHostException", "APIConnectionError", "ProtocolError":
		return CauseNetwork
	case "SSLError", "SSLException", "SSLHandshakeException":
		return CauseTLS
	}
	return ""
}

// genericType reports whether an exception type says nothing by itself
// (Error, Exception, a Go or Rust panic, an OS error), so that its message is
// read for a transport cause ("Error: connect ECONNREFUSED 127.0.0.1:5432",
// "panic: Get ...: context deadline exceeded").
func genericType(typ string) bool {
	switch shortType(typ) {
	case "Error", "Exception", "RuntimeException", "RuntimeError", "OSError", "IOError", "IOException",
		"FetchError", "SystemError", "panic", "SocketException", "URLError", "ClientError", "ClientOSError",
		"HTTPError", "RequestException", "TransportError", "HttpRequestException", "WebException":
		return true
	}
	return strings.HasPrefix(typ, "*") // Go error types printed with %T: *net.OpError, *url.Error
}

// chainCause returns the transport cause the cause chain of a traceback
// names, the root cause first, or "" when none does. A cause is a
// "Caused by: Type: message" line (Java), or an indented line of a
// "Caused by:" block (Rust's error source chain as the Rust binding and
// anyhow print it, "    0: message" numbered or not, and the Node binding's
// Error.cause chain, "    TypeName: message"). A typed cause line counts by
// its type (exceptionCause) or, for a generic type, by its message; an
// untyped one by its text (CauseInText).
//
// Sources: java.lang.Throwable.printStackTrace ("Caused by: "); Rust
// std::error::Error::source and anyhow's "{:?}" ("Caused by:" then the
// causes indented); ECMAScript 2022 Error.cause (Node's fetch puts the
// system error, e.g. ECONNREFUSED, there).
func chainCause(tb string) string {
	lines := strings.Split(strings.ReplaceAll(tb, "\r\n", "\n"), "\n")
	var causes []string
	block := false
	for _, ln := range lines {
		t := strings.TrimSpace(ln)
		switch {
		case t == "Caused by:":
			block = true
		case strings.HasPrefix(ln, "Caused by: "):
			causes = append(causes, t[len("Caused by: "):])
			block = false
		case block && t != "" && len(ln) > len(strings.TrimLeft(ln, " \t")):
			if i := strings.Index(t, ": "); i > 0 && strings.Trim(t[:i], "0123456789") == "" {
				t = t[i+2:] // anyhow numbers its causes: "0: message"
			}
			causes = append(causes, t)
		case t != "":
			block = false
		}
	}
	for i := len(causes) - 1; i >= 0; i-- {
		c := causes[i]
		if typ, msg, ok := splitExceptionLine(c); ok {
			if cause := exceptionCause(typ); cause != "" {
				return cause
			}
			if genericType(typ) || typ == "Exception" {
				if cause := CauseInText(msg); cause != "" {
					return cause
				}
			}
			continue
		}
		if cause := CauseInText(c); cause != "" {
			return cause
		}
	}
	return ""
}

// lowerIs reports whether strings.ToLower(s) == lower, lower being ASCII
// lowercase: an ASCII s is compared byte by byte, folded, without the copy
// ToLower makes of a name with capitals (TimeoutError); any other s through
// ToLower itself, whose Unicode mappings (U+212A KELVIN SIGN to 'k', U+0130
// to 'i') may give lower from a longer s.
func lowerIs(s, lower string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return strings.ToLower(s) == lower
		}
	}
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
