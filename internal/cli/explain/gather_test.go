package explain

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/livestack"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

var (
	deployGVK = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	now       = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
)

// fixture is a claimed, scheduled Deployment with one Work (overridden)
// per cluster, as the controller leaves them.
func fixture(t *testing.T) client.Client {
	t.Helper()
	tmpl := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{
			"namespace": "default", "name": "web", "uid": "tmpl-uid", "generation": int64(1),
			"labels":      map[string]any{"app": "web", names.PropagationPolicyPermanentIDLabel: "pp-id"},
			"annotations": map[string]any{names.PropagationPolicyNamespaceAnnotation: "default", names.PropagationPolicyNameAnnotation: "web"},
		},
		"spec": map[string]any{"replicas": int64(3), "selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web"}}, "spec": map[string]any{"containers": []any{map[string]any{"name": "web", "image": "nginx"}}}}},
		"status": map[string]any{"replicas": int64(3), "readyReplicas": int64(3)},
	}}
	selector := func(name string) []policyv1alpha1.ResourceSelector {
		return []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", Name: name}}
	}
	pp := &policyv1alpha1.PropagationPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", Labels: map[string]string{names.PropagationPolicyPermanentIDLabel: "pp-id"}},
		Spec: policyv1alpha1.PropagationSpec{ResourceSelectors: selector("web"), Priority: ptr.To[int32](1)}}
	low := &policyv1alpha1.PropagationPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "all-web"},
		Spec: policyv1alpha1.PropagationSpec{ResourceSelectors: selector("web")}}
	cpp := &policyv1alpha1.ClusterPropagationPolicy{ObjectMeta: metav1.ObjectMeta{Name: "everything"},
		Spec: policyv1alpha1.PropagationSpec{ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment"}}, Priority: ptr.To[int32](9)}}
	ltt := metav1.NewTime(now.Add(-90 * time.Second))
	rb := &workv1alpha2.ResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-deployment", UID: "rb-uid", Labels: map[string]string{workv1alpha2.ResourceBindingPermanentIDLabel: "rb-id"}},
		Spec: workv1alpha2.ResourceBindingSpec{
			Resource: workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "web"},
			Replicas: 3,
			Clusters: []workv1alpha2.TargetCluster{{Name: "member1", Replicas: 2}, {Name: "member2", Replicas: 1}},
		},
		Status: workv1alpha2.ResourceBindingStatus{
			Conditions: []metav1.Condition{{Type: "Scheduled", Status: metav1.ConditionTrue, Reason: "Success", Message: "Binding has been scheduled successfully.", LastTransitionTime: ltt}},
			AggregatedStatus: []workv1alpha2.AggregatedStatusItem{
				{ClusterName: "member1", Applied: true, Health: workv1alpha2.ResourceHealthy},
				{ClusterName: "member2", Applied: false, AppliedMessage: "connection refused", Health: workv1alpha2.ResourceUnknown},
			},
		},
	}
	work := func(cluster string, replicas int64, overrides string) *workv1alpha1.Work {
		m := tmpl.DeepCopy()
		_ = unstructured.SetNestedField(m.Object, replicas, "spec", "replicas")
		unstructured.RemoveNestedField(m.Object, "status")
		raw, _ := m.MarshalJSON()
		w := &workv1alpha1.Work{
			ObjectMeta: metav1.ObjectMeta{Namespace: names.ExecutionSpace(cluster), Name: names.WorkName("Deployment", "web", "default"), UID: types.UID("work-" + cluster),
				Labels: map[string]string{workv1alpha2.ResourceBindingPermanentIDLabel: "rb-id"}},
			Spec: workv1alpha1.WorkSpec{Workload: workv1alpha1.WorkloadTemplate{Manifests: []workv1alpha1.Manifest{{RawExtension: runtime.RawExtension{Raw: raw}}}}},
			Status: workv1alpha1.WorkStatus{
				Conditions:       []metav1.Condition{{Type: workv1alpha1.WorkApplied, Status: metav1.ConditionTrue, Reason: "AppliedSuccessful", LastTransitionTime: ltt}},
				ManifestStatuses: []workv1alpha1.ManifestStatus{{Health: workv1alpha1.ResourceHealthy, Status: &runtime.RawExtension{Raw: []byte(`{"readyReplicas":2}`)}}},
			},
		}
		if overrides != "" {
			w.Annotations = map[string]string{names.AppliedOverridesAnnotation: overrides}
		}
		return w
	}
	ev := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Namespace: "default", Name: "web.1"},
		InvolvedObject: corev1.ObjectReference{Kind: "Deployment", Namespace: "default", Name: "web"},
		Type:           corev1.EventTypeNormal, Reason: "ApplyPolicySucceed", Message: "Apply policy(default/web) succeed",
		Count: 1, LastTimestamp: metav1.NewTime(now.Add(-3 * time.Minute)),
	}
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(deployGVK, meta.RESTScopeNamespace)
	return fake.NewClientBuilder().WithScheme(apis.Scheme).WithRESTMapper(mapper).
		WithObjects(tmpl, pp, low, cpp, rb, ev,
			work("member1", 2, ""),
			work("member2", 1, `[{"policyName":"web-tag","overriders":{"imageOverrider":[{"component":"Tag","operator":"replace","value":"1.25"}]}}]`)).
		WithIndex(&corev1.Event{}, "involvedObject.name", func(o client.Object) []string { return []string{o.(*corev1.Event).InvolvedObject.Name} }).
		Build()
}

func gather(t *testing.T, member func(context.Context, string) (dynamic.Interface, error)) *Explanation {
	t.Helper()
	c := fixture(t)
	stack, err := livestack.New(livestack.Config{}, livestack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stack.Close)
	x, err := Gather(context.Background(), Sources{Client: c, Mapper: c.RESTMapper(), Interpreter: stack, InterpreterSource: "test stack", Member: member}, deployGVK, "default", "web")
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// TestGatherUnreachableMember: every stage is filled from the control
// plane's objects; members that cannot be reached are reported, and the
// rest is still explained.
func TestGatherUnreachableMember(t *testing.T) {
	x := gather(t, func(_ context.Context, cluster string) (dynamic.Interface, error) {
		return nil, errors.New("dial tcp 10.0.0.1:6443: connect: connection refused")
	})
	if p := x.Policy; p.Name != "web" || p.PermanentID != "pp-id" || p.Priority != 1 {
		t.Errorf("policy %+v", p)
	}
	reasons := map[string]string{}
	for _, o := range x.Policy.Others {
		reasons[o.Name] = o.Reason
	}
	if r := reasons["all-web"]; r != "lower priority (0 < 1)" {
		t.Errorf("all-web lost because %q", r)
	}
	if r := reasons["everything"]; !strings.Contains(r, "namespaced policies win") {
		t.Errorf("everything lost because %q", r)
	}
	if len(x.Clusters) != 2 || x.Clusters[1].Overrides[0].Policy != "web-tag" || *x.Clusters[0].ManifestReplicas != 2 {
		t.Fatalf("clusters %+v", x.Clusters)
	}
	for _, c := range x.Clusters {
		if c.Member.Reachable || !strings.Contains(c.Member.Error, "connection refused") {
			t.Errorf("%s member %+v, want unreachable", c.Name, c.Member)
		}
	}
	if len(x.Problems) != 2 || !strings.Contains(x.Problems[0], "cluster member1: member not readable") {
		t.Errorf("problems %q", x.Problems)
	}
	if len(x.Status.Aggregated) != 2 || len(x.Policy.Events) != 1 {
		t.Errorf("status %+v, policy events %+v", x.Status, x.Policy.Events)
	}
	var b bytes.Buffer
	if err := Text(&b, x, TextOptions{Now: now}); err != nil {
		t.Fatal(err)
	}
	golden(t, "unreachable.golden", b.String())
}

func TestTextColourOnlyWhenAsked(t *testing.T) {
	x := gather(t, nil)
	var plain, colour bytes.Buffer
	_ = Text(&plain, x, TextOptions{Now: now})
	_ = Text(&colour, x, TextOptions{Now: now, Color: true})
	if strings.Contains(plain.String(), "\x1b[") || !strings.Contains(colour.String(), "\x1b[32mTrue\x1b[0m") {
		t.Errorf("plain has escapes or colour lacks them:\n%s\n%s", plain.String(), colour.String())
	}
}

func TestAge(t *testing.T) {
	for d, want := range map[time.Duration]string{-time.Second: "0s", 45 * time.Second: "45s", 5 * time.Minute: "5m", 3 * time.Hour: "3h", 72 * time.Hour: "3d"} {
		if got := Age(d); got != want {
			t.Errorf("Age(%v) = %s, want %s", d, got, want)
		}
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("text differs from %s:\n--- got\n%s--- want\n%s", path, got, want)
	}
}
