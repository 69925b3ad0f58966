// Package gateway is toolerr's HTTP gateway: the last hop before a model
// provider, on net/http and httputil.ReverseProxy. A client (the official
// SDKs, LiteLLM, Portkey, an agent's own code) points its base URL at it;
// every request body goes through the core's egress_request op on its way
// out (core.PrepareRequest: failure flags restored, unanswered calls
// answered with NO_RESULT failures, orphans dropped, ids made valid), and
// every upstream error through the egress_error op on its way back
// (core.EgressHTTPError: the status kept, the native error shape with the
// envelope inside, retry-after and x-should-retry). Streams pass through
// unbuffered, event by event; an error event inside one is rewritten the
// same way and counted, and the stream goes on.
//
// The gateway decides nothing itself: each rule is the core's, so the
// gateway, the in-process transports and every binding give the same bytes.
// What it owns is I/O: routes, limits, timeouts, logs (log/slog, never
// headers or bodies) and metrics (prometheus/client_golang). It never
// retries: the client's SDK does, once, told by x-should-retry.
//
// It is a module of its own (github.com/toolerr/toolerr/gateway), so that
// the core and its users never depend on the Prometheus client; the
// command is gateway/cmd/toolerr-gateway, which `toolerr gateway` runs.
//
// See docs/egress.md, "The gateway".
package gateway
