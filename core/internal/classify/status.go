package classify

import "github.com/toolerr/toolerr/core/internal/envelope"

// Rule is what a status, a provider error type or a transport cause maps to:
// a registry code and whether the orchestrator may retry without the model.
type Rule struct {
	Code      envelope.Code
	Retryable bool
}

// StatusRule returns the rule of an HTTP status and whether the status is
// listed in the table (false means the rule is the default of its class).
//
// Listed statuses follow the team's two lists (retryable 408, 409, 429, 500,
// 502, 503, 504, 529; terminal 400, 401, 402, 403, 404, 413, 422) plus three
// vendor statuses (498, 499, 501). Every other status gets the default of its
// class: other 4xx CLIENT_ERROR (not retryable: resending the same request
// cannot change a client error), other 5xx SERVER_ERROR (retryable, as every
// official SDK retries >= 500), and 1xx-3xx, or a number outside 100-599,
// UNEXPECTED_STATUS (not retryable: a success or redirect status reported as
// a failure is a caller bug, not a transient fault).
//
// See https://www.iana.org/assignments/http-status-codes and RFC 9110,
// 15; each vendor row cites its SDK.
func StatusRule(status int) (Rule, bool) {
	switch status {
	case 400: // Bad Request, RFC 9110, 15.5.1
		return Rule{envelope.InvalidRequest, false}, true
	case 401: // Unauthorized, RFC 9110, 15.5.2
		return Rule{envelope.Authentication, false}, true
	case 402: // Payment Required, RFC 9110, 15.5.3 (billing)
		return Rule{envelope.QuotaExhausted, false}, true
	case 403: // Forbidden, RFC 9110, 15.5.4
		return Rule{envelope.PermissionDenied, false}, true
	case 404: // Not Found, RFC 9110, 15.5.5
		return Rule{envelope.NotFound, false}, true
	case 408: // Request Timeout, RFC 9110, 15.5.9 (openai-python _should_retry)
		return Rule{envelope.Timeout, true}, true
	case 409: // Conflict, RFC 9110, 15.5.10 (openai-python, anthropic-sdk-python, cohere-python retry it)
		return Rule{envelope.Conflict, true}, true
	case 413: // Content Too Large, RFC 9110, 15.5.14 (Anthropic request_too_large)
		return Rule{envelope.RequestTooLarge, false}, true
	case 422: // Unprocessable Content, RFC 9110, 15.5.21 (Mistral HTTPValidationError)
		return Rule{envelope.InvalidRequest, false}, true
	case 429: // Too Many Requests, RFC 6585, 4
		return Rule{envelope.RateLimited, true}, true
	case 498: // Invalid Token, cohere-python InvalidTokenError (non-standard)
		return Rule{envelope.Authentication, false}, true
	case 499: // Client Closed Request, google/rpc/code.proto CANCELLED (non-standard)
		return Rule{envelope.Cancelled, false}, true
	case 500: // Internal Server Error, RFC 9110, 15.6.1
		return Rule{envelope.ServerError, true}, true
	case 501: // Not Implemented, RFC 9110, 15.6.2 (google UNIMPLEMENTED)
		return Rule{envelope.Unsupported, false}, true
	case 502: // Bad Gateway, RFC 9110, 15.6.3
		return Rule{envelope.Transport, true}, true
	case 503: // Service Unavailable, RFC 9110, 15.6.4
		return Rule{envelope.Transport, true}, true
	case 504: // Gateway Timeout, RFC 9110, 15.6.5
		return Rule{envelope.Timeout, true}, true
	case 529: // Site Overloaded, Anthropic overloaded_error (non-standard)
		return Rule{envelope.Overloaded, true}, true
	}
	switch {
	case status >= 400 && status <= 499:
		return Rule{envelope.ClientError, false}, false
	case status >= 500 && status <= 599:
		return Rule{envelope.ServerError, true}, false
	}
	return Rule{envelope.UnexpectedStatus, false}, false
}

// reasonPhrase returns the RFC 9110 reason phrase of an error status, lower
// case, or "" for a status without one. Error text often prints the phrase
// right after the number ("503 Service Unavailable").
func reasonPhrase(status int) string {
	switch status {
	case 400:
		return "bad request"
	case 401:
		return "unauthorized"
	case 402:
		return "payment required"
	case 403:
		return "forbidden"
	case 404:
		return "not found"
	case 405:
		return "method not allowed"
	case 408:
		return "request timeout"
	case 409:
		return "conflict"
	case 413:
		return "payload too large"
	case 422:
		return "unprocessable"
	case 429:
		return "too many requests"
	case 500:
		return "internal server error"
	case 501:
		return "not implemented"
	case 502:
		return "bad gateway"
	case 503:
		return "service unavailable"
	case 504:
		return "gateway timeout"
	}
	return ""
}
