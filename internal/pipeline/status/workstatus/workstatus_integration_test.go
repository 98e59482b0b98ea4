package workstatus_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/internal/shared/workapply"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	"github.com/propel-mc/propel/test/harness"
)

// workStatusWrites counts the writes to Work statuses.
func workStatusWrites() int {
	return writes.Matching(func(w harness.Write) bool {
		return strings.Contains(w.Path, "/works/") && strings.HasSuffix(w.Path, "/status")
	})
}

// memberService creates a Service in member1 the way the execution
// controller would apply it: managed, pointing back to work.
func memberService(t *testing.T, work *workv1alpha1.Work) *unstructured.Unstructured {
	t.Helper()
	ctx := context.Background()
	m1, err := env.MemberClient("member1")
	if err != nil {
		t.Fatal(err)
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: work.Name,
			Labels:      map[string]string{names.ManagedLabel: names.TrueValue},
			Annotations: map[string]string{names.WorkNamespaceAnnotation: work.Namespace, names.WorkNameAnnotation: work.Name}},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Port: 80}}},
	}
	if err := m1.Create(ctx, svc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m1.Delete(context.Background(), svc) })
	raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(svc)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: raw}
	u.SetAPIVersion("v1")
	u.SetKind("Service")
	return u
}

// createWork creates a Work in member1's execution space with one Service
// manifest.
func createWork(t *testing.T) *workv1alpha1.Work {
	t.Helper()
	name := harness.UniqueName("web")
	manifest, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Service",
		"metadata": map[string]any{"namespace": "default", "name": name}, "spec": map[string]any{"ports": []any{map[string]any{"port": 80}}}})
	w := &workv1alpha1.Work{
		ObjectMeta: metav1.ObjectMeta{Namespace: names.ExecutionSpace("member1"), Name: name},
		Spec:       workv1alpha1.WorkSpec{Workload: workv1alpha1.WorkloadTemplate{Manifests: []workv1alpha1.Manifest{{RawExtension: runtime.RawExtension{Raw: manifest}}}}},
	}
	if err := env.Client.Create(context.Background(), w); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), w) })
	return w
}

func getWork(ctx context.Context, w *workv1alpha1.Work) (*workv1alpha1.Work, error) {
	got := &workv1alpha1.Work{}
	return got, env.Client.Get(ctx, client.ObjectKeyFromObject(w), got)
}

func serviceRef(name string) workapply.Ref {
	return workapply.Ref{GVK: corev1.SchemeGroupVersion.WithKind("Service"), Namespace: "default", Name: name}
}

// TestOutcomeAndStatusInOneWrite: the outcome of a sync becomes Applied,
// Dispatching and the first manifest status in one write; a later member
// change is reflected from the member informers; suspension changes
// Dispatching only; a failed apply turns Applied False.
func TestOutcomeAndStatusInOneWrite(t *testing.T) {
	work := createWork(t)
	svc := memberService(t, work)
	key := client.ObjectKeyFromObject(work)
	before := workStatusWrites()
	ws.Record(key, workapply.Outcome{WorkUID: work.UID, Manifests: []workapply.Manifest{{Ref: serviceRef(work.Name), Object: svc}}})
	harness.Eventually(t, "applied with its first manifest status", func(ctx context.Context) (bool, error) {
		got, err := getWork(ctx, work)
		if err != nil {
			return false, err
		}
		applied := meta.FindStatusCondition(got.Status.Conditions, workv1alpha1.WorkApplied)
		return applied != nil && applied.Status == metav1.ConditionTrue && applied.Reason == workv1alpha1.WorkAppliedSuccessfulReason &&
			meta.IsStatusConditionTrue(got.Status.Conditions, workv1alpha1.WorkDispatching) &&
			len(got.Status.ManifestStatuses) == 1 && got.Status.ManifestStatuses[0].Identifier.Kind == "Service" &&
			got.Status.ManifestStatuses[0].Identifier.Name == work.Name, nil
	})
	writes.Quiet(t, 0)
	if n := workStatusWrites() - before; n != 1 {
		t.Errorf("the first status cost %d Work status writes, want 1", n)
	}

	// A member change arrives through the member informers.
	m1, err := env.MemberClient("member1")
	if err != nil {
		t.Fatal(err)
	}
	live := &corev1.Service{}
	if err := m1.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: work.Name}, live); err != nil {
		t.Fatal(err)
	}
	live.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.7"}}
	if err := m1.Status().Update(context.Background(), live); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "member status reflected", func(ctx context.Context) (bool, error) {
		got, err := getWork(ctx, work)
		if err != nil || len(got.Status.ManifestStatuses) != 1 || got.Status.ManifestStatuses[0].Status == nil {
			return false, err
		}
		// A LoadBalancer Service is healthy once it has an ingress.
		return strings.Contains(string(got.Status.ManifestStatuses[0].Status.Raw), "192.0.2.7") &&
			got.Status.ManifestStatuses[0].Health == workv1alpha1.ResourceHealthy, nil
	})

	ws.Record(key, workapply.Outcome{WorkUID: work.UID, Suspended: true})
	harness.Eventually(t, "dispatching suspended, applied kept", func(ctx context.Context) (bool, error) {
		got, err := getWork(ctx, work)
		if err != nil {
			return false, err
		}
		d := meta.FindStatusCondition(got.Status.Conditions, workv1alpha1.WorkDispatching)
		return d != nil && d.Status == metav1.ConditionFalse && d.Reason == workv1alpha1.WorkSuspendDispatchingReason &&
			meta.IsStatusConditionTrue(got.Status.Conditions, workv1alpha1.WorkApplied), nil
	})

	ws.Record(key, workapply.Outcome{WorkUID: work.UID, Manifests: []workapply.Manifest{{Ref: serviceRef(work.Name), Err: errors.New("denied by a webhook")}}})
	harness.Eventually(t, "failed apply recorded", func(ctx context.Context) (bool, error) {
		got, err := getWork(ctx, work)
		if err != nil {
			return false, err
		}
		a := meta.FindStatusCondition(got.Status.Conditions, workv1alpha1.WorkApplied)
		return a != nil && a.Status == metav1.ConditionFalse && strings.Contains(a.Message, "denied by a webhook") &&
			meta.IsStatusConditionTrue(got.Status.Conditions, workv1alpha1.WorkDispatching), nil
	})
}

// TestOutcomeOfAnotherWorkIgnored: an outcome recorded for a Work that
// was since recreated under the same name (other UID) is not written.
func TestOutcomeOfAnotherWorkIgnored(t *testing.T) {
	work := createWork(t)
	ws.Record(client.ObjectKeyFromObject(work), workapply.Outcome{WorkUID: "not-this-work"})
	harness.Consistently(t, "no status from a stale outcome", 3*time.Second, func(ctx context.Context) error {
		got, err := getWork(ctx, work)
		if err == nil && len(got.Status.Conditions) != 0 {
			return fmt.Errorf("conditions %+v", got.Status.Conditions)
		}
		return err
	})
}
