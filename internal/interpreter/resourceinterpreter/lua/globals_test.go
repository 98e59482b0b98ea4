package lua

import (
	"testing"

	luavm "github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/vm"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// An aggregation in the style of Karmada's FlinkDeployment one: the last
// member's fields are kept in globals, one of them named error. A member
// status without error leaves the global nil, and so the field absent.
func TestAggregateStatusWithAGlobalNamedError(t *testing.T) {
	vm := newVM(t, luavm.Options{})
	s := luavm.NewScript(ric, `function AggregateStatus(desiredObj, statusItems)
  if statusItems == nil then
    return desiredObj
  end
  if desiredObj.status == nil then
    desiredObj.status = {}
  end
  error = ''
  lifecycleState = ''
  jobStatus = {}
  for i = 1, #statusItems do
    current = statusItems[i].status
    if current ~= nil then
      error = current.error
      lifecycleState = current.lifecycleState
      jobStatus = current.jobStatus
    end
  end
  desiredObj.status.error = error
  desiredObj.status.lifecycleState = lifecycleState
  desiredObj.status.jobStatus = jobStatus
  return desiredObj
end`)
	tmpl := obj(t, `{"apiVersion":"flink.apache.org/v1beta1","kind":"FlinkDeployment","metadata":{"name":"f"}}`)
	for _, c := range []struct {
		name, status, want string
	}{
		{"member status without error", `{"lifecycleState":"STABLE","jobStatus":{"state":"RUNNING"}}`,
			`{"jobStatus":{"state":"RUNNING"},"lifecycleState":"STABLE"}`},
		{"member status with error", `{"lifecycleState":"FAILED","error":"boom"}`,
			`{"error":"boom","lifecycleState":"FAILED"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			items := []workv1alpha2.AggregatedStatusItem{{ClusterName: "m1", Status: raw(c.status)}}
			out, err := vm.AggregateStatus(ctx, s, tmpl.DeepCopy(), items)
			if err != nil {
				t.Fatal(err)
			}
			if got := toJSON(t, out.Object["status"]); got != c.want {
				t.Errorf("got %s, want %s", got, c.want)
			}
		})
	}
}
