package binding

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	"github.com/propel-mc/propel/internal/pipeline/binding/overrides"
	"github.com/propel-mc/propel/internal/shared/names"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// The worked example of the reference (appendix D): Deployment
// default/nginx, uid U, generation 1, claimed by PropagationPolicy
// default/nginx-pp (permanent id P), bound by ResourceBinding
// default/nginx-deployment (permanent id R), scheduled 3:6.
const (
	exampleU = "0f4b2a8e-1111-4c3c-9d6a-5b2f0a7e0001"
	exampleP = "pp-permanent-id-P"
	exampleR = "rb-permanent-id-R"
)

func exampleTemplate(t testing.TB) *unstructured.Unstructured {
	return mustObject(t, `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx
  namespace: default
  uid: `+exampleU+`
  generation: 1
  resourceVersion: "4711"
  creationTimestamp: "2026-01-02T03:04:05Z"
  managedFields: [{manager: kubectl, operation: Update}]
  labels:
    app: nginx
    propagationpolicy.karmada.io/permanent-id: `+exampleP+`
  annotations:
    propagationpolicy.karmada.io/namespace: default
    propagationpolicy.karmada.io/name: nginx-pp
    deployment.kubernetes.io/revision: "1"
spec:
  replicas: 9
  selector: {matchLabels: {app: nginx}}
  template:
    metadata: {labels: {app: nginx}}
    spec:
      containers: [{name: nginx, image: nginx}]
status:
  replicas: 9
`)
}

func exampleBinding() *workv1alpha2.ResourceBinding {
	return &workv1alpha2.ResourceBinding{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "default", Name: "nginx-deployment",
			Labels:     map[string]string{names.ResourceBindingPermanentIDLabel: exampleR, names.PropagationPolicyPermanentIDLabel: exampleP},
			Finalizers: []string{names.BindingControllerFinalizer},
		},
		Spec: workv1alpha2.ResourceBindingSpec{
			Resource: workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "nginx", UID: exampleU},
			Replicas: 9,
			Placement: &policyv1alpha1.Placement{ReplicaScheduling: &policyv1alpha1.ReplicaSchedulingStrategy{
				ReplicaSchedulingType: policyv1alpha1.ReplicaSchedulingTypeDivided, ReplicaDivisionPreference: policyv1alpha1.ReplicaDivisionPreferenceWeighted,
			}},
			Clusters:           []workv1alpha2.TargetCluster{{Name: "member1", Replicas: 3}, {Name: "member2", Replicas: 6}},
			SchedulerName:      names.DefaultSchedulerName,
			ConflictResolution: policyv1alpha1.ConflictAbort,
		},
	}
}

func mustObject(t testing.TB, doc string) *unstructured.Unstructured {
	t.Helper()
	data, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(data); err != nil {
		t.Fatal(err)
	}
	return obj
}

func newInterpreter() Interpreter { return resourceinterpreter.New(native.New()) }

func memberCluster(name string) *clusterv1alpha1.Cluster {
	return &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

// renderAll renders the Work of every target as a new Work would be
// created.
func renderAll(t testing.TB, b *binding, tmpl *unstructured.Unstructured, set *overrides.Set) map[string]*workv1alpha1.Work {
	t.Helper()
	if set == nil {
		set = overrides.NewSet(nil, nil)
	}
	targets := b.targets()
	rd, err := newRenderer(newInterpreter(), b, tmpl, set, targets)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*workv1alpha1.Work{}
	for _, target := range targets {
		d, _, err := rd.render(context.Background(), target, memberCluster(target.Name))
		if err != nil {
			t.Fatal(err)
		}
		w, err := d.NewWork()
		if err != nil {
			t.Fatal(err)
		}
		out[target.Name] = w
	}
	return out
}

func manifestOf(t testing.TB, w *workv1alpha1.Work) *unstructured.Unstructured {
	t.Helper()
	if len(w.Spec.Workload.Manifests) != 1 {
		t.Fatalf("Work %s has %d manifests", w.Name, len(w.Spec.Workload.Manifests))
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(w.Spec.Workload.Manifests[0].Raw); err != nil {
		t.Fatal(err)
	}
	return obj
}

func TestWorkedExampleWork(t *testing.T) {
	tmpl := exampleTemplate(t)
	works := renderAll(t, rbKind.wrap(exampleBinding()), tmpl, nil)
	for cluster, replicas := range map[string]int64{"member1": 3, "member2": 6} {
		w := works[cluster]
		if w.Name != "nginx-687f7fb96f" || w.Namespace != "karmada-es-"+cluster {
			t.Errorf("%s: Work %s/%s, want karmada-es-%s/nginx-687f7fb96f", cluster, w.Namespace, w.Name, cluster)
		}
		workID := w.Labels[names.WorkPermanentIDLabel]
		wantLabels := map[string]string{names.ResourceBindingPermanentIDLabel: exampleR, names.WorkPermanentIDLabel: workID}
		if workID == "" || !reflect.DeepEqual(w.Labels, wantLabels) {
			t.Errorf("%s: Work labels %v", cluster, w.Labels)
		}
		wantAnnotations := map[string]string{
			names.ResourceBindingNamespaceAnnotation: "default", names.ResourceBindingNameAnnotation: "nginx-deployment",
			names.ConflictResolutionAnnotation: "abort",
		}
		if !reflect.DeepEqual(w.Annotations, wantAnnotations) {
			t.Errorf("%s: Work annotations %v", cluster, w.Annotations)
		}
		if !reflect.DeepEqual(w.Finalizers, []string{names.ExecutionControllerFinalizer}) {
			t.Errorf("%s: finalizers %v", cluster, w.Finalizers)
		}
		if !ptr.Equal(w.Spec.SuspendDispatching, ptr.To(false)) || !ptr.Equal(w.Spec.PreserveResourcesOnDeletion, ptr.To(false)) {
			t.Errorf("%s: suspendDispatching %v preserveResourcesOnDeletion %v", cluster, w.Spec.SuspendDispatching, w.Spec.PreserveResourcesOnDeletion)
		}
		checkExampleManifest(t, manifestOf(t, w), cluster, replicas, workID)
	}
}

func checkExampleManifest(t *testing.T, m *unstructured.Unstructured, cluster string, replicas int64, workID string) {
	t.Helper()
	if r, _, _ := unstructured.NestedInt64(m.Object, "spec", "replicas"); r != replicas {
		t.Errorf("%s: manifest replicas %d, want %d", cluster, r, replicas)
	}
	wantLabels := map[string]string{
		"app": "nginx", names.PropagationPolicyPermanentIDLabel: exampleP, names.ResourceBindingPermanentIDLabel: exampleR,
		names.ManagedLabel: "true", names.WorkPermanentIDLabel: workID,
	}
	if !reflect.DeepEqual(m.GetLabels(), wantLabels) {
		t.Errorf("%s: manifest labels %v", cluster, m.GetLabels())
	}
	wantAnnotations := map[string]string{
		names.PropagationPolicyNamespaceAnnotation: "default", names.PropagationPolicyNameAnnotation: "nginx-pp",
		names.ResourceTemplateGenerationAnnotation: "1",
		names.ResourceBindingNamespaceAnnotation:   "default", names.ResourceBindingNameAnnotation: "nginx-deployment",
		names.ResourceTemplateUIDAnnotation: exampleU,
		names.WorkNameAnnotation:            "nginx-687f7fb96f", names.WorkNamespaceAnnotation: "karmada-es-" + cluster,
		names.ConflictResolutionAnnotation: "abort",
		names.ManagedAnnotationsAnnotation: strings.Join([]string{
			"propagationpolicy.karmada.io/name", "propagationpolicy.karmada.io/namespace",
			"resourcebinding.karmada.io/name", "resourcebinding.karmada.io/namespace",
			"resourcetemplate.karmada.io/generation", "resourcetemplate.karmada.io/managed-annotations",
			"resourcetemplate.karmada.io/managed-labels", "resourcetemplate.karmada.io/uid",
			"work.karmada.io/conflict-resolution", "work.karmada.io/name", "work.karmada.io/namespace",
		}, ","),
		names.ManagedLabelsAnnotation: "app,karmada.io/managed,propagationpolicy.karmada.io/permanent-id,resourcebinding.karmada.io/permanent-id,work.karmada.io/permanent-id",
	}
	if got := m.GetAnnotations(); !reflect.DeepEqual(got, wantAnnotations) {
		gotJSON, _ := json.MarshalIndent(got, "", " ")
		t.Errorf("%s: manifest annotations\n%s", cluster, gotJSON)
	}
	for _, field := range []string{"uid", "resourceVersion", "generation", "creationTimestamp", "managedFields"} {
		if _, found, _ := unstructured.NestedFieldNoCopy(m.Object, "metadata", field); found {
			t.Errorf("%s: metadata.%s not pruned", cluster, field)
		}
	}
	if _, found := m.Object["status"]; found {
		t.Errorf("%s: status not pruned", cluster)
	}
}

func containerImage(t testing.TB, m *unstructured.Unstructured) string {
	t.Helper()
	containers, _, _ := unstructured.NestedSlice(m.Object, "spec", "template", "spec", "containers")
	return containers[0].(map[string]interface{})["image"].(string)
}
