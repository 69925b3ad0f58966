package gateway

import (
	"context"
	"log"
	"log/slog"
	"strings"
)

// ErrorLog returns a *log.Logger for net/http's own messages
// (http.Server.ErrorLog, httputil.ReverseProxy.ErrorLog, and, through
// log.SetOutput(ErrorLog(h).Writer()), the standard log package, which
// http.Transport writes to) that logs each message to h at level Warn as
// one record "toolerr gateway: net/http reported a fault", keeping only the
// message's leading words (attribute "text": ASCII letters, digits,
// spaces and . _ - / ( ), at most 80 bytes, a leading "http: " removed)
// and dropping the rest.
//
// net/http quotes the bytes it could not make sense of in these messages
// ("Unsolicited response received on idle HTTP channel starting with
// \"...\"", an upstream body; "http: proxy error: ..." with a URL and its
// query), and the gateway never logs a body, a header or a query string:
// what follows the first other character (a quote, a colon) never
// reaches the log.
func ErrorLog(h slog.Handler) *log.Logger {
	return log.New(errorLogWriter{h}, "", 0)
}

// errorLogWriter is ErrorLog's output: each Write is one message.
type errorLogWriter struct{ h slog.Handler }

// maxErrorLogText is the most of a message ErrorLog keeps, in bytes.
const maxErrorLogText = 80

func (w errorLogWriter) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= 6 && string(p[:6]) == "http: " {
		p = p[6:]
	}
	i := 0
	for i < len(p) && i < maxErrorLogText && safeLogByte(p[i]) {
		i++
	}
	ctx := context.Background()
	if w.h.Enabled(ctx, slog.LevelWarn) {
		l := slog.New(w.h)
		l.LogAttrs(ctx, slog.LevelWarn, "toolerr gateway: net/http reported a fault",
			slog.String("text", strings.TrimRight(string(p[:i]), " ")), slog.Bool("text_cut", i < len(p) && p[i] != '\n'))
	}
	return n, nil
}

// safeLogByte reports whether ErrorLog keeps b in a message's leading words.
func safeLogByte(b byte) bool {
	switch {
	case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
		return true
	}
	switch b {
	case ' ', '.', '_', '-', '/', '(', ')':
		return true
	}
	return false
}
