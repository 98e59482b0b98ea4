package builtin

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/customization"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// specTable is the target x operation table of Karmada's bundle (section 3
// of the third-party specification), columns Ret IRep Rev Comp Stat Agg
// Hlth Dep.
const specTable = `
apps.kruise.io/v1alpha1 AdvancedCronJob           . . . . . x . x
apps.kruise.io/v1alpha1 BroadcastJob              x x x . x x x x
apps.kruise.io/v1alpha1 CloneSet                  . x x . x x x x
apps.kruise.io/v1alpha1 DaemonSet                 . . . . x x x x
apps.kruise.io/v1alpha1 SidecarSet                x x . . x x x x
apps.kruise.io/v1alpha1 UnitedDeployment          . x x . x x x x
apps.kruise.io/v1beta1 StatefulSet                . x x . x x x x
argoproj.io/v1alpha1 Workflow                     x x x . . . x x
batch.volcano.sh/v1alpha1 Job                     . . . x x x x .
flink.apache.org/v1beta1 FlinkDeployment          . x . x x x x .
helm.toolkit.fluxcd.io/v2beta1 HelmRelease        x . . . x x x x
kubeflow.org/v1 Notebook                          . x . . x x x .
kubeflow.org/v1 PyTorchJob                        . . . x . x x x
kubeflow.org/v1 TFJob                             . . . x . x x x
kubeflow.org/v2beta1 MPIJob                       . . . x x x x .
kustomize.toolkit.fluxcd.io/v1 Kustomization      x . . . x x x x
kyverno.io/v1 ClusterPolicy                       . . . . x x x .
kyverno.io/v1 Policy                              . . . . x x x .
ray.io/v1 RayCluster                              . . . x . x x .
ray.io/v1 RayJob                                  . . . x . x x x
ray.io/v1 RayService                              . x x . . x x x
source.toolkit.fluxcd.io/v1 GitRepository         x . . . x x x x
source.toolkit.fluxcd.io/v1beta2 Bucket           x . . . x x x x
source.toolkit.fluxcd.io/v1beta2 HelmChart        x . . . x x x x
source.toolkit.fluxcd.io/v1beta2 HelmRepository   x . . . x x x x
source.toolkit.fluxcd.io/v1beta2 OCIRepository    x . . . x x x x
sparkoperator.k8s.io/v1beta2 SparkApplication     . . . x x x x .
`

var specColumns = []configv1alpha1.InterpreterOperation{
	configv1alpha1.InterpreterOperationRetain,
	configv1alpha1.InterpreterOperationInterpretReplica,
	configv1alpha1.InterpreterOperationReviseReplica,
	configv1alpha1.InterpreterOperationInterpretComponent,
	configv1alpha1.InterpreterOperationInterpretStatus,
	configv1alpha1.InterpreterOperationAggregateStatus,
	configv1alpha1.InterpreterOperationInterpretHealth,
	configv1alpha1.InterpreterOperationInterpretDependency,
}

// TestHooksMatchSpec: the built-in layer has a hook for exactly the (kind,
// operation) pairs the specification defines (124), so every other pair
// falls through to the native layer, and versions are matched exactly.
func TestHooksMatchSpec(t *testing.T) {
	l := New(customization.Options{})
	rows, hooks := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(specTable), "\n") {
		f := strings.Fields(line)
		gv, err := schema.ParseGroupVersion(f[0])
		if err != nil {
			t.Fatal(err)
		}
		gvk := gv.WithKind(f[1])
		rows++
		for i, op := range specColumns {
			want := f[2+i] == "x"
			got, err := l.HookEnabled(gvk, op)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("%s %s: hook %v, want %v", gvk, op, got, want)
			}
			if got {
				hooks++
			}
		}
	}
	entries, err := Table()
	if err != nil {
		t.Fatal(err)
	}
	if rows != 27 || hooks != 124 || len(entries) != 27 {
		t.Errorf("%d kinds (table %d), %d hooks; want 27 kinds, 124 hooks", rows, len(entries), hooks)
	}
	for _, gvk := range []schema.GroupVersionKind{
		{Group: "helm.toolkit.fluxcd.io", Version: "v2", Kind: "HelmRelease"},
		{Group: "kubeflow.org", Version: "v1", Kind: "MPIJob"},
		{Group: "apps", Version: "v1", Kind: "StatefulSet"},
		{Group: "batch", Version: "v1", Kind: "Job"},
	} {
		for _, op := range specColumns {
			if ok, _ := l.HookEnabled(gvk, op); ok {
				t.Errorf("%s %s is not a built-in target", gvk, op)
			}
		}
	}
}

// TestUserCustomizationWins: a user's ResourceInterpreterCustomization for
// a built-in kind and operation answers instead of the built-in one, in
// both precedence orders; the kind's other operations still come from the
// built-in layer.
func TestUserCustomizationWins(t *testing.T) {
	user := customization.New(customization.Options{})
	user.LoadConfig([]configv1alpha1.ResourceInterpreterCustomization{{
		ObjectMeta: metav1.ObjectMeta{Name: "my-cloneset-health"},
		Spec: configv1alpha1.ResourceInterpreterCustomizationSpec{
			Target: configv1alpha1.CustomizationTarget{APIVersion: "apps.kruise.io/v1alpha1", Kind: "CloneSet"},
			Customizations: configv1alpha1.CustomizationRules{
				HealthInterpretation: &configv1alpha1.HealthInterpretation{LuaScript: `function InterpretHealth(obj) return false end`},
			},
		},
	}})
	webhooks := customization.New(customization.Options{}) // stands in for a webhook layer without configurations
	webhooks.LoadConfig(nil)
	cloneSet := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps.kruise.io/v1alpha1", "kind": "CloneSet",
		"metadata": map[string]any{"name": "web", "namespace": "shop", "generation": int64(1)},
		"spec":     map[string]any{"replicas": int64(2), "template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}}},
		"status":   map[string]any{"observedGeneration": int64(1), "updatedReplicas": int64(2), "availableReplicas": int64(2)},
	}}
	ctx := context.Background()

	// Without the user's customization the built-in layer finds it healthy.
	if res, err := Run(ctx, configv1alpha1.InterpreterOperationInterpretHealth, customization.Args{Observed: cloneSet}); err != nil || res[0].Value != true {
		t.Fatalf("built-in health = %v, %v; want true", res, err)
	}
	for _, p := range []resourceinterpreter.Precedence{resourceinterpreter.PrecedencePropel, resourceinterpreter.PrecedenceKarmada} {
		layers, err := resourceinterpreter.Layers{Webhook: webhooks, Customization: user, Builtin: New(customization.Options{}), Native: native.New()}.Ordered(p)
		if err != nil {
			t.Fatal(err)
		}
		i := resourceinterpreter.New(layers...)
		healthy, err := i.InterpretHealth(ctx, cloneSet)
		if err != nil || healthy {
			t.Errorf("%s: health = %v, %v; want the user's false", p, healthy, err)
		}
		n, _, err := i.GetReplicas(ctx, cloneSet)
		if err != nil || n != 2 {
			t.Errorf("%s: replicas = %d, %v; want the built-in 2", p, n, err)
		}
	}
}
