package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/controllers/federatedquota/syncer"
	"github.com/propel-mc/propel/internal/shared/names"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	"github.com/propel-mc/propel/test/harness"
)

// TestFederatedResourceQuota: a FederatedResourceQuota's static
// assignments become ResourceQuotas in member1 and member2 (through Works),
// a pod using quota in member1 shows in the quota's aggregated and overall
// usage, dropping an assignment removes that member's quota, and deleting
// the quota removes the rest.
func TestFederatedResourceQuota(t *testing.T) {
	membersReady(t)
	ctx := context.Background()
	logs := harness.LogsIn(env.LogDir)
	ns := harness.UniqueName("frq")
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.Client.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	})
	list := func(kv ...string) corev1.ResourceList {
		out := corev1.ResourceList{}
		for i := 0; i < len(kv); i += 2 {
			out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
		}
		return out
	}
	frq := &policyv1alpha1.FederatedResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "team-quota"},
		Spec: policyv1alpha1.FederatedResourceQuotaSpec{
			Overall: list("cpu", "10", "memory", "20Gi"),
			StaticAssignments: []policyv1alpha1.StaticClusterAssignment{
				{ClusterName: "member1", Hard: list("cpu", "4", "memory", "8Gi")},
				{ClusterName: "member2", Hard: list("cpu", "6", "memory", "12Gi")},
			},
		},
	}
	if err := env.Client.Create(ctx, frq); err != nil {
		t.Fatal(err)
	}
	memberQuota := func(ctx context.Context, member string) (*corev1.ResourceQuota, error) {
		c, err := env.MemberClient(member)
		if err != nil {
			return nil, err
		}
		rq := &corev1.ResourceQuota{}
		return rq, c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "team-quota"}, rq)
	}
	for member, cpu := range map[string]string{"member1": "4", "member2": "6"} {
		harness.Eventually(t, fmt.Sprintf("%s has ResourceQuota %s/team-quota with cpu %s", member, ns, cpu), func(ctx context.Context) (bool, error) {
			rq, err := memberQuota(ctx, member)
			if apierrors.IsNotFound(err) {
				return false, nil
			}
			if err != nil {
				return false, err
			}
			got := rq.Spec.Hard[corev1.ResourceCPU]
			return got.Cmp(resource.MustParse(cpu)) == 0 && rq.Labels[names.ManagedLabel] == names.TrueValue, nil
		}, harness.Timeout(2*time.Minute), logs)
	}
	work := &workv1alpha1.Work{}
	workName := names.WorkName("ResourceQuota", "team-quota", ns)
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: names.ExecutionSpace("member1"), Name: workName}, work); err != nil {
		t.Fatalf("Work %s of member1: %v", workName, err)
	}
	if work.Labels[names.FederatedResourceQuotaNamespaceLabel] != ns || work.Labels[names.FederatedResourceQuotaNameLabel] != "team-quota" {
		t.Errorf("Work labels %v lack the quota's namespace and name", work.Labels)
	}

	// A pod in member1 charges its quota; member1's kube-controller-manager
	// computes the usage, the Work reflects it, the quota aggregates it.
	member1, err := env.MemberClient("member1")
	if err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "user"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "nginx",
			Resources: corev1.ResourceRequirements{Requests: list("cpu", "500m", "memory", "64Mi"), Limits: list("cpu", "500m", "memory", "64Mi")}}}},
	}
	if err := member1.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "the quota's status aggregates member1's usage", func(ctx context.Context) (bool, error) {
		got := &policyv1alpha1.FederatedResourceQuota{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(frq), got); err != nil {
			return false, err
		}
		st := got.Status
		if len(st.AggregatedStatus) != 2 || st.AggregatedStatus[0].ClusterName != "member1" || st.AggregatedStatus[1].ClusterName != "member2" {
			return false, nil
		}
		used := st.OverallUsed[corev1.ResourceCPU]
		m1 := st.AggregatedStatus[0].Used[corev1.ResourceCPU]
		overall := st.Overall[corev1.ResourceCPU]
		return used.Cmp(resource.MustParse("500m")) == 0 && m1.Cmp(resource.MustParse("500m")) == 0 && overall.Cmp(resource.MustParse("10")) == 0, nil
	}, harness.Timeout(2*time.Minute), logs)
	harness.Eventually(t, "a SyncWorkSucceed event on the quota", func(ctx context.Context) (bool, error) {
		events := &corev1.EventList{}
		if err := env.Client.List(ctx, events, client.InNamespace(ns)); err != nil {
			return false, err
		}
		for _, e := range events.Items {
			if e.InvolvedObject.Name == "team-quota" && e.Reason == syncer.EventReasonSyncWorkSucceed && e.Source.Component == names.FederatedResourceQuotaSyncControllerName {
				return true, nil
			}
		}
		return false, nil
	}, logs)

	// Dropping member2's assignment removes its quota; member1's stays.
	harness.Eventually(t, "drop member2's assignment", func(ctx context.Context) (bool, error) {
		got := &policyv1alpha1.FederatedResourceQuota{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(frq), got); err != nil {
			return false, err
		}
		got.Spec.StaticAssignments = got.Spec.StaticAssignments[:1]
		return env.Client.Update(ctx, got) == nil, nil
	}, logs)
	harness.Eventually(t, "member2's ResourceQuota is removed", func(ctx context.Context) (bool, error) {
		_, err := memberQuota(ctx, "member2")
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	}, harness.Timeout(2*time.Minute), logs)
	if _, err := memberQuota(ctx, "member1"); err != nil {
		t.Fatalf("member1's ResourceQuota after dropping member2's assignment: %v", err)
	}

	if err := env.Client.Delete(ctx, frq); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "member1's ResourceQuota is removed with the quota", func(ctx context.Context) (bool, error) {
		_, err := memberQuota(ctx, "member1")
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	}, harness.Timeout(2*time.Minute), logs)

	// A Work left behind by a quota deleted while no controller ran (as a
	// Karmada controller manager leaves them: there is no finalizer) is
	// removed as soon as the sync controller sees it.
	orphan := &workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{
		Namespace: names.ExecutionSpace("member3"), Name: names.WorkName("ResourceQuota", "gone-quota", ns),
		Labels: map[string]string{names.FederatedResourceQuotaNamespaceLabel: ns, names.FederatedResourceQuotaNameLabel: "gone-quota"},
	}}
	if err := env.Client.Create(ctx, orphan); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "the orphaned quota Work is removed", func(ctx context.Context) (bool, error) {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(orphan), &workv1alpha1.Work{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	}, logs)
}
