package redisstore

import (
	"os"
	"strings"
	"testing"
)

// replicas starts n replicas of every language in TOOLERR_REDIS_LANGS
// (default: every language whose replica program is there), each a
// separate process speaking the replica protocol, configured with cfg.
func replicas(t *testing.T, cfg map[string]any, n int) []*replica {
	t.Helper()
	langs := strings.Fields(strings.ReplaceAll(os.Getenv("TOOLERR_REDIS_LANGS"), ",", " "))
	if len(langs) == 0 {
		langs = []string{"go"}
	}
	var rs []*replica
	for _, lang := range langs {
		argv, env := replicaProgram(t, lang)
		for i := 0; i < n; i++ {
			rs = append(rs, startReplica(t, lang+"-"+string(rune('a'+i)), argv, env, cfg))
		}
	}
	return rs
}

// replicaProgram returns the command line of lang's replica program.
func replicaProgram(t *testing.T, lang string) ([]string, []string) {
	t.Helper()
	switch lang {
	case "go":
		return goReplicaArgv()
	}
	t.Fatalf("no replica program for %q", lang)
	return nil, nil
}
