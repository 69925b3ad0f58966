package gateway

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGateway_defaultTransportKeepsConnections: with the default Transport,
// bursts of concurrent requests reuse the connections of the first burst
// instead of dialing the upstream again (net/http keeps only
// DefaultMaxIdleConnsPerHost = 2 idle connections per host unless told
// otherwise, which made the gateway dial 7,055 connections for 10,000
// requests at concurrency 64 in `make bench`).
func TestGateway_defaultTransportKeepsConnections(t *testing.T) {
	var dials atomic.Int64
	up := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"x","object":"chat.completion","choices":[]}`)
	}))
	up.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dials.Add(1)
		}
	}
	up.Start()
	t.Cleanup(up.Close)
	g, err := New(Config{Upstreams: map[string]string{FamilyOpenAI: up.URL}, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)

	const width, bursts = 8, 5
	body := minimalBody(FamilyOpenAI)
	for range bursts {
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range width {
			wg.Go(func() {
				<-start
				req := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				w := httptest.NewRecorder()
				g.ServeHTTP(w, req)
				assert.Equal(t, http.StatusOK, w.Code)
			})
		}
		close(start)
		wg.Wait()
		time.Sleep(20 * time.Millisecond) // the transport returns a connection to its pool after the body's EOF
	}
	// At most one burst's worth of connections (each request of a burst may
	// have needed its own), and never the 2-per-host pool's
	// width + (bursts-1)*(width-2).
	assert.LessOrEqual(t, dials.Load(), int64(width), "connections dialed for %d bursts of %d requests", bursts, width)
}
