package resilience

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core"
)

var updateRuntime = flag.Bool("update-runtime", false, "rewrite the expect members of conformance/runtime/*.json from this runtime")

// scenario is one case of conformance/runtime/*.json: an executor, a start
// time, and calls with their scripted outcomes, draws and expectations. The
// same files run through the Python, Node and Rust runtimes.
type scenario struct {
	Description string         `json:"description"`
	Source      []string       `json:"source"`
	Comment     string         `json:"comment,omitempty"`
	Executor    scenarioConfig `json:"executor"`
	StartMs     int64          `json:"start_ms"`
	Calls       []scenarioCall `json:"calls"`
}

type scenarioConfig struct {
	Tool          string           `json:"tool"`
	PolicyJSON    map[string]int64 `json:"policy,omitempty"`
	SettingsJSON  map[string]int64 `json:"settings,omitempty"`
	TimeoutMs     int64            `json:"timeout_ms,omitempty"`
	BudgetJSON    map[string]int64 `json:"budget,omitempty"`
	LoopThreshold *int             `json:"loop_threshold,omitempty"`
	Store         string           `json:"store,omitempty"`
}

type scenarioCall struct {
	Args        any               `json:"args,omitempty"`
	BeforeMs    int64             `json:"before_ms,omitempty"`
	Outcomes    []scenarioOutcome `json:"outcomes"`
	Draws       []float64         `json:"draws"`
	CancelSleep int               `json:"cancel_sleep,omitempty"`
	Expect      *scenarioExpect   `json:"expect,omitempty"`
}

type scenarioOutcome struct {
	Error      *core.Envelope `json:"error,omitempty"`
	Result     any            `json:"result,omitempty"`
	DurationMs int64          `json:"duration_ms,omitempty"`
}

type scenarioExpect struct {
	Decisions []any          `json:"decisions"`
	SleepsMs  []int64        `json:"sleeps_ms"`
	Attempts  int            `json:"attempts"`
	Error     *core.Envelope `json:"error,omitempty"`
	Breaker   *string        `json:"breaker"`
}

// storeError is what a "failing" store answers, in every language.
var errScenarioStore = errors.New("connection refused")

type scenarioFailingStore struct{}

func (scenarioFailingStore) Load(context.Context, string) ([]byte, error) {
	return nil, errScenarioStore
}
func (scenarioFailingStore) CompareAndSwap(context.Context, string, []byte, []byte) ([]byte, bool, error) {
	return nil, false, errScenarioStore
}

// TestRuntime_sharedScenarios runs every scenario of conformance/runtime
// through an Executor with a fake clock, sleep and draw, and checks the
// decision records (as JSON), the sleeps, the outcome and the breaker bytes
// each call leaves. The Python, Node and Rust runtimes run the same files.
func TestRuntime_sharedScenarios(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "conformance", "runtime", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		var scs []scenario
		require.NoError(t, json.Unmarshal(b, &scs))
		for i := range scs {
			sc := &scs[i]
			t.Run(filepath.Base(f)+"/"+sc.Description, func(t *testing.T) {
				got := runScenario(t, sc)
				for j, c := range sc.Calls {
					if *updateRuntime {
						sc.Calls[j].Expect = got[j]
						continue
					}
					require.NotNil(t, c.Expect, "call %d has no expect", j)
					assert.Equal(t, normalize(t, c.Expect), normalize(t, got[j]), "call %d", j)
				}
			})
			n++
		}
		if *updateRuntime {
			out, err := json.MarshalIndent(scs, "", "  ")
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(f, append(out, '\n'), 0o644))
		}
	}
	assert.GreaterOrEqual(t, n, 10)
}

func normalize(t *testing.T, v any) any {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

func intsToJSON(t *testing.T, m map[string]int64, dst any) {
	if m == nil {
		return
	}
	b, err := json.Marshal(m)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, dst))
}

func runScenario(t *testing.T, sc *scenario) []*scenarioExpect {
	now := sc.StartMs
	x := &Executor{Now: func() time.Time { return time.UnixMilli(now) }, Timeout: time.Duration(sc.Executor.TimeoutMs) * time.Millisecond}
	var p struct {
		MaxAttempts int64 `json:"max_attempts"`
		BaseMs      int64 `json:"base_ms"`
		CapMs       int64 `json:"cap_ms"`
		MaxWaitMs   int64 `json:"max_wait_ms"`
	}
	intsToJSON(t, sc.Executor.PolicyJSON, &p)
	x.Retry = core.RetryPolicy{MaxAttempts: p.MaxAttempts, BaseMs: p.BaseMs, CapMs: p.CapMs, MaxWaitMs: p.MaxWaitMs}
	var s struct {
		FailureThreshold int64 `json:"failure_threshold"`
		OpenMs           int64 `json:"open_ms"`
		SuccessThreshold int64 `json:"success_threshold"`
	}
	intsToJSON(t, sc.Executor.SettingsJSON, &s)
	x.Breaker = core.BreakerSettings{FailureThreshold: s.FailureThreshold, OpenMs: s.OpenMs, SuccessThreshold: s.SuccessThreshold}
	if sc.Executor.BudgetJSON != nil {
		var l struct {
			Steps  int64 `json:"steps"`
			Tokens int64 `json:"tokens"`
			WallMs int64 `json:"wall_ms"`
		}
		intsToJSON(t, sc.Executor.BudgetJSON, &l)
		x.Budget = NewBudget(core.BudgetLimits{Steps: l.Steps, Tokens: l.Tokens, WallMs: l.WallMs})
	}
	if sc.Executor.LoopThreshold != nil {
		x.LoopGuard = NewLoopGuard(*sc.Executor.LoopThreshold)
	}
	shared := NewMemoryStore()
	x.Store = shared
	if sc.Executor.Store == "failing" {
		x.Store = scenarioFailingStore{}
	}
	var out []*scenarioExpect
	for _, c := range sc.Calls {
		now += c.BeforeMs
		exp := &scenarioExpect{Decisions: []any{}, SleepsMs: []int64{}}
		draws := c.Draws
		x.Draw = func() float64 {
			require.NotEmpty(t, draws, "the runtime drew more numbers than the scenario gives")
			d := draws[0]
			draws = draws[1:]
			return d
		}
		x.OnDecision = func(d Decision) { exp.Decisions = append(exp.Decisions, d.Record.Value()) }
		ctx, cancel := context.WithCancel(context.Background())
		sleeps := 0
		x.Sleep = func(ctx context.Context, d time.Duration) error {
			exp.SleepsMs = append(exp.SleepsMs, d.Milliseconds())
			sleeps++
			if sleeps == c.CancelSleep {
				cancel()
				return ctx.Err()
			}
			now += d.Milliseconds()
			return nil
		}
		i := 0
		err := x.Do(ctx, sc.Executor.Tool, func(context.Context) error {
			require.Less(t, i, len(c.Outcomes), "the runtime called the tool more often than the scenario scripts")
			o := c.Outcomes[i]
			i++
			now += o.DurationMs
			if o.Error != nil {
				return &Error{Envelope: *o.Error}
			}
			return nil
		}, Args(c.Args))
		cancel()
		assert.Empty(t, draws, "draws left unused")
		var te *Error
		if errors.As(err, &te) {
			exp.Attempts, exp.Error = te.Attempts, &te.Envelope
		} else {
			require.NoError(t, err)
			exp.Attempts = i
		}
		// The shared store's bytes; for a failing store, the replica's own
		// state (BreakerState falls back to it).
		b, err := shared.Load(context.Background(), x.key(sc.Executor.Tool))
		require.NoError(t, err)
		if sc.Executor.Store == "failing" {
			x.replica.mu.Lock()
			b = nil
			if v := x.replica.find(sc.Executor.Tool); v != nil {
				b = v.seen
			}
			x.replica.mu.Unlock()
		}
		if b != nil {
			s := string(b)
			exp.Breaker = &s
		}
		out = append(out, exp)
	}
	return out
}
