package egress

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/toolerr/toolerr/core"
)

// MaxContentCodings is the most content codings DecodeBody undoes on one
// body; a Content-Encoding listing more is refused (ErrContentCoding).
const MaxContentCodings = 4

// ErrContentCoding is matched (errors.Is) by DecodeBody's error for a
// Content-Encoding it cannot undo: a coding other than gzip, x-gzip,
// deflate and identity (br, zstd, compress, ...), or more than
// MaxContentCodings of them.
var ErrContentCoding = errors.New("egress: a content coding toolerr does not decode")

// AcceptEncoding is the Accept-Encoding toolerr sends upstream in place of
// its caller's (egress.Transport, the gateway): gzip, the one coding every
// provider API serves (RFC 9110, 12.5.3). It is asked for by name, not left
// to net/http's Transport (which asks for gzip when the header is absent
// and then decodes the body itself, its errors those of compress/gzip), so
// that the body comes back in its coding and DecodeBody undoes it: bytes
// that are not gzip are then an error matching ErrContentCoding, told from
// a connection cut. Shared: set it, never append to it.
var AcceptEncoding = []string{"gzip"}

// DecodeBody returns a reader of body with the content codings of h's
// Content-Encoding undone, last applied first (RFC 9110, 8.4: the header
// lists them in the order applied): gzip and x-gzip (RFC 1952), deflate
// (the zlib format of RFC 1950, as RFC 9110, 8.4.1.2 defines it), identity
// (nothing). coded is false, and body returned as it is, when h names no
// coding but identity. The reader decodes as it is read: a body that is
// not what its coding says (a bad header or checksum, one that ends inside
// a coding's stream) is a Read error matching ErrContentCoding, wrapping
// the decoder's (gzip.ErrHeader, zlib.ErrHeader, io.ErrUnexpectedEOF); a
// Read error of body itself (a connection cut) is returned as it is.
// Closing it closes body.
//
// err matches ErrContentCoding for a coding it cannot undo (then body is
// returned as it is, unread): the bytes cannot be read as what they encode.
func DecodeBody(h http.Header, body io.ReadCloser) (r io.ReadCloser, coded bool, err error) {
	codings, err := contentCodings(h)
	if err != nil || len(codings) == 0 {
		return body, false, err
	}
	return &decodedBody{src: body, codings: codings}, true, nil
}

// DecodeResponse makes resp's body its decoded content when a content
// coding is left on it (one its transport did not undo: x-gzip, deflate,
// or gzip from a transport that does not ask for it), as DecodeBody reads
// it: Content-Encoding and Content-Length are dropped and ContentLength is
// -1, as net/http's Transport leaves a body it decoded. err matches
// ErrContentCoding for a coding it cannot undo; resp is then unchanged.
func DecodeResponse(resp *http.Response) error {
	body, coded, err := DecodeBody(resp.Header, resp.Body)
	if err != nil || !coded {
		return err
	}
	resp.Body = body
	resp.Header.Del("Content-Encoding")
	resp.Header.Del("Content-Length")
	resp.ContentLength = -1
	resp.Uncompressed = true
	return nil
}

// contentCodings returns the codings of h's Content-Encoding (every field
// line, comma-separated lists) in the order applied, lower-cased, identity
// left out.
func contentCodings(h http.Header) ([]string, error) {
	var codings []string
	for _, v := range h.Values("Content-Encoding") {
		for c := range strings.SplitSeq(v, ",") {
			c = strings.ToLower(strings.TrimSpace(c))
			switch c {
			case "", "identity":
				continue
			case "gzip", "x-gzip", "deflate":
			default:
				return nil, fmt.Errorf("%w: %.32q", ErrContentCoding, c)
			}
			if len(codings) == MaxContentCodings {
				return nil, fmt.Errorf("%w: more than %d codings", ErrContentCoding, MaxContentCodings)
			}
			codings = append(codings, c)
		}
	}
	return codings, nil
}

// decodedBody is DecodeBody's reader: the decoders are made at the first
// Read, so that a body's first bytes (a coding's header) are waited for
// by its reader, not by DecodeBody.
type decodedBody struct {
	src     io.ReadCloser
	srcErr  error     // src's last Read error
	codings []string  // in the order applied
	r       io.Reader // the decoded content; nil before the first Read
	err     error     // the error of making the decoders
}

func (d *decodedBody) Read(p []byte) (int, error) {
	if d.r == nil && d.err == nil {
		var r io.Reader = srcReader{d}
		for i := len(d.codings) - 1; i >= 0 && d.err == nil; i-- {
			if d.codings[i] == "deflate" {
				r, d.err = zlib.NewReader(r)
			} else {
				r, d.err = gzip.NewReader(r)
			}
		}
		d.r = r
	}
	n, err := 0, d.err
	if err == nil {
		n, err = d.r.Read(p)
	}
	switch {
	case err == nil || err == io.EOF:
	case d.srcErr != nil && d.srcErr != io.EOF:
		err = d.srcErr // the body's own failure, whatever the decoder made of it
	default:
		err = fmt.Errorf("%w: %w", ErrContentCoding, err)
	}
	return n, err
}

// srcReader reads d.src, keeping its last error.
type srcReader struct{ d *decodedBody }

func (s srcReader) Read(p []byte) (int, error) {
	n, err := s.d.src.Read(p)
	if err != nil {
		s.d.srcErr = err
	}
	return n, err
}

// Close closes the body as it came.
func (d *decodedBody) Close() error { return d.src.Close() }

// decodeAll returns the content of raw, a body sent with header h, its
// content codings undone (DecodeBody), at most core.MaxRequestBytes of it;
// raw itself, coded false, when h names no coding. err is DecodeBody's or a
// Read's, or errContentTooLarge.
func decodeAll(h http.Header, raw []byte) (content []byte, coded bool, err error) {
	if _, has := h["Content-Encoding"]; !has { // most bodies: no reader made
		return raw, false, nil
	}
	r, coded, err := DecodeBody(h, io.NopCloser(bytes.NewReader(raw)))
	if err != nil || !coded {
		return raw, coded, err
	}
	content, err = io.ReadAll(io.LimitReader(r, core.MaxRequestBytes+1))
	if err == nil && len(content) > core.MaxRequestBytes {
		err = errContentTooLarge
	}
	return content, true, err
}

var errContentTooLarge = errors.New("egress: a decoded body past core.MaxRequestBytes")
