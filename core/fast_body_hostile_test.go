package core

import (
	"strings"
	"testing"
)

// hostileBodies are request bodies aimed at scanBody's edges: members
// exactly at and past maxBodyMembers, a huge tool list, tools with hostile
// schemas (deep, escaped names, wrong types), messages null or of the
// wrong type, the model as every JSON type and with escapes, and members
// whose names differ from "messages" and "model" only by escapes or case.
func hostileBodies() []string {
	msgs := `[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"a","content":"ok"}]`
	members := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(`"m` + strings.Repeat("x", i) + `":` + "1,")
		}
		return b.String()
	}
	tool := `{"type":"function","function":{"name":"t","parameters":{"type":"object","properties":{"a":{"type":"string"}}}}}`
	many := strings.TrimSuffix(strings.Repeat(tool+",", 2000), ",")
	deep := strings.Repeat(`{"a":`, 60) + `1` + strings.Repeat(`}`, 60)
	bodies := []string{}
	for _, n := range []int{62, 63, 64, 65, 66, 100} {
		bodies = append(bodies, `{`+members(n)+`"messages":`+msgs+`}`)
		bodies = append(bodies, `{"messages":`+msgs+`,`+strings.TrimSuffix(members(n), ",")+`}`)
	}
	rests := []string{
		`"tools":[` + many + `]`,
		`"tools":[{"type":"function","function":{"name":"t","parameters":` + deep + `}}]`,
		`"tools":[{"type":"function","function":{"name":"\u0000\ud800","parameters":{"$ref":"#","properties":{"\"":{}}}}}]`,
		`"tools":[{"type":"function","function":null}]`,
		`"tools":[null,1,"x",[]]`,
		`"tools":{}`, `"tools":null`,
		`"model":"\u0000"`, `"model":"o1-mini\u0000"`, `"model":"\ud800"`, `"model":["o1-mini"]`,
		`"model":{"name":"o1-mini"}`, `"model":true`, `"model":-0.0`, `"model":""`,
		`"Messages":null`, `"messages ":[]`, `"\u006d\u006fdel":"o1-mini"`,
		`"tool_choice":{"type":"function","function":{"name":"missing"}}`,
		`"stream":"yes"`, `"n":1e400`, `"temperature":-1e-400`,
	}
	for _, r := range rests {
		bodies = append(bodies, `{"messages":`+msgs+`,`+r+`}`, `{`+r+`,"messages":`+msgs+`}`)
	}
	for _, m := range []string{`null`, `{}`, `"x"`, `1`, `[]`, `[null]`, `[[]]`, `[{}]`, `[{"role":null}]`, `[{"role":"user","content":null}]`} {
		bodies = append(bodies, `{"messages":`+m+`}`, `{"model":"gpt-4o","messages":`+m+`,"tools":[]}`)
	}
	return bodies
}

// TestFastBody_hostileSameAsGeneral runs every op of bodyOps on each
// hostile body, and requires fastList's bytes to be the general path's
// whenever it answers.
func TestFastBody_hostileSameAsGeneral(t *testing.T) {
	answered, declined := 0, 0
	for _, body := range hostileBodies() {
		for _, op := range bodyOps {
			if listSameAsGeneral(t, []byte(`{`+op+`,"body":`+body+`}`)) {
				answered++
			} else {
				declined++
			}
		}
	}
	t.Logf("fastList answered %d hostile body requests, declined %d", answered, declined)
	if answered < 100 {
		t.Fatalf("fastList answered only %d: the test would prove little", answered)
	}
}
