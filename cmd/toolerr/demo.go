package main

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/toolerr/toolerr/core"
)

// runDemo: the main job on real input.
//
// Part 1 is seed 000's worked example, end to end: a real HTTP search tool on
// loopback answers 503, 503, then 400; each failure is classified, the retry
// decision is taken, and for the failure that reaches the model we print
// what each provider's model receives. Part 2 classifies every recorded
// provider response in shared/fixtures/real (or, on a clone without
// ../shared, the project's own examples in recordings/, built into the binary).
func runDemo(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	flags := newFlags("demo", args, stdout, stderr)
	shared := flags.String("shared", "", "the shared folder holding fixtures/real (default: $TOOLERR_SHARED, then ../shared)")
	if err := flags.Parse(args); err != nil {
		return parseStatus(err)
	}
	dir, found := recordingsDir(*shared)
	if *shared != "" && !found {
		// A folder named on purpose that holds no recordings is a mistake
		// to say, not a reason to fall back quietly.
		return fail(stderr, fmt.Errorf("--shared %s: no folder %s", *shared, dir))
	}
	if err := demoWorkedExample(stdout); err != nil {
		return fail(stderr, err)
	}
	var fsys fs.FS
	label := dir
	if found {
		fsys = os.DirFS(dir)
	} else {
		fmt.Fprintf(stdout, "\nThe real recordings were not found (looked for %s; --shared DIR or TOOLERR_SHARED names the folder holding fixtures/real); classifying the project's own examples instead.\n", dir)
		fsys, _ = fs.Sub(bundled, "recordings")
		label = "the project's own examples (cmd/toolerr/recordings)"
	}
	if err := demoRecordings(stdout, fsys, label); err != nil {
		return fail(stderr, err)
	}
	return 0
}

// bundled holds example provider responses written by the toolerr authors,
// classified by the demo when the real recordings are not beside the clone.
//
//go:embed recordings/*.json
var bundled embed.FS

// call is a tiny helper around core.Invoke for the demo: it returns "ok" or an error.
func call(req map[string]any) (any, error) {
	b, err := core.AppendJSON(nil, req)
	if err != nil {
		return nil, err
	}
	v, err := core.ParseJSON(core.Invoke(b))
	if err != nil {
		return nil, err
	}
	resp, _ := v.(map[string]any)
	if e, ok := resp["error"].(map[string]any); ok {
		return nil, fmt.Errorf("%v: %v", e["code"], e["message"])
	}
	return resp["ok"], nil
}

func compact(v any) string {
	b, _ := core.AppendJSON(nil, v)
	var out strings.Builder
	// Re-encode through Invoke's canonical writer so the demo prints the exact bytes.
	resp := core.Invoke(append(append([]byte(`{"op":"canonicalize","value":`), b...), '}'))
	s := string(resp)
	if strings.HasPrefix(s, `{"ok":`) {
		out.WriteString(s[len(`{"ok":`) : len(s)-1])
		return out.String()
	}
	return string(b)
}

func demoWorkedExample(w io.Writer) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	statuses := []int{503, 503, 400}
	bodies := []string{
		`{"error":"search backend unavailable"}`,
		`{"error":"search backend unavailable"}`,
		`{"error":"invalid argument: 'max_results' must be at most 50"}`,
	}
	n := 0
	srv := &http.Server{Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		i := n
		if i >= len(statuses) {
			i = len(statuses) - 1
		}
		n++
		rw.Header().Set("Content-Type", "application/json")
		rw.WriteHeader(statuses[i])
		io.WriteString(rw, bodies[i])
	})}
	go srv.Serve(ln)
	defer srv.Close()
	url := "http://" + ln.Addr().String() + "/search?q=toolerr&max_results=500"

	fmt.Fprintln(w, "== 1. Seed 000's worked example: a search tool fails 503, 503, then 400 ==")
	fmt.Fprintf(w, "search tool: GET %s (a real HTTP server on loopback)\n", url)
	calls := map[string]any{"id": "call_search_1", "name": "search"}
	for attempt := 1; attempt <= len(statuses); attempt++ {
		resp, err := http.Get(url)
		if err != nil {
			return err
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		env, err := call(map[string]any{"op": "classify", "source": "tool", "tool": "search", "attempt": attempt,
			"http": map[string]any{"status": resp.StatusCode, "headers": flatHeaders(resp.Header), "body": string(body)}})
		if err != nil {
			return fmt.Errorf("classify: %w", err)
		}
		e := env.(map[string]any)
		fmt.Fprintf(w, "\nattempt %d: HTTP %d -> code %v, retryable %v, source %v\n", attempt, resp.StatusCode, e["code"], e["retryable"], e["source"])
		fmt.Fprintf(w, "  envelope: %s\n", compact(e))
		dec, derr := call(map[string]any{"op": "retry", "error": e, "attempt": attempt, "draw": 0.5})
		if derr == nil {
			d := dec.(map[string]any)
			if d["retry"] == true {
				fmt.Fprintf(w, "  decision: retry after %v ms (full jitter, draw 0.5); the model is not told, the orchestrator retries\n", d["delay_ms"])
				continue
			}
			fmt.Fprintf(w, "  decision: do not retry (%v); the failure goes to the model\n", d["reason"])
		} else if e["retryable"] == true {
			fmt.Fprintln(w, "  decision: retryable, so the orchestrator retries silently; the model is not told")
			continue
		} else {
			fmt.Fprintln(w, "  decision: not retryable; the failure goes to the model")
		}
		fmt.Fprintln(w, "  what each provider's model receives:")
		for _, f := range core.Formats() {
			msgs, err := call(map[string]any{"op": "serialize", "format": string(f), "call": calls, "error": e})
			if err != nil {
				fmt.Fprintf(w, "    %-17s (not available: %v)\n", f, err)
				continue
			}
			fmt.Fprintf(w, "    %-17s %s\n", f, compact(msgs))
		}
		break
	}
	return nil
}

func flatHeaders(h http.Header) map[string]any {
	out := map[string]any{}
	for k, v := range h {
		out[strings.ToLower(k)] = strings.Join(v, ", ")
	}
	return out
}

// recordingsDir finds shared/fixtures/real: the flag, $TOOLERR_SHARED, then
// ../shared beside the repository.
func recordingsDir(flagDir string) (string, bool) {
	base := flagDir
	if base == "" {
		base = os.Getenv("TOOLERR_SHARED")
	}
	if base == "" {
		base = filepath.Join(repoRoot(), "..", "shared")
	}
	dir := filepath.Join(base, "fixtures", "real")
	st, err := os.Stat(dir)
	return dir, err == nil && st.IsDir()
}

// repoRoot walks up from the working directory to the folder holding go.mod.
func repoRoot() string {
	dir, _ := os.Getwd()
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			if b, _ := os.ReadFile(filepath.Join(d, "go.mod")); strings.Contains(string(b), "module github.com/toolerr/toolerr\n") {
				return d
			}
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

// demoRecordings classifies every recorded error response in fsys.
func demoRecordings(w io.Writer, fsys fs.FS, label string) error {
	var files []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		return err
	}
	sort.Strings(files)
	fmt.Fprintf(w, "\n== 2. Every recorded provider response in %s, classified ==\n", label)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "file\tstatus\tcode\tretryable\tretry_after_seconds")
	count, retryable := 0, 0
	for _, f := range files {
		b, err := readRecording(fsys, f)
		if err != nil {
			return err
		}
		v, err := core.ParseJSON(b)
		rec, _ := v.(map[string]any)
		if err != nil || rec["kind"] != "error_response" {
			continue
		}
		resp, _ := rec["response"].(map[string]any)
		status := resp["status"]
		req, err := classifyRequest(b)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		rel := f
		ok, err := call(req)
		if err != nil {
			fmt.Fprintf(tw, "%s\t%v\t(error: %v)\t\t\n", rel, status, err)
			continue
		}
		e := ok.(map[string]any)
		details, _ := e["details"].(map[string]any)
		ra := "-"
		if v, has := details["retry_after_seconds"]; has {
			ra = fmt.Sprint(v)
		}
		count++
		if e["retryable"] == true {
			retryable++
		}
		fmt.Fprintf(tw, "%s\t%v\t%v\t%v\t%s\n", rel, status, e["code"], e["retryable"], ra)
	}
	tw.Flush()
	fmt.Fprintf(w, "%d responses classified: %d retryable, %d terminal.\n", count, retryable, count-retryable)
	return nil
}

// readRecording reads the file name of fsys, which must be a regular file
// (a symbolic link is followed) of at most core.MaxRequestBytes; at most one
// byte more is read. A FIFO (waited on forever), a device (/dev/zero, read
// until memory ran out) or a huge file is refused by name instead. Errors
// read "name: cause".
func readRecording(fsys fs.FS, name string) ([]byte, error) {
	fail := func(err error) ([]byte, error) {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return fail(err)
	}
	if !st.Mode().IsRegular() {
		return fail(fmt.Errorf("not a regular file (%s)", fileKind(st.Mode())))
	}
	if st.Size() > core.MaxRequestBytes {
		return fail(fmt.Errorf("%d bytes, over the %d-byte request limit", st.Size(), core.MaxRequestBytes))
	}
	f, err := fsys.Open(name)
	if err != nil {
		return fail(err)
	}
	defer f.Close()
	b, err := readBounded(f) // errOverLimit: it grew since the stat
	if err != nil {
		return fail(err)
	}
	return b, nil
}

// fileKind names the type of a file that is not a regular one.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return m.Type().String()
}
