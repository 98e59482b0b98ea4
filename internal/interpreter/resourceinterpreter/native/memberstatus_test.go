package native

import (
	"encoding/json"
	"testing"
)

// FuzzMemberInts checks the in-place decoder of member statuses against
// encoding/json: whenever it answers, it must give what json.Unmarshal
// into the typed status gives, without error.
func FuzzMemberInts(f *testing.F) {
	for _, seed := range []string{
		`{"generation":7,"resourceTemplateGeneration":3,"observedGeneration":7,"replicas":2,"updatedReplicas":2,"readyReplicas":2,"availableReplicas":1,"unavailableReplicas":1}`,
		`{}`, ` { "replicas" : -0 } `, `{"replicas":2147483648}`, `{"replicas":-2147483648}`, `{"Replicas":1}`,
		`{"replicas":1.0}`, `{"replicas":1e2}`, `{"replicas":"1"}`, `{"replicas":null}`, `null`, `[]`, `{"a":[1,{"b":"\u00e9\n"}],"replicas":3}`,
		`{"replicas":1,"replicas":2}`, `{"replicas":1,}`, `{"x":tru}`, `{"observedGeneration":9223372036854775807}`,
		`{"observedGeneration":-9223372036854775808}`, `{"observedGeneration":9223372036854775808}`, `{"conditions":[]}`,
		"{\"x\":\"\x01\"}", `{"x":"\q"}`, `{"x":01}`, `{"x":-}`, `{"x":1.}`, `{"x":1e}`, `{"repl\u0069cas":4}`, `{"ſtatus":1}`, `{} x`,
	} {
		f.Add([]byte(seed))
	}
	a := deploymentAggregation
	fields, wide := a.memberFields()
	f.Fuzz(func(t *testing.T, raw []byte) {
		got := make([]int64, len(fields))
		if !memberInts(raw, fields, wide, a.known, got) {
			return
		}
		want := make([]int64, len(fields))
		if err := a.decode(raw, want); err != nil {
			t.Fatalf("memberInts accepted %q, encoding/json fails: %v", raw, err)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%q: %s = %d, encoding/json gives %d", raw, fields[i], got[i], want[i])
			}
		}
		if !json.Valid(raw) {
			t.Fatalf("memberInts accepted invalid JSON %q", raw)
		}
	})
}
