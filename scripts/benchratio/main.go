// Command benchratio reads `go test -bench` output and prints, for every
// benchmark that has an encoding/json baseline doing the same work, the ratio
// of their median ns/op and their allocs/op. Baselines are found by name (see
// baseline): X_encodingJSON; X_codec or X_invoke against X_encodingJSON;
// AppendTurn_f, AppendSerialized_f and Serialize_f against EncodingJSON_f;
// Check/f and Repair/f against JSONDecode/f; X_invoke against X_codec (the
// codec alone doing what Invoke's op does). Rows with a goal (goals) say
// whether it is met. The ratio is the median of per-round ratios when both
// sides have one sample per round; a benchmark that reports toolerr-ns/op,
// base-ns/op and ratio itself (both run side by side in one benchmark) is
// printed with the median of its own ratios.
package main

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

type stat struct {
	ns     []float64
	allocs float64
	// A benchmark that runs toolerr and its baseline side by side (the
	// core's benchPair) reports both times and their ratio itself.
	pairT, pairB, ratios []float64
}

func main() {
	stats := map[string]*stat{}
	var order []string
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := f[0]
		if i := strings.LastIndexByte(name, '-'); i > 0 && allDigits(name[i+1:]) {
			name = name[:i] // the GOMAXPROCS suffix
		}
		s := stats[name]
		if s == nil {
			s = &stat{}
			stats[name] = s
			order = append(order, name)
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			switch f[i+1] {
			case "ns/op":
				s.ns = append(s.ns, v)
			case "allocs/op", "toolerr-allocs/op":
				s.allocs = v
			case "toolerr-ns/op":
				s.pairT = append(s.pairT, v)
			case "base-ns/op":
				s.pairB = append(s.pairB, v)
			case "ratio":
				s.ratios = append(s.ratios, v)
			}
		}
	}
	fmt.Println()
	fmt.Printf("%-60s %12s %12s %8s %14s\n", "toolerr vs encoding/json", "toolerr ns", "json ns", "ratio", "allocs (t/j)")
	for _, name := range order {
		if p := stats[name]; len(p.ratios) > 0 {
			r := median(p.ratios)
			fmt.Printf("%-60s %12.0f %12.0f %7.2fx %7.0f/%-6s%s\n", name, median(p.pairT), median(p.pairB), r, p.allocs, "-", verdict(name, r, p.allocs))
			continue
		}
		base := stats[baseline(name, stats)]
		if base == nil || base == stats[name] {
			continue
		}
		t, j := median(stats[name].ns), median(base.ns)
		r := roundRatio(stats[name].ns, base.ns)
		fmt.Printf("%-60s %12.0f %12.0f %7.2fx %7.0f/%-6.0f%s\n", name, t, j, r, stats[name].allocs, base.allocs, verdict(name, r, stats[name].allocs))
	}
}

// goal is a performance goal of issue 12 for the benchmarks named with
// prefix: a ratio to the baseline at most ratio and, when allocs > 0, at
// most allocs allocations per op.
type goal struct {
	prefix string
	ratio  float64
	allocs float64
	what   string
}

// goals: work item (b), a 40-message transcript, at most 0.5x encoding/json
// decoding and encoding the same request and one allocation per message;
// serialize through Invoke at most 1.3x the codec alone.
var goals = []goal{
	{"BenchmarkWorkB/", 0.5, 40, "<= 0.5x, <= 1 alloc/message"},
	{"BenchmarkSerializeA/", 1.3, 0, "<= 1.3x the codec"},
}

// verdict is "  goal <what>: met|missed" for a row with a goal, else "".
func verdict(name string, ratio, allocs float64) string {
	for _, g := range goals {
		if !strings.HasPrefix(name, g.prefix) {
			continue
		}
		v := "met"
		if ratio > g.ratio || (g.allocs > 0 && allocs > g.allocs) {
			v = "missed"
		}
		return "  goal " + g.what + ": " + v
	}
	return ""
}

// baseline returns the name of the encoding/json benchmark that does the same
// work as name, or "".
func baseline(name string, stats map[string]*stat) string {
	if strings.Contains(name, "ncodingJSON") || strings.Contains(name, "JSONDecode") {
		return ""
	}
	cands := []string{name + "_encodingJSON"}
	for _, suf := range []string{"_codec", "_invoke"} {
		if strings.HasSuffix(name, suf) {
			cands = append(cands, strings.TrimSuffix(name, suf)+"_encodingJSON")
		}
	}
	if strings.HasSuffix(name, "_invoke") {
		cands = append(cands, strings.TrimSuffix(name, "_invoke")+"_codec")
	}
	for _, pre := range []string{"BenchmarkAppendTurn_", "BenchmarkAppendSerialized_", "BenchmarkSerialize_"} {
		if strings.HasPrefix(name, pre) {
			cands = append(cands, "BenchmarkEncodingJSON_"+strings.TrimPrefix(name, pre))
		}
	}
	for _, pre := range []string{"BenchmarkCheck/", "BenchmarkRepair/"} {
		if strings.HasPrefix(name, pre) {
			cands = append(cands, "BenchmarkJSONDecode/"+strings.TrimPrefix(name, pre))
		}
	}
	for _, c := range cands {
		if stats[c] != nil {
			return c
		}
	}
	return ""
}

func allDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// roundRatio is the median of the per-round ratios t[i]/j[i] when both ran
// the same number of rounds (the i-th samples of each ran close together:
// scripts/bench.sh runs rounds of -count 1), else the ratio of the medians.
func roundRatio(t, j []float64) float64 {
	if len(t) != len(j) || len(t) == 0 {
		return median(t) / median(j)
	}
	r := make([]float64, len(t))
	for i := range t {
		r[i] = t[i] / j[i]
	}
	return median(r)
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}
