// Command benchratio reads `go test -bench` output and prints, for every
// benchmark X that has a baseline X_encodingJSON, the ratio of their median
// ns/op and their allocs/op, so `make bench` shows how toolerr compares with
// encoding/json doing the same work.
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
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			name = name[:i]
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
			case "allocs/op":
				s.allocs = v
			}
		}
	}
	fmt.Println()
	fmt.Printf("%-60s %12s %12s %8s %14s\n", "toolerr vs encoding/json", "toolerr ns", "json ns", "ratio", "allocs (t/j)")
	for _, name := range order {
		base := stats[name+"_encodingJSON"]
		if base == nil || strings.HasSuffix(name, "_encodingJSON") {
			continue
		}
		t, j := median(stats[name].ns), median(base.ns)
		fmt.Printf("%-60s %12.0f %12.0f %7.2fx %7.0f/%-6.0f\n", name, t, j, t/j, stats[name].allocs, base.allocs)
	}
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}
