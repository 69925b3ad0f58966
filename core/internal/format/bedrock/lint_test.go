package bedrock

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestStatusSupported: toolResult.status goes to Amazon Nova and Anthropic
// Claude 3 and 4 models (service model ToolResultBlock.status), whatever
// form the model id takes; other providers' models and Claude 2 take none;
// an id toolerr cannot place keeps the default (sent).
func TestStatusSupported(t *testing.T) {
	for model, want := range map[string]bool{
		"":                                       true,
		"amazon.nova-micro-v1:0":                 true,
		"us.amazon.nova-pro-v1:0":                true,
		"anthropic.claude-3-haiku-20240307-v1:0": true,
		"anthropic.claude-3-5-sonnet-20240620-v1:0":                                          true,
		"us.anthropic.claude-3-7-sonnet-20250219-v1:0":                                       true,
		"us.anthropic.claude-sonnet-4-5-20250929-v1:0":                                       true,
		"anthropic.claude-opus-4-1-20250805-v1:0":                                            true,
		"arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-haiku-20240307-v1:0": true,
		"anthropic.claude-v2:1":                                                              false,
		"anthropic.claude-instant-v1":                                                        false,
		"meta.llama3-1-70b-instruct-v1:0":                                                    false,
		"us.meta.llama3-2-90b-instruct-v1:0":                                                 false,
		"mistral.mistral-large-2407-v1:0":                                                    false,
		"cohere.command-r-plus-v1:0":                                                         false,
		"amazon.titan-text-premier-v1:0":                                                     false,
		"arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123":        true,
	} {
		assert.Equal(t, want, StatusSupported(model), model)
	}
}

// TestS3URI: the matcher of S3Uri's pattern
// s3://[a-z0-9][\.\-a-z0-9]{1,61}[a-z0-9](/.*)?
func TestS3URI(t *testing.T) {
	for uri, want := range map[string]bool{
		"s3://bucket-name/dummy.pdf": true,
		"s3://abc":                   true,
		"s3://ab":                    false,
		"s3://-bucket/x":             false,
		"s3://Bucket/x":              false,
		"http://bucket/x":            false,
		"s3://bucket.name":           true,
	} {
		assert.Equal(t, want, s3URI(uri), uri)
	}
}
