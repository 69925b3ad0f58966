package fake

import (
	"encoding/json"
	"strings"
)

// Small readers over a decoded JSON value (maps, slices, strings,
// json.Number, bools, nil). Each returns the zero value when the shape
// differs, so the rules can read optional members plainly.

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func arr(v any) []any {
	a, _ := v.([]any)
	return a
}

func str(v any) (string, bool) {
	s, ok := v.(string)
	return s, ok
}

func isObj(v any) bool {
	_, ok := v.(map[string]any)
	return ok
}

func isNumber(v any) bool {
	_, ok := v.(json.Number)
	return ok
}

// joinIDs joins ids with ", " as the vendors list them in messages.
func joinIDs(ids []string) string { return strings.Join(ids, ", ") }

// unanswered returns the ids of calls that answered does not hold, in order.
func unanswered(calls []string, answered map[string]bool) []string {
	var out []string
	for _, id := range calls {
		if !answered[id] {
			out = append(out, id)
		}
	}
	return out
}
