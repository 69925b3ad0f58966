// Package resilience runs tool calls under toolerr's decisions: a run budget,
// one circuit breaker per tool, the call itself, classification of its
// failure into an Envelope, and retry with full jitter, in that order:
//
//	Executor.Do(tool, fn) = Budget(Breaker(tool)(Retry(Classify(fn))))
//
// with every attempt charged to the budget and passed through the breaker.
// The decisions are core's pure functions (core.Budget,
// core.BreakerTransition, core.Retry); this package adds the clock, the
// random draw, sleeping with context cancellation, and the breaker state
// store: in memory by default, or shared between replicas through Redis
// (module github.com/toolerr/toolerr/redisstore).
//
// Unlike core it reads the clock, sleeps and logs; it is Go-only and never
// part of the WASI build.
package resilience
