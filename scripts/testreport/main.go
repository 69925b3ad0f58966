// Command testreport collects what every test runner of `make test` passed,
// failed and skipped, and prints one summary at the end, so a skipped test
// (recordings or vendor specs not beside the clone, a missing tool) is never
// silent.
//
// Usage:
//
//	testreport reset                  empty the report file
//	go test -json ... | testreport go LABEL
//	                                  print what plain `go test` prints (package
//	                                  lines, and the output of failing tests),
//	                                  record the counts and every skip's reason;
//	                                  exit 1 if anything failed
//	testreport junit LABEL FILE       record a JUnit XML report (pytest
//	                                  --junitxml, node --test-reporter=junit)
//	cargo test ... 2>&1 | testreport cargo LABEL
//	                                  pass cargo's output through and record its
//	                                  "test result:" counts; exit 1 on a failure
//	testreport summary                print the counts per runner, every skip
//	                                  grouped by reason, and a closing line
//	                                  "N passed, N failed, N skipped"
//
// The report is JSON lines in $TOOLERR_TEST_REPORT (default
// build/test-report.jsonl, relative to the working directory).
package main

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// record is one runner's result: one JSON line of the report.
type record struct {
	Label   string `json:"label"`
	Passed  int    `json:"passed"`
	Failed  int    `json:"failed"`
	Skipped int    `json:"skipped"`
	Skips   []skip `json:"skips,omitempty"`
}

// skip is one skipped test and the reason its runner gave.
type skip struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	code := 0
	switch os.Args[1] {
	case "reset":
		err = os.Remove(reportPath())
		if os.IsNotExist(err) {
			err = nil
		}
	case "go":
		need(3)
		var r record
		r, err = readGoJSON(os.Args[2], os.Stdin, os.Stdout)
		if err == nil {
			err = appendRecord(r)
		}
		if r.Failed > 0 {
			code = 1
		}
	case "junit":
		need(4)
		var r record
		r, err = readJUnit(os.Args[2], os.Args[3])
		if err == nil {
			err = appendRecord(r)
		}
	case "cargo":
		need(3)
		var r record
		r, err = readCargo(os.Args[2], os.Stdin, os.Stdout)
		if err == nil {
			err = appendRecord(r)
		}
		if r.Failed > 0 {
			code = 1
		}
	case "summary":
		err = summary(os.Stdout)
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(2)
	}
	os.Exit(code)
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: testreport reset | go LABEL | junit LABEL FILE | cargo LABEL | summary")
	os.Exit(2)
}

func need(n int) {
	if len(os.Args) < n {
		usage()
	}
}

func reportPath() string {
	if p := os.Getenv("TOOLERR_TEST_REPORT"); p != "" {
		return p
	}
	return filepath.Join("build", "test-report.jsonl")
}

func appendRecord(r record) error {
	p := reportPath()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	b, _ := json.Marshal(r)
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// goEvent is one line of `go test -json` (cmd/test2json).
type goEvent struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// readGoJSON reads a `go test -json` stream. It prints what plain `go test`
// would: package-level lines, build output, and the whole output of every
// failing test. Lines that are not JSON (e.g. build errors on stderr merged
// in) are printed as they are.
func readGoJSON(label string, in io.Reader, out io.Writer) (record, error) {
	r := record{Label: label}
	buf := map[string][]string{} // package + "\x00" + test -> output lines
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e goEvent
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(out, "%s\n", line)
			continue
		}
		key := e.Package + "\x00" + e.Test
		switch {
		case e.Action == "build-output":
			fmt.Fprint(out, e.Output)
		case e.Test == "" && e.Action == "output":
			if !strings.HasPrefix(e.Output, "=== ") && e.Output != "PASS\n" {
				fmt.Fprint(out, e.Output)
			}
		case e.Test == "":
		case e.Action == "output":
			buf[key] = append(buf[key], e.Output)
		case e.Action == "pass":
			r.Passed++
			delete(buf, key)
		case e.Action == "fail":
			r.Failed++
			for _, l := range buf[key] {
				fmt.Fprint(out, l)
			}
			delete(buf, key)
		case e.Action == "skip":
			r.Skipped++
			r.Skips = append(r.Skips, skip{Name: shortPkg(e.Package) + " " + e.Test, Reason: goSkipReason(buf[key])})
			delete(buf, key)
		}
	}
	return r, sc.Err()
}

// goSkipReason is the text a test gave to t.Skip: its output lines other than
// the runner's own "=== RUN" and "--- SKIP" lines, with the "file_test.go:N:"
// prefix removed.
func goSkipReason(lines []string) string {
	var parts []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ") {
			continue
		}
		if i := strings.Index(t, ".go:"); i >= 0 {
			if j := strings.Index(t[i+4:], ": "); j >= 0 {
				t = t[i+4+j+2:]
			}
		}
		parts = append(parts, t)
	}
	if len(parts) == 0 {
		return "(no reason given)"
	}
	return strings.Join(parts, " ")
}

func shortPkg(p string) string {
	return strings.TrimPrefix(p, "github.com/toolerr/toolerr/")
}

// junitSuites is the part of a JUnit XML report that testreport reads; both
// pytest (<testsuites><testsuite><testcase>) and node:test (<testsuites>
// <testcase>, nested <testsuite> for describe blocks) fit it.
type junitSuites struct {
	Suites []junitSuites `xml:"testsuite"`
	Cases  []junitCase   `xml:"testcase"`
}

type junitCase struct {
	Name      string      `xml:"name,attr"`
	Classname string      `xml:"classname,attr"`
	Failure   *struct{}   `xml:"failure"`
	Error     *struct{}   `xml:"error"`
	Skipped   *junitSkip  `xml:"skipped"`
	Cases     []junitCase `xml:"testcase"`
}

type junitSkip struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

func readJUnit(label, path string) (record, error) {
	r := record{Label: label}
	b, err := os.ReadFile(path)
	if err != nil {
		return r, err
	}
	var s junitSuites
	if err := xml.Unmarshal(b, &s); err != nil {
		return r, fmt.Errorf("%s: %v", path, err)
	}
	var walkCase func(c junitCase)
	walkCase = func(c junitCase) {
		switch {
		case c.Failure != nil || c.Error != nil:
			r.Failed++
		case c.Skipped != nil:
			r.Skipped++
			reason := strings.TrimSpace(c.Skipped.Message)
			if reason == "" {
				reason = strings.TrimSpace(c.Skipped.Text)
			}
			r.Skips = append(r.Skips, skip{Name: strings.TrimSpace(c.Classname + " " + c.Name), Reason: reason})
		case len(c.Cases) == 0:
			r.Passed++
		}
		for _, sub := range c.Cases {
			walkCase(sub)
		}
	}
	var walk func(s junitSuites)
	walk = func(s junitSuites) {
		for _, c := range s.Cases {
			walkCase(c)
		}
		for _, sub := range s.Suites {
			walk(sub)
		}
	}
	walk(s)
	return r, nil
}

var cargoResult = regexp.MustCompile(`^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored`)
var cargoIgnored = regexp.MustCompile(`^test (\S+) \.\.\. ignored(?:, (.*))?$`)

func readCargo(label string, in io.Reader, out io.Writer) (record, error) {
	r := record{Label: label}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		fmt.Fprintln(out, line)
		if m := cargoResult.FindStringSubmatch(line); m != nil {
			p, _ := strconv.Atoi(m[1])
			f, _ := strconv.Atoi(m[2])
			i, _ := strconv.Atoi(m[3])
			r.Passed, r.Failed, r.Skipped = r.Passed+p, r.Failed+f, r.Skipped+i
		} else if m := cargoIgnored.FindStringSubmatch(line); m != nil {
			reason := m[2]
			if reason == "" {
				reason = "#[ignore]"
			}
			r.Skips = append(r.Skips, skip{Name: m[1], Reason: reason})
		}
	}
	return r, sc.Err()
}

// summary prints every runner's counts, the skips grouped by reason (at most
// five names each), and the closing line.
func summary(out io.Writer) error {
	b, err := os.ReadFile(reportPath())
	if err != nil {
		return fmt.Errorf("no test report at %s (run make test)", reportPath())
	}
	var all record
	byReason := map[string][]string{}
	fmt.Fprintln(out, "== test summary")
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return err
		}
		fmt.Fprintf(out, "  %-28s %6d passed, %d failed, %d skipped\n", r.Label, r.Passed, r.Failed, r.Skipped)
		all.Passed, all.Failed, all.Skipped = all.Passed+r.Passed, all.Failed+r.Failed, all.Skipped+r.Skipped
		for _, s := range r.Skips {
			key := r.Label + ": " + s.Reason
			byReason[key] = append(byReason[key], s.Name)
		}
	}
	if len(byReason) > 0 {
		fmt.Fprintln(out, "== skipped, by reason")
		keys := make([]string, 0, len(byReason))
		for k := range byReason {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			names := byReason[k]
			fmt.Fprintf(out, "  %s (%d)\n", k, len(names))
			for i, n := range names {
				if i == 5 {
					fmt.Fprintf(out, "      ... and %d more\n", len(names)-5)
					break
				}
				fmt.Fprintf(out, "      %s\n", n)
			}
		}
	}
	fmt.Fprintf(out, "%d passed, %d failed, %d skipped\n", all.Passed, all.Failed, all.Skipped)
	return nil
}
