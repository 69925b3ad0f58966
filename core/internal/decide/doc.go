// Package decide holds toolerr's pure resilience decisions: retry with full
// jitter (retry.go), the per-tool circuit breaker (breaker.go), step, token
// and wall-time budgets (budget.go), and failure-trace replay with a scripted
// model (replay.go).
//
// Each file is one state machine read top to bottom: the state, the settings
// with their zero-value defaults, a pure transition taking now_ms (and, for
// retry, a uniform draw) as arguments, and the JSON form of the state. Nothing
// here reads a clock, draws a random number or keeps state between calls:
// callers keep the state wherever they like (memory, Redis) and pass it back.
package decide
