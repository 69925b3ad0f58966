package conformance

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Mismatch describes the first difference between a target's output and the
// expected bytes: the offset of the first differing byte and about 40 bytes
// of each side from 8 bytes before it.
func Mismatch(id, target string, got, want []byte) string {
	off := 0
	for off < len(got) && off < len(want) && got[off] == want[off] {
		off++
	}
	return fmt.Sprintf("%s: target %s differs at byte %d (got %d bytes, want %d)\n  got:  %s\n  want: %s",
		id, target, off, len(got), len(want), excerpt(got, off), excerpt(want, off))
}

func excerpt(b []byte, off int) string {
	start := max(0, off-8)
	end := min(len(b), start+40)
	s := strconv.Quote(string(b[start:end]))
	if start > 0 {
		s = "…" + s
	}
	if end < len(b) {
		s += "…"
	}
	return s
}

// SkipList is the known failures of one target: conformance/skip/<target>.txt,
// a "# reason (#issue)" comment line then the IDs it covers, one per line.
type SkipList map[string]string // ID -> reason

// LoadSkipList reads path; a missing file is an empty list.
func LoadSkipList(path string) (SkipList, error) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return SkipList{}, nil
	}
	if err != nil {
		return nil, err
	}
	list, reason := SkipList{}, ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "":
		case strings.HasPrefix(line, "#"):
			reason = strings.TrimSpace(strings.TrimPrefix(line, "#"))
		case reason == "":
			return nil, fmt.Errorf("%s: %q has no \"# reason (#issue)\" line above it", path, line)
		default:
			list[line] = reason
		}
	}
	return list, sc.Err()
}
