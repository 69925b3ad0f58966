package egress

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/toolerr/toolerr/core"
)

var updateStreams = flag.Bool("update-streams", false, "write the outputs of conformance/streams/*.json from this reader")

// streamCase is one case of conformance/streams/*.json, the chunkings of a
// streamed answer and the bytes the client gets for them, which every
// binding's transport runs too (see conformance/README.md, "Streams").
type streamCase struct {
	Description string            `json:"description"`
	Kind        string            `json:"kind"`
	Ingress     string            `json:"ingress"`
	Provider    string            `json:"provider,omitempty"`
	NowMs       int64             `json:"now_ms"`
	Input       []json.RawMessage `json:"input"`
	ChunkSize   int               `json:"chunk_size,omitempty"`
	EverySplit  bool              `json:"every_split,omitempty"`
	Output      []json.RawMessage `json:"output"`
	Errors      int               `json:"errors"`
}

// pieces joins a fixture's byte pieces: a string is its UTF-8 bytes,
// {"b64"} bytes in base64, {"repeat", "times"} a string repeated.
func pieces(t *testing.T, ps []json.RawMessage) []byte {
	var out []byte
	for _, p := range ps {
		var s string
		if json.Unmarshal(p, &s) == nil {
			out = append(out, s...)
			continue
		}
		var o struct {
			B64    *string `json:"b64"`
			Repeat string  `json:"repeat"`
			Times  int     `json:"times"`
		}
		require.NoError(t, json.Unmarshal(p, &o))
		if o.B64 != nil {
			b, err := base64.StdEncoding.DecodeString(*o.B64)
			require.NoError(t, err)
			out = append(out, b...)
			continue
		}
		out = append(out, strings.Repeat(o.Repeat, o.Times)...)
	}
	return out
}

// chunkings are the ways a case's input is cut into reads: whole (or in
// chunk_size pieces, for an input past MaxEventBytes: whether a frame just
// past it is held whole depends on where its reads end), and with
// every_split at each byte in two and a byte at a time.
func (c streamCase) chunkings(in []byte) [][][]byte {
	out := [][][]byte{{in}}
	if c.ChunkSize > 0 {
		var ch [][]byte
		for i := 0; i < len(in); i += c.ChunkSize {
			ch = append(ch, in[i:min(i+c.ChunkSize, len(in))])
		}
		out = [][][]byte{ch}
	}
	if c.EverySplit {
		for i := 1; i < len(in); i++ {
			out = append(out, [][]byte{in[:i], in[i:]})
		}
		var ch [][]byte
		for i := range in {
			ch = append(ch, in[i:i+1])
		}
		out = append(out, ch)
	}
	return out
}

// chunkReader returns its chunks one per Read.
type chunkReader struct{ chunks [][]byte }

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.chunks[0])
	if r.chunks[0] = r.chunks[0][n:]; len(r.chunks[0]) == 0 {
		r.chunks = r.chunks[1:]
	}
	return n, nil
}

func (r *chunkReader) Close() error { return nil }

// TestStreamFixtures: every case of conformance/streams/*.json, in every
// chunking, gives the client its output bytes and reports its errors.
func TestStreamFixtures(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "conformance", "streams", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		raw, err := os.ReadFile(file)
		require.NoError(t, err)
		var cases []streamCase
		require.NoError(t, json.Unmarshal(raw, &cases))
		for i, c := range cases {
			t.Run(strings.TrimSuffix(filepath.Base(file), ".json")+"/"+strings.ReplaceAll(c.Description, " ", "_"), func(t *testing.T) {
				in := pieces(t, c.Input)
				var first []byte
				for _, ch := range c.chunkings(in) {
					got, errs := readFixture(c, ch)
					if first == nil {
						first = got
						if *updateStreams {
							cases[i].Output, cases[i].Errors = outputPieces(got), errs
						}
					}
					if !*updateStreams {
						require.True(t, bytes.Equal(pieces(t, c.Output), got), "%d chunks: %.200q", len(ch), got)
						require.Equal(t, c.Errors, errs, "%d chunks", len(ch))
					}
					require.True(t, bytes.Equal(first, got), "the output does not depend on the chunking (%d chunks)", len(ch))
				}
			})
		}
		if *updateStreams {
			b, err := json.MarshalIndent(cases, "", " ")
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(file, append(b, '\n'), 0o644))
		}
	}
}

// readFixture reads c's stream in the chunks ch through the reader of its
// kind: the client's bytes and the errors reported.
func readFixture(c streamCase, ch [][]byte) ([]byte, int) {
	cp := make([][]byte, len(ch))
	copy(cp, ch)
	errs := 0
	conf := StreamConfig{Ingress: core.Format(c.Ingress), Options: core.EgressOptions{Upstream: c.Provider},
		Now: func() time.Time { return time.UnixMilli(c.NowMs) }, OnError: func(core.ErrorReply) { errs++ }}
	var r io.ReadCloser
	if c.Kind == core.ScanSSE {
		r = NewStreamReader(&chunkReader{cp}, conf)
	} else {
		r = NewArrayStreamReader(&chunkReader{cp}, conf)
	}
	got, _ := io.ReadAll(r)
	return got, errs
}

// outputPieces writes b as fixture pieces: UTF-8 as a string, runs of one
// byte past 64 as a repeat, anything else in base64.
func outputPieces(b []byte) []json.RawMessage {
	var out []json.RawMessage
	add := func(v any) {
		j, _ := json.Marshal(v)
		out = append(out, j)
	}
	for len(b) > 0 {
		n := 1
		for n < len(b) && b[n] == b[0] {
			n++
		}
		if n > 64 {
			add(map[string]any{"repeat": string(b[:1]), "times": n})
			b = b[n:]
			continue
		}
		end := 0
		for end < len(b) {
			m := 1
			for end+m < len(b) && b[end+m] == b[end] {
				m++
			}
			if m > 64 {
				break
			}
			end += m
		}
		if s := b[:end]; isUTF8(s) {
			add(string(s))
		} else {
			add(map[string]any{"b64": base64.StdEncoding.EncodeToString(s)})
		}
		b = b[end:]
	}
	return out
}

func isUTF8(b []byte) bool {
	return strings.ToValidUTF8(string(b), "\uFFFD") == string(b) && !bytes.ContainsRune(b, 0xFFFD)
}
