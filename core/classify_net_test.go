package core_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core"
)

// TestClassifyError_serverClosedBeforeAnswering checks the error net/http's
// client returns when a server on loopback accepts the connection and closes
// it without a byte of answer (`Post "http://127.0.0.1:port/v1": EOF`): the connection
// failed under the request, a retryable TRANSPORT with cause connection_reset
// as Node's "socket hang up" for the same server, not UNEXPECTED_STATUS.
func TestClassifyError_serverClosedBeforeAnswering(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			// the request read whole first, so that the close is a FIN (the
			// client reads EOF), not a reset for bytes left unread
			if req, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
				_, _ = io.Copy(io.Discard, req.Body)
			}
			c.Close()
		}
	}()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Post("http://"+ln.Addr().String()+"/v1/messages", "application/json", strings.NewReader(`{}`))
	if resp != nil {
		resp.Body.Close()
	}
	require.Error(t, err)
	require.True(t, strings.HasSuffix(err.Error(), `": EOF`), err.Error())
	e := core.ClassifyError(err, core.ClassifyOptions{Source: core.SourceProvider})
	assert.Equal(t, core.CodeTransport, e.Code, err.Error())
	assert.True(t, e.Retryable)
	assert.Equal(t, "connection_reset", e.Details["cause"])
}
