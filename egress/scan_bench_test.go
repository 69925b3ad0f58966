package egress

import (
	"bytes"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/toolerr/toolerr/core"
)

// cleanSSE is a clean Chat Completions stream of about 1 MiB (no errors).
func cleanSSE() []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"token %d \"}}]}\n\n", i)
	}
	return b.Bytes()
}

// cleanArray is a clean Gemini array stream of about 1 MiB.
func cleanArray() []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i := 0; b.Len() < 1<<20; i++ {
		if i > 0 {
			b.WriteString("\r\n,")
		}
		fmt.Fprintf(&b, `{"candidates":[{"content":{"parts":[{"text":"token %d and some more text"}],"role":"model"},"index":0}],"modelVersion":"gemini-2.5-flash"}`, i)
	}
	b.WriteString("\r\n]")
	return b.Bytes()
}

// BenchmarkStreamReader_clean: a clean 1 MiB stream read through the
// reader in 16 KiB upstream reads, the bytes checked once.
func BenchmarkStreamReader_clean(b *testing.B) {
	for _, bc := range []struct {
		name string
		src  []byte
		read func(io.ReadCloser, StreamConfig) io.ReadCloser
	}{{"sse", cleanSSE(), NewStreamReader}, {"array", cleanArray(), NewArrayStreamReader}} {
		b.Run(bc.name, func(b *testing.B) {
			conf := StreamConfig{Ingress: core.FormatOpenAIChat, Now: func() time.Time { return time.UnixMilli(1) }}
			b.SetBytes(int64(len(bc.src)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				var ch [][]byte
				for j := 0; j < len(bc.src); j += 16 << 10 {
					ch = append(ch, bc.src[j:min(j+16<<10, len(bc.src))])
				}
				out, err := io.ReadAll(bc.read(&chunkReader{ch}, conf))
				if err != nil || len(out) != len(bc.src) {
					b.Fatal(err, len(out))
				}
			}
		})
	}
}
