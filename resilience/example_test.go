package resilience_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/toolerr/toolerr/core"
	"github.com/toolerr/toolerr/resilience"
)

// A search tool that fails twice with a connection reset, then answers: the
// executor classifies each failure (TRANSPORT, retryable), retries with full
// jitter, and returns the result; OnDecision sees every decision.
func ExampleCall() {
	x := &resilience.Executor{
		Retry: core.RetryPolicy{MaxAttempts: 3, BaseMs: 1, CapMs: 2}, // tiny waits for the example
		Draw:  func() float64 { return 0.5 },
		OnDecision: func(d resilience.Decision) {
			if d.Envelope != nil {
				fmt.Println(d.Kind, d.Envelope.Code, d.Envelope.Retryable)
			}
		},
	}
	calls := 0
	out, err := resilience.Call(context.Background(), x, "search", func(ctx context.Context) (string, error) {
		calls++
		if calls < 3 {
			return "", errors.New("read tcp 10.0.0.1:443: connection reset by peer")
		}
		return "3 hits", nil
	})
	fmt.Println(out, err, calls)
	// Output:
	// call TRANSPORT true
	// retry TRANSPORT true
	// call TRANSPORT true
	// retry TRANSPORT true
	// 3 hits <nil> 3
}

// Seed 000's worked example: a search tool over HTTP (a real server on
// loopback) answers 503, 503, then 400. The executor retries the 503s
// silently (TRANSPORT, retryable, full jitter) and hands the 400 to the model
// as INVALID_ARGS, never retried.
func ExampleExecutor_seedWorkedExample() {
	answers := []int{http.StatusServiceUnavailable, http.StatusServiceUnavailable, http.StatusBadRequest}
	served := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(answers[min(served, len(answers)-1)])
		served++
		io.WriteString(w, `{"error":"search backend unavailable"}`)
	}))
	defer srv.Close()

	x := &resilience.Executor{
		Retry: core.RetryPolicy{MaxAttempts: 3, BaseMs: 20},
		Draw:  func() float64 { return 0.5 },
		OnDecision: func(d resilience.Decision) { // every decision is a record from the core
			if d.Kind == resilience.DecisionRetry && d.Allowed {
				fmt.Printf("attempt %d: %s -> retried silently after %d ms\n", d.Attempt, d.Envelope.Code, d.DelayMs)
			} else if d.Kind == resilience.DecisionRetry {
				fmt.Printf("attempt %d: %s -> not retried (%s)\n", d.Attempt, d.Envelope.Code, d.Reason)
			}
		},
	}
	search := func(ctx context.Context) (any, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/search?q=flights&max_results=500", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err // classified by the executor (TRANSPORT, TIMEOUT, ...)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode >= 400 {
			env := core.ClassifyHTTP(resp.StatusCode, resp.Header, body, core.ClassifyOptions{Source: core.SourceTool, Tool: "search"})
			return nil, &resilience.Error{Envelope: env}
		}
		var hits any
		return hits, json.Unmarshal(body, &hits)
	}
	_, err := resilience.Call(context.Background(), x, "search", search, resilience.Args(map[string]any{"q": "flights", "max_results": 500}))
	var te *resilience.Error
	if errors.As(err, &te) {
		fmt.Println("the model gets:", te.Envelope.Code, "retryable:", te.Envelope.Retryable, "after", te.Attempts, "calls")
		msgs, _ := core.Serialize(core.FormatAnthropic, []core.Outcome{{Call: core.Call{ID: "toolu_01", Name: "search"}, Error: &te.Envelope}})
		block := msgs[0].(map[string]any)["content"].([]any)[0].(map[string]any)
		fmt.Println(block["type"], "is_error:", block["is_error"])
	}
	// Output:
	// attempt 1: TRANSPORT -> retried silently after 10 ms
	// attempt 2: TRANSPORT -> retried silently after 20 ms
	// attempt 3: INVALID_ARGS -> not retried (not_retryable)
	// the model gets: INVALID_ARGS retryable: false after 3 calls
	// tool_result is_error: true
}

// A setting the step op would refuse given as JSON (here a negative
// MaxAttempts; a zero field is the default) makes Do return INVALID_INPUT
// before the tool is called, naming the step op's member in details.path.
func ExampleExecutor_invalidSetting() {
	x := &resilience.Executor{Retry: core.RetryPolicy{MaxAttempts: -1}}
	err := x.Do(context.Background(), "search", func(context.Context) error {
		fmt.Println("not called")
		return nil
	})
	var te *resilience.Error
	if errors.As(err, &te) {
		fmt.Println(te.Envelope.Code, te.Envelope.Details["path"])
		fmt.Println(te.Envelope.Message)
	}
	// Output:
	// INVALID_INPUT policy.max_attempts
	// toolerr: policy.max_attempts: must be a whole number from 1 to 9007199254740992.
}
