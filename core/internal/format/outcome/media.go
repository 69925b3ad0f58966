package outcome

import (
	"slices"

	"github.com/toolerr/toolerr/core/internal/field"
)

// MediaRule is what one format's tool result takes of a media block
// (Block.IsMedia), with the words toolerr gives when it takes it not: Check
// the message and member of the INVALID_INPUT a serializer returns, Why the
// reason a transcript writer names in the block's placeholder
// (dialect.Dialect.Takes). Each codec states its rule with the vendor
// source it follows; the checks run in one order for all: the URL, the
// image type, the document type, then the base64 data (a URL block has
// none).
type MediaRule struct {
	// NoURL, when not "", refuses a block given by URL: the message, at
	// member "url"; NoURLWhy is the reason. "" takes a URL as it is.
	NoURL, NoURLWhy string
	// AnyImage takes an image of any media type; otherwise only png, jpeg,
	// gif and webp (ImageFormat), and ImageWhy is the reason for another.
	AnyImage bool
	ImageWhy string
	// Documents are the media types a document may have; Document is the
	// message for another (member "media_type"), DocumentWhy the reason.
	Documents             []string
	Document, DocumentWhy string
}

// Check returns why b breaks r ("" when it does not) and the member of the
// block at fault: "url", "media_type" or "data".
func (r MediaRule) Check(b Block) (msg, member string) {
	switch {
	case b.URL != "":
		if r.NoURL == "" {
			return "", ""
		}
		return r.NoURL, "url"
	case b.Type == "image":
		if _, ok := ImageFormat(b.MediaType); !ok && !r.AnyImage {
			return "must be image/png, image/jpeg, image/gif or image/webp for this format", "media_type"
		}
	case !slices.Contains(r.Documents, b.MediaType):
		return r.Document, "media_type"
	}
	if !ValidBase64(b.Data) {
		return "must be standard base64 with padding", "data"
	}
	return "", ""
}

// Error is Check as the *field.Error of media block j of the result of
// outcome i (results[i].result.blocks[j].<member>), or nil.
func (r MediaRule) Error(i, j int, b Block) error {
	msg, member := r.Check(b)
	if msg == "" {
		return nil
	}
	return field.NewError(field.Join(field.Index(Path(i, "result.blocks"), j), member), msg)
}

// Why is the reason a tool result of the format cannot carry b, "" when it
// can.
func (r MediaRule) Why(b Block) string {
	switch msg, member := r.Check(b); {
	case msg == "":
		return ""
	case member == "url":
		return r.NoURLWhy
	case member == "data":
		return "its data is not standard base64"
	case b.Type == "image":
		return r.ImageWhy
	}
	return r.DocumentWhy
}
