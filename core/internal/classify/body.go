package classify

import (
	"strconv"
	"strings"

	"github.com/toolerr/toolerr/core/internal/envelope"
)

// facts is what toolerr read from one error body and its headers. Strings are
// raw (sanitized when they go into details); texts are the provider's own
// messages, read for a few fixed phrases and never copied to the output.
type facts struct {
	provider     string // detected from the shape: openai, anthropic, gemini, bedrock, mistral
	providerType string // error.type, google status or bedrock exception name
	providerCode string // error.code, google ErrorInfo.reason, anthropic details.error_code
	param        string
	quotaID      string
	requestID    string
	retryDelay   string // google.rpc.RetryInfo.retryDelay

	rule    Rule
	hasRule bool
	// strong: the body rule wins over the status table; a weak rule (a
	// generic "invalid request" type) only fills in for a status that has
	// no row of its own (2xx, an unlisted status, a stream error event).
	strong bool

	originalStatus int // bedrock ModelErrorException originalStatusCode
	texts          [4]string
	nTexts         int
}

func (f *facts) set(r Rule, strong bool) {
	f.rule, f.hasRule, f.strong = r, true, strong
}

func (f *facts) text(s string) {
	if s != "" && f.nTexts < len(f.texts) {
		f.texts[f.nTexts] = s
		f.nTexts++
	}
}

// readBody reads the error body v (a value tree of package canonical) and the
// headers h. hint is the caller's provider hint, lower case ("" when absent).
func readBody(v any, h *headers, hint string) facts {
	var f facts
	if arr, ok := v.([]any); ok && len(arr) > 0 {
		// Google's OpenAI-compatible and streaming endpoints wrap the error
		// object in a JSON array (https://ai.google.dev/gemini-api/docs/openai).
		v = arr[0]
	}
	if s, ok := v.(string); ok {
		f.text(s)
	}
	m, _ := v.(map[string]any)
	if str(m, "type") == "response.failed" {
		// An OpenAI Responses stream that failed: the failed Response's
		// error {code, message} is the error (ResponseFailedEvent).
		if r, ok := m["response"].(map[string]any); ok {
			if e, ok := r["error"].(map[string]any); ok {
				m = map[string]any{"error": e}
			}
		}
	}
	if id, ok := m["request_id"].(string); ok {
		f.requestID = id
	}
	if amz, ok := h.get(hAmznErrorType); ok && amz != "" {
		readBedrock(&f, bedrockName(amz), m)
		return f
	}
	if m == nil {
		return f
	}
	switch e := m["error"].(type) {
	case map[string]any:
		if _, isStatus := e["status"].(string); isStatus || isNumber(e["code"]) {
			readGoogle(&f, e)
			return f
		}
		if isAnthropic(m, e, hint) {
			readAnthropic(&f, e)
			return f
		}
		readOpenAI(&f, e)
		return f
	case string:
		// {"error": "<message>"}: Ollama and many small services.
		f.text(e)
		return f
	}
	for _, k := range [...]string{"__type", "code", "Code"} {
		if s, ok := m[k].(string); ok && (k == "__type" || strings.HasSuffix(s, "Exception") || hint == "bedrock") {
			readBedrock(&f, bedrockName(s), m)
			return f
		}
	}
	if d, ok := m["detail"]; ok {
		readValidation(&f, d)
		return f
	}
	if _, hasMsg := m["message"].(string); hasMsg {
		if _, hasType := m["type"]; hasType || hasKey(m, "param") || hasKey(m, "code") {
			// The inner OpenAI error object printed alone, or an OpenAI
			// Responses stream "error" event {type:"error", code, message, param}.
			readOpenAI(&f, m)
			return f
		}
		f.text(m["message"].(string))
	}
	return f
}

func hasKey(m map[string]any, k string) bool { _, ok := m[k]; return ok }

func isNumber(v any) bool {
	switch v.(type) {
	case float64, int, int64:
		return true
	}
	return false
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// isAnthropic tells an Anthropic error ({"type":"error","error":{type,message}})
// from an OpenAI one ({"error":{message,type,param,code}}). Both use
// "invalid_request_error", and either maps it the same way.
//
// An OpenAI Responses stream's error event may wrap the OpenAI error object
// in Anthropic's envelope ({"type":"error","error":{code,message,param,type},
// "sequence_number":2}, seen in https://github.com/Wei-Shaw/sub2api/issues/6631):
// an inner "param" or "code", which Anthropic's error object never has
// (anthropic-sdk-python types/shared/error_object.py), makes it OpenAI's.
func isAnthropic(m, e map[string]any, hint string) bool {
	if hint == "anthropic" {
		return true
	}
	if hasKey(e, "param") || hasKey(e, "code") {
		return false
	}
	if str(m, "type") == "error" {
		return true
	}
	if hint == "openai" {
		return false
	}
	_, known := anthropicRule(str(e, "type"))
	return known && str(e, "type") != "invalid_request_error"
}

// readOpenAI reads an OpenAI error object {message, type, param, code}.
//
// See the OpenAI OpenAPI ErrorResponse schema,
// https://platform.openai.com/docs/guides/error-codes and
// https://developers.openai.com/api/docs/guides/spend-limits.
func readOpenAI(f *facts, e map[string]any) {
	f.provider = "openai"
	typ, code := str(e, "type"), str(e, "code")
	if typ == "error" { // Responses stream error event: the type names the event
		typ = ""
	}
	f.providerType, f.providerCode, f.param = typ, code, str(e, "param")
	msg := str(e, "message")
	f.text(msg)
	if r, ok := openAICodeRule(code); ok {
		if code == "rate_limit_exceeded" && strings.HasPrefix(msg, "Request too large") {
			// One request larger than the tokens-per-minute limit: waiting
			// cannot help, the request must shrink.
			r = Rule{envelope.RequestTooLarge, false}
		}
		f.set(r, true)
		return
	}
	switch typ {
	case "tokens", "requests", "rate_limit_error":
		f.set(Rule{envelope.RateLimited, true}, true)
	case "insufficient_quota":
		f.set(Rule{envelope.QuotaExhausted, false}, true)
	case "server_error", "service_unavailable_error":
		if strings.Contains(strings.ToLower(msg), "overloaded") {
			// "The engine is currently overloaded, please try again
			// later" (HTTP 503, error-codes guide), also sent as
			// "That model is currently overloaded with other requests"
			// with type server_error and no code
			// (https://github.com/openai/openai-python/issues/414).
			f.set(Rule{envelope.Overloaded, true}, true)
		} else if typ == "server_error" {
			f.set(Rule{envelope.ServerError, true}, true)
		}
	case "invalid_request_error":
		f.set(Rule{envelope.InvalidRequest, false}, false)
	}
}

// openAICodeRule maps an OpenAI error.code.
func openAICodeRule(code string) (Rule, bool) {
	switch code {
	case "rate_limit_exceeded":
		return Rule{envelope.RateLimited, true}, true
	case "insufficient_quota", "credit_balance_exhausted", "organization_usage_limit_exceeded", "billing_hard_limit_reached":
		return Rule{envelope.QuotaExhausted, false}, true
	case "context_length_exceeded":
		return Rule{envelope.RequestTooLarge, false}, true
	case "invalid_api_key":
		return Rule{envelope.Authentication, false}, true
	case "model_not_found":
		return Rule{envelope.NotFound, false}, true
	case "server_is_overloaded":
		// "Our servers are currently overloaded. Please try again later."
		// with type service_unavailable_error, in a 503 body, a Responses
		// stream's error event and a failed Response's error
		// (https://github.com/Wei-Shaw/sub2api/issues/6631 and /5909): an
		// overload whatever the status it came with.
		return Rule{envelope.Overloaded, true}, true
	}
	if strings.HasSuffix(code, "_spend_limit_exceeded") { // organization_, project_
		return Rule{envelope.QuotaExhausted, false}, true
	}
	return Rule{}, false
}

// readAnthropic reads an Anthropic error object {type, message, details?}.
//
// See https://docs.claude.com/en/api/errors and anthropic-sdk-python
// src/anthropic/types/shared/error_type.py (ErrorType).
func readAnthropic(f *facts, e map[string]any) {
	f.provider = "anthropic"
	typ := str(e, "type")
	f.providerType = typ
	f.text(str(e, "message"))
	if d, ok := e["details"].(map[string]any); ok {
		f.providerCode = str(d, "error_code")
	}
	if f.providerCode == "enforced_spend_limit_reached" {
		// The tier's monthly spend cap: a 429 that no retry can pass
		// before the reset date (docs: rate limits, spend limits).
		f.set(Rule{envelope.QuotaExhausted, false}, true)
		return
	}
	if r, ok := anthropicRule(typ); ok {
		f.set(r, typ != "invalid_request_error")
	}
}

// anthropicRule maps an Anthropic error.type.
func anthropicRule(typ string) (Rule, bool) {
	switch typ {
	case "invalid_request_error":
		return Rule{envelope.InvalidRequest, false}, true
	case "authentication_error":
		return Rule{envelope.Authentication, false}, true
	case "permission_error":
		return Rule{envelope.PermissionDenied, false}, true
	case "not_found_error":
		return Rule{envelope.NotFound, false}, true
	case "request_too_large":
		return Rule{envelope.RequestTooLarge, false}, true
	case "rate_limit_error":
		return Rule{envelope.RateLimited, true}, true
	case "timeout_error":
		return Rule{envelope.Timeout, true}, true
	case "overloaded_error":
		return Rule{envelope.Overloaded, true}, true
	case "api_error":
		return Rule{envelope.ServerError, true}, true
	case "billing_error":
		return Rule{envelope.QuotaExhausted, false}, true
	}
	return Rule{}, false
}

// readGoogle reads a Google error {code, message, status, details[]}.
//
// See https://google.aip.dev/193, googleapis google/rpc/code.proto and
// google/rpc/error_details.proto, and
// https://ai.google.dev/gemini-api/docs/troubleshooting.
func readGoogle(f *facts, e map[string]any) {
	f.provider = "gemini"
	status := str(e, "status")
	f.providerType = status
	msg := str(e, "message")
	f.text(msg)
	perDay := false
	details, _ := e["details"].([]any)
	for _, d := range details {
		dm, ok := d.(map[string]any)
		if !ok {
			continue
		}
		t := str(dm, "@type")
		switch {
		case strings.HasSuffix(t, "google.rpc.RetryInfo"):
			f.retryDelay = str(dm, "retryDelay")
		case strings.HasSuffix(t, "google.rpc.ErrorInfo"):
			if f.providerCode == "" {
				f.providerCode = str(dm, "reason")
			}
		case strings.HasSuffix(t, "google.rpc.QuotaFailure"):
			vs, _ := dm["violations"].([]any)
			for _, v := range vs {
				vm, _ := v.(map[string]any)
				id := str(vm, "quotaId")
				if id == "" {
					continue
				}
				day := isPerDay(id)
				if f.quotaID == "" || (day && !perDay) {
					f.quotaID = id
				}
				perDay = perDay || day
			}
		}
	}
	if r, ok := googleReasonRule(f.providerCode); ok {
		f.set(r, true)
		return
	}
	if status == "RESOURCE_EXHAUSTED" && perDay {
		// A per-day quota resets at midnight Pacific time: not worth
		// retrying soon (https://ai.google.dev/gemini-api/docs/rate-limits).
		f.set(Rule{envelope.QuotaExhausted, false}, true)
		return
	}
	if status == "UNAVAILABLE" && strings.Contains(strings.ToLower(msg), "overloaded") {
		f.set(Rule{envelope.Overloaded, true}, true)
		return
	}
	if r, ok := googleStatusRule(status); ok {
		f.set(r, status != "INVALID_ARGUMENT")
	}
}

// isPerDay reports whether a QuotaFailure quotaId names a daily quota
// ("GenerateRequestsPerDayPerProjectPerModel-FreeTier").
func isPerDay(id string) bool {
	l := strings.ToLower(id)
	return strings.Contains(l, "perday") || strings.Contains(l, "per_day") || strings.Contains(l, "daily")
}

// googleStatusRule maps a google.rpc.Code name.
//
// See https://github.com/googleapis/googleapis/blob/master/google/rpc/code.proto.
func googleStatusRule(status string) (Rule, bool) {
	switch status {
	case "INVALID_ARGUMENT", "FAILED_PRECONDITION", "OUT_OF_RANGE":
		return Rule{envelope.InvalidRequest, false}, true
	case "UNAUTHENTICATED":
		return Rule{envelope.Authentication, false}, true
	case "PERMISSION_DENIED":
		return Rule{envelope.PermissionDenied, false}, true
	case "NOT_FOUND":
		return Rule{envelope.NotFound, false}, true
	case "ALREADY_EXISTS": // retrying recreates the same conflict
		return Rule{envelope.Conflict, false}, true
	case "ABORTED":
		return Rule{envelope.Conflict, true}, true
	case "RESOURCE_EXHAUSTED":
		return Rule{envelope.RateLimited, true}, true
	case "CANCELLED":
		return Rule{envelope.Cancelled, false}, true
	case "UNKNOWN", "INTERNAL", "DATA_LOSS":
		return Rule{envelope.ServerError, true}, true
	case "UNIMPLEMENTED":
		return Rule{envelope.Unsupported, false}, true
	case "UNAVAILABLE":
		return Rule{envelope.Transport, true}, true
	case "DEADLINE_EXCEEDED":
		return Rule{envelope.Timeout, true}, true
	}
	return Rule{}, false
}

// googleReasonRule maps the google.rpc.ErrorInfo reasons that say more than
// the status: Gemini reports a bad API key as 400 INVALID_ARGUMENT with
// reason API_KEY_INVALID.
//
// See https://github.com/googleapis/googleapis/blob/master/google/api/error_reason.proto.
func googleReasonRule(reason string) (Rule, bool) {
	switch reason {
	case "API_KEY_INVALID", "API_KEY_EXPIRED", "CREDENTIALS_MISSING", "ACCESS_TOKEN_EXPIRED":
		return Rule{envelope.Authentication, false}, true
	case "SERVICE_DISABLED", "API_KEY_SERVICE_BLOCKED", "IAM_PERMISSION_DENIED":
		return Rule{envelope.PermissionDenied, false}, true
	}
	return Rule{}, false
}

// bedrockName normalizes an AWS error code: cut at the first ':' and keep
// what follows the last '#' ("aws.protocols#ThrottlingException:http://..."
// -> "ThrottlingException"); a stream member name ("throttlingException") gets
// its first letter upper-cased.
//
// See botocore/parsers.py (RestJSONParser._inject_error_code) and
// https://github.com/smithy-lang/smithy-python/pull/466.
func bedrockName(s string) string {
	if i := strings.IndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndexByte(s, '#'); i >= 0 {
		s = s[i+1:]
	}
	s = strings.TrimSpace(s)
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		s = string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

// readBedrock reads an AWS error: the normalized exception name and the body
// {message|Message, originalStatusCode?}.
func readBedrock(f *facts, name string, m map[string]any) {
	f.provider = "bedrock"
	f.providerType = name
	if m != nil {
		f.text(str(m, "message"))
		f.text(str(m, "Message"))
		if n, ok := m["originalStatusCode"].(float64); ok && n >= 100 && n <= 599 && n == float64(int(n)) {
			f.originalStatus = int(n)
		}
	}
	if name == "ModelErrorException" && f.originalStatus != 0 {
		// The model behind Bedrock failed; its own status decides
		// (our documented choice: the service model gives no retry rule).
		r, _ := StatusRule(f.originalStatus)
		f.set(r, true)
		return
	}
	if r, ok := bedrockRule(name); ok {
		f.set(r, true)
	}
}

// bedrockRule maps a Bedrock Runtime exception name.
//
// See botocore/data/bedrock-runtime/2023-09-30/service-2.json (each
// exception's shape and HTTP status) and
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_Errors.
func bedrockRule(name string) (Rule, bool) {
	switch name {
	case "ThrottlingException":
		return Rule{envelope.RateLimited, true}, true
	case "ServiceQuotaExceededException": // a 400 whose docs say "resubmit later"
		return Rule{envelope.RateLimited, true}, true
	case "ModelNotReadyException":
		return Rule{envelope.Overloaded, true}, true
	case "ServiceUnavailableException":
		return Rule{envelope.Transport, true}, true
	case "ModelTimeoutException":
		return Rule{envelope.Timeout, true}, true
	case "InternalServerException", "ModelStreamErrorException":
		return Rule{envelope.ServerError, true}, true
	case "ValidationException":
		return Rule{envelope.InvalidRequest, false}, true
	case "AccessDeniedException":
		return Rule{envelope.PermissionDenied, false}, true
	case "ResourceNotFoundException":
		return Rule{envelope.NotFound, false}, true
	case "UnrecognizedClientException", "InvalidSignatureException", "ExpiredTokenException":
		return Rule{envelope.Authentication, false}, true
	case "ModelErrorException": // 424 without originalStatusCode: not retried by botocore
		return Rule{envelope.ClientError, false}, true
	}
	return Rule{}, false
}

// readValidation reads a FastAPI-style validation body: Mistral's 422
// HTTPValidationError {"detail": [{loc, msg, type}]}, or {"detail": "text"}.
//
// See the Mistral OpenAPI (HTTPValidationError, ValidationError) in
// https://github.com/mistralai/platform-docs-public (openapi.yaml).
func readValidation(f *facts, d any) {
	switch x := d.(type) {
	case string:
		f.text(x)
	case []any:
		f.providerType = "HTTPValidationError"
		if len(x) > 0 {
			if first, ok := x[0].(map[string]any); ok {
				f.text(str(first, "msg"))
				f.param = joinLoc(first["loc"])
			}
		}
	default:
		return
	}
	f.set(Rule{envelope.InvalidRequest, false}, false)
}

// joinLoc joins a validation error location (["body", "messages", 0]) with dots.
func joinLoc(v any) string {
	parts, _ := v.([]any)
	var b strings.Builder
	for _, p := range parts {
		s := ""
		switch x := p.(type) {
		case string:
			s = x
		case float64:
			s = strconv.FormatFloat(x, 'f', -1, 64)
		default:
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
}
