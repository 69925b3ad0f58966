package egress

import "github.com/toolerr/toolerr/core/internal/envelope"

// names are the error names one failure takes in each shape: the OpenAI
// error type and code ("" = null), the Anthropic error type, the
// google.rpc.Code name and the AWS exception name.
type names struct {
	openAIType, openAICode, anthropic, google, aws string
}

// nativeNames returns the names of a failure of code c with HTTP status
// status (0 when there is none, as in a stream) in a shape other than the
// upstream's: the documented name of each vendor for the same kind of
// failure, so that a client's own branches on it (a context overflow, an
// overload, a spend limit) work across families. A code without a row of
// its own takes the names of its status class (4xx: a rejected request,
// else a server error).
//
// Sources, per column: OpenAI https://platform.openai.com/docs/guides/error-codes
// (types invalid_request_error, rate_limit_error, insufficient_quota,
// server_error, service_unavailable_error; codes rate_limit_exceeded,
// insufficient_quota, context_length_exceeded, invalid_api_key,
// server_is_overloaded); Anthropic https://docs.claude.com/en/api/errors and
// anthropic-sdk-python types/shared/error_type.py ErrorType plus
// request_too_large; Google google/rpc/code.proto (the HTTP mapping of each
// code); AWS the bedrock-runtime 2023-09-30 service model's error shapes
// and the AWS common error UnrecognizedClientException.
func nativeNames(c envelope.Code, status int) names {
	if c == envelope.RequestTooLarge && status == 413 {
		// The body itself is too large (Anthropic's 413 comes before the
		// API reads it), not the context.
		return names{"invalid_request_error", "", "request_too_large", "INVALID_ARGUMENT", "ValidationException"}
	}
	if n, ok := nativeNameTable[c]; ok {
		return n
	}
	if status >= 400 && status < 500 {
		return names{"invalid_request_error", "", "invalid_request_error", "FAILED_PRECONDITION", "ValidationException"}
	}
	return names{"server_error", "", "api_error", "UNKNOWN", "InternalServerException"}
}

// nativeNameTable is the row of names of each code that has one of its
// own (sources: nativeNames). It is read only.
var nativeNameTable = map[envelope.Code]names{
	envelope.RateLimited:    {"rate_limit_error", "rate_limit_exceeded", "rate_limit_error", "RESOURCE_EXHAUSTED", "ThrottlingException"},
	envelope.QuotaExhausted: {"insufficient_quota", "insufficient_quota", "billing_error", "RESOURCE_EXHAUSTED", "ServiceQuotaExceededException"},
	envelope.Overloaded:     {"service_unavailable_error", "server_is_overloaded", "overloaded_error", "UNAVAILABLE", "ServiceUnavailableException"},
	envelope.ServerError:    {"server_error", "", "api_error", "INTERNAL", "InternalServerException"},
	envelope.Transport:      {"service_unavailable_error", "", "api_error", "UNAVAILABLE", "ServiceUnavailableException"},
	envelope.Timeout:        {"server_error", "", "timeout_error", "DEADLINE_EXCEEDED", "ModelTimeoutException"},
	envelope.Conflict:       {"invalid_request_error", "", "invalid_request_error", "ABORTED", "ConflictException"},
	envelope.InvalidRequest: {"invalid_request_error", "", "invalid_request_error", "INVALID_ARGUMENT", "ValidationException"},
	envelope.InvalidArgs:    {"invalid_request_error", "", "invalid_request_error", "INVALID_ARGUMENT", "ValidationException"},
	// A context overflow (a RequestTooLarge that is not a 413): OpenAI's
	// code for it, and Anthropic's and Google's own 400 ("prompt is too
	// long", INVALID_ARGUMENT).
	envelope.RequestTooLarge:  {"invalid_request_error", "context_length_exceeded", "invalid_request_error", "INVALID_ARGUMENT", "ValidationException"},
	envelope.Authentication:   {"invalid_request_error", "invalid_api_key", "authentication_error", "UNAUTHENTICATED", "UnrecognizedClientException"},
	envelope.PermissionDenied: {"invalid_request_error", "", "permission_error", "PERMISSION_DENIED", "AccessDeniedException"},
	envelope.NotFound:         {"invalid_request_error", "", "not_found_error", "NOT_FOUND", "ResourceNotFoundException"},
	envelope.Cancelled:        {"invalid_request_error", "", "invalid_request_error", "CANCELLED", "ValidationException"},
	envelope.Unsupported:      {"invalid_request_error", "", "invalid_request_error", "UNIMPLEMENTED", "ValidationException"},
}

// transportStatus is the status a client gets for a failure that has none
// (the upstream never answered): 504 for a timeout, 499 for a
// cancellation, 502 for anything else, as a gateway answers (RFC 9110,
// 15.6.3 and 15.6.5; 499 is the non-standard client-closed status that
// google/rpc/code.proto maps CANCELLED to).
func transportStatus(c envelope.Code) int {
	switch c {
	case envelope.Timeout:
		return 504
	case envelope.Cancelled:
		return 499
	}
	return 502
}

// streamStatus is the HTTP status a failure inside a stream stands for,
// for the shapes that carry one in the error object (Google's code): the
// registry's first status for the code, else 500.
func streamStatus(c envelope.Code) int {
	if info, ok := envelope.Lookup(c); ok && len(info.Statuses) > 0 {
		return info.Statuses[0]
	}
	return 500
}
