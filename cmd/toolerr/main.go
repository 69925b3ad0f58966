// Command toolerr is the command-line face of toolerr's core: classify a
// recorded failure, wrap a failure into a provider's wire message, check,
// repair, convert and trim transcripts, replay failure traces, or call the
// raw Invoke ABI. Every command reads JSON from a file or standard input and
// writes canonical JSON (RFC 8785) to standard output.
//
// Exit status: 0 on success; 1 when the core answered with an error envelope
// (printed to standard output as {"error": ...}, and summarized on standard
// error); 2 for a usage error, input that cannot be read or output that
// cannot be written; 3 when check found something the provider would reject.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/toolerr/toolerr/core"
)

// command is one subcommand: its name, its usage line, a one-line summary,
// what its FILE (or standard input) holds, its exit statuses beyond the
// common ones, and its runner.
type command struct {
	name, usage, summary, input, exits string
	run                                func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// Texts of the commands' help, shared by several commands.
const (
	transcriptInput = "FILE: a message list of the format, a whole request body of it (answered with the whole body, every other member kept), or another command's output ({\"ok\": {\"body\" | \"messages\": ...}})."
	commonExits     = "exit status: 0 success; 1 the core answered with an error envelope (printed on standard output, summarized on standard error); 2 a usage error, unreadable input or unwritable output"
)

func commands() []command {
	return []command{
		{"classify", "classify [flags] [FILE]", "classify a recorded HTTP failure, SSE error event or error text into an envelope",
			"FILE: a recording {\"provider\", \"response\": {\"status\", \"headers\", \"body\"}} (its Date header is \"now\"), a bare response {\"status\", \"headers\", \"body\"}, the members of a classify request (\"http\", \"sse_event\" or \"error_text\"), or plain error text.", "", runClassify},
		{"wrap", "wrap --provider P [flags] [FILE]", "turn a failure (an envelope) or a result into provider P's tool-result messages",
			"FILE: an envelope (the five keys; --call-id and --name say which call it answers), one outcome {\"call\", \"error\" | \"result\"}, or {\"results\": [...]} for a whole turn.", "", runWrap},
		{"invoke", "invoke [FILE]", "send one raw Invoke request ({\"op\": ...}) and print the response",
			"FILE: one Invoke request {\"op\": ..., ...}, passed to the core byte for byte (the ops: README, \"Invoke reference\").", "; for invoke also input that is not JSON (the core's own error answer)", runInvoke},
		{"check", "check --format P [FILE]", "list what provider P would reject in a message list or a whole request body", transcriptInput, "; 3 a finding: the provider would reject the transcript", passthrough("check")},
		{"repair", "repair --format P [FILE]", "answer unanswered calls, drop orphans, reorder and merge results (a list, or a whole body kept whole)", transcriptInput, "", passthrough("repair")},
		{"convert", "convert --from P --to Q [FILE]", "translate a list, or a whole request body (system prompt, tools, parameters), from P's shape to Q's", transcriptInput, "", passthrough("convert")},
		{"trim", "trim --format P --max-chars N [FILE]", "drop the oldest turns to fit a size (or --max-messages N), never splitting a call from its results", transcriptInput, "", passthrough("trim")},
		{"replay", "replay --format P [TRACE]", "replay a recorded failure trace through a provider's adapter",
			"TRACE (or standard input): {\"description\", \"bound\", \"steps\": [{\"error\": <envelope>} | {\"result\": {...}}, ...]} (docs/resilience.md).", "", passthrough("replay")},
		{"demo", "demo [--shared DIR]", "the main job: the seed's worked example, then every real recording classified",
			"No input: part 1 runs the seed's 503, 503, 400 search tool on loopback, part 2 classifies the recordings in DIR/fixtures/real (the project's own examples when no DIR is given and none is found).", "", runDemo},
		{"gateway", "gateway [flags]", "run the HTTP gateway (toolerr-gateway): every request and upstream error through the egress ops", "", "", external("toolerr-gateway")},
		{"gateway-check", "gateway-check --base-url URL [flags]", "hold a gateway to the five fields against strict fake upstreams (runs toolerr-gateway-check)", "", "", external("toolerr-gateway-check")},
		{"version", "version", "print the toolerr and ABI versions", "No input.", "", runVersion},
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run runs the command args name and returns the exit status: the
// command's own, or 2 when its standard output could not be written (a full
// disk, a closed descriptor), so that a lost answer never exits 0.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	out := &outputWriter{w: stdout}
	code := dispatch(args, stdin, out, stderr)
	if out.err != nil {
		err := out.err
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // "write /dev/stdout: " says nothing the line does not
		}
		fmt.Fprintf(stderr, "toolerr: cannot write standard output: %v\n", err)
		return 2
	}
	return code
}

// outputWriter is standard output as the commands write it: it keeps the
// first write error, and writes nothing after it.
type outputWriter struct {
	w   io.Writer
	err error
}

// Write writes p, or returns the first error again.
func (o *outputWriter) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.Write(p)
	if err != nil {
		o.err = err
	}
	return n, err
}

// dispatch runs the command args[0] names with the rest of args.
func dispatch(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr) // no command: a usage error
		return 2
	}
	if args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
		usage(stdout) // the help asked for is the output
		return 0
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(args[1:], stdin, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "toolerr: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

// external runs a command that lives in its own Go module (so the core's
// module stays dependency-free) as a subcommand: the program beside this
// executable, else the one on PATH, with the remaining arguments and this
// process's standard streams; its exit status is returned. A missing program
// is a usage error (2) that says how to build it.
func external(program string) func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
		if o, ok := stdout.(*outputWriter); ok {
			stdout = o.w // the program's own: it reports its own write errors
		}
		path := ""
		if self, err := os.Executable(); err == nil {
			if p := filepath.Join(filepath.Dir(self), program); isExecutable(p) {
				path = p
			}
		}
		if path == "" {
			p, err := exec.LookPath(program)
			if err != nil {
				// Its module's folder in a clone: toolerr-gateway's is gateway/, toolerr-gateway-check's gatewaycheck/.
				mod := strings.ReplaceAll(strings.TrimPrefix(program, "toolerr-"), "-", "")
				fmt.Fprintf(stderr, "toolerr: %s not found beside toolerr or on PATH (make build puts it in dist/ beside dist/toolerr; "+
					"after go install ./cmd/toolerr, also run (cd %s && go install ./cmd/%s) in the clone)\n", program, mod, program)
				return 2
			}
			path = p
		}
		return runProgram(program, path, args, stdin, stdout, stderr)
	}
}

// runProgram runs the program at path with args and the standard streams,
// passing SIGINT and SIGTERM on to it (so that toolerr-gateway, a server,
// shuts down gracefully under `toolerr gateway`), and returns its exit
// status.
func runProgram(program, path string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "toolerr: %s: %v\n", program, err)
		return 2
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case sig := <-sigs:
			_ = cmd.Process.Signal(sig)
		case err := <-done:
			var exit *exec.ExitError
			switch {
			case err == nil:
				return 0
			case errors.As(err, &exit):
				return exit.ExitCode()
			}
			fmt.Fprintf(stderr, "toolerr: %s: %v\n", program, err)
			return 2
		}
	}
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: toolerr <command> [flags] [FILE]   (FILE omitted or - reads standard input)")
	fmt.Fprintln(w)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-38s %s\n", c.usage, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "toolerr <command> -h says what a command reads, its flags and its exit status.")
	fmt.Fprintln(w, commonExits+"; 3 check found something the provider would reject.")
}

// newFlags returns the FlagSet of command name, parsing args, that reports
// errors without exiting. Its usage (printed for -h, -help or --help, and
// after a flag error) gives the command's usage line, summary, input, flags
// and exit statuses; it goes to stdout when args ask for help (the output
// asked for, exit 0), else to stderr with the error (exit 2).
func newFlags(name string, args []string, stdout, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("toolerr "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	if helpAsked(args) {
		fs.SetOutput(stdout)
	}
	var c command
	for _, x := range commands() {
		if x.name == name {
			c = x
		}
	}
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "usage: toolerr %s\n\n%s%s.\n", c.usage, strings.ToUpper(c.summary[:1]), c.summary[1:])
		if c.input != "" {
			fmt.Fprintf(w, "\n%s\n", c.input)
		}
		fmt.Fprintln(w, "\nflags:")
		fs.PrintDefaults()
		fmt.Fprintf(w, "\n%s%s.\n", commonExits, c.exits)
	}
	return fs
}

// helpAsked reports whether args, before any "--", hold -h, -help or
// --help (each as the flag package reads it).
func helpAsked(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--h", "--help":
			return true
		}
	}
	return false
}

// parseStatus is the exit status for a flag parsing error: 0 when the user
// asked for -h or --help (the usage was printed), 2 for a usage error.
func parseStatus(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}

// readInput reads the single FILE argument, or standard input for none or "-".
// Input over core.MaxRequestBytes is an error; at most one byte more is read.
func readInput(args []string, stdin io.Reader) ([]byte, error) {
	r := stdin
	switch {
	case len(args) > 1:
		return nil, fmt.Errorf("expected at most one FILE, got %d arguments", len(args))
	case len(args) == 0 || args[0] == "-":
	default:
		f, err := os.Open(args[0])
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	b, err := readBounded(r)
	if errors.Is(err, errOverLimit) {
		return nil, fmt.Errorf("input is %w", err)
	}
	return b, err
}

// errOverLimit is readBounded's error for input over core.MaxRequestBytes.
var errOverLimit = fmt.Errorf("over the %d-byte request limit", core.MaxRequestBytes)

// readBounded reads r to its end, at most core.MaxRequestBytes: one byte
// more is read, and then errOverLimit is returned, so memory stays bounded
// whatever r is (a pipe that never ends, /dev/zero).
func readBounded(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, core.MaxRequestBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > core.MaxRequestBytes {
		return nil, errOverLimit
	}
	return b, nil
}

// decodeJSON parses input JSON with the core's own parser (core.ParseJSON),
// so the CLI sees what Invoke sees: a duplicate key is an error, not the
// last value silently kept.
func decodeJSON(b []byte) (any, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, errors.New("input is empty")
	}
	v, err := core.ParseJSON(b)
	if err != nil {
		return nil, fmt.Errorf("input is not valid JSON: %s", strings.TrimPrefix(err.Error(), "canonical: "))
	}
	return v, nil
}

// invoke marshals req, calls core.Invoke, prints the response and returns the
// exit status (1 for an error response).
func invoke(req any, stdout, stderr io.Writer) int {
	return invokeAndPrint(req, stdout, stderr, false)
}

// invokeAndPrint is invoke; with findings set, a response whose ok.findings
// is not empty exits 3 (check found something the provider would reject).
func invokeAndPrint(req any, stdout, stderr io.Writer, findings bool) int {
	b, err := core.AppendJSON(nil, req)
	if err != nil {
		fmt.Fprintf(stderr, "toolerr: cannot encode request: %v\n", err)
		return 2
	}
	resp := core.Invoke(b)
	code := printResponse(resp, stdout, stderr)
	if code == 0 && findings {
		if fs, _ := okMember(resp)["findings"].([]any); len(fs) > 0 {
			fmt.Fprintf(stderr, "toolerr: %d finding(s): the provider would reject this transcript\n", len(fs))
			return 3
		}
	}
	return code
}

func printResponse(resp []byte, stdout, stderr io.Writer) int {
	stdout.Write(resp)
	io.WriteString(stdout, "\n")
	if bytes.HasPrefix(resp, []byte(`{"error":`)) {
		v, _ := core.ParseJSON(resp)
		if e, ok := v.(map[string]any)["error"].(map[string]any); ok {
			where := ""
			d, _ := e["details"].(map[string]any)
			if p, ok := d["path"].(string); ok && p != "" {
				where = " (at " + p + ")"
			}
			code, _ := e["code"].(string)
			msg, _ := e["message"].(string)
			fmt.Fprintf(stderr, "toolerr: %s: %s%s\n", code, strings.TrimPrefix(msg, "toolerr: "), where)
		}
		return 1
	}
	return 0
}

// okMember is the object inside a core response {"ok": {...}}, nil for
// anything else.
func okMember(resp []byte) map[string]any {
	v, _ := core.ParseJSON(resp)
	m, _ := v.(map[string]any)
	ok, _ := m["ok"].(map[string]any)
	return ok
}

func fail(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "toolerr: %v\n", err)
	return 2
}

func runInvoke(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("invoke", args, stdout, stderr)
	if err := fs.Parse(args); err != nil {
		return parseStatus(err)
	}
	in, err := readInput(fs.Args(), stdin)
	if err != nil {
		return fail(stderr, err)
	}
	return printResponse(core.Invoke(in), stdout, stderr)
}

func runVersion(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("version", args, stdout, stderr)
	if err := fs.Parse(args); err != nil {
		return parseStatus(err)
	}
	if fs.NArg() > 0 {
		return fail(stderr, fmt.Errorf("version takes no arguments, got %q", fs.Arg(0)))
	}
	return printResponse(core.Invoke([]byte(`{"op":"version"}`)), stdout, stderr)
}

// passFlags lists, per transcript command, the flags it takes and which of
// them are required.
var passFlags = map[string]struct{ flags, required []string }{
	"check":   {[]string{"format", "id-rules"}, []string{"format"}},
	"repair":  {[]string{"format"}, []string{"format"}},
	"convert": {[]string{"from", "to", "id-rules"}, []string{"from", "to"}},
	"trim":    {[]string{"format", "max-chars", "max-messages"}, []string{"format"}},
	"replay":  {[]string{"format"}, []string{"format"}},
}

// flagDocs is the help text of each pass-through flag; the format lists come
// from the core's provider table.
var flagDocs = map[string]string{
	"format":        "the transcript's wire format: " + formatList(core.TranscriptFormats()) + "; " + aliasList(),
	"replay-format": "the adapter's wire format: " + formatList(core.Formats()) + "; " + aliasList(),
	"from":          "the source wire format: " + formatList(core.TranscriptFormats()) + "; " + aliasList(),
	"to":            "the target wire format, as --from",
	"id-rules":      "another provider's id rules to apply, e.g. mistral",
	"max-chars":     "size budget in characters of canonical JSON",
	"max-messages":  "size budget in messages",
}

// aliasList says which other names the formats go by (the core's provider
// table: one vocabulary for every command and binding).
func aliasList() string {
	return "also: " + strings.Join(core.FormatAliases(), ", ") + " (any case)"
}

// formatList joins format names with commas.
func formatList(fs []core.Format) string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = string(f)
	}
	return strings.Join(s, ", ")
}

// passthrough builds a command that wraps its input in {"op": op, ...flags}.
// The input is a message list (sent as "messages"), a whole request body of
// the format (sent as "body": the answer is the whole body, every member
// kept), or another command's {"ok": {...}} output (its body or messages).
// replay takes a trace. The input is read by the core's parser
// (decodeJSON), never by encoding/json. check exits 3 when it has
// findings, so it can gate a CI step.
func passthrough(op string) func([]string, io.Reader, io.Writer, io.Writer) int {
	return func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
		fs := newFlags(op, args, stdout, stderr)
		spec := passFlags[op]
		vals := map[string]*string{}
		for _, f := range spec.flags {
			doc := flagDocs[f]
			if d, ok := flagDocs[op+"-"+f]; ok {
				doc = d // a flag this command reads otherwise
			}
			vals[f] = fs.String(f, "", doc)
		}
		if err := fs.Parse(args); err != nil {
			return parseStatus(err)
		}
		for _, f := range spec.required {
			if *vals[f] == "" {
				return fail(stderr, fmt.Errorf("%s needs --%s", op, f))
			}
		}
		if op == "trim" && *vals["max-chars"] == "" && *vals["max-messages"] == "" {
			return fail(stderr, errors.New("trim needs a budget: --max-chars or --max-messages"))
		}
		in, err := readInput(fs.Args(), stdin)
		if err != nil {
			return fail(stderr, err)
		}
		v, err := decodeJSON(in)
		if err != nil {
			return fail(stderr, err)
		}
		req := map[string]any{}
		if m, ok := v.(map[string]any); ok && len(m) == 1 {
			if inner, ok := m["ok"].(map[string]any); ok {
				v = inner // another command's output: {"ok": {"body" | "messages": ..., ...}}
				if b, has := inner["body"]; has {
					v = b
				} else if l, has := inner["messages"]; has {
					v = l
				}
			}
		}
		switch x := v.(type) {
		case []any:
			if op == "replay" {
				return fail(stderr, errors.New("a trace must be a JSON object: {\"description\", \"bound\", \"steps\": [...]}"))
			}
			req["messages"] = x
		case map[string]any:
			if op == "replay" {
				if _, ok := x["trace"]; !ok {
					x = map[string]any{"trace": x}
				}
				for k, val := range x {
					req[k] = val
				}
				break
			}
			req["body"] = x // a whole request body: every member comes back
		default:
			return fail(stderr, errors.New("input must be a JSON array of messages or an object (a whole request body)"))
		}
		req["op"] = op
		for f, val := range vals {
			if *val == "" {
				continue
			}
			key := strings.ReplaceAll(f, "-", "_")
			if f == "max-chars" || f == "max-messages" {
				n, err := strconv.Atoi(*val)
				if err != nil || n <= 0 {
					return fail(stderr, fmt.Errorf("--%s must be a positive whole number, got %q", f, *val))
				}
				req[key] = n
				continue
			}
			req[key] = *val
		}
		code := invokeAndPrint(req, stdout, stderr, op == "check")
		return code
	}
}

// lowerKeys returns the header map with lower-case names, joining nothing.
func lowerKeys(h map[string]any) map[string]any {
	out := make(map[string]any, len(h))
	for k, v := range h {
		out[strings.ToLower(k)] = v
	}
	return out
}
