package gatewaycheck

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Counts tallies verdicts.
type Counts struct{ Carried, Lost, Rejected int }

// Count tallies rs.
func Count(rs []Result) Counts {
	var c Counts
	for _, r := range rs {
		switch r.Verdict {
		case Carried:
			c.Carried++
		case Lost:
			c.Lost++
		default:
			c.Rejected++
		}
	}
	return c
}

// WriteMatrix prints the case × verdict matrix as aligned text: one row per
// test (file, hop, test, verdict), the reason under every row that is not
// carried, and a closing count line.
func WriteMatrix(w io.Writer, rs []Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "VERDICT\tFILE\tHOP\tTEST")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Verdict, r.Test.File, r.Test.Hop(), testText(r.Test))
		if r.Why != "" {
			fmt.Fprintf(tw, "\t\t\t  %s\n", strings.Join(strings.Fields(r.Why), " "))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	c := Count(rs)
	_, err := fmt.Fprintf(w, "gateway-check: %d tests: %d carried, %d lost, %d rejected\n", len(rs), c.Carried, c.Lost, c.Rejected)
	return err
}

// testText is the test's description without the hop prefix it repeats.
func testText(t Test) string {
	if i := strings.Index(t.Description, ": "); i >= 0 {
		return t.Description[i+2:]
	}
	return t.Description
}

// WriteMarkdown prints the matrix as a Markdown table (for docs).
func WriteMarkdown(w io.Writer, rs []Result) error {
	fmt.Fprintln(w, "| file | hop | test | verdict | why |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, r := range rs {
		why := strings.ReplaceAll(strings.Join(strings.Fields(r.Why), " "), "|", `\|`)
		fmt.Fprintf(w, "| %s | %s | %s | **%s** | %s |\n", r.Test.File, r.Test.Hop(), testText(r.Test), r.Verdict, why)
	}
	c := Count(rs)
	_, err := fmt.Fprintf(w, "\n%d tests: %d carried, %d lost, %d rejected.\n", len(rs), c.Carried, c.Lost, c.Rejected)
	return err
}

// WriteJSON prints one JSON object per line per result: id, hop, verdict,
// why, hits, status.
func WriteJSON(w io.Writer, rs []Result) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, r := range rs {
		if err := enc.Encode(map[string]any{"id": r.Test.ID, "ingress": r.Test.Ingress, "upstream": r.Test.Upstream,
			"verdict": r.Verdict, "why": r.Why, "hits": r.Hits, "status": r.Status}); err != nil {
			return err
		}
	}
	return nil
}
