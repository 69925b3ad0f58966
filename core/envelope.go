package core

import "github.com/toolerr/toolerr/core/internal/envelope"

// Envelope is the five-field description of one failure: Code (a registry
// token), Message (one sanitized sentence for the model), Retryable (may the
// orchestrator retry without the model), Details (machine fields; nil
// serializes as {}) and Source (tool, provider or orchestrator).
//
// Its MarshalJSON writes canonical JSON (RFC 8785) with all five keys;
// UnmarshalJSON reads strictly (exactly the five keys, typed).
type Envelope = envelope.Envelope

// Code is an UPPER_SNAKE token from the registry returned by Codes.
type Code = envelope.Code

// CodeInfo is one row of the code registry: the code, its default retryable
// value, its usual source, the HTTP statuses and provider error types that map
// to it, and one sentence of meaning.
type CodeInfo = envelope.CodeInfo

// Source says where a failure happened: SourceTool, SourceProvider or
// SourceOrchestrator.
type Source = envelope.Source

// The three sources.
const (
	SourceTool         = envelope.SourceTool
	SourceProvider     = envelope.SourceProvider
	SourceOrchestrator = envelope.SourceOrchestrator
)

// The registered codes; see Codes for each one's defaults and the README for
// the table.
const (
	CodeRateLimited      = envelope.RateLimited
	CodeQuotaExhausted   = envelope.QuotaExhausted
	CodeOverloaded       = envelope.Overloaded
	CodeServerError      = envelope.ServerError
	CodeTransport        = envelope.Transport
	CodeTimeout          = envelope.Timeout
	CodeConflict         = envelope.Conflict
	CodeInvalidRequest   = envelope.InvalidRequest
	CodeRequestTooLarge  = envelope.RequestTooLarge
	CodeAuthentication   = envelope.Authentication
	CodePermissionDenied = envelope.PermissionDenied
	CodeNotFound         = envelope.NotFound
	CodeCancelled        = envelope.Cancelled
	CodeUnsupported      = envelope.Unsupported
	CodeClientError      = envelope.ClientError
	CodeUnexpectedStatus = envelope.UnexpectedStatus
	CodeInvalidArgs      = envelope.InvalidArgs
	CodeToolError        = envelope.ToolError
	CodeUnknownTool      = envelope.UnknownTool
	CodeNoResult         = envelope.NoResult
	CodeLoopDetected     = envelope.LoopDetected
	CodeBudgetExhausted  = envelope.BudgetExhausted
	CodeCircuitOpen      = envelope.CircuitOpen
	CodeInvalidInput     = envelope.InvalidInput
	CodeInternal         = envelope.Internal
)

// Codes returns a copy of the code registry, in the README's order.
func Codes() []CodeInfo { return envelope.Codes() }
