package convert

import (
	"testing"

	glua "github.com/yuin/gopher-lua"
	apiequality "k8s.io/apimachinery/pkg/api/equality"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// The direct conversion of requirements must give what JSON gives;
// FuzzJSONWriterMatchesEncoder holds it on fuzzed tables too.

func TestDirectRequirementsMatchJSON(t *testing.T) {
	st := newTestState(t)
	direct := 0
	for _, expr := range []string{
		`{resourceRequest = {cpu = "100m", memory = "1Gi"}, nodeClaim = {nodeSelector = {a = "b"}}}`,
		`{resourceRequest = {}, nodeClaim = {}}`,
		`{nodeClaim = {nodeSelector = {}}}`,
		`{namespace = "ns", priorityClassName = "high"}`,
		`{resourceRequest = {cpu = 2}}`,
		`{ResourceRequest = {cpu = "1"}}`,
		`{nodeClaim = {tolerations = {{key = "k", operator = "Exists"}}}}`,
		`{resourceRequest = {cpu = " 1"}}`,
	} {
		tbl := luaValue(t, st.L, expr).(*glua.LTable)
		fromJSON := &workv1alpha2.ReplicaRequirements{}
		jsonErr := st.DecodeInto(tbl, fromJSON)
		req, ok := directRequirements(st, tbl)
		if !ok {
			continue
		}
		direct++
		if jsonErr != nil || !apiequality.Semantic.DeepEqual(req, fromJSON) {
			t.Errorf("%s: direct %s, JSON %s (%v)", expr, toJSON(t, req), toJSON(t, fromJSON), jsonErr)
		}
	}
	if direct != 4 {
		t.Errorf("the direct path took %d of the cases, want the first 4", direct)
	}
}
