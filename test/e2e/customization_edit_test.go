package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/propel-mc/propel/internal/shared/names"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

const getReplicasScript = `local kube = require("kube")
function GetReplicas(obj)
  return obj.spec.replicas %s, kube.accuratePodRequirements(obj.spec.template)
end
`

// TestCustomizationEditedWhileRunning: editing a running
// ResourceInterpreterCustomization's GetReplicas (replicas -> replicas*2)
// changes the binding and the member object without touching the template.
func TestCustomizationEditedWhileRunning(t *testing.T) {
	membersReady(t)
	ctx := context.Background()
	installWorkloadCRD(t)
	const wlName = "wl-edit"
	ric := &configv1alpha1.ResourceInterpreterCustomization{
		ObjectMeta: metav1.ObjectMeta{Name: "propel-e2e-editable-workload"},
		Spec: configv1alpha1.ResourceInterpreterCustomizationSpec{
			Target: configv1alpha1.CustomizationTarget{APIVersion: "workload.example.io/v1alpha1", Kind: "Workload"},
			Customizations: configv1alpha1.CustomizationRules{
				ReplicaResource: &configv1alpha1.ReplicaResourceRequirement{LuaScript: fmt.Sprintf(getReplicasScript, "")},
				ReplicaRevision: &configv1alpha1.ReplicaRevision{LuaScript: `function ReviseReplica(obj, desiredReplica)
  obj.spec.replicas = desiredReplica
  return obj
end
`},
			},
		},
	}
	createAll(t, ric)
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), ric) })

	pol := &policyv1alpha1.PropagationPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: wlName + "-propagation"},
		Spec: policyv1alpha1.PropagationSpec{
			ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "workload.example.io/v1alpha1", Kind: "Workload", Name: wlName}},
			Placement: policyv1alpha1.Placement{
				ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member1"}},
				ReplicaScheduling: &policyv1alpha1.ReplicaSchedulingStrategy{
					ReplicaSchedulingType:     policyv1alpha1.ReplicaSchedulingTypeDivided,
					ReplicaDivisionPreference: policyv1alpha1.ReplicaDivisionPreferenceWeighted,
					WeightPreference: &policyv1alpha1.ClusterPreferences{StaticWeightList: []policyv1alpha1.StaticClusterWeight{{
						TargetCluster: policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member1"}}, Weight: 1,
					}}},
				},
			},
		},
	}
	createAll(t, pol)
	workload := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(karmadaSample(t, "workload/workload-sample.yaml"), &workload.Object); err != nil {
		t.Fatal(err)
	}
	workload.SetNamespace("default")
	workload.SetName(wlName)
	harness.Eventually(t, "create the Workload template", func(ctx context.Context) (bool, error) {
		return env.Client.Create(ctx, workload.DeepCopy()) == nil, nil // the RESTMapper learns the new kind lazily
	}, harness.LogsIn(env.LogDir))
	t.Cleanup(func() {
		_ = env.Client.Delete(context.Background(), workload)
		_ = env.Client.Delete(context.Background(), pol)
	})
	var generation int64
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(workload), workload); err == nil {
		generation = workload.GetGeneration()
	}

	member1 := dynamic.NewForConfigOrDie(env.Member("member1").Config).Resource(workloadGVR).Namespace("default")
	expect := func(replicas int64) {
		t.Helper()
		harness.Eventually(t, fmt.Sprintf("binding and member1 have %d replicas", replicas), func(ctx context.Context) (bool, error) {
			rb := &workv1alpha2.ResourceBinding{}
			if err := env.Client.Get(ctx, client.ObjectKey{Namespace: "default", Name: names.BindingName("Workload", wlName)}, rb); err != nil {
				return false, err
			}
			if int64(rb.Spec.Replicas) != replicas {
				return false, fmt.Errorf("binding replicas %d", rb.Spec.Replicas)
			}
			w, err := member1.Get(ctx, wlName, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			got, _, _ := unstructured.NestedInt64(w.Object, "spec", "replicas")
			if got != replicas {
				return false, fmt.Errorf("member1 replicas %d", got)
			}
			return true, nil
		}, harness.Timeout(2*time.Minute), harness.LogsIn(env.LogDir))
	}
	expect(3)

	harness.Eventually(t, "edit GetReplicas to double", func(ctx context.Context) (bool, error) {
		cur := &configv1alpha1.ResourceInterpreterCustomization{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(ric), cur); err != nil {
			return false, err
		}
		cur.Spec.Customizations.ReplicaResource.LuaScript = fmt.Sprintf(getReplicasScript, "* 2")
		return env.Client.Update(ctx, cur) == nil, nil
	}, harness.LogsIn(env.LogDir))
	expect(6)

	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(workload), workload); err != nil {
		t.Fatal(err)
	}
	if workload.GetGeneration() != generation {
		t.Errorf("template generation changed %d -> %d: the test must not touch the template", generation, workload.GetGeneration())
	}
}
