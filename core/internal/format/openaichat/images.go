package openaichat

import (
	"strconv"
	"strings"

	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// DataURL returns image block b as an RFC 2397 data URL,
// "data:<media type>;base64,<data>", the form OpenAI's image_url and
// input_image accept for inline images.
//
// See OpenAI OpenAPI ChatCompletionRequestMessageContentPartImage
// and InputImageContentParamAutoParam.
func DataURL(b outcome.Block) string {
	return "data:" + b.MediaType + ";base64," + b.Data
}

// ParseDataURL returns the image block in a base64 data URL written by
// DataURL, and false for anything else: an http URL, a data URL that is not
// base64, a media type other than image/png, image/jpeg, image/gif and
// image/webp (the types OpenAI takes), data that is not standard base64.
func ParseDataURL(u string) (outcome.Block, bool) {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return outcome.Block{}, false
	}
	mt, data, ok := strings.Cut(rest, ";base64,")
	if _, known := outcome.ImageFormat(mt); !ok || !known || !outcome.ValidBase64(data) {
		return outcome.Block{}, false
	}
	return outcome.Block{Type: "image", MediaType: mt, Data: data}, true
}

// ImageNote returns the line a tool message ends with when its n images
// (n >= 1) travel in the user message that follows (BerriAI/litellm#6953: an image
// a target cannot carry is never dropped silently; the text says where it is).
func ImageNote(n int) string {
	if n == 1 {
		return "[1 image from this tool result is attached in the next message]"
	}
	return "[" + strconv.Itoa(n) + " images from this tool result are attached in the next message]"
}

// ImageCaption returns the text part placed before image k (1-based) of n of
// tool call id in the user message that carries the images.
func ImageCaption(id string, k, n int) string {
	return "Image " + strconv.Itoa(k) + " of " + strconv.Itoa(n) + " from tool call " + id + ":"
}

// captionCallID returns the call id named by a caption ImageCaption wrote,
// and false for any other text.
func captionCallID(s string) (string, bool) {
	rest, ok := strings.CutPrefix(s, "Image ")
	if !ok {
		return "", false
	}
	nums, id, ok := strings.Cut(rest, " from tool call ")
	if !ok || !strings.HasSuffix(id, ":") {
		return "", false
	}
	id = id[:len(id)-1]
	k, n, ok := strings.Cut(nums, " of ")
	if !ok || id == "" {
		return "", false
	}
	ki, err1 := strconv.Atoi(k)
	ni, err2 := strconv.Atoi(n)
	if err1 != nil || err2 != nil || ki < 1 || ki > ni || ImageCaption(id, ki, ni) != s {
		return "", false
	}
	return id, true
}
