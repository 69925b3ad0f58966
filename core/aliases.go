package core

import "github.com/toolerr/toolerr/core/internal/format"

// FormatAliases lists the other names every entry point accepts for a
// format, each as "alias=format" (openai=openai-chat, google=gemini,
// claude=anthropic, aws=bedrock, ...), in README order. Names match in any
// case. The list is the provider table's, the one vocabulary of the ops, the
// typed Go API, the CLI and the bindings; a classify provider hint takes the
// same names and resolves them to the vendor (openai-responses to openai).
func FormatAliases() []string { return format.Aliases() }

// CanonicalFormat returns the format that name (a format name or an alias,
// in any case) stands for, and false for a name the provider table does not
// know.
func CanonicalFormat(name string) (Format, bool) {
	n, ok := format.Canonical(name)
	return Format(n), ok
}
