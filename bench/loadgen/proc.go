package loadgen

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// Memory is a process's resident memory, in bytes, as Linux reports it in
// /proc/<pid>/status: RSS its resident set now (VmRSS), Peak the largest
// resident set it has had (VmHWM).
//
// See https://man7.org/linux/man-pages/man5/proc_pid_status.5.html.
type Memory struct {
	RSS, Peak int64
}

// ReadMemory reads the memory of process pid from /proc/<pid>/status; an
// error when the file cannot be read or lacks VmRSS (not Linux, or the
// process is gone).
func ReadMemory(pid int) (Memory, error) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return Memory{}, err
	}
	return parseStatus(raw)
}

// parseStatus reads VmRSS and VmHWM ("VmRSS:\t  12345 kB") from the text
// of /proc/<pid>/status.
func parseStatus(raw []byte) (Memory, error) {
	var m Memory
	var found bool
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		key, rest, ok := bytes.Cut(sc.Bytes(), []byte(":"))
		if !ok {
			continue
		}
		var dst *int64
		switch string(key) {
		case "VmRSS":
			dst, found = &m.RSS, true
		case "VmHWM":
			dst = &m.Peak
		default:
			continue
		}
		num, unit, _ := bytes.Cut(bytes.TrimSpace(rest), []byte(" "))
		v, err := strconv.ParseInt(string(num), 10, 64)
		if err != nil || string(unit) != "kB" {
			return Memory{}, fmt.Errorf("loadgen: %s: cannot read %q", key, rest)
		}
		*dst = v << 10
	}
	if !found {
		return Memory{}, fmt.Errorf("loadgen: no VmRSS in the process status")
	}
	return m, nil
}
