package conformance

import (
	"os"
	"testing"
)

// benchRequest returns the typical request whose per-call time
// bench-targets.sh reports: the file named by $TOOLERR_BENCH_REQUEST, else an
// openai-chat serialize of one failed call's envelope.
func benchRequest(b *testing.B) []byte {
	if p := os.Getenv("TOOLERR_BENCH_REQUEST"); p != "" {
		req, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		return req
	}
	return typicalRequests[0]
}

// BenchmarkInvoke times one typical serialize request through each target,
// including the copies in and out that a binding makes.
func BenchmarkInvoke(b *testing.B) { benchInvoke(b, benchRequest(b)) }

// BenchmarkInvokeMinimal times {"op":"version"}: the fixed cost of a call
// (boundary, copies, parse and write of a tiny request) on each target.
func BenchmarkInvokeMinimal(b *testing.B) { benchInvoke(b, []byte(`{"op":"version"}`)) }

func benchInvoke(b *testing.B, req []byte) {
	for _, mk := range builtinTargets() {
		b.Run(mk.name, func(b *testing.B) {
			tg := mk.open(b)
			defer tg.Close()
			if _, err := tg.Invoke(req); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, err := tg.Invoke(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkABIVersion times the cheapest export: the cost of crossing the
// boundary once.
func BenchmarkABIVersion(b *testing.B) {
	for _, mk := range builtinTargets() {
		if mk.name == "native" {
			continue
		}
		b.Run(mk.name, func(b *testing.B) {
			tg := mk.open(b)
			defer tg.Close()
			for range b.N {
				switch v := tg.(type) {
				case wasmTarget:
					if _, err := v.ABIVersion(); err != nil {
						b.Fatal(err)
					}
				case *CShared:
					v.ABIVersion()
				}
			}
		})
	}
}

// BenchmarkInstantiate times a new instance of the compiled module,
// _initialize included (compilation is done once, before the timer).
func BenchmarkInstantiate(b *testing.B) {
	b.Run("wazero", func(b *testing.B) {
		e := wazeroEngine(b)
		b.ResetTimer()
		for range b.N {
			w, err := e.Instantiate()
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			w.Close()
			b.StartTimer()
		}
	})
	b.Run("wasmtime", func(b *testing.B) {
		e := wasmtimeEngine(b)
		b.ResetTimer()
		for range b.N {
			w, err := e.Instantiate()
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			w.Close()
			b.StartTimer()
		}
	})
}
