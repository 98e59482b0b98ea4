package lua

import (
	"testing"

	luavm "github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/vm"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// AggregateStatus has no references, so Karmada removes every empty table
// of the result: a status that is itself an empty table disappears, but a
// status whose members were all empty tables stays as {}, and one holding
// an empty string stays as it is.
func TestAggregateStatusEmptyStatuses(t *testing.T) {
	vm := newVM(t, luavm.Options{})
	items := []workv1alpha2.AggregatedStatusItem{{ClusterName: "m1", Status: raw(`{}`)}}
	for _, c := range []struct {
		name, tmplStatus, body, want string
	}{
		{"empty table", ``, `desiredObj.status = {}`, `<absent>`},
		{"members all empty tables", ``, `desiredObj.status = {conditions = {}, replicaStatuses = {}}`, `{}`},
		{"empty string", ``, `desiredObj.status = {type = ""}`, `{"type":""}`},
		{"empty string beside empty tables", ``, `desiredObj.status = {active = {}, type = "", lastScheduleTime = {}}`, `{"type":""}`},
		{"template status emptied", `,"status":{"conditions":[{"type":"Ready"}]}`, `desiredObj.status.conditions = {}`, `{}`},
		{"template's empty status untouched", `,"status":{}`, ``, `<absent>`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := luavm.NewScript(ric, "function AggregateStatus(desiredObj, statusItems)\n"+c.body+"\nreturn desiredObj\nend")
			tmpl := obj(t, `{"apiVersion":"example.io/v1","kind":"Workload","metadata":{"name":"w"}`+c.tmplStatus+`}`)
			out, err := vm.AggregateStatus(ctx, s, tmpl, items)
			if err != nil {
				t.Fatal(err)
			}
			got := "<absent>"
			if st, ok := out.Object["status"]; ok {
				got = toJSON(t, st)
			}
			if got != c.want {
				t.Errorf("status: got %s, want %s", got, c.want)
			}
		})
	}
}
