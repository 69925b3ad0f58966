package gateway

import (
	"io"
	"net/http"
	"net/textproto"
	"strings"
)

// hopTransport is the proxy's Transport: rt's responses with their
// hop-by-hop trailer fields dropped. RFC 9110, 7.6.1: a field the
// Connection header names, and the hop-by-hop fields themselves, are for
// the one connection and must not be forwarded; ReverseProxy drops such
// header fields (before ModifyResponse, the Connection header with them)
// but forwards every trailer field the upstream sends, announced or not.
// The Connection header is read here, while the response still holds it.
//
// A body of known length over HTTP/1 (the common JSON answer) can carry
// no trailer and is passed as it came, unwrapped; the others (chunked, a
// stream, HTTP/2) are read through a hopBody.
type hopTransport struct{ rt http.RoundTripper }

func (t hopTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.rt.RoundTrip(r)
	if err != nil || resp == nil || resp.StatusCode < 200 || resp.Body == nil || resp.Body == http.NoBody {
		return resp, err
	}
	if len(resp.Trailer) == 0 && resp.ContentLength >= 0 && resp.ProtoMajor < 2 {
		return resp, nil
	}
	conn := resp.Header["Connection"]
	dropHopFields(resp.Trailer, conn) // announced: the proxy announces what is left to the client
	resp.Body = &hopBody{ReadCloser: resp.Body, resp: resp, conn: conn}
	return resp, nil
}

// hopBody is a response body whose trailers, filled in by the transport
// when the body ends, lose their hop-by-hop fields then (at io.EOF and at
// Close), before ReverseProxy copies them to the client.
type hopBody struct {
	io.ReadCloser
	resp *http.Response
	conn []string // the upstream's Connection header
}

func (b *hopBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF { //nolint:errorlint // Read returns io.EOF itself
		dropHopFields(b.resp.Trailer, b.conn)
	}
	return n, err
}

func (b *hopBody) Close() error {
	err := b.ReadCloser.Close()
	dropHopFields(b.resp.Trailer, b.conn)
	return err
}

// hopFields are the hop-by-hop fields RFC 9110 names (7.6.1: Connection,
// Proxy-Connection, Keep-Alive, TE, Transfer-Encoding, Upgrade) with
// Trailer, which only a message's header may hold (6.6.2); any Proxy-*
// field goes too (dropHopFields).
var hopFields = [...]string{"Connection", "Proxy-Connection", "Keep-Alive", "Te", "Transfer-Encoding", "Upgrade", "Trailer"}

// dropHopFields deletes from h (nil: none) the fields conn, the values of
// a Connection header, names, and the hop-by-hop fields.
func dropHopFields(h http.Header, conn []string) {
	if len(h) == 0 {
		return
	}
	for _, v := range conn {
		for name := range strings.SplitSeq(v, ",") {
			if name = textproto.TrimString(name); name != "" {
				h.Del(name)
			}
		}
	}
	for _, k := range hopFields {
		delete(h, k)
	}
	for k := range h {
		if strings.HasPrefix(k, "Proxy-") {
			delete(h, k)
		}
	}
}
