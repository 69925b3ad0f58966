package classify

import "strings"

// readToolBody reads the error body of a tool's own service: not a model
// provider's, so no provider is detected and no provider rule applies (the
// status decides). It finds the service's sentence about what was wrong in
// the shapes web services commonly answer with, in this order:
//
//   - {"error": {"message": "..."}} (a common JSON error object, also
//     Google's AIP-193 shape {"error": {"code", "status", "message"}});
//   - {"error": "code", "error_description": "..."} (OAuth 2.0, RFC 6749,
//     5.2), else {"error": "..."};
//   - {"errors": [{"message": "..."}]} (GraphQL's response errors), or
//     [{"detail"|"title": "..."}] (JSON:API error objects), or ["..."];
//   - {"detail": "...", "title": "..."} (RFC 9457 problem details: detail,
//     else title), or FastAPI's {"detail": [{"loc", "msg"}]}, whose loc
//     becomes param;
//   - {"message": "..."};
//   - a plain text body (not markup: an HTML error page says nothing the
//     model can act on).
//
// A JSON array around the body is read through its first element.
//
// See https://www.rfc-editor.org/rfc/rfc9457#section-3.1,
// https://www.rfc-editor.org/rfc/rfc6749#section-5.2,
// https://spec.graphql.org/October2021/#sec-Errors and
// https://jsonapi.org/format/#error-objects.
func readToolBody(v any) facts {
	var f facts
	if arr, ok := v.([]any); ok && len(arr) > 0 {
		v = arr[0]
	}
	switch x := v.(type) {
	case string:
		if t := strings.TrimSpace(x); t != "" && t[0] != '<' {
			f.text(t)
		}
	case map[string]any:
		readToolObject(&f, x)
	}
	return f
}

func readToolObject(f *facts, m map[string]any) {
	switch e := m["error"].(type) {
	case map[string]any:
		if s := firstString(e, "message", "detail", "description"); s != "" {
			f.text(s)
			return
		}
	case string:
		if d := str(m, "error_description"); d != "" {
			f.text(d)
			return
		}
		f.text(e)
		return
	}
	if errs, ok := m["errors"].([]any); ok && len(errs) > 0 {
		switch e := errs[0].(type) {
		case map[string]any:
			if s := firstString(e, "message", "detail", "title"); s != "" {
				f.text(s)
				return
			}
		case string:
			f.text(e)
			return
		}
	}
	switch d := m["detail"].(type) {
	case string:
		f.text(d)
		return
	case []any:
		readValidation(f, d)
		f.providerType = "" // FastAPI's shape, not a provider's type
		return
	}
	f.text(firstString(m, "title", "message", "error_description"))
}

// firstString returns the first non-empty string member of m among keys.
func firstString(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok && strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}
