package transcript

import (
	"strconv"
	"strings"

	"github.com/toolerr/toolerr/core/internal/field"
)

// FormatNamed returns the transcript format called name; an unknown or empty
// name is a *field.Error at path that lists the known formats. The transcript
// ops and the typed Go API read a format name through it alone.
func FormatNamed(name, path string) (Format, error) {
	f := Format(name)
	if Known(f) {
		return f, nil
	}
	if name == "" {
		return "", field.NewError(path, "is required and must be a non-empty string")
	}
	names := make([]string, 0, 5)
	for _, k := range Formats() {
		names = append(names, string(k))
	}
	return "", field.NewError(path, "unknown transcript format "+strconv.Quote(name)+"; known: "+strings.Join(names, ", "))
}

// RulesNamed returns the id rules called name ("" = the list format's own);
// an unknown name is a *field.Error at path that lists the known rules.
func RulesNamed(name, path string) (string, error) {
	if name == "" || ValidRules(name) {
		return name, nil
	}
	return "", field.NewError(path, "unknown id rules "+strconv.Quote(name)+"; known: anthropic, bedrock, mistral, openai-responses, openai-chat, gemini")
}

// ListFormat is the format of the lists whose ids follow rules: the rules'
// own format, and openai-chat for mistral (Mistral's chat API takes the
// Chat Completions shape).
func ListFormat(rules string) Format {
	if rules == RulesMistral {
		return OpenAIChat
	}
	return Format(rules)
}
