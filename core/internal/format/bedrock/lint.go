package bedrock

import (
	"strconv"
	"strings"

	"github.com/toolerr/toolerr/core/internal/format/dialect"
)

// limits are the bounds the Converse service model puts on the members of
// a Message (botocore bedrock-runtime 2023-09-30 service-2.json, the shapes
// named in each row), checked on every message of a list.
// TestLint_everySpecBoundIsChecked walks that service model and proves each
// bound is here and is reported.
var limits = dialect.Compile(buildLimits())

// The patterns of the service model's string shapes, as matchers (the core
// has no regexp package).
var (
	toolName = func(s string) bool { return allOf(s, dialect.IsWord) } // ToolName [a-zA-Z0-9_-]+
	digits12 = func(s string) bool { return len(s) == 12 && allOf(s, isDigit) }
)

func buildLimits() []dialect.Limit {
	n := dialect.NoBound
	chars := func(path string, min, max int, schema string) dialect.Limit {
		return dialect.Limit{Path: path, Min: min, Max: max, Unit: dialect.Chars, Schema: schema}
	}
	ls := []dialect.Limit{
		{Path: "content[].toolUse.name", Min: 1, Max: 64, Unit: dialect.Chars, Match: toolName, Pattern: "[a-zA-Z0-9_-]+", Schema: "ToolName", Kind: dialect.FindInvalidName},
	}
	// media sources, in a message and inside a toolResult's content
	for _, at := range []string{"content[]", "content[].toolResult.content[]"} {
		for _, media := range []string{"image", "document", "video", "audio"} {
			if at != "content[]" && media == "audio" {
				continue // ToolResultContentBlock has no audio member
			}
			src := at + "." + media + ".source"
			ls = append(ls,
				chars(src+".bytes", 1, n, strings.ToUpper(media[:1])+media[1:]+"SourceBytesBlob"),
				dialect.Limit{Path: src + ".s3Location.uri", Min: 1, Max: 1024, Unit: dialect.Chars, Match: s3URI, Pattern: `s3://[a-z0-9][\.\-a-z0-9]{1,61}[a-z0-9](/.*)?`, Schema: "S3Uri"},
				dialect.Limit{Path: src + ".s3Location.bucketOwner", Min: n, Max: n, Unit: dialect.Chars, Match: digits12, Pattern: "[0-9]{12}", Schema: "AccountId"},
			)
		}
		ls = append(ls, chars(at+".document.name", 1, 200, "DocumentBlockNameString"))
	}
	ls = append(ls, chars("content[].guardContent.image.source.bytes", 1, n, "GuardrailConverseImageSourceBytesBlob"))
	for _, loc := range []string{"documentChar", "documentPage", "documentChunk"} {
		for _, f := range []string{"documentIndex", "start", "end"} {
			ls = append(ls, dialect.Limit{Path: "content[].citationsContent.citations[].location." + loc + "." + f, Min: 0, Max: n, Unit: dialect.Value, Schema: "CitationLocation." + loc})
		}
	}
	for _, f := range []string{"searchResultIndex", "start", "end"} {
		ls = append(ls, dialect.Limit{Path: "content[].citationsContent.citations[].location.searchResultLocation." + f, Min: 0, Max: n, Unit: dialect.Value, Schema: "SearchResultLocation"})
	}
	for _, block := range []string{"toolAddition", "toolRemoval"} {
		ls = append(ls,
			chars("content[]."+block+".tool.type", 1, 64, "ToolReferenceTypeString"),
			chars("content[]."+block+".tool.name", 1, 128, "ToolReferenceNameString"),
			chars("content[]."+block+".tool.serverName", 1, 128, "ToolReferenceServerNameString"),
		)
	}
	return ls
}

// s3URI reports whether s matches s3://[a-z0-9][\.\-a-z0-9]{1,61}[a-z0-9](/.*)?
func s3URI(s string) bool {
	rest, ok := strings.CutPrefix(s, "s3://")
	if !ok {
		return false
	}
	bucket, _, _ := strings.Cut(rest, "/")
	if len(bucket) < 3 || len(bucket) > 63 {
		return false
	}
	lowerAlnum := func(c byte) bool { return c >= 'a' && c <= 'z' || isDigit(c) }
	return lowerAlnum(bucket[0]) && lowerAlnum(bucket[len(bucket)-1]) &&
		allOf(bucket, func(c byte) bool { return lowerAlnum(c) || c == '.' || c == '-' })
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// allOf reports whether every byte of s passes ok.
func allOf(s string, ok func(c byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

// lint checks one Converse message: the service model's bounds, and what
// the model the list is for does not take (see modelTakes).
func lint(d *dialect.Dialect, msgs []dialect.Message, i int) []dialect.Issue {
	out := dialect.CheckLimits(msgs[i].Raw, limits)
	if d.Model != "" || len(d.Caps) > 0 {
		out = append(out, unsupported(d, msgs[i].Raw)...)
	}
	return out
}

// Family is what toolerr knows of a Bedrock model id: whether it is an
// Amazon Nova model, an Anthropic Claude model and its generation, or
// another model of a provider Bedrock hosts. An id it cannot place (an
// application inference profile ARN, a custom model) is unknown.
type Family struct {
	Nova, Claude, Known bool
	ClaudeGen           int
}

// FamilyOf places a Bedrock model id (as modelId takes it: a base model id
// such as anthropic.claude-sonnet-4-5-20250929-v1:0, a cross-region
// inference profile such as us.amazon.nova-pro-v1:0, or a foundation-model
// ARN ending in one).
//
// See https://docs.aws.amazon.com/bedrock/latest/userguide/models-supported.html.
func FamilyOf(model string) Family {
	m := model
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	var f Family
	switch {
	case strings.Contains(m, "amazon.nova"):
		f.Nova, f.Known = true, true
	case strings.Contains(m, "anthropic.claude-"):
		f.Claude, f.Known = true, true
		rest := m[strings.Index(m, "anthropic.claude-")+len("anthropic.claude-"):]
		for _, g := range []string{"3", "4", "5"} {
			if strings.HasPrefix(rest, g+"-") || strings.HasPrefix(rest, g+".") {
				f.ClaudeGen = int(g[0] - '0')
			}
			for _, tier := range []string{"opus-", "sonnet-", "haiku-"} {
				if strings.HasPrefix(rest, tier+g) {
					f.ClaudeGen = int(g[0] - '0')
				}
			}
		}
		if f.ClaudeGen == 0 {
			f.ClaudeGen = 2 // claude-v2, claude-instant-v1
		}
	default:
		// a base model id is <provider>.<model>, perhaps behind a region prefix
		for _, p := range []string{"amazon.", "meta.", "mistral.", "cohere.", "ai21.", "deepseek.", "qwen.", "openai.", "writer.", "twelvelabs.", "stability.", "luma."} {
			if strings.Contains(m, p) {
				f.Known = true
			}
		}
	}
	return f
}

// StatusSupported reports whether the model takes toolResult.status: "This
// field is only supported by Amazon Nova and Anthropic Claude 3 and 4
// models" (service model ToolResultBlock.status); other models answer a
// ValidationException ("This model doesn't support the status field"). An
// id toolerr cannot place, or none, keeps the default: status is sent.
func StatusSupported(model string) bool {
	f := FamilyOf(model)
	return !f.Known || f.Nova || f.Claude && f.ClaudeGen >= 3
}

// unsupported lists the blocks of raw (a message) the model does not take:
// a video block for a Claude model (Bedrock answers "This model doesn't
// support the video content block that you provided"), an Amazon S3
// location for a model other than Nova (the "Amazon S3 links for
// multimedia" column of
// https://docs.aws.amazon.com/bedrock/latest/userguide/conversation-inference-supported-models-features.html),
// and a toolResult status for a model that does not take it.
func unsupported(d *dialect.Dialect, raw any) []dialect.Issue {
	f := FamilyOf(d.Model)
	m, _ := raw.(map[string]any)
	content, _ := m["content"].([]any)
	var out []dialect.Issue
	for j, b := range content {
		bm, _ := b.(map[string]any)
		at := "content[" + strconv.Itoa(j) + "]"
		if tr, ok := bm["toolResult"].(map[string]any); ok {
			if _, has := tr["status"]; has && !StatusOn(d) {
				out = append(out, dialect.Issue{Kind: dialect.FindUnsupportedMember, Path: at + ".toolResult.status", Text: "This model does not take toolResult.status (Amazon Nova and Anthropic Claude 3 and 4 models do); leave it out and keep the failure in the content."})
			}
			inner, _ := tr["content"].([]any)
			for k, c := range inner {
				cm, _ := c.(map[string]any)
				out = append(out, unsupportedMedia(f, cm, at+".toolResult.content["+strconv.Itoa(k)+"]")...)
			}
		}
		out = append(out, unsupportedMedia(f, bm, at)...)
	}
	return out
}

// unsupportedMedia lists the media of block b (at path at) that the model
// family f does not take.
func unsupportedMedia(f Family, b map[string]any, at string) []dialect.Issue {
	var out []dialect.Issue
	if _, has := b["video"]; has && f.Claude {
		out = append(out, dialect.Issue{Kind: dialect.FindUnsupportedContent, Path: at + ".video", Text: "Claude models on Bedrock take no video blocks."})
	}
	for _, media := range []string{"image", "document", "video", "audio"} {
		mb, _ := b[media].(map[string]any)
		src, _ := mb["source"].(map[string]any)
		if _, has := src["s3Location"]; has && f.Known && !f.Nova {
			out = append(out, dialect.Issue{Kind: dialect.FindUnsupportedContent, Path: at + "." + media + ".source.s3Location", Text: "Only Amazon Nova models take Amazon S3 locations for media; send the bytes instead."})
		}
	}
	return out
}
