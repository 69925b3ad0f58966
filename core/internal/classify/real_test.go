package classify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolerr/toolerr/core/internal/envelope"
	"github.com/toolerr/toolerr/core/internal/sharedtest"
)

// recording is the part of a shared/fixtures/real file the classifier reads.
type recording struct {
	Provider string `json:"provider"`
	Kind     string `json:"kind"`
	Response struct {
		Status  int                        `json:"status"`
		Headers map[string]json.RawMessage `json:"headers"`
		Body    json.RawMessage            `json:"body"`
	} `json:"response"`
}

func loadRecording(t *testing.T, path string) (int, Header, any, string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var rec recording
	require.NoError(t, json.Unmarshal(b, &rec))
	h := Header{}
	for k, raw := range rec.Response.Headers {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			h[k] = []string{s}
			continue
		}
		var ss []string
		require.NoError(t, json.Unmarshal(raw, &ss), "%s: header %s", path, k)
		h[k] = ss
	}
	return rec.Response.Status, h, ParseBody(rec.Response.Body), rec.Provider
}

// realErrors is every error_*.json recording in shared/fixtures/real with the
// value checked by hand against the vendor rule (docs/classify.md).
// nowMs is given only where a wait needs a clock; wait nil means absent.
var realErrors = []struct {
	file      string
	code      envelope.Code
	retryable bool
	wait      any
	nowMs     int64
	repair    string
}{
	{"anthropic/error_400_invalid_request_error_effort_pydantic_ai.json", envelope.InvalidRequest, false, nil, 0, ""},
	{"anthropic/error_400_tool_use_without_tool_result_issue.json", envelope.InvalidRequest, false, nil, 0, RepairUnansweredToolUse},
	{"anthropic/error_400_unexpected_tool_use_id_in_tool_result_issue.json", envelope.InvalidRequest, false, nil, 0, RepairOrphanToolResult},
	{"anthropic/error_404_not_found_error_count_tokens_pydantic_ai.json", envelope.NotFound, false, nil, 0, ""},
	{"anthropic/error_404_not_found_error_model_pydantic_ai.json", envelope.NotFound, false, nil, 0, ""},
	{"anthropic/error_413_invalid_request_error_context_window_issue.json", envelope.RequestTooLarge, false, nil, 0, ""},
	{"anthropic/error_413_request_too_large_issue.json", envelope.RequestTooLarge, false, nil, 0, ""},
	{"anthropic/error_429_rate_limit_error_issue.json", envelope.RateLimited, true, nil, 0, ""},
	// requests-remaining 0, reset 20:00:00Z; the Date header (19:59:59) as now: 1 s.
	{"anthropic/error_429_rate_limit_headers_only_issue.json", envelope.RateLimited, true, int64(1), 1711483199000, ""},
	{"anthropic/error_500_api_error_issue.json", envelope.ServerError, true, nil, 0, ""},
	{"anthropic/error_500_api_error_issue_2.json", envelope.ServerError, true, nil, 0, ""},
	{"anthropic/error_529_overloaded_error_issue.json", envelope.Overloaded, true, nil, 0, ""},
	{"anthropic/error_529_overloaded_error_no_request_id_issue.json", envelope.Overloaded, true, nil, 0, ""},
	{"bedrock/error_400_invalid_model_identifier_pydantic_ai.json", envelope.InvalidRequest, false, nil, 0, ""},
	{"bedrock/error_400_tool_result_content_rejected_pydantic_ai.json", envelope.InvalidRequest, false, nil, 0, ""},
	{"bedrock/error_400_unsupported_video_block_after_tool_result_pydantic_ai.json", envelope.InvalidRequest, false, nil, 0, ""},
	// 400 INVALID_ARGUMENT, but ErrorInfo reason API_KEY_INVALID: a credentials problem.
	{"gemini/error_400_api_key_invalid_crewai.json", envelope.Authentication, false, nil, 0, ""},
	{"gemini/error_400_invalid_argument_after_function_response_vertex_pydantic_ai.json", envelope.InvalidRequest, false, nil, 0, ""},
	{"gemini/error_400_invalid_role_vertex_otel.json", envelope.InvalidRequest, false, nil, 0, ""},
	{"gemini/error_401_unauthenticated_vertex_crewai.json", envelope.Authentication, false, nil, 0, ""},
	{"gemini/error_404_not_found_model_pydantic_ai.json", envelope.NotFound, false, nil, 0, ""},
	{"gemini/error_404_publisher_model_not_found_vertex_otel.json", envelope.NotFound, false, nil, 0, ""},
	{"gemini/error_429_resource_exhausted_crewai.json", envelope.RateLimited, true, nil, 0, ""},
	{"gemini/error_429_resource_exhausted_crewai_2.json", envelope.RateLimited, true, nil, 0, ""},
	// QuotaFailure per-minute quota, RetryInfo 58s.
	{"gemini/error_429_resource_exhausted_retryinfo_quotafailure_log.json", envelope.RateLimited, true, int64(58), 0, ""},
	// RetryInfo "1s" while the message says 1.309977334s: the structured field wins, text is never parsed.
	{"gemini/error_429_resource_exhausted_retryinfo_quotafailure_log_2.json", envelope.RateLimited, true, int64(1), 0, ""},
	{"gemini/error_503_unavailable_model_overloaded_issue.json", envelope.Overloaded, true, nil, 0, ""},
	{"gemini/error_503_unavailable_model_overloaded_issue_2.json", envelope.Overloaded, true, nil, 0, ""},
	{"openai_chat/error_400_context_length_exceeded_issue.json", envelope.RequestTooLarge, false, nil, 0, ""},
	{"openai_chat/error_400_context_length_exceeded_issue_2.json", envelope.RequestTooLarge, false, nil, 0, ""},
	{"openai_chat/error_400_invalid_tool_message_content_pydantic_ai.json", envelope.InvalidRequest, false, nil, 0, ""},
	// a 400 carries x-ratelimit-reset-* headers: they are no wait for a non-rate-limit error.
	{"openai_chat/error_400_missing_required_parameter_crewai.json", envelope.InvalidRequest, false, nil, 0, ""},
	{"openai_chat/error_400_unsupported_parameter_stop_crewai.json", envelope.InvalidRequest, false, nil, 0, ""},
	{"openai_chat/error_400_unsupported_value_role_pydantic_ai.json", envelope.InvalidRequest, false, nil, 0, ""},
	{"openai_chat/error_401_invalid_api_key_inner_error_issue.json", envelope.Authentication, false, nil, 0, ""},
	{"openai_chat/error_404_model_not_found_otel.json", envelope.NotFound, false, nil, 0, ""},
	{"openai_chat/error_404_model_not_found_pydantic_ai.json", envelope.NotFound, false, nil, 0, ""},
	// one request above the TPM limit: waiting cannot help.
	{"openai_chat/error_429_rate_limit_exceeded_request_too_large_tpm_issue.json", envelope.RequestTooLarge, false, nil, 0, ""},
	// a text body: the "try again in 174ms" in prose is not parsed.
	{"openai_chat/error_429_rate_limit_reached_tpm_message_only_issue.json", envelope.RateLimited, true, nil, 0, ""},
	{"openai_responses/error_400_decimal_below_min_value_pydantic_ai.json", envelope.InvalidRequest, false, nil, 0, ""},
	// Responses reports an unknown model as 400 model_not_found.
	{"openai_responses/error_400_model_not_found_otel.json", envelope.NotFound, false, nil, 0, ""},
	{"openai_responses/error_400_model_not_found_pydantic_ai.json", envelope.NotFound, false, nil, 0, ""},
	{"openai_responses/error_400_reasoning_item_without_following_item_pydantic_ai.json", envelope.InvalidRequest, false, nil, 0, ""},
	{"openai_responses/error_400_unsupported_file_after_function_call_output_pydantic_ai.json", envelope.InvalidRequest, false, nil, 0, ""},
}

func realDir(t *testing.T) string { return sharedtest.Real(t) }

func TestHTTP_realRecordings(t *testing.T) {
	dir := realDir(t)
	files, err := filepath.Glob(filepath.Join(dir, "*", "error_*.json"))
	require.NoError(t, err)
	var listed []string
	for _, r := range realErrors {
		listed = append(listed, r.file)
	}
	var found []string
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		found = append(found, filepath.ToSlash(rel))
	}
	sort.Strings(found)
	require.ElementsMatch(t, found, listed, "every recording has one checked row")

	for _, r := range realErrors {
		t.Run(r.file, func(t *testing.T) {
			status, h, body, _ := loadRecording(t, filepath.Join(dir, r.file))
			opt := Options{NowMs: r.nowMs, HasNow: r.nowMs != 0}
			e := HTTP(status, h, body, opt)
			assert.Equal(t, r.code, e.Code, e.Message)
			assert.Equal(t, r.retryable, e.Retryable)
			assert.Equal(t, r.wait, e.Details["retry_after_seconds"])
			assert.Equal(t, status, e.Details["status"])
			if r.repair != "" {
				assert.Equal(t, r.repair, e.Details["repairable"])
			} else {
				assert.NotContains(t, e.Details, "repairable")
			}
		})
	}
}

// providerTexts collects every string the provider wrote in a body that
// reads as prose (a message), at any depth.
func providerTexts(v any, out *[]string) {
	switch x := v.(type) {
	case string:
		if strings.Count(x, " ") >= 2 {
			*out = append(*out, x)
		}
	case []any:
		for _, e := range x {
			providerTexts(e, out)
		}
	case map[string]any:
		for _, e := range x {
			providerTexts(e, out)
		}
	}
}

// TestHTTP_noRawProviderText is the README's promise on real recordings: no classifier
// output, message or details, carries the provider's own message text.
func TestHTTP_noRawProviderText(t *testing.T) {
	dir := realDir(t)
	for _, r := range realErrors {
		status, h, body, provider := loadRecording(t, filepath.Join(dir, r.file))
		var texts []string
		providerTexts(body, &texts)
		for _, opt := range []Options{{}, {Provider: provider, Source: envelope.SourceTool, Tool: "t"}} {
			for _, e := range []envelope.Envelope{HTTP(status, h, body, opt), SSE("error", body, true, opt)} {
				out, err := e.MarshalJSON()
				require.NoError(t, err)
				for _, txt := range texts {
					assert.NotContains(t, string(out), txt, r.file)
					// nor a long piece of it
					if len(txt) > 40 {
						assert.NotContains(t, string(out), txt[:40], r.file)
					}
				}
			}
		}
	}
	// Error text: the status is kept, the text is not.
	e := Text("upstream request failed: status code: 400, message: invalid tool id for secret project", Options{})
	out, _ := e.MarshalJSON()
	assert.NotContains(t, string(out), "invalid tool id")
	assert.NotContains(t, string(out), "secret project")
}
