package resourceinterpreter

import (
	"context"
	"encoding/json"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/customization"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// TestLuaAggregateStatusKeepsEmptyString is a Karmada compatibility case, as
// controllers see it: Karmada drops the empty tables of a Lua result and
// keeps the empty string, so status = {active = {}, type = "",
// lastScheduleTime = {}} comes back as status: {type: ""}, whatever the
// template's status was and whether the script replaces the status table or
// edits the one it was given.
func TestLuaAggregateStatusKeepsEmptyString(t *testing.T) {
	scripts := map[string]string{
		"replace": `desiredObj.status = {active = {}, type = "", lastScheduleTime = {}}`,
		"edit": `if desiredObj.status == nil then desiredObj.status = {} end
  desiredObj.status.active = {}
  desiredObj.status.type = ""
  desiredObj.status.lastScheduleTime = {}`,
		"fromItem": `desiredObj.status = statusItems[1].status`,
	}
	statuses := map[string]any{
		"none":  nil,
		"empty": map[string]any{},
		"full":  map[string]any{"active": []any{map[string]any{"name": "j"}}, "type": "Job", "lastScheduleTime": "2024-01-01T00:00:00Z"},
	}
	items := []workv1alpha2.AggregatedStatusItem{{ClusterName: "member1", Applied: true,
		Status: &runtime.RawExtension{Raw: []byte(`{"active":[],"type":"","lastScheduleTime":{}}`)}}}
	for name, body := range scripts {
		lua := customization.New(customization.Options{})
		lua.LoadConfig([]configv1alpha1.ResourceInterpreterCustomization{{
			ObjectMeta: metav1.ObjectMeta{Name: "cronjob-" + name},
			Spec: configv1alpha1.ResourceInterpreterCustomizationSpec{
				Target: configv1alpha1.CustomizationTarget{APIVersion: "batch.example.io/v1", Kind: "CronJob"},
				Customizations: configv1alpha1.CustomizationRules{StatusAggregation: &configv1alpha1.StatusAggregation{
					LuaScript: "function AggregateStatus(desiredObj, statusItems)\n  " + body + "\n  return desiredObj\nend"}},
			},
		}})
		facade := New(lua, native.New())
		for statusName, status := range statuses {
			tmpl := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "batch.example.io/v1", "kind": "CronJob",
				"metadata": map[string]any{"name": "nightly", "namespace": "ops"},
			}}
			if status != nil {
				tmpl.Object["status"] = status
			}
			out, err := facade.AggregateStatus(context.Background(), tmpl, items)
			if err != nil {
				t.Fatalf("%s, status %s: %v", name, statusName, err)
			}
			got, _ := json.Marshal(out.Object["status"])
			if string(got) != `{"type":""}` {
				t.Errorf("%s, status %s: status %s, want {\"type\":\"\"}", name, statusName, got)
			}
		}
	}
}
