package gatewaycheck

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/toolerr/toolerr/conformance/gateway"
	"github.com/toolerr/toolerr/gatewaycheck/fake"
)

const usage = `usage: toolerr-gateway-check [flags]

Starts strict fake upstreams (OpenAI, Anthropic, Gemini, Bedrock) on
loopback, sends the gateway-check fixtures through the gateway at --base-url
and prints a test x verdict matrix: carried, lost or rejected.

Point the gateway at the fakes with --gateway-cmd (run with
GWCHECK_OPENAI_URL, GWCHECK_ANTHROPIC_URL, GWCHECK_GEMINI_URL and
GWCHECK_BEDROCK_URL in its environment, stopped afterwards), or start the
fakes alone with --serve and configure the gateway by hand. The client asks
for model gwcheck-<upstream> (gwcheck-anthropic, gwcheck-openai-chat, ...):
route each to its fake.

Exit status: 0 nothing lost (with --strict: nothing lost or rejected),
1 a test was lost (or rejected, with --strict), 2 a usage or setup error.

flags:
`

// Main runs the command with args (without the program name) and returns its
// exit status: 0, 1 (lost) or 2 (usage or setup error).
func Main(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("toolerr-gateway-check", flag.ContinueOnError)
	// The usage goes to stdout when -h asks for it (as every toolerr command
	// prints it) and to stderr after a bad flag.
	var help bytes.Buffer
	fl.SetOutput(&help)
	fl.Usage = func() { fmt.Fprint(&help, usage); fl.PrintDefaults() }
	var bases multiFlag
	fl.Var(&bases, "base-url", "the gateway's base URL (repeatable; FAMILY=URL sets one ingress family's, e.g. bedrock=http://127.0.0.1:4000/bedrock)")
	gatewayCmd := fl.String("gateway-cmd", "", "a shell command that starts the gateway pointed at the fakes (GWCHECK_*_URL in its environment); stopped after the run")
	gatewayLog := fl.String("gateway-log", "", "a file for the gateway's output (default: discarded)")
	readyTimeout := fl.Duration("ready-timeout", 90*time.Second, "how long to wait for the launched gateway to listen at --base-url")
	hops := fl.String("hops", "all", "which tests: same (ingress = upstream: an egress gateway), cross, or all")
	ingress := fl.String("ingress", "", "comma-separated ingress families the gateway serves (default: all five)")
	host := fl.String("fake-host", "127.0.0.1", "the loopback address the fakes listen on")
	port := fl.Int("fake-port", 0, "the first fake's port (openai, anthropic, gemini, bedrock on consecutive ports; 0 picks free ports)")
	specsDir := fl.String("specs", "", "a folder with the vendors' specs (openai-openapi.yaml, the bedrock-runtime service model); default: ../shared/specs or $TOOLERR_SHARED/specs when present")
	fixtures := fl.String("fixtures", "", "a folder of fixture files (default: the built-in conformance/gateway fixtures)")
	format := fl.String("format", "text", "output: text, markdown or json")
	timeout := fl.Duration("timeout", 30*time.Second, "the longest wait for one answer from the gateway")
	serve := fl.Bool("serve", false, "only start the fakes, print their URLs and run until interrupted")
	strict := fl.Bool("strict", false, "exit 1 on rejected tests too")
	dumpDir := fl.String("dump", "", "a folder for one JSON file per test: what the client sent and got, and what each upstream received and answered")
	apiKey := fl.String("api-key", "", "the credential the client sends the gateway (default gwcheck-key; env GWCHECK_API_KEY)")
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			stdout.Write(help.Bytes())
			return 0
		}
		stderr.Write(help.Bytes())
		return 2
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "toolerr-gateway-check: "+format+"\n", a...)
		return 2
	}
	opts := Options{BaseURL: map[Family]string{}, Hops: *hops, Timeout: *timeout, APIKey: *apiKey, Dump: *dumpDir}
	if opts.APIKey == "" {
		opts.APIKey = os.Getenv("GWCHECK_API_KEY")
	}
	if *hops != "same" && *hops != "cross" && *hops != "all" {
		return fail("--hops must be same, cross or all, not %q", *hops)
	}
	for _, b := range bases {
		fam, u, ok := strings.Cut(b, "=")
		if !ok {
			fam, u = "", b
		}
		if fam != "" && !knownFamily(Family(fam)) {
			return fail("--base-url %q: unknown family %q", b, fam)
		}
		opts.BaseURL[Family(fam)] = u
	}
	if *ingress != "" {
		for _, f := range strings.Split(*ingress, ",") {
			if !knownFamily(Family(strings.TrimSpace(f))) {
				return fail("--ingress: unknown family %q", f)
			}
			opts.Ingress = append(opts.Ingress, Family(strings.TrimSpace(f)))
		}
	}
	specs, err := loadSpecs(*specsDir)
	if err != nil {
		return fail("%v", err)
	}
	set, err := fake.Start(*host, *port, specs)
	if err != nil {
		return fail("%v", err)
	}
	defer set.Close()
	fmt.Fprintf(stderr, "fake upstreams (specs: %s):\n", strings.Join(append([]string{"encoded rules"}, specs.Has()...), ", "))
	for _, f := range fake.Families() {
		fmt.Fprintf(stderr, "  %s=%s\n", EnvVar(f), set.URL(f))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *serve {
		<-ctx.Done()
		return 0
	}
	if len(opts.BaseURL) == 0 {
		return fail("--base-url is required (the gateway under test)")
	}
	var fsys fs.FS = gateway.Files
	if *fixtures != "" {
		fsys = os.DirFS(*fixtures)
	}
	tests, err := LoadTests(fsys)
	if err != nil {
		return fail("%v", err)
	}
	var launched *Gateway
	if *gatewayCmd != "" {
		var log io.Writer = io.Discard
		if *gatewayLog != "" {
			f, err := os.Create(*gatewayLog)
			if err != nil {
				return fail("%v", err)
			}
			defer f.Close()
			log = f
		}
		ready := opts.BaseURL[""]
		for _, u := range opts.BaseURL {
			if ready == "" {
				ready = u
			}
		}
		g, err := Launch(ctx, *gatewayCmd, set, log, ready, *readyTimeout)
		if err != nil {
			return fail("%v", err)
		}
		defer g.Stop()
		launched = g
	}
	results, err := Run(ctx, set, tests, opts)
	if err != nil {
		return fail("%v", err)
	}
	if launched != nil {
		if gone, err := launched.Exited(); gone {
			return fail("the gateway --gateway-cmd started exited during the run (%v); its verdicts would be another server's (see --gateway-log)", err)
		}
	}
	switch *format {
	case "markdown":
		err = WriteMarkdown(stdout, results)
	case "json":
		err = WriteJSON(stdout, results)
	default:
		err = WriteMatrix(stdout, results)
	}
	if err != nil {
		return fail("%v", err)
	}
	c := Count(results)
	if reached(results) == 0 && len(results) > 0 {
		fmt.Fprintln(stderr, "gateway-check: no request reached this run's fake upstreams (the URLs above), so no verdict says what the gateway sends upstream: launch it with --gateway-cmd (it gets those URLs as GWCHECK_*_URL), or point a gateway you started by hand at fixed ports and give the first of them here with --fake-port")
	}
	if c.Lost > 0 || *strict && c.Rejected > 0 {
		return 1
	}
	return 0
}

// reached counts the tests whose client request reached a fake upstream.
func reached(rs []Result) int {
	n := 0
	for _, r := range rs {
		if r.Hits > 0 {
			n++
		}
	}
	return n
}

func knownFamily(f Family) bool {
	for _, k := range Families() {
		if k == f {
			return true
		}
	}
	return false
}

// loadSpecs reads dir, or else ../shared/specs (beside the working
// directory's repository) or $TOOLERR_SHARED/specs when present; no specs is
// not an error (the encoded rules still run).
func loadSpecs(dir string) (*fake.Specs, error) {
	if dir != "" {
		s, err := fake.LoadSpecs(dir)
		if err == nil && s == nil {
			return nil, fmt.Errorf("--specs %s: no vendor spec found there", dir)
		}
		return s, err
	}
	var cands []string
	if d := os.Getenv("TOOLERR_SHARED"); d != "" {
		cands = append(cands, filepath.Join(d, "specs"))
	}
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			cands = append(cands, filepath.Join(d, "..", "shared", "specs"))
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	for _, c := range cands {
		if _, err := os.Stat(c); err == nil {
			return fake.LoadSpecs(c)
		}
	}
	return nil, nil
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
