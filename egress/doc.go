// Package egress runs toolerr's egress ops in-process, on the HTTP client a
// provider SDK already uses: Transport is an http.RoundTripper for
// openai-go, anthropic-sdk-go and google.golang.org/genai (each takes an
// *http.Client), and the pieces it is made of (EndpointOf,
// Endpoint.Prepare, RewriteError, NewStreamReader) are the per-request work
// of toolerr's HTTP gateway too, which calls them.
//
// On the way out, a request body of a provider API (its format known from
// the URL path) goes through the egress_request op (core.PrepareRequest):
// failure flags restored, unanswered calls answered with NO_RESULT
// failures, orphans dropped, ids made valid. On the way back, an upstream
// error goes through the egress_error op (core.EgressHTTPError,
// core.EgressTransportError): the status kept, the error body in the
// native shape the SDK parses with the envelope inside, retry-after and
// x-should-retry, so the SDK's own exception class and retry rule fire. A
// text/event-stream passes event by event; an error event inside it is
// rewritten the same way (core.EgressStreamError) and reported, and the
// stream goes on.
//
// Every decision is the core's; this package does I/O. It needs only
// net/http, so it lives in the root module.
//
// See docs/egress.md, "In-process transports".
package egress
