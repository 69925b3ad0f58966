package gemini

import (
	"strconv"
	"strings"

	"github.com/toolerr/toolerr/core/internal/format/dialect"
)

// dataFields are the members of Part's oneof data (googleapis
// google/ai/generativelanguage/v1beta/content.proto, Part: text,
// inline_data, function_call, function_response, file_data,
// executable_code, code_execution_result, in their JSON names). thought,
// thoughtSignature, videoMetadata and partMetadata sit beside them and are
// not data.
var dataFields = [...]string{"text", "inlineData", "functionCall", "functionResponse", "fileData", "executableCode", "codeExecutionResult"}

// DataFields returns the data members a part holds, in dataFields order
// (a member set to null is absent, as proto JSON reads it).
func DataFields(part map[string]any) []string {
	var out []string
	for _, k := range dataFields {
		if v, ok := part[k]; ok && v != nil {
			out = append(out, k)
		}
	}
	return out
}

// lint checks one content: parts not empty (the API answers 400
// "GenerateContentRequest.contents[1].parts: contents.parts must not be
// empty", vercel/ai#3775), and each part holding exactly one data field (a
// part with none is answered "required oneof field 'data' must have one
// initialized field", 54xzh/FLIT#69; one with two cannot be a Part, whose
// data is a oneof).
func lint(d *dialect.Dialect, msgs []dialect.Message, i int) []dialect.Issue {
	raw, _ := msgs[i].Raw.(map[string]any)
	parts, isArr := raw["parts"].([]any)
	if isArr && len(parts) == 0 {
		return []dialect.Issue{{Kind: dialect.FindLength, Path: "parts", Text: "A content holds at least one part; the API answers that contents.parts must not be empty."}}
	}
	var out []dialect.Issue
	used := 0 // the bytes of out's findings, for d.LintRoom
	for j, p := range parts {
		if d.Full(used) {
			break // the rest cannot be written
		}
		pm, _ := p.(map[string]any)
		at := "parts[" + strconv.Itoa(j) + "]"
		switch fs := DataFields(pm); {
		case len(fs) > 1:
			out = append(out, dialect.Issue{Kind: dialect.FindMultipleDataFields, Path: at, Text: "A part holds one data field (Part.data is a oneof); this one holds " + strings.Join(fs, " and ") + ", so each goes in a part of its own."})
		case len(fs) == 0:
			out = append(out, dialect.Issue{Kind: dialect.FindNoDataField, Path: at, Text: "A part holds one data field (text, inlineData, fileData, functionCall, functionResponse, ...); this one holds none."})
		default:
			continue
		}
		used += out[len(out)-1].Bytes()
	}
	return out
}
