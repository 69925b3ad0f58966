package transcript

import "github.com/toolerr/toolerr/core/internal/format"

// FormatNamed returns the transcript format called name; an unknown or empty
// name is a *field.Error at path that lists the transcript formats of the
// provider table. The transcript ops and the typed Go API read a format name
// through it alone.
func FormatNamed(name, path string) (Format, error) {
	canonical, err := format.TranscriptNamed(name, path)
	if err != nil {
		return "", err
	}
	return Format(canonical), nil
}

// RulesNamed returns the id rules called name ("" = the list format's own);
// an unknown name is a *field.Error at path that lists the known rules.
func RulesNamed(name, path string) (string, error) { return format.RulesNamed(name, path) }

// ListFormat is the format of the lists whose ids follow rules: the rules'
// own format, and openai-chat for mistral (Mistral's chat API takes the Chat
// Completions shape).
func ListFormat(rules string) Format { return Format(format.ListFormat(rules)) }
