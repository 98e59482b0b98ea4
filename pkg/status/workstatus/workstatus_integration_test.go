package workstatus_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	"github.com/propel-mc/propel/pkg/names"
	"github.com/propel-mc/propel/test/harness"
)

func ctrlKey(name string) client.ObjectKey { return client.ObjectKey{Name: name} }

// appliedWork is a Deployment applied to the member as the execution
// controller leaves it: the member object annotated with its Work, and
// the Work marked Applied.
type appliedWork struct {
	work   *workv1alpha1.Work
	deploy *appsv1.Deployment
	member client.Client
}

func applyDeployment(t *testing.T, name string) *appliedWork {
	t.Helper()
	ctx := context.Background()
	mc, err := env.MemberClient(member)
	if err != nil {
		t.Fatal(err)
	}
	workName := names.WorkName("Deployment", name, "default")
	labels := map[string]string{"app": name}
	deploy := &appsv1.Deployment{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{names.ManagedLabel: names.TrueValue}, Annotations: map[string]string{
			names.WorkNamespaceAnnotation: names.ExecutionSpace(member), names.WorkNameAnnotation: workName,
		}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}},
			},
		},
	}
	raw, err := json.Marshal(deploy)
	if err != nil {
		t.Fatal(err)
	}
	if err := mc.Create(ctx, deploy); err != nil {
		t.Fatalf("create member deployment: %v", err)
	}
	t.Cleanup(func() { _ = mc.Delete(context.Background(), deploy) })
	work := &workv1alpha1.Work{
		ObjectMeta: metav1.ObjectMeta{Namespace: names.ExecutionSpace(member), Name: workName},
		Spec:       workv1alpha1.WorkSpec{Workload: workv1alpha1.WorkloadTemplate{Manifests: []workv1alpha1.Manifest{{RawExtension: runtime.RawExtension{Raw: raw}}}}},
	}
	if err := env.Client.Create(ctx, work); err != nil {
		t.Fatalf("create work: %v", err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), work) })
	meta.SetStatusCondition(&work.Status.Conditions, metav1.Condition{
		Type: workv1alpha1.WorkApplied, Status: metav1.ConditionTrue, Reason: "AppliedSuccessful", Message: "Manifest has been successfully applied",
	})
	if err := env.Client.Status().Update(ctx, work); err != nil {
		t.Fatalf("mark work applied: %v", err)
	}
	return &appliedWork{work: work, deploy: deploy, member: mc}
}

// setMemberStatus writes the member Deployment's status, as the member's
// deployment controller would.
func (a *appliedWork) setMemberStatus(t *testing.T, updated, ready, available int32) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		d := &appsv1.Deployment{}
		if err := a.member.Get(context.Background(), client.ObjectKeyFromObject(a.deploy), d); err != nil {
			return err
		}
		d.Status = appsv1.DeploymentStatus{
			ObservedGeneration: d.Generation, Replicas: 2, UpdatedReplicas: updated, ReadyReplicas: ready,
			AvailableReplicas: available, UnavailableReplicas: 2 - available,
		}
		return a.member.Status().Update(context.Background(), d)
	})
	if err != nil {
		t.Fatalf("member deployment status: %v", err)
	}
}

// waitReflected waits until the Work's one manifest status names the
// Deployment, reflects readyReplicas and has health.
func (a *appliedWork) waitReflected(t *testing.T, ready int32, health workv1alpha1.ResourceHealth) {
	t.Helper()
	harness.Eventually(t, fmt.Sprintf("%s reflects %d ready replicas, %s", a.work.Name, ready, health), func(ctx context.Context) (bool, error) {
		w := &workv1alpha1.Work{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(a.work), w); err != nil {
			return false, err
		}
		if len(w.Status.ManifestStatuses) != 1 {
			return false, fmt.Errorf("%d manifest statuses", len(w.Status.ManifestStatuses))
		}
		ms := w.Status.ManifestStatuses[0]
		want := workv1alpha1.ResourceIdentifier{Ordinal: 0, Group: "apps", Version: "v1", Kind: "Deployment", Namespace: "default", Name: a.deploy.Name}
		if ms.Identifier != want {
			return false, fmt.Errorf("identifier %+v, want %+v", ms.Identifier, want)
		}
		var s appsv1.DeploymentStatus
		if ms.Status == nil {
			return false, fmt.Errorf("no status reflected")
		}
		if err := json.Unmarshal(ms.Status.Raw, &s); err != nil {
			return false, err
		}
		if s.ReadyReplicas != ready || ms.Health != health {
			return false, fmt.Errorf("readyReplicas %d, health %s", s.ReadyReplicas, ms.Health)
		}
		return true, nil
	})
}

// writesTo counts the writes to the Work since the first n.
func (a *appliedWork) writesTo(n int) []harness.Write {
	var out []harness.Write
	for _, w := range writes.Since(n) {
		if strings.Contains(w.Path, "/works/"+a.work.Name) {
			out = append(out, w)
		}
	}
	return out
}

// TestMemberStatusReflectedWithHealth: the member Deployment's status and
// its interpreted health land in Work.status.manifestStatuses, and each
// change of the member's status costs exactly one write.
func TestMemberStatusReflectedWithHealth(t *testing.T) {
	a := applyDeployment(t, harness.UniqueName("reflect"))
	a.setMemberStatus(t, 2, 2, 2)
	a.waitReflected(t, 2, workv1alpha1.ResourceHealthy)

	// A rollout in progress: one replica updated and available.
	writes.Quiet(t, 0)
	before := writes.Len()
	a.setMemberStatus(t, 1, 1, 1)
	a.waitReflected(t, 1, workv1alpha1.ResourceUnhealthy)
	writes.Quiet(t, 0)
	if got := a.writesTo(before); len(got) != 1 {
		t.Errorf("one member status change: %d writes to the Work, want 1:%s", len(got), harness.Summarize(got))
	}
}

// TestUnchangedStatusIsNotRewritten: a member event that changes nothing
// the Work reflects (a label) is reconciled without a write.
func TestUnchangedStatusIsNotRewritten(t *testing.T) {
	a := applyDeployment(t, harness.UniqueName("still"))
	a.setMemberStatus(t, 2, 2, 2)
	a.waitReflected(t, 2, workv1alpha1.ResourceHealthy)
	writes.Quiet(t, 0)
	before, reconciled := writes.Len(), harness.Reconciles(t, names.WorkStatusControllerName, "success")

	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		d := &appsv1.Deployment{}
		if err := a.member.Get(context.Background(), client.ObjectKeyFromObject(a.deploy), d); err != nil {
			return err
		}
		if d.Labels == nil {
			d.Labels = map[string]string{}
		}
		d.Labels["team"] = "blue"
		return a.member.Update(context.Background(), d)
	})
	if err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "the label change reconciled", func(context.Context) (bool, error) {
		return harness.Reconciles(t, names.WorkStatusControllerName, "success") > reconciled, nil
	})
	writes.Quiet(t, 0)
	if got := a.writesTo(before); len(got) != 0 {
		t.Errorf("an unchanged status was written %d times:%s", len(got), harness.Summarize(got))
	}
}
