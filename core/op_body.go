package core

import (
	"github.com/toolerr/toolerr/core/internal/field"
)

// The body form of the transcript ops: "body" (a whole request body of the
// op's format) instead of "messages" (its list alone); the result holds
// "body" where the list form's holds "messages".

// bodyMember reads the "body" member: ok false when the request has none.
// A request with both "body" and "messages" is INVALID_INPUT at "body".
func bodyMember(req map[string]any) (map[string]any, bool, error) {
	v, has := req["body"]
	if !has {
		return nil, false, nil
	}
	if _, both := req["messages"]; both {
		return nil, false, field.NewError("body", "give messages (the message list) or body (the whole request body), not both")
	}
	m, err := field.As[map[string]any](v, "body")
	return m, err == nil, err
}

// opCheckBody: {"format", "body", options as for opCheck} -> {"findings": [...]}.
func opCheckBody(req, body map[string]any) (any, error) {
	f, opts, err := formatAndOptions(req, "format")
	if err != nil {
		return nil, err
	}
	fs, err := checkBody(Format(f), body, opts, MaxResponseBytes)
	if err != nil {
		return nil, err
	}
	return map[string]any{"findings": findingsValue(fs)}, nil
}

// opRepairBody: {"format", "body", options as for opRepair} -> {"body", "changes"}.
func opRepairBody(req, body map[string]any) (any, error) {
	f, opts, err := formatAndOptions(req, "format")
	if err != nil {
		return nil, err
	}
	out, ch, err := RepairBody(Format(f), body, opts)
	if err != nil {
		return nil, err
	}
	return map[string]any{"body": out, "changes": changesValue(ch)}, nil
}

// opTrimBody: {"format", "body", "max_chars"?, "max_messages"?} -> {"body", "dropped"}.
func opTrimBody(req, body map[string]any, f string, maxChars, maxMessages int64) (any, error) {
	out, n, err := TrimBody(Format(f), body, int(maxChars), int(maxMessages))
	if err != nil {
		return nil, err
	}
	return map[string]any{"body": out, "dropped": n}, nil
}

// opNormalizeIDsBody: {"target"?, "format"?, "body"} -> {"body", "id_map"}.
func opNormalizeIDsBody(body map[string]any, f, target string) (any, error) {
	out, m, err := NormalizeIDsBody(Format(f), target, body)
	if err != nil {
		return nil, err
	}
	return map[string]any{"body": out, "id_map": idMapValue(m)}, nil
}

// opConvertBody: {"from", "to", "body", options as for opConvert} -> {"body", "id_map"?, "notes"?}.
func opConvertBody(req, body map[string]any) (any, error) {
	from, to, opts, err := convertMembers(req)
	if err != nil {
		return nil, err
	}
	c, err := ConvertBody(from, to, body, opts)
	if err != nil {
		return nil, err
	}
	return conversionValue(Conversion{Messages: nil, IDMap: c.IDMap, NameMap: c.NameMap, Notes: c.Notes}, "body", c.Body), nil
}

// formatAndOptions reads the required format member key and the transcript
// options of req.
func formatAndOptions(req map[string]any, key string) (string, TranscriptOptions, error) {
	f, err := field.RequiredString(req, key, "")
	if err != nil {
		return "", TranscriptOptions{}, err
	}
	opts, err := transcriptOptions(req)
	return f, opts, err
}

// convertMembers reads the from and to members of a convert request ("" when
// absent: Convert names the missing one) and its transcript options.
func convertMembers(req map[string]any) (from, to Format, opts TranscriptOptions, err error) {
	m, err := stringMembers(req, "", "from", "to")
	if err != nil {
		return "", "", opts, err
	}
	opts, err = transcriptOptions(req)
	return Format(m[0]), Format(m[1]), opts, err
}
