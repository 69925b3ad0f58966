package loadgen

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
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

// clockTicks is USER_HZ, the unit of the times in /proc/<pid>/stat: 100 on
// every Linux architecture Go supports (the kernel's fixed user-visible
// clock, sysconf(_SC_CLK_TCK)).
const clockTicks = 100

// ReadCPU reads the CPU time process pid has used, user and system, all
// threads, from fields 14 and 15 (utime, stime) of /proc/<pid>/stat, in
// units of 10 ms.
//
// See https://man7.org/linux/man-pages/man5/proc_pid_stat.5.html.
func ReadCPU(pid int) (time.Duration, error) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	return parseStat(raw)
}

// parseStat reads utime + stime from the text of /proc/<pid>/stat. The
// command name (field 2) is in parentheses and may hold spaces, so the
// fields are counted after its closing parenthesis, which is field 3.
func parseStat(raw []byte) (time.Duration, error) {
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return 0, fmt.Errorf("loadgen: no command name in the process stat")
	}
	f := strings.Fields(string(raw[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("loadgen: %d fields after the command name in the process stat, want at least 13", len(f))
	}
	var ticks int64
	for _, s := range f[11:13] { // utime (14), stime (15)
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("loadgen: cannot read %q in the process stat", s)
		}
		ticks += v
	}
	return time.Duration(ticks) * (time.Second / clockTicks), nil
}
