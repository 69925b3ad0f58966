package core

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/canonical"
	"github.com/toolerr/toolerr/core/internal/decide"
	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/format/outcome"
	"github.com/toolerr/toolerr/core/internal/transcript"
)

// typedCalls run the request of a fixture through the typed Go API instead of
// Invoke: each member decoded by type assertion alone, the typed function
// called, its result encoded as the op encodes it. ok is false when the
// request cannot be expressed in Go types.
var typedCalls = map[string]func(req map[string]any) (any, error, bool){
	"serialize": func(req map[string]any) (any, error, bool) {
		f, ok := str(req, "format")
		if _, many := req["results"]; !ok || !many {
			return nil, nil, false // the one-outcome shorthand is the op's own form
		}
		outs, err := outcome.Read(req, "")
		if err != nil {
			return nil, nil, false
		}
		r, err := Serialize(Format(f), outs)
		return r, err, true
	},
	"parse": func(req map[string]any) (any, error, bool) {
		f, ok1 := str(req, "format")
		msgs, ok2 := arr(req, "messages")
		if !ok1 || !ok2 {
			return nil, nil, false
		}
		outs, err := Parse(Format(f), msgs)
		if err != nil {
			return nil, err, true
		}
		res := make([]any, 0, len(outs))
		for _, o := range outs {
			res = append(res, outcome.Value(o))
		}
		return res, nil, true
	},
	"check": func(req map[string]any) (any, error, bool) {
		f, ok1 := str(req, "format")
		msgs, ok2 := arr(req, "messages")
		opts, err := transcriptOptions(req)
		if !ok1 || !ok2 || err != nil {
			return nil, nil, false
		}
		fs, err := CheckWith(Format(f), msgs, opts)
		if err != nil {
			return nil, err, true
		}
		return map[string]any{"findings": findingsValue(fs)}, nil, true
	},
	"repair": func(req map[string]any) (any, error, bool) {
		f, ok1 := str(req, "format")
		msgs, ok2 := arr(req, "messages")
		opts, err := transcriptOptions(req)
		if !ok1 || !ok2 || err != nil {
			return nil, nil, false
		}
		out, ch, err := RepairWith(Format(f), msgs, opts)
		if err != nil {
			return nil, err, true
		}
		return repairValue(out, ch), nil, true
	},
	"trim": func(req map[string]any) (any, error, bool) {
		f, ok1 := str(req, "format")
		mc, ok2 := num(req, "max_chars")
		mm, ok3 := num(req, "max_messages")
		msgs, ok4 := arr(req, "messages")
		if !ok1 || !ok2 || !ok3 || !ok4 || present(req, "max_chars") && mc == 0 || present(req, "max_messages") && mm == 0 {
			return nil, nil, false // 0 means "no limit" in Go, "out of range" in JSON
		}
		out, n, err := Trim(Format(f), msgs, int(mc), int(mm))
		if err != nil {
			return nil, err, true
		}
		return map[string]any{"messages": out, "dropped": n}, nil, true
	},
	"normalize_ids": func(req map[string]any) (any, error, bool) {
		f, ok1 := str(req, "format")
		target, ok2 := str(req, "target")
		msgs, ok3 := arr(req, "messages")
		if !ok1 || !ok2 || !ok3 || !present(req, "format") && target == "" {
			return nil, nil, false
		}
		if !present(req, "format") {
			f = string(transcript.ListFormat(target)) // the op's default: the target's own lists
		}
		out, m, err := NormalizeIDs(Format(f), target, msgs)
		if err != nil {
			return nil, err, true
		}
		return map[string]any{"messages": out, "id_map": idMapValue(m)}, nil, true
	},
	"convert": func(req map[string]any) (any, error, bool) {
		from, ok1 := str(req, "from")
		to, ok2 := str(req, "to")
		msgs, ok3 := arr(req, "messages")
		opts, err := transcriptOptions(req)
		if !ok1 || !ok2 || !ok3 || err != nil {
			return nil, nil, false
		}
		c, err := ConvertWith(Format(from), Format(to), msgs, opts)
		if err != nil {
			return nil, err, true
		}
		return conversionValue(c, "messages", c.Messages), nil, true
	},
	"retry": func(req map[string]any) (any, error, bool) {
		ev, ok1 := req["error"]
		attempt, ok2 := num(req, "attempt")
		draw, ok3 := num(req, "draw")
		if !ok1 || !ok2 || !ok3 || !present(req, "attempt") || attempt != float64(int(attempt)) || !present(req, "draw") {
			return nil, nil, false
		}
		e, err := envelope.FromValue(ev, "error")
		if err != nil {
			return nil, nil, false
		}
		p, err := decide.ReadRetryPolicy(req, "policy")
		if err != nil {
			return nil, nil, false
		}
		d, err := Retry(e, int(attempt), p, draw)
		if err != nil {
			return nil, err, true
		}
		return d.Value(), nil, true
	},
}

func present(req map[string]any, k string) bool { _, ok := req[k]; return ok }

// str returns req[k] as a string ("" when absent); ok is false for another type.
func str(req map[string]any, k string) (string, bool) {
	v, has := req[k]
	if !has || v == nil {
		return "", true
	}
	s, ok := v.(string)
	return s, ok
}

func num(req map[string]any, k string) (float64, bool) {
	v, has := req[k]
	if !has || v == nil {
		return 0, true
	}
	f, ok := v.(float64)
	return f, ok
}

// arr returns req[k] as an array; ok is false when absent or of another type.
func arr(req map[string]any, k string) ([]any, bool) {
	a, ok := req[k].([]any)
	return a, ok
}

// TestTypedAPI_agreesWithOps: for every fixture of an op with a typed Go
// function, the function gives the same result, or the same error (path,
// op and wording), as Invoke; requests the Go types cannot express are
// skipped and counted.
func TestTypedAPI_agreesWithOps(t *testing.T) {
	for op, call := range typedCalls {
		agreesWithOp(t, op, call)
	}
}

// agreesWithOp runs every fixture of op whose request is a JSON object
// through call (the typed Go API, the request decoded by type assertion
// alone, the reply encoded as the op encodes it) and through Invoke, and
// fails t unless both give the same reply, or the same error (path, op and
// wording). call's ok false is a request the Go types cannot express,
// skipped and counted; t fails when no fixture is compared.
func agreesWithOp(t *testing.T, op string, call func(req map[string]any) (any, error, bool)) {
	t.Helper()
	compared, skipped := 0, 0
	for _, ft := range fixtureTests(t, op) {
		v, err := canonical.Parse(ft.Request)
		if err != nil {
			continue
		}
		req, ok := v.(map[string]any)
		if !ok {
			continue
		}
		want := Invoke(ft.Request)
		res, err, ok := call(req)
		if !ok {
			skipped++
			continue
		}
		var got []byte
		if err != nil {
			got = badRequest(requestError(op, err))
		} else {
			got, err = canonical.Marshal(map[string]any{"ok": res})
			require.NoError(t, err)
		}
		require.Equal(t, string(want), string(got), "%s: %s / %s", ft.File, ft.Case, ft.Test)
		compared++
	}
	require.NotZero(t, compared, op)
	t.Logf("%s: %d fixtures compared, %d not expressible in Go types", op, compared, skipped)
}

// TestOpTable_fixtures: every op of the table has conformance fixtures, and
// every fixture folder names an op of the table (adapters, edge, invalid_input
// and optional hold fixtures of several ops).
func TestOpTable_fixtures(t *testing.T) {
	known := map[string]bool{}
	for _, o := range Ops() {
		require.False(t, known[o.Name], "op %s listed twice", o.Name)
		known[o.Name] = true
		files, err := filepath.Glob(filepath.Join("..", "conformance", "fixtures", o.Name, "*.json"))
		require.NoError(t, err)
		require.NotEmpty(t, files, "op %s has no fixtures", o.Name)
	}
	dirs, err := os.ReadDir(filepath.Join("..", "conformance", "fixtures"))
	require.NoError(t, err)
	for _, d := range dirs {
		switch d.Name() {
		case "adapters", "edge", "invalid_input", "optional":
			continue
		}
		require.True(t, !d.IsDir() || known[d.Name()], "fixtures/%s names no op", d.Name())
	}
}

// bodyCalls are the body form of the transcript ops through the typed Go
// API (CheckBody, RepairBody, ...); a request with both "body" and
// "messages" has no Go form.
var bodyCalls = map[string]func(req, body map[string]any) (any, error){
	"check": func(req, body map[string]any) (any, error) {
		f, _ := str(req, "format")
		opts, err := transcriptOptions(req)
		if err != nil {
			return nil, err
		}
		fs, err := CheckBody(Format(f), body, opts)
		if err != nil {
			return nil, err
		}
		return map[string]any{"findings": findingsValue(fs)}, nil
	},
	"repair": func(req, body map[string]any) (any, error) {
		f, _ := str(req, "format")
		opts, err := transcriptOptions(req)
		if err != nil {
			return nil, err
		}
		out, ch, err := RepairBody(Format(f), body, opts)
		if err != nil {
			return nil, err
		}
		return map[string]any{"body": out, "changes": changesValue(ch)}, nil
	},
	"trim": func(req, body map[string]any) (any, error) {
		f, _ := str(req, "format")
		mc, _ := num(req, "max_chars")
		mm, _ := num(req, "max_messages")
		out, n, err := TrimBody(Format(f), body, int(mc), int(mm))
		if err != nil {
			return nil, err
		}
		return map[string]any{"body": out, "dropped": n}, nil
	},
	"normalize_ids": func(req, body map[string]any) (any, error) {
		f, _ := str(req, "format")
		target, _ := str(req, "target")
		if !present(req, "format") {
			f = string(transcript.ListFormat(target))
		}
		out, m, err := NormalizeIDsBody(Format(f), target, body)
		if err != nil {
			return nil, err
		}
		return map[string]any{"body": out, "id_map": idMapValue(m)}, nil
	},
	"convert": func(req, body map[string]any) (any, error) {
		from, _ := str(req, "from")
		to, _ := str(req, "to")
		opts, err := transcriptOptions(req)
		if err != nil {
			return nil, err
		}
		c, err := ConvertBody(Format(from), Format(to), body, opts)
		if err != nil {
			return nil, err
		}
		return conversionValue(Conversion{IDMap: c.IDMap, NameMap: c.NameMap, Notes: c.Notes}, "body", c.Body), nil
	},
}

func init() {
	for op, viaBody := range bodyCalls {
		list, viaBody := typedCalls[op], viaBody
		typedCalls[op] = func(req map[string]any) (any, error, bool) {
			bv, has := req["body"]
			if !has {
				return list(req)
			}
			body, ok := bv.(map[string]any)
			if _, both := req["messages"]; both || !ok {
				return nil, nil, false
			}
			r, err := viaBody(req, body)
			return r, err, true
		}
	}
}
