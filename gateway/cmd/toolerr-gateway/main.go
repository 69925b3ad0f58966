// Command toolerr-gateway runs toolerr's HTTP gateway (package gateway):
// point an SDK's base URL (or LiteLLM's, Portkey's, your own code's
// upstream) at it, and every request and every upstream failure goes
// through toolerr's egress ops on the way. `toolerr gateway` runs it.
//
// It listens on 127.0.0.1:8787 unless -addr says otherwise, serves
// /v1/chat/completions and /v1/responses (to -openai-base),
// /v1/messages and /v1/messages/count_tokens (to -anthropic-base),
// /v1beta/models/{model}:generateContent and :streamGenerateContent (to
// -gemini-base; -route openai-chat=anthropic serves one API from another
// family's upstream, without streaming), /metrics (Prometheus) and
// /healthz, logs one line per request to standard error (log/slog; never a
// header, a query string or a body; net/http's own messages, the standard
// log package's included, go through it cut to their leading words,
// gateway.ErrorLog), and on SIGINT or SIGTERM stops accepting connections
// and lets the requests in flight finish (at most -shutdown-timeout).
// -gc-percent and -memory-limit set the garbage collector's GOGC and
// GOMEMLIMIT (Go's defaults unless given, or set in the environment).
//
// Exit status: 0 after a graceful shutdown, 1 when the server failed, 2
// for a usage error.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	stdlog "log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/toolerr/toolerr/gateway"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr, nil))
}

// options are the command's flags.
type options struct {
	addr, upstreamMessage, logLevel, logFormat string
	routes                                     routeFlag
	maxTokens, maxConcurrent                   int
	bases                                      map[string]*string
	maxBody                                    int64
	readTimeout, timeout, shutdownTimeout      time.Duration
	gc                                         gcFlags
}

// parseFlags reads args; the usage goes to stdout when -h asks for it (as
// every toolerr command prints it) and to stderr after a bad flag.
func parseFlags(args []string, stdout, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("toolerr-gateway", flag.ContinueOnError)
	var usage bytes.Buffer
	fs.SetOutput(&usage)
	var o options
	def := gateway.DefaultUpstreams()
	o.bases = map[string]*string{}
	fs.StringVar(&o.addr, "addr", gateway.DefaultAddr, "listen address (host:port); the default listens on loopback only")
	for _, fam := range []string{gateway.FamilyOpenAI, gateway.FamilyAnthropic, gateway.FamilyGemini} {
		o.bases[fam] = fs.String(fam+"-base", def[fam], "base URL of the "+fam+" upstream")
	}
	fs.Int64Var(&o.maxBody, "max-body-bytes", gateway.DefaultMaxBodyBytes, "largest request body, in bytes (a larger one gets 413)")
	fs.IntVar(&o.maxConcurrent, "max-concurrent", gateway.DefaultMaxConcurrent, "most requests served at once, streams included (one more gets 503 in its API's error shape); negative for no bound")
	fs.DurationVar(&o.readTimeout, "read-timeout", gateway.DefaultReadTimeout, "time to read a request body (then 408); negative for none")
	fs.DurationVar(&o.timeout, "timeout", gateway.DefaultTimeout, "time for the whole upstream exchange, a stream's last byte included (504 before the headers); negative for none")
	fs.DurationVar(&o.shutdownTimeout, "shutdown-timeout", 30*time.Second, "on SIGINT or SIGTERM, how long requests in flight may take to finish")
	fs.Var(&o.routes, "route", "FROM=TO: serve the API of FROM (openai-chat, anthropic, gemini) from the upstream of TO, converting requests and responses, without streaming; repeatable")
	fs.IntVar(&o.maxTokens, "default-max-tokens", 4096, "max_tokens of a request routed to Anthropic that names none")
	fs.StringVar(&o.upstreamMessage, "upstream-message", "keep", "keep: an upstream error's message passes to the client sanitized; drop: toolerr's own sentence instead")
	fs.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&o.logFormat, "log-format", "json", "json or text")
	fs.StringVar(&o.gc.percent, "gc-percent", "", "GOGC: how far the heap grows past what is live before a collection, in percent, or off (default $GOGC, else 100)")
	fs.StringVar(&o.gc.limit, "memory-limit", "", "GOMEMLIMIT: a soft limit on the process's Go memory, e.g. 512MiB, or off (default $GOMEMLIMIT, else none)")
	if err := fs.Parse(args); err != nil {
		w := stderr
		if errors.Is(err, flag.ErrHelp) {
			w = stdout
		}
		w.Write(usage.Bytes())
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if o.upstreamMessage != "keep" && o.upstreamMessage != "drop" {
		return o, fmt.Errorf("-upstream-message must be keep or drop, got %q", o.upstreamMessage)
	}
	if o.logFormat != "json" && o.logFormat != "text" {
		return o, fmt.Errorf("-log-format must be json or text, got %q", o.logFormat)
	}
	return o, nil
}

// routeFlag collects -route FROM=TO flags.
type routeFlag map[string]string

func (r *routeFlag) String() string { return fmt.Sprint(map[string]string(*r)) }

func (r *routeFlag) Set(v string) error {
	from, to, ok := strings.Cut(v, "=")
	if !ok || from == "" || to == "" {
		return fmt.Errorf("want FROM=TO, got %q", v)
	}
	if *r == nil {
		*r = routeFlag{}
	}
	(*r)[from] = to
	return nil
}

// run serves until ctx is done (a signal), then shuts down gracefully. When
// ready is not nil it receives the address listened on. stdout takes the
// usage -h asks for; stderr the logs and errors.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, ready chan<- string) int {
	o, err := parseFlags(args, stdout, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0 // -h asked for the usage, which was printed
		}
		fmt.Fprintln(stderr, "toolerr-gateway:", err)
		return 2
	}
	gc, err := o.gc.parse()
	if err != nil {
		fmt.Fprintln(stderr, "toolerr-gateway:", err)
		return 2
	}
	defer gc.apply().apply() // as they were, for a caller that runs on (the tests)
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		fmt.Fprintln(stderr, "toolerr-gateway: -log-level:", err)
		return 2
	}
	hopts := &slog.HandlerOptions{Level: level}
	var h slog.Handler = slog.NewJSONHandler(stderr, hopts)
	if o.logFormat == "text" {
		h = slog.NewTextHandler(stderr, hopts)
	}
	log := slog.New(h)
	// net/http's Transport writes to the standard log package (an
	// unsolicited response on an idle connection, quoting the upstream's
	// bytes): through slog, its text cut before any quoted byte.
	errLog := gateway.ErrorLog(h)
	prevOut, prevFlags, prevPrefix := stdlog.Writer(), stdlog.Flags(), stdlog.Prefix()
	stdlog.SetOutput(errLog.Writer())
	stdlog.SetFlags(0)
	stdlog.SetPrefix("")
	defer func() {
		stdlog.SetOutput(prevOut)
		stdlog.SetFlags(prevFlags)
		stdlog.SetPrefix(prevPrefix)
	}()

	ups := map[string]string{}
	for fam, v := range o.bases {
		ups[fam] = *v
	}
	cfg := gateway.Config{Upstreams: ups, MaxBodyBytes: o.maxBody, MaxConcurrent: o.maxConcurrent, ReadTimeout: o.readTimeout, Timeout: o.timeout,
		Routes: o.routes, DefaultMaxTokens: o.maxTokens, DropUpstreamMessage: o.upstreamMessage == "drop", Logger: log}
	g, err := gateway.New(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "toolerr-gateway:", err)
		return 2
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		log.Error("toolerr gateway cannot listen", "addr", o.addr, "error", err.Error())
		return 1
	}
	if host, _, _ := net.SplitHostPort(ln.Addr().String()); !net.ParseIP(host).IsLoopback() {
		log.Warn("toolerr gateway listens beyond loopback: anyone who reaches it may spend the credentials passed through it", "addr", ln.Addr().String())
	}
	srv := &http.Server{
		Handler:           g,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          errLog,
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	log.Info("toolerr gateway listening", "addr", ln.Addr().String())
	if ready != nil {
		ready <- ln.Addr().String()
	}
	select {
	case err := <-done:
		log.Error("toolerr gateway stopped", "error", err.Error())
		return 1
	case <-ctx.Done():
	}
	log.Info("toolerr gateway shutting down: requests in flight may finish", "timeout", o.shutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), o.shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		log.Error("toolerr gateway shutdown cut requests short", "error", err.Error())
		return 1
	}
	<-done
	log.Info("toolerr gateway stopped")
	return 0
}
