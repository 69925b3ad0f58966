package classify

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/sanitize"
)

func TestFinalException_languages(t *testing.T) {
	tests := []struct {
		name, tb, typ, msg string
	}{
		{"python", "Traceback (most recent call last):\n  File \"/srv/app/tool.py\", line 12, in run\n    raise ValueError(\"city must not be empty\")\nValueError: city must not be empty\n",
			"ValueError", "city must not be empty"},
		{"python chained", "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\nKeyError: 'x'\n\nDuring handling of the above exception, another exception occurred:\n\nTraceback (most recent call last):\n  File \"a.py\", line 3, in <module>\nrequests.exceptions.ConnectionError: HTTPSConnectionPool(host='api.x', port=443): Max retries exceeded\n",
			"requests.exceptions.ConnectionError", "HTTPSConnectionPool(host='api.x', port=443): Max retries exceeded"},
		{"python bare type", "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\nKeyboardInterrupt\n", "KeyboardInterrupt", ""},
		{"python 3.11 carets", "Traceback (most recent call last):\n  File \"a.py\", line 2, in <module>\n    1/0\n    ~^~\nZeroDivisionError: division by zero\n", "ZeroDivisionError", "division by zero"},
		{"javascript", "TypeError: Cannot read properties of undefined (reading 'city')\n    at run (/app/tool.js:10:15)\n    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)",
			"TypeError", "Cannot read properties of undefined (reading 'city')"},
		{"node uncaught", "/app/db.js:10\n  throw err;\n  ^\n\nError: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16) {\n  errno: -111,\n  code: 'ECONNREFUSED'\n}",
			"Error", "connect ECONNREFUSED 127.0.0.1:5432"},
		{"go panic", "panic: runtime error: index out of range [5] with length 3\n\ngoroutine 1 [running]:\nmain.main()\n\t/tmp/x.go:8 +0x1d\nexit status 2",
			"panic", "runtime error: index out of range [5] with length 3"},
		{"java thread", "Exception in thread \"main\" java.lang.IllegalStateException: boom\n\tat com.example.Main.main(Main.java:5)",
			"java.lang.IllegalStateException", "boom"},
		{"java caused by", "Exception in thread \"main\" java.lang.RuntimeException: fetch failed\n\tat com.example.Main.main(Main.java:5)\nCaused by: java.io.IOException: wrapped\n\t... 1 more\nCaused by: java.net.ConnectException: Connection refused\n\tat java.base/sun.nio.ch.Net.connect0(Native Method)\n\t... 2 more",
			"java.net.ConnectException", "Connection refused"},
		{"java plain trace", "java.net.SocketTimeoutException: Read timed out\n\tat java.base/java.net.SocketInputStream.socketRead0(Native Method)",
			"java.net.SocketTimeoutException", "Read timed out"},
		{"rust new", "thread 'main' panicked at src/main.rs:5:10:\ncalled `Option::unwrap()` on a `None` value\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
			"panic", "called `Option::unwrap()` on a `None` value"},
		{"rust old", "thread 'main' panicked at 'index out of bounds: the len is 3 but the index is 5', src/main.rs:4:5\nnote: run with `RUST_BACKTRACE=1`",
			"panic", "index out of bounds: the len is 3 but the index is 5"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			typ, msg, ok := FinalException(tc.tb)
			assert.True(t, ok)
			assert.Equal(t, tc.typ, typ)
			assert.Equal(t, tc.msg, msg)
		})
	}
	_, _, ok := FinalException("this is just prose, no exception here")
	assert.False(t, ok)
}

func TestException_mapping(t *testing.T) {
	tests := []struct {
		typ, msg, tb string
		code         envelope.Code
		retry        bool
		message      string
	}{
		{"ValueError", "city must not be empty", "", envelope.ToolError, false, "The search tool raised ValueError; change the arguments or the approach, do not repeat the same call."},
		{"ValueError", "", "", envelope.ToolError, false, "The search tool raised ValueError; change the arguments or the approach, do not repeat the same call."},
		{"KeyError", "'x'.", "", envelope.ToolError, false, "The search tool raised KeyError; change the arguments or the approach, do not repeat the same call."},
		{"TimeoutError", "", "", envelope.Timeout, true, "The search tool timed out (TimeoutError); retry later."},
		{"socket.timeout", "timed out", "", envelope.Timeout, true, "The search tool timed out (socket.timeout); retry later."},
		{"ConnectionError", "", "", envelope.Transport, true, "The search tool could not reach its service (ConnectionError); retry later."},
		{"ConnectionRefusedError", "[Errno 111] Connection refused", "", envelope.Transport, true, "The search tool could not connect: the connection was refused (ConnectionRefusedError); retry later."},
		{"ConnectionResetError", "", "", envelope.Transport, true, "The search tool lost the connection before an answer came (ConnectionResetError); retry later."},
		{"httpx.ConnectTimeout", "", "", envelope.Timeout, true, ""},
		{"httpx.ReadTimeout", "", "", envelope.Timeout, true, ""},
		{"httpx.ConnectError", "", "", envelope.Transport, true, ""},
		{"requests.exceptions.ConnectionError", "", "", envelope.Transport, true, ""},
		{"requests.exceptions.Timeout", "", "", envelope.Timeout, true, ""},
		{"ETIMEDOUT", "", "", envelope.Timeout, true, ""},
		{"ECONNREFUSED", "", "", envelope.Transport, true, ""},
		{"ECONNRESET", "", "", envelope.Transport, true, ""},
		{"ENOTFOUND", "", "", envelope.Transport, true, "The search tool could not resolve the host name of its service (ENOTFOUND); retry later."},
		{"AbortError", "This operation was aborted", "", envelope.Timeout, true, ""},
		{"TimeoutError", "The operation was aborted due to timeout", "", envelope.Timeout, true, ""},
		{"java.net.SocketTimeoutException", "Read timed out", "", envelope.Timeout, true, ""},
		{"java.net.ConnectException", "", "", envelope.Transport, true, ""},
		{"java.net.UnknownHostException", "api.x", "", envelope.Transport, true, ""},
		{"Error", "connect ECONNREFUSED 127.0.0.1:5432", "", envelope.Transport, true, "The search tool could not connect: the connection was refused; retry later."},
		{"panic", `Get "http://x": context deadline exceeded`, "", envelope.Timeout, true, ""},
		{"*url.Error", "Get \"http://x\": dial tcp: i/o timeout", "", envelope.Timeout, true, ""},
		{"reqwest::Error", "error sending request: operation timed out", "", envelope.Timeout, true, ""},
		{"hyper::Error", "error trying to connect: tcp connect error: Connection refused (os error 111)", "", envelope.Transport, true, ""},
		// a specific type keeps its meaning even when its message mentions a timeout
		{"ValueError", "timeout must be positive", "", envelope.ToolError, false, "The search tool raised ValueError; change the arguments or the approach, do not repeat the same call."},
		// an HTTP status in the message is classified as that status, source tool
		{"requests.exceptions.HTTPError", "503 Server Error: Service Unavailable for url: http://127.0.0.1:8080/search?q=x", "", envelope.Transport, true,
			"The search tool is unavailable (HTTP 503); retry later."},
		{"requests.exceptions.HTTPError", "400 Client Error: Bad Request for url: http://127.0.0.1:8080/search", "", envelope.InvalidArgs, false,
			"The search tool rejected the arguments (HTTP 400); fix the arguments before calling it again."},
		// traceback only
		{"", "", "Traceback (most recent call last):\n  File \"/srv/app/secret_path.py\", line 3, in run\nValueError: bad city\n", envelope.ToolError, false, "The search tool raised ValueError; change the arguments or the approach, do not repeat the same call."},
		{"", "", "Error: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect (node:net:1555:16)", envelope.Transport, true, ""},
		{"", "", "Exception in thread \"main\" java.lang.RuntimeException: x\n\tat A.b(A.java:1)\nCaused by: java.net.SocketTimeoutException: connect timed out\n", envelope.Timeout, true, ""},
		// a transport cause in the cause chain, the type given (Node's fetch, Rust's reqwest, Java)
		{"TypeError", "fetch failed", "fetch failed\n\nCaused by:\n    Error: connect ECONNREFUSED 127.0.0.1:39907", envelope.Transport, true,
			"The search tool could not connect: the connection was refused; retry later."},
		{"reqwest::Error", "error sending request for url (http://127.0.0.1:1/)", "error sending request for url (http://127.0.0.1:1/)\n\nCaused by:\n    client error (Connect)\n\nCaused by:\n    tcp connect error: Connection refused (os error 111)", envelope.Transport, true, ""},
		{"anyhow::Error", "search failed", "search failed\n\nCaused by:\n    0: error sending request\n    1: operation timed out", envelope.Timeout, true, ""},
		{"java.lang.RuntimeException", "x", "java.lang.RuntimeException: x\n\tat A.b(A.java:1)\nCaused by: java.net.ConnectException: Connection refused\n", envelope.Transport, true, ""},
		// a chain that names no transport cause, or a specific type in it that is not one, stays TOOL_ERROR
		{"TypeError", "fetch failed", "fetch failed\n\nCaused by:\n    ValueError: timeout must be positive", envelope.ToolError, false, ""},
		{"ValueError", "bad city", "ValueError: bad city\n\nCaused by:\n    KeyError: 'city'", envelope.ToolError, false, ""},
		{"", "", "goroutine 1 [running]:\nno panic line here", envelope.ToolError, false, "The search tool raised Exception; change the arguments or the approach, do not repeat the same call."},
	}
	for _, tc := range tests {
		t.Run(tc.typ+"/"+tc.msg, func(t *testing.T) {
			e := Exception(tc.typ, tc.msg, tc.tb, Options{Tool: "search", Source: envelope.SourceProvider})
			assert.Equal(t, tc.code, e.Code, e.Message)
			assert.Equal(t, tc.retry, e.Retryable)
			assert.Equal(t, envelope.SourceTool, e.Source, "an exception is always source tool")
			assert.Equal(t, "search", e.Details["tool"])
			if tc.message != "" {
				assert.Equal(t, tc.message, e.Message)
			}
			msg := strings.TrimSpace(tc.msg)
			if _, m, ok := FinalException(tc.tb); msg == "" && ok {
				msg = m
			}
			if msg != "" && !e.Retryable {
				assert.Equal(t, sanitize.Message(msg), e.Details["tool_message"], "a failure the model must act on carries the exception's words in details")
				assert.NotContains(t, e.Message, msg)
			} else {
				assert.NotContains(t, e.Details, "tool_message")
			}
			if tc.tb != "" {
				assert.NotContains(t, e.Message, "File ")
				assert.NotContains(t, e.Message, "    at ")
				for _, v := range e.Details {
					if s, ok := v.(string); ok {
						assert.False(t, strings.Contains(s, "\n"), "a detail holds traceback text: %q", s)
					}
				}
			}
		})
	}
}

func TestException_noTool(t *testing.T) {
	e := Exception("ValueError", "x", "", Options{})
	assert.Equal(t, "The tool raised ValueError; change the arguments or the approach, do not repeat the same call.", e.Message)
	assert.Equal(t, "x.", e.Details["tool_message"], "the exception's own words go to details, not to the sentence")
	assert.Equal(t, "ValueError", e.Details["exception_type"])
	assert.NotContains(t, e.Details, "tool")
}

// TestLowerIs_sameAsToLower: lowerIs answers as strings.ToLower(s) == lower
// for ASCII names of every case and for names whose Unicode capitals lower
// to ASCII (U+212A KELVIN SIGN is 'k', U+0130 is 'i' with a dot).
func TestLowerIs_sameAsToLower(t *testing.T) {
	for _, lower := range []string{"socket.timeout", "socket.gaierror"} {
		for _, s := range []string{
			"socket.timeout", "Socket.Timeout", "SOCKET.TIMEOUT", "socket.gaierror", "SOCKET.GAIERROR", "socket.timeou",
			"socket.timeoutx", "", "TimeoutError", "soc\u212Aet.timeout", "socket.t\u0130meout", "sócket.timeout",
			"socket\x00timeout", "socket.timeout\xff",
		} {
			assert.Equal(t, strings.ToLower(s) == lower, lowerIs(s, lower), "%q against %q", s, lower)
		}
	}
	assert.True(t, lowerIs("soc\u212Aet.timeout", "socket.timeout"), "the Kelvin sign lowers to k")
	assert.Equal(t, CauseTimeout, exceptionCause("Socket.Timeout"))
	assert.Equal(t, CauseDNS, exceptionCause("socket.GAIERROR"))
}

// FuzzLowerIs_sameAsToLower: whatever the name, lowerIs answers as
// strings.ToLower(s) == lower.
func FuzzLowerIs_sameAsToLower(f *testing.F) {
	for _, s := range []string{"socket.timeout", "SOCKET.gaierror", "soc\u212Aet.timeout", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, lower := range []string{"socket.timeout", "socket.gaierror"} {
			if got, want := lowerIs(s, lower), strings.ToLower(s) == lower; got != want {
				t.Fatalf("lowerIs(%q, %q) = %v, ToLower says %v", s, lower, got, want)
			}
		}
	})
}
