// Command peakmem measures the peak memory of core.Invoke per op: each
// request runs once in a fresh child process, which reports the growth of its
// peak resident set (VmHWM) over its resident set just before the call
// (the request already read), divided by the request's length: the op's
// peak-memory multiple of its input.
//
// Two sets of requests, each built at -size bytes (default 16 MiB):
//
//   - fixture: for every op, its largest conformance fixture request with an
//     "ok" answer, scaled up by repeating the elements of its largest array
//     (call ids made unique per copy) or, without one, its longest string;
//   - amplify: the amplification corpus (conformance.AmplificationCorpus).
//
// With -wasm path/to/toolerr.wasm, each request also runs once on a fresh
// instance under wazero, and the growth of its linear memory (which never
// shrinks, so its size after the call is its peak) is reported beside.
// The last table gives, per op, the largest multiple of each set.
//
// Usage: go run ./bench/peakmem [-size bytes] [-set fixture|amplify|all]
// [-fixtures dir] [-wasm file] (in conformance/). Linux only (/proc/self/status).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/toolerr/toolerr/conformance"
	"github.com/toolerr/toolerr/core"
)

func main() {
	size := flag.Int("size", 16<<20, "the size of each request, in bytes")
	set := flag.String("set", "all", "fixture, amplify or all")
	dir := flag.String("fixtures", "fixtures", "the conformance fixtures")
	child := flag.String("child", "", "(internal) run the request in this file once and report")
	wasmPath := flag.String("wasm", "", "toolerr.wasm: also measure each request's linear memory under wazero")
	flag.Parse()
	if *child != "" {
		runChild(*child)
		return
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		fmt.Println("peakmem: needs /proc/self/status (Linux); skipped")
		return
	}
	tmp, err := os.MkdirTemp("", "peakmem")
	check(err)
	defer os.RemoveAll(tmp)
	self, err := os.Executable()
	check(err)

	fmt.Printf("== peak memory per op (%s, %d CPUs, GOGC default): each request once in a fresh process, %d-byte requests\n",
		runtime.Version(), runtime.NumCPU(), *size)
	var engine *conformance.WazeroEngine
	if *wasmPath != "" {
		wasm, err := os.ReadFile(*wasmPath)
		check(err)
		engine, err = conformance.NewWazeroEngine(wasm)
		check(err)
		defer engine.Close()
	}
	fmt.Printf("%-14s %-52s %10s %10s %9s %8s %9s %8s %7s  %s\n", "op", "request", "in", "out", "peak MiB", "peak/in", "wasm MiB", "wasm/in", "ms", "answer")
	worst := map[[2]string]float64{} // {set, op} -> the largest native multiple
	run := func(set, op, name string, req []byte) {
		f := filepath.Join(tmp, "req.json")
		check(os.WriteFile(f, req, 0o600))
		out, err := exec.Command(self, "-child", f).Output()
		if err != nil {
			fmt.Printf("%-14s %-52s %10d  FAILED: %v\n", op, name, len(req), err)
			return
		}
		var r result
		check(json.Unmarshal(out, &r))
		wasmMiB, wasmX := "-", "-"
		if engine != nil {
			grown, err := wasmGrowth(engine, req)
			if err != nil {
				wasmMiB, wasmX = "TRAP", err.Error()
			} else {
				wasmMiB, wasmX = fmt.Sprintf("%.1f", float64(grown)/(1<<20)), fmt.Sprintf("%.1fx", float64(grown)/float64(r.In))
			}
		}
		x := float64(r.Peak) / float64(r.In)
		fmt.Printf("%-14s %-52s %10d %10d %9.1f %7.1fx %9s %8s %7.0f  %s\n", op, trunc(name, 52), r.In, r.Out,
			float64(r.Peak)/(1<<20), x, wasmMiB, wasmX, r.Ms, r.Answer)
		if r.In >= 1<<20 { // a multiple of a tiny request is the runtime's, not the op's
			worst[[2]string{set, op}] = max(worst[[2]string{set, op}], x)
		}
	}
	if *set == "fixture" || *set == "all" {
		fixtures, err := largestFixtures(*dir)
		check(err)
		for _, fx := range fixtures {
			run("fixture", fx.op, "fixture "+fx.id, scale(fx.req, *size))
		}
	}
	if *set == "amplify" || *set == "all" {
		for _, a := range conformance.AmplificationCorpus() {
			run("amplify", a.Op, a.Name, a.Build(*size))
		}
	}
	fmt.Printf("\n%-20s %18s %18s\n", "op", "fixture peak/in", "amplify peak/in")
	ops := map[string]bool{}
	for k := range worst {
		ops[k[1]] = true
	}
	var names []string
	for op := range ops {
		names = append(names, op)
	}
	sort.Strings(names)
	cell := func(set, op string) string {
		if x, ok := worst[[2]string{set, op}]; ok {
			return fmt.Sprintf("%.1fx", x)
		}
		return "-"
	}
	for _, op := range names {
		fmt.Printf("%-20s %18s %18s\n", op, cell("fixture", op), cell("amplify", op))
	}
}

// wasmGrowth runs req once on a fresh instance and returns how many bytes
// its linear memory grew.
func wasmGrowth(e *conformance.WazeroEngine, req []byte) (int, error) {
	w, err := e.Instantiate()
	if err != nil {
		return 0, err
	}
	defer w.Close()
	before := w.MemoryBytes()
	if _, err := w.Invoke(req); err != nil {
		return 0, err
	}
	if _, err := w.Invoke([]byte(`{"op":"version"}`)); err != nil {
		return 0, err
	}
	return w.MemoryBytes() - before, nil
}

type result struct {
	In, Out int
	Peak    int64 // bytes: VmHWM after the call - VmRSS before
	Ms      float64
	Answer  string
}

func runChild(path string) {
	req, err := os.ReadFile(path)
	check(err)
	runtime.GC()
	debug.FreeOSMemory()
	before := status("VmRSS")
	t0 := time.Now()
	out := core.Invoke(req)
	ms := float64(time.Since(t0).Microseconds()) / 1000
	peak := status("VmHWM") - before
	check(json.NewEncoder(os.Stdout).Encode(result{In: len(req), Out: len(out), Peak: max(peak, 0), Ms: ms, Answer: answer(out)}))
}

// answer summarizes a response: "ok" or "INVALID_INPUT bound=x count=n".
func answer(out []byte) string {
	if bytes.HasPrefix(out, []byte(`{"ok":`)) {
		return "ok"
	}
	var r struct {
		Error struct {
			Code    string
			Message string
			Details map[string]any
		}
	}
	if json.Unmarshal(out, &r) != nil {
		return "unreadable"
	}
	if b, ok := r.Error.Details["bound"]; ok {
		return fmt.Sprintf("%s %v (limit %.0f, count %.0f)", r.Error.Code, b, r.Error.Details["limit"], r.Error.Details["count"])
	}
	return r.Error.Code + ": " + trunc(r.Error.Message, 60)
}

func status(key string) int64 {
	data, err := os.ReadFile("/proc/self/status")
	check(err)
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, key+":") {
			f := strings.Fields(l)
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n << 10
		}
	}
	return 0
}

type fixture struct {
	op, id string
	req    []byte
}

// largestFixtures returns, per op, its longest fixture request answered "ok".
func largestFixtures(dir string) ([]fixture, error) {
	files, err := conformance.LoadFiles(dir)
	if err != nil {
		return nil, err
	}
	best := map[string]fixture{}
	for _, f := range conformance.Fixtures(files) {
		var req struct{ Op string }
		if json.Unmarshal(f.Test.Request, &req) != nil || req.Op == "" {
			continue
		}
		if !bytes.HasPrefix(core.Invoke(f.Test.Request), []byte(`{"ok":`)) {
			continue
		}
		if b, ok := best[req.Op]; !ok || len(f.Test.Request) > len(b.req) {
			best[req.Op] = fixture{op: req.Op, id: f.ID, req: f.Test.Request}
		}
	}
	var out []fixture
	for _, f := range best {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].op < out[j].op })
	return out, nil
}

// fixedMembers are the string members a request cannot repeat.
var fixedMembers = map[string]bool{"op": true, "format": true, "code": true, "from": true, "to": true, "target": true, "source": true, "event": true, "id_rules": true}

// idKeys are the members whose values are made unique in each copy.
var idKeys = map[string]bool{"id": true, "tool_call_id": true, "call_id": true, "tool_use_id": true, "toolUseId": true}

// scale repeats the elements of req's largest array (or its longest string)
// until the request is about size bytes.
func scale(req []byte, size int) []byte {
	var root any
	check(json.Unmarshal(req, &root))
	var arrPath, strPath []any
	arrLen, strLen := 0, 0
	var walk func(v any, path []any)
	walk = func(v any, path []any) {
		switch x := v.(type) {
		case []any:
			if b, _ := json.Marshal(x); len(x) > 0 && len(b) > arrLen {
				arrLen, arrPath = len(b), append([]any(nil), path...)
			}
			for i, e := range x {
				walk(e, append(path, i))
			}
		case map[string]any:
			for k, e := range x {
				walk(e, append(path, k))
			}
		case string:
			if k, ok := path[len(path)-1].(string); ok && fixedMembers[k] {
				return
			}
			if len(x) > strLen {
				strLen, strPath = len(x), append([]any(nil), path...)
			}
		}
	}
	walk(root, nil)
	grow := func(copies int) []byte {
		var nv any
		if arrPath != nil {
			orig := get(root, arrPath).([]any)
			grown := make([]any, 0, len(orig)*copies)
			for k := range copies {
				for _, e := range orig {
					grown = append(grown, suffixIDs(e, "_"+strconv.Itoa(k)))
				}
			}
			nv = grown
		} else if strPath != nil {
			nv = strings.Repeat(get(root, strPath).(string), copies)
		} else {
			return req
		}
		path := arrPath
		if path == nil {
			path = strPath
		}
		out, err := json.Marshal(set(root, path, nv))
		check(err)
		return out
	}
	unit := max(arrLen, strLen, 1)
	copies := max(1, (size-len(req))/unit)
	out := grow(copies)
	for len(out) > size && copies > 1 {
		copies = copies * 9 / 10
		out = grow(copies)
	}
	return out
}

// get returns the value at path (keys and indexes) in v.
func get(v any, path []any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			v = v.(map[string]any)[k]
		case int:
			v = v.([]any)[k]
		}
	}
	return v
}

// set returns a copy of v with the value at path replaced by nv.
func set(v any, path []any, nv any) any {
	if len(path) == 0 {
		return nv
	}
	switch k := path[0].(type) {
	case string:
		m := map[string]any{}
		for kk, e := range v.(map[string]any) {
			m[kk] = e
		}
		m[k] = set(m[k], path[1:], nv)
		return m
	case int:
		a := append([]any(nil), v.([]any)...)
		a[k] = set(a[k], path[1:], nv)
		return a
	}
	return v
}

func suffixIDs(v any, sfx string) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			if s, ok := e.(string); ok && idKeys[k] && s != "" {
				m[k] = s + sfx
				continue
			}
			m[k] = suffixIDs(e, sfx)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = suffixIDs(e, sfx)
		}
		return a
	}
	return v
}

func trunc(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "peakmem:", err)
		os.Exit(1)
	}
}
