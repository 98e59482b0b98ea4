package replay

import (
	"reflect"
	"strings"
	"testing"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

func ric(name, apiVersion, kind string, rules configv1alpha1.CustomizationRules) configv1alpha1.ResourceInterpreterCustomization {
	r := configv1alpha1.ResourceInterpreterCustomization{}
	r.Name = name
	r.Spec.Target = configv1alpha1.CustomizationTarget{APIVersion: apiVersion, Kind: kind}
	r.Spec.Customizations = rules
	return r
}

func TestTargetsOf(t *testing.T) {
	rics := []configv1alpha1.ResourceInterpreterCustomization{
		ric("a", "apps/v1", "Deployment", configv1alpha1.CustomizationRules{HealthInterpretation: &configv1alpha1.HealthInterpretation{LuaScript: "x"}}),
		ric("b", "apps/v1", "Deployment", configv1alpha1.CustomizationRules{ReplicaResource: &configv1alpha1.ReplicaResourceRequirement{LuaScript: "x"}}),
		ric("c", "workload.example.io/v1alpha1", "Workload", configv1alpha1.CustomizationRules{Retention: &configv1alpha1.LocalValueRetention{LuaScript: "x"}}),
	}
	got, err := TargetsOf(rics, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].GVK.Kind != "Deployment" || !reflect.DeepEqual(got[0].Operations, []configv1alpha1.InterpreterOperation{
		configv1alpha1.InterpreterOperationInterpretReplica, configv1alpha1.InterpreterOperationInterpretHealth,
	}) || got[1].GVK.Kind != "Workload" {
		t.Fatalf("targets %+v", got)
	}
	if only, _ := TargetsOf(rics, "workload"); len(only) != 1 || only[0].GVK.Group != "workload.example.io" {
		t.Fatalf("--kind workload: %+v", only)
	}
	if _, err := TargetsOf(rics, "Job"); err == nil || !strings.Contains(err.Error(), "Job") {
		t.Fatalf("unknown kind: %v", err)
	}
	if _, err := TargetsOf([]configv1alpha1.ResourceInterpreterCustomization{ric("bad", "a/b/c", "X", configv1alpha1.CustomizationRules{})}, ""); err == nil {
		t.Fatal("an invalid target was accepted")
	}
}

func TestSummaryString(t *testing.T) {
	if got := (Summary{Objects: 42, Same: 39, Changed: 2, Errors: 1}).String(); got != "42 objects: 39 same, 2 changed, 1 error" {
		t.Fatal(got)
	}
}
