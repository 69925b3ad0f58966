package envelope

// Code is an UPPER_SNAKE token from the registry below. Programs branch on it;
// it is never free text.
type Code string

// The registry. Each code's default retryable value, usual source, HTTP
// statuses and provider error types are in the table returned by Codes, which
// also generates the README's registry table (scripts/gen-readme-codes).
const (
	RateLimited      Code = "RATE_LIMITED"
	QuotaExhausted   Code = "QUOTA_EXHAUSTED"
	Overloaded       Code = "OVERLOADED"
	ServerError      Code = "SERVER_ERROR"
	Transport        Code = "TRANSPORT"
	Timeout          Code = "TIMEOUT"
	Conflict         Code = "CONFLICT"
	InvalidRequest   Code = "INVALID_REQUEST"
	RequestTooLarge  Code = "REQUEST_TOO_LARGE"
	Authentication   Code = "AUTHENTICATION"
	PermissionDenied Code = "PERMISSION_DENIED"
	NotFound         Code = "NOT_FOUND"
	Cancelled        Code = "CANCELLED"
	Unsupported      Code = "UNSUPPORTED"
	ClientError      Code = "CLIENT_ERROR"
	UnexpectedStatus Code = "UNEXPECTED_STATUS"
	InvalidArgs      Code = "INVALID_ARGS"
	ToolError        Code = "TOOL_ERROR"
	UnknownTool      Code = "UNKNOWN_TOOL"
	NoResult         Code = "NO_RESULT"
	LoopDetected     Code = "LOOP_DETECTED"
	BudgetExhausted  Code = "BUDGET_EXHAUSTED"
	CircuitOpen      Code = "CIRCUIT_OPEN"
	InvalidInput     Code = "INVALID_INPUT"
	Internal         Code = "INTERNAL"
)

// CodeInfo is one row of the registry.
//
// Retryable is the default of Envelope.Retryable for the code (a classifier
// may override it for one failure, for example x-should-retry: false). Source
// is where the code usually comes from. Statuses are the HTTP statuses that
// map to the code by default; ProviderErrors the provider error types and
// codes that map to it. Meaning is one sentence for the README.
type CodeInfo struct {
	Code           Code
	Retryable      bool
	Source         Source
	Statuses       []int
	ProviderErrors []string
	Meaning        string
}

// registry returns a fresh copy of the table on every call, so no caller can
// change it for another.
func registry() []CodeInfo {
	return []CodeInfo{
		{RateLimited, true, SourceProvider, []int{429},
			[]string{"openai rate_limit_exceeded (type tokens/requests)", "anthropic rate_limit_error", "google RESOURCE_EXHAUSTED (per-minute quota)", "bedrock ThrottlingException", "bedrock ServiceQuotaExceededException"},
			"Too many requests for now; wait (retry_after_seconds when known) and retry."},
		{QuotaExhausted, false, SourceProvider, []int{402},
			[]string{"openai insufficient_quota", "openai credit_balance_exhausted", "openai organization_usage_limit_exceeded", "openai organization_spend_limit_exceeded", "openai project_spend_limit_exceeded", "anthropic billing_error", "anthropic enforced_spend_limit_reached", "google RESOURCE_EXHAUSTED (per-day quota)"},
			"A billing, spend or daily quota is used up; retrying soon cannot succeed."},
		{Overloaded, true, SourceProvider, []int{529},
			[]string{"anthropic overloaded_error", "google UNAVAILABLE with an overload message", "bedrock ModelNotReadyException"},
			"The provider is over capacity for all users; back off and retry."},
		{ServerError, true, SourceProvider, []int{500},
			[]string{"anthropic api_error", "google INTERNAL", "google UNKNOWN", "google DATA_LOSS", "bedrock InternalServerException", "bedrock ModelStreamErrorException", "openai server_error"},
			"The service failed internally; retry with backoff."},
		{Transport, true, SourceTool, []int{502, 503},
			[]string{"connection refused or reset", "DNS failure", "TLS failure", "google UNAVAILABLE", "bedrock ServiceUnavailableException"},
			"The service could not be reached or answered through a failing gateway; retry with backoff."},
		{Timeout, true, SourceTool, []int{408, 504},
			[]string{"anthropic timeout_error", "google DEADLINE_EXCEEDED", "bedrock ModelTimeoutException", "deadline exceeded"},
			"The call took too long; retry, perhaps with a longer deadline."},
		{Conflict, true, SourceProvider, []int{409},
			[]string{"google ABORTED", "google ALREADY_EXISTS (not retryable)"},
			"A concurrent change conflicted with the request; retry (SDK convention)."},
		{InvalidRequest, false, SourceProvider, []int{400, 422},
			[]string{"openai invalid_request_error", "anthropic invalid_request_error", "google INVALID_ARGUMENT", "google FAILED_PRECONDITION", "google OUT_OF_RANGE", "bedrock ValidationException", "mistral HTTPValidationError"},
			"The provider rejected the request as malformed; fix the request, do not resend it."},
		{RequestTooLarge, false, SourceProvider, []int{413},
			[]string{"openai context_length_exceeded", "openai 429 \"Request too large\" (one request above the TPM limit)", "anthropic request_too_large", "anthropic \"prompt is too long\""},
			"The request or its context is too large; shorten it before sending again."},
		{Authentication, false, SourceProvider, []int{401, 498},
			[]string{"openai invalid_api_key", "anthropic authentication_error", "google UNAUTHENTICATED", "google API_KEY_INVALID"},
			"The credentials are missing or invalid."},
		{PermissionDenied, false, SourceProvider, []int{403},
			[]string{"anthropic permission_error", "google PERMISSION_DENIED", "bedrock AccessDeniedException"},
			"The credentials may not do this."},
		{NotFound, false, SourceProvider, []int{404},
			[]string{"openai model_not_found", "anthropic not_found_error", "google NOT_FOUND", "bedrock ResourceNotFoundException"},
			"The model, resource or endpoint does not exist."},
		{Cancelled, false, SourceOrchestrator, []int{499},
			[]string{"google CANCELLED", "context canceled"},
			"The caller cancelled the call."},
		{Unsupported, false, SourceProvider, []int{501},
			[]string{"google UNIMPLEMENTED"},
			"The service does not implement this operation."},
		{ClientError, false, SourceProvider, nil,
			nil,
			"Any other 4xx status: a client-side problem that resending will not fix."},
		{UnexpectedStatus, false, SourceProvider, nil,
			nil,
			"A failure toolerr cannot read: a 1xx, 2xx or 3xx status with no error in the body, or error text naming no status, provider error or transport cause."},
		{InvalidArgs, false, SourceTool, nil,
			[]string{"a tool's own 400 or 422", "arguments that fail the tool's JSON Schema"},
			"The model's arguments are wrong; the message says which field to fix."},
		{ToolError, false, SourceTool, nil,
			[]string{"an exception raised by the tool"},
			"The tool raised an error; the model should change its approach, not repeat the call."},
		{UnknownTool, false, SourceOrchestrator, nil,
			nil,
			"The model called a tool that does not exist."},
		{NoResult, false, SourceOrchestrator, nil,
			nil,
			"No result was recorded for a tool call (repair fills the hole with this)."},
		{LoopDetected, false, SourceOrchestrator, nil,
			nil,
			"The same call with the same arguments kept failing; do not repeat it."},
		{BudgetExhausted, false, SourceOrchestrator, nil,
			nil,
			"A step, token or time budget is spent; details say which."},
		{CircuitOpen, true, SourceOrchestrator, nil,
			nil,
			"The tool's circuit breaker is open; wait retry_after_seconds before calling it."},
		{InvalidInput, false, SourceOrchestrator, nil,
			nil,
			"toolerr itself was given a malformed request; details.path names the member."},
		{Internal, false, SourceOrchestrator, nil,
			nil,
			"toolerr failed internally (a recovered fault); please report it."},
	}
}

// Codes returns a copy of the registry, in the order of the README table.
func Codes() []CodeInfo { return registry() }

// Lookup returns the registry row of c, and false for an unregistered code.
func Lookup(c Code) (CodeInfo, bool) {
	for _, ci := range registry() {
		if ci.Code == c {
			return ci, true
		}
	}
	return CodeInfo{}, false
}

// Registered reports whether c is a code of the registry (see Codes), without
// building the table.
func Registered(c Code) bool {
	switch c {
	case RateLimited, QuotaExhausted, Overloaded, ServerError, Transport, Timeout,
		Conflict, InvalidRequest, RequestTooLarge, Authentication, PermissionDenied,
		NotFound, Cancelled, Unsupported, ClientError, UnexpectedStatus, InvalidArgs,
		ToolError, UnknownTool, NoResult, LoopDetected, BudgetExhausted, CircuitOpen,
		InvalidInput, Internal:
		return true
	}
	return false
}
