package customization

import (
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// Through the layer the controller calls: the aggregated object keeps the
// statuses Karmada keeps (see lua/emptystatus_test.go for the rule), and a
// global named like a base function that the script set to nil stays nil.
func TestAggregateStatusEmptyStatusesThroughTheLayer(t *testing.T) {
	i := loaded(ric("empty-status", configv1alpha1.CustomizationRules{StatusAggregation: &configv1alpha1.StatusAggregation{LuaScript: `
function AggregateStatus(desiredObj, statusItems)
  local mode = statusItems[1].status.mode
  error = ''
  type = ''
  error = statusItems[1].status.error
  if mode == "emptyTable" then
    desiredObj.status = {}
  elseif mode == "emptyMembers" then
    desiredObj.status = {active = {}, conditions = {}, error = error}
  else
    desiredObj.status = {active = {}, type = type, error = error}
  end
  return desiredObj
end`}}))
	for _, c := range []struct{ mode, want string }{
		{"emptyTable", `<absent>`},
		{"emptyMembers", `{}`},
		{"emptyString", `{"type":""}`},
	} {
		t.Run(c.mode, func(t *testing.T) {
			items := []workv1alpha2.AggregatedStatusItem{{ClusterName: "m1", Status: &runtime.RawExtension{Raw: []byte(`{"mode":"` + c.mode + `"}`)}}}
			out, err := i.AggregateStatus(ctx, newWorkload(t), items)
			if err != nil {
				t.Fatal(err)
			}
			got := "<absent>"
			if st, ok := out.Object["status"]; ok {
				data, err := json.Marshal(st)
				if err != nil {
					t.Fatal(err)
				}
				got = string(data)
			}
			if got != c.want {
				t.Errorf("status: got %s, want %s", got, c.want)
			}
		})
	}
}
