package conformance

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// External is a target run by another program, a binding's fixture runner,
// in one batch:
//
//  1. The runner starts Argv with Dir as its working directory.
//  2. It writes one JSON line per request to the program's stdin,
//     {"id": "<fixture ID>", "request": "<base64 of the request bytes>"},
//     then closes stdin.
//  3. The program hands each request's bytes to its binding's invoke, unchanged,
//     and prints one line per request on stdout,
//     {"id": "<the same ID>", "output": "<base64 of the response bytes>"},
//     or {"id": ..., "error": "<text>"} when the call itself failed.
//     Other stdout lines (not starting with "{") are ignored.
//  4. The program exits 0 once every request is answered.
//
// Run sends every request at once; Invoke then answers from the batch.
type External struct {
	TargetName string
	Argv       []string
	Dir        string
	Env        []string // the program's environment; nil inherits this process's

	out  map[string]externalResult // by request bytes
	byID map[string]externalResult
}

type externalResult struct {
	output []byte
	err    string
}

type externalLine struct {
	ID      string `json:"id"`
	Request string `json:"request,omitempty"`
	Output  string `json:"output,omitempty"`
	Error   string `json:"error,omitempty"`
}

var _ Target = (*External)(nil)

// ParseExternal reads "name=command arg ..." (the -target flag's form).
func ParseExternal(spec, dir string) (*External, error) {
	name, cmd, ok := strings.Cut(spec, "=")
	argv := strings.Fields(cmd)
	if !ok || name == "" || len(argv) == 0 {
		return nil, fmt.Errorf("target %q: want name=command [args]", spec)
	}
	return &External{TargetName: name, Argv: argv, Dir: dir}, nil
}

// Name returns TargetName.
func (e *External) Name() string { return e.TargetName }

// Run sends the requests of fixtures to the program and keeps its answers.
func (e *External) Run(fixtures []Fixture) error {
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	byID := map[string][]byte{}
	for _, f := range fixtures {
		byID[f.ID] = f.Test.Request
		if err := enc.Encode(externalLine{ID: f.ID, Request: base64.StdEncoding.EncodeToString(f.Test.Request)}); err != nil {
			return err
		}
	}
	cmd := exec.Command(e.Argv[0], e.Argv[1:]...)
	cmd.Dir, cmd.Stdin, cmd.Env = e.Dir, &in, e.Env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%s: %w\n%s", strings.Join(e.Argv, " "), err, stderr.Bytes())
	}
	e.out, e.byID = map[string]externalResult{}, map[string]externalResult{}
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(nil, 256<<20)
	for sc.Scan() {
		if !bytes.HasPrefix(sc.Bytes(), []byte("{")) {
			continue
		}
		var l externalLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return fmt.Errorf("%s: bad output line: %w", e.TargetName, err)
		}
		out, err := base64.StdEncoding.DecodeString(l.Output)
		if err != nil {
			return fmt.Errorf("%s: %s: bad base64: %w", e.TargetName, l.ID, err)
		}
		if req, ok := byID[l.ID]; ok {
			e.out[string(req)] = externalResult{output: out, err: l.Error}
			e.byID[l.ID] = externalResult{output: out, err: l.Error}
		}
	}
	return sc.Err()
}

// Invoke returns the program's answer to req from the last Run.
func (e *External) Invoke(req []byte) ([]byte, error) {
	r, ok := e.out[string(req)]
	switch {
	case !ok:
		return nil, fmt.Errorf("%s printed no output for this request", e.TargetName)
	case r.err != "":
		return nil, fmt.Errorf("%s: %s", e.TargetName, r.err)
	}
	return r.output, nil
}

// Output returns the program's answer to the request of fixture id from the
// last Run (Invoke answers by request bytes, so the last of equal requests).
func (e *External) Output(id string) ([]byte, error) {
	r, ok := e.byID[id]
	switch {
	case !ok:
		return nil, fmt.Errorf("%s printed no output for %s", e.TargetName, id)
	case r.err != "":
		return nil, fmt.Errorf("%s: %s: %s", e.TargetName, id, r.err)
	}
	return r.output, nil
}

// Close does nothing.
func (e *External) Close() error { return nil }

// ServeExternal is the program side of the protocol for a Go invoke function:
// it reads request lines from r and writes one output line per request to w.
// A binding written in another language does the same in a few lines.
func ServeExternal(r io.Reader, w io.Writer, invoke func([]byte) []byte) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 256<<20)
	enc := json.NewEncoder(w)
	for sc.Scan() {
		var l externalLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return err
		}
		req, err := base64.StdEncoding.DecodeString(l.Request)
		out := externalLine{ID: l.ID}
		if err != nil {
			out.Error = err.Error()
		} else {
			out.Output = base64.StdEncoding.EncodeToString(invoke(req))
		}
		if err := enc.Encode(out); err != nil {
			return err
		}
	}
	return sc.Err()
}
