package resourceinterpreter_test

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/builtin"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/customization"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua"
	luavm "github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/vm"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// TestLuaReplicaRequirementsPriorityClassName is the ResourceQuotaEstimate
// gate as the detector sees it: wired as the controller manager wires it
// (lua.WithPriorityClassName beside native.WithPriorityClassName), a
// customization's GetReplicas, a built-in one (Kruise's StatefulSet), a
// built-in GetComponents (PyTorchJob) and the native Deployment all report
// the pods' priorityClassName; without the gate none does.
func TestLuaReplicaRequirementsPriorityClassName(t *testing.T) {
	podTemplate := map[string]any{"spec": map[string]any{
		"priorityClassName": "high",
		"containers": []any{map[string]any{"name": "app", "image": "nginx",
			"resources": map[string]any{"requests": map[string]any{"cpu": "250m"}}}},
	}}
	workload := func(apiVersion, kind string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": apiVersion, "kind": kind,
			"metadata": map[string]any{"name": "web", "namespace": "prod"},
			"spec":     map[string]any{"replicas": int64(2), "template": podTemplate},
		}}
	}
	objects := map[string]*unstructured.Unstructured{
		"customization": workload("apps.example.io/v1", "Workload"),
		"builtin":       workload("apps.kruise.io/v1beta1", "StatefulSet"),
		"native":        workload("apps/v1", "Deployment"),
	}
	pytorch := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
		"metadata": map[string]any{"name": "train", "namespace": "prod"},
		"spec": map[string]any{"pytorchReplicaSpecs": map[string]any{
			"Master": map[string]any{"replicas": int64(1), "template": podTemplate},
		}},
	}}
	for _, tc := range []struct {
		name string
		gate bool
		want string
	}{
		{name: "gate off", want: ""},
		{name: "gate on", gate: true, want: "high"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var luaOpts []lua.Option
			var nativeOpts []native.Option
			if tc.gate {
				luaOpts = append(luaOpts, lua.WithPriorityClassName())
				nativeOpts = append(nativeOpts, native.WithPriorityClassName())
			}
			custom := customization.New(customization.Options{VM: lua.New(luavm.Options{}, luaOpts...)})
			t.Cleanup(custom.VM().Close)
			custom.LoadConfig([]configv1alpha1.ResourceInterpreterCustomization{{
				ObjectMeta: metav1.ObjectMeta{Name: "workload"},
				Spec: configv1alpha1.ResourceInterpreterCustomizationSpec{
					Target: configv1alpha1.CustomizationTarget{APIVersion: "apps.example.io/v1", Kind: "Workload"},
					Customizations: configv1alpha1.CustomizationRules{ReplicaResource: &configv1alpha1.ReplicaResourceRequirement{
						LuaScript: `local kube = require("kube")
function GetReplicas(obj)
  return obj.spec.replicas, kube.accuratePodRequirements(obj.spec.template)
end`}},
				},
			}})
			builtins := builtin.New(customization.Options{VM: lua.New(luavm.Options{}, luaOpts...)})
			t.Cleanup(builtins.VM().Close)
			facade := resourceinterpreter.New(custom, builtins, native.New(nativeOpts...))

			for name, obj := range objects {
				n, req, err := facade.GetReplicas(context.Background(), obj)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if n != 2 || req == nil || req.ResourceRequest.Cpu().String() != "250m" {
					t.Fatalf("%s: got %d %+v, want 2 replicas of 250m", name, n, req)
				}
				if req.PriorityClassName != tc.want {
					t.Errorf("%s: priorityClassName %q, want %q", name, req.PriorityClassName, tc.want)
				}
			}
			comps, err := facade.GetComponents(context.Background(), pytorch)
			if err != nil {
				t.Fatal(err)
			}
			if len(comps) != 1 || comps[0].ReplicaRequirements == nil {
				t.Fatalf("PyTorchJob components %+v, want one with requirements", comps)
			}
			if got := comps[0].ReplicaRequirements.PriorityClassName; got != tc.want {
				t.Errorf("PyTorchJob component priorityClassName %q, want %q", got, tc.want)
			}
		})
	}
}
