package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/shared/names"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

var kruiseStatefulSetGVR = schema.GroupVersionResource{Group: "apps.kruise.io", Version: "v1beta1", Resource: "statefulsets"}

// TestBuiltinInterpreterKruiseStatefulSet propagates an OpenKruise Advanced
// StatefulSet, a kind only Propel's built-in interpreters know (no
// customization, no webhook in the cluster), to two members with a 2:1
// Divided placement: the binding carries the template's replicas
// (InterpretReplica), each member gets its share (ReviseReplica), the
// members' statuses, written as Kruise's controller would, come back summed
// on the template with the template's generation observed (InterpretStatus,
// AggregateStatus) and both members report Healthy (InterpretHealth).
func TestBuiltinInterpreterKruiseStatefulSet(t *testing.T) {
	membersReady(t)
	ctx := context.Background()
	const name = "builtin-asts"
	installKruiseStatefulSetCRD(t)

	pol := &policyv1alpha1.PropagationPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name + "-propagation"},
		Spec: policyv1alpha1.PropagationSpec{
			ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "apps.kruise.io/v1beta1", Kind: "StatefulSet", Name: name}},
			Placement: policyv1alpha1.Placement{
				ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member1", "member2"}},
				ReplicaScheduling: &policyv1alpha1.ReplicaSchedulingStrategy{
					ReplicaSchedulingType:     policyv1alpha1.ReplicaSchedulingTypeDivided,
					ReplicaDivisionPreference: policyv1alpha1.ReplicaDivisionPreferenceWeighted,
					WeightPreference: &policyv1alpha1.ClusterPreferences{StaticWeightList: []policyv1alpha1.StaticClusterWeight{
						{TargetCluster: policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member1"}}, Weight: 2},
						{TargetCluster: policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member2"}}, Weight: 1},
					}},
				},
			},
		},
	}
	if err := env.Client.Create(ctx, pol); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), pol) })

	sts := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps.kruise.io/v1beta1",
		"kind":       "StatefulSet",
		"metadata":   map[string]any{"namespace": "default", "name": name},
		"spec": map[string]any{
			"replicas":    int64(3),
			"serviceName": name,
			"selector":    map[string]any{"matchLabels": map[string]any{"app": name}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": name}},
				"spec": map[string]any{"containers": []any{map[string]any{
					"name": "db", "image": "postgres:16",
					"resources": map[string]any{"requests": map[string]any{"cpu": "250m", "memory": "512Mi"}},
				}}},
			},
		},
	}}
	harness.Eventually(t, "create the Kruise StatefulSet template", func(ctx context.Context) (bool, error) {
		return env.Client.Create(ctx, sts.DeepCopy()) == nil, nil // the RESTMapper learns the new kind lazily
	}, harness.Timeout(time.Minute))
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), sts) })

	harness.Eventually(t, "the binding carries 3 replicas and the pod's requests", func(ctx context.Context) (bool, error) {
		rb := &workv1alpha2.ResourceBinding{}
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: "default", Name: names.BindingName("StatefulSet", name)}, rb); err != nil {
			return false, err
		}
		req := rb.Spec.ReplicaRequirements
		if rb.Spec.Replicas != 3 || req == nil || req.ResourceRequest.Cpu().MilliValue() != 250 {
			return false, fmt.Errorf("binding replicas %d, requirements %v", rb.Spec.Replicas, req)
		}
		return true, nil
	}, harness.Timeout(time.Minute))

	want := map[string]int64{"member1": 2, "member2": 1}
	for member, replicas := range want {
		res := dynamic.NewForConfigOrDie(env.Member(member).Config).Resource(kruiseStatefulSetGVR).Namespace("default")
		harness.Eventually(t, fmt.Sprintf("%s runs %d replicas", member, replicas), func(ctx context.Context) (bool, error) {
			obj, err := res.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			got, _, _ := unstructured.NestedInt64(obj.Object, "spec", "replicas")
			return got == replicas, nil
		}, harness.Timeout(2*time.Minute))
		// What Kruise's controller would report once the pods run.
		harness.Eventually(t, member+" reports its status", func(ctx context.Context) (bool, error) {
			obj, err := res.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			obj.Object["status"] = map[string]any{
				"observedGeneration": obj.GetGeneration(),
				"replicas":           replicas, "readyReplicas": replicas, "availableReplicas": replicas,
				"updatedReplicas": replicas, "updatedReadyReplicas": replicas, "currentReplicas": replicas,
				"updateRevision": name + "-rev2", "currentRevision": name + "-rev2",
			}
			_, err = res.UpdateStatus(ctx, obj, metav1.UpdateOptions{})
			return err == nil, nil
		}, harness.Timeout(time.Minute))
	}

	harness.Eventually(t, "the template's status sums the members' at its generation", func(ctx context.Context) (bool, error) {
		tmpl := &unstructured.Unstructured{}
		tmpl.SetGroupVersionKind(sts.GroupVersionKind())
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(sts), tmpl); err != nil {
			return false, err
		}
		status, _, _ := unstructured.NestedMap(tmpl.Object, "status")
		for _, field := range []string{"replicas", "readyReplicas", "availableReplicas", "updatedReplicas", "updatedReadyReplicas", "currentReplicas"} {
			if n, _, _ := unstructured.NestedInt64(status, field); n != 3 {
				return false, fmt.Errorf("status %v", status)
			}
		}
		observed, _, _ := unstructured.NestedInt64(status, "observedGeneration")
		rev, _, _ := unstructured.NestedString(status, "updateRevision")
		if observed != tmpl.GetGeneration() || rev != name+"-rev2" {
			return false, fmt.Errorf("status %v, template generation %d", status, tmpl.GetGeneration())
		}
		return true, nil
	}, harness.Timeout(2*time.Minute))

	harness.Eventually(t, "both members are healthy", func(ctx context.Context) (bool, error) {
		rb := &workv1alpha2.ResourceBinding{}
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: "default", Name: names.BindingName("StatefulSet", name)}, rb); err != nil {
			return false, err
		}
		healthy := 0
		for _, item := range rb.Status.AggregatedStatus {
			if item.Health == workv1alpha2.ResourceHealthy {
				healthy++
			}
		}
		if healthy != 2 {
			return false, fmt.Errorf("aggregated status %+v", rb.Status.AggregatedStatus)
		}
		return true, nil
	}, harness.Timeout(time.Minute))
}

// installKruiseStatefulSetCRD installs the CRD of test data in the control
// plane and in every member.
func installKruiseStatefulSetCRD(t *testing.T) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(harness.RepoRoot(), "test", "e2e", "testdata", "apps.kruise.io_statefulsets.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(data, crd); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	crds := []*apiextensionsv1.CustomResourceDefinition{crd}
	if err := localenv.InstallCRDs(ctx, env.ControlPlane.Config, crds); err != nil {
		t.Fatal(err)
	}
	for _, m := range env.Members {
		if err := localenv.InstallCRDs(ctx, m.Config, crds); err != nil {
			t.Fatal(err)
		}
	}
}
