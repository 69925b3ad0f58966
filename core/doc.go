// Package core is toolerr's portable core: the five-field error envelope, its
// code registry, canonical JSON, classification of real failures, the wire
// formats of every model provider, transcript checks and repair, and the
// retry, breaker and budget decisions, all behind one JSON entry point,
// Invoke.
//
// # Why one JSON entry point
//
// The same core runs natively, as a WASI module in JavaScript runtimes and as a
// C library under Python and Rust. Invoke takes one JSON request and returns
// one canonical JSON response (RFC 8785), so every target moves bytes and
// nothing else, a conformance fixture is a request and its expected response,
// and "byte-identical on every target" can be checked by comparing bytes.
//
// # Why the core is pure
//
// core imports no clock, randomness, file system, network or cgo, and keeps no
// mutable package state: now_ms, random draws and breaker or budget state come
// in the request and go out in the response. Decisions are deterministic and
// fixtures pin them; the library is safe across threads and forks; the state
// lives where the user keeps it (memory, Redis). Code that needs a clock or a
// network (the retry executor, the Redis breaker store) lives outside core.
// core/purity_test.go checks the import graph and `make check` builds core
// for GOOS=wasip1.
//
// # Surface
//
//   - The envelope: Envelope, Code (and the Code* constants), CodeInfo, Codes,
//     Source, NewEnvelope.
//   - The ABI: Invoke, ABIVersion, Version, Ops and OpInfo (the op table);
//     bad requests as values: RequestError, ErrBadRequest, ErrUnknownOp.
//   - The bounds (limits.go): MaxRequestBytes, MaxResponseBytes, MaxDepth,
//     ValueBytesPerRequestByte, MaxValueBytes and the Bound* names;
//     LimitError, ErrLimit.
//   - Classification: ClassifyOptions, ClassifyHTTP, ClassifySSE,
//     ClassifyError, ClassifyText, ClassifyException; arguments: ArgFailure,
//     InvalidArgs.
//   - Wire formats: Format (and the Format* constants), Formats,
//     TranscriptFormats, Outcome, Call, Result, Block, ResultKind, Serialize,
//     Parse.
//   - Transcripts: Check, Finding, Repair, RepairChanges, Trim, NormalizeIDs,
//     Convert, Conversion, LoopGuard, LoopAttempt.
//   - Egress (the last hop before a provider): EgressHTTPError,
//     EgressStreamError, EgressTransportError, EgressOptions, ErrorReply,
//     EnvelopeMember, EnvelopeHeader; PrepareRequest, PreparedRequest;
//     ConvertResponse, ResponseConversion.
//   - Decisions: Retry, RetryPolicy, RetryDecision, RetryReason;
//     BreakerTransition, BreakerState, BreakerSettings, BreakerEvent,
//     BreakerPhase, BreakerResult, BreakerCounts, ParseBreakerState; Budget,
//     BudgetLimits, BudgetCharge, BudgetState, BudgetResult; Replay, Trace,
//     ParseTrace, ReplayResult.
//   - The executor as a pure step (every language's runtime loops around
//     it): Step, StepInput, StepConfig, StepState, StepEvent, StepAction,
//     StepResult, Record, LoopState, LoopArgsKey, BreakerSwap.
//
// Each typed function is a thin layer over the same code Invoke runs: an op
// handler only decodes its members and calls the typed function (or the
// same internal constructor), and each rule is checked once, so Go callers
// and the other languages get the same results and the same errors (the
// same RequestError path and wording; TestTypedAPI_agreesWithOps runs every
// fixture through both).
//
// # Decision order
//
// For one tool call the orchestrator asks, in this order:
//
//	budget → loopguard → breaker → call → classify → retry
//
// A spent budget stops everything; a loop guard stops a call that keeps
// failing the same way; an open breaker stops calls to a sick tool; only then
// is the call made, its failure classified into an Envelope, and a retry
// considered, which never happens when Retryable is false.
package core
