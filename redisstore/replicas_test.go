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
		for _, l := range []string{"python", "node", "rust"} {
			if os.Getenv(replicaEnv[l]) != "" {
				langs = append(langs, l)
			}
		}
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

// replicaEnv names, per language, the variable that says where its replica
// program's runtime is (scripts/test-redis.sh sets them after building the
// bindings): a Python with toolerr[redis] installed, the toolerr Node package
// (with ioredis in its node_modules), the built Rust example redis_replica.
var replicaEnv = map[string]string{"python": "TOOLERR_REPLICA_PYTHON", "node": "TOOLERR_REPLICA_NODE_DIR", "rust": "TOOLERR_REPLICA_RUST"}

// replicaProgram returns the command line of lang's replica program.
func replicaProgram(t *testing.T, lang string) ([]string, []string) {
	t.Helper()
	if lang == "go" {
		return goReplicaArgv()
	}
	v := os.Getenv(replicaEnv[lang])
	if v == "" {
		t.Fatalf("no replica program for %q: set %s (scripts/test-redis.sh does)", lang, replicaEnv[lang])
	}
	switch lang {
	case "python":
		return []string{v, "-I", "replicas/replica.py"}, nil
	case "node":
		return []string{"node", "--disable-warning=ExperimentalWarning", "replicas/replica.mjs"}, []string{"TOOLERR_NODE_DIR=" + v}
	default:
		return []string{v}, nil
	}
}
