package enforcement_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/app/controllermanager/recorder"
	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/controllers/federatedquota/enforcement"
	"github.com/propel-mc/propel/internal/controllers/federatedquota/usage"
	"github.com/propel-mc/propel/internal/scheduling/scheduler"
	"github.com/propel-mc/propel/internal/shared/names"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

func cpu(q string) corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(q)}
}

// duplicated is a claimed binding of replicas one-CPU replicas on cluster
// quota-member.
func duplicated(name string, replicas int32) *workv1alpha2.ResourceBinding {
	return &workv1alpha2.ResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name + "-deployment",
			Labels: map[string]string{names.PropagationPolicyPermanentIDLabel: "pp-quota"}},
		Spec: workv1alpha2.ResourceBindingSpec{
			Resource:            workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: name, UID: types.UID("uid-" + name)},
			Replicas:            replicas,
			SchedulerName:       "default-scheduler",
			ReplicaRequirements: &workv1alpha2.ReplicaRequirements{ResourceRequest: cpu("1")},
			Placement: &policyv1alpha1.Placement{
				ClusterAffinity:   &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"quota-member"}},
				ReplicaScheduling: &policyv1alpha1.ReplicaSchedulingStrategy{ReplicaSchedulingType: policyv1alpha1.ReplicaSchedulingTypeDuplicated},
			},
		},
	}
}

// TestQuotaEnforcement runs the scheduler with the quota check and the
// enforcement controller on a real control plane: a placement within the
// quota is written and charged, one beyond it is refused with
// Scheduled=False/QuotaExceeded and Karmada's message and keeps no
// clusters, and deleting the first binding frees the quota so that the
// refused one is scheduled on its retry.
func TestQuotaEnforcement(t *testing.T) {
	ctrl.SetLogger(logr.Discard())
	env := harness.StartT(t, harness.Options{Members: []localenv.MemberOptions{}, NoControlPlaneControllers: true})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c := env.Client
	cl := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "quota-member"}, Spec: clusterv1alpha1.ClusterSpec{SyncMode: clusterv1alpha1.Push}}
	if err := c.Create(ctx, cl); err != nil {
		t.Fatal(err)
	}
	cl.Status = clusterv1alpha1.ClusterStatus{
		APIEnablements: []clusterv1alpha1.APIEnablement{{GroupVersion: "apps/v1", Resources: []clusterv1alpha1.APIResource{{Name: "deployments", Kind: "Deployment"}}}},
		Conditions:     []metav1.Condition{{Type: clusterv1alpha1.ClusterConditionReady, Status: metav1.ConditionTrue, Reason: "ClusterReady", Message: "ready", LastTransitionTime: metav1.Now()}},
	}
	if err := c.Status().Update(ctx, cl); err != nil {
		t.Fatal(err)
	}
	frq := &policyv1alpha1.FederatedResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "team-quota"},
		Spec:       policyv1alpha1.FederatedResourceQuotaSpec{Overall: cpu("10")},
	}
	if err := c.Create(ctx, frq); err != nil {
		t.Fatal(err)
	}
	if _, err := harness.RunManager(ctx, env.ControllerManagerConfig(), func(mgr ctrl.Manager) error {
		s, err := scheduler.New(scheduler.Options{Quota: &enforcement.Admitter{Client: mgr.GetClient()}})
		if err != nil {
			return err
		}
		if err := s.SetupWithManager(mgr); err != nil {
			return err
		}
		return enforcement.New(enforcement.Deps{
			Client:   mgr.GetClient(),
			Recorder: recorder.For(mgr, names.FederatedResourceQuotaEnforcementControllerName),
		}, enforcement.Options{SyncPeriod: time.Hour}).SetupWithManager(mgr)
	}); err != nil {
		t.Fatal(err)
	}
	overallUsed := func(ctx context.Context) (corev1.ResourceList, error) {
		got := &policyv1alpha1.FederatedResourceQuota{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(frq), got); err != nil {
			return nil, err
		}
		if got.Status.Overall.Cpu().Cmp(resource.MustParse("10")) != 0 {
			return nil, nil
		}
		return got.Status.OverallUsed, nil
	}
	usedCPU := func(want string) func(ctx context.Context) (bool, error) {
		return func(ctx context.Context) (bool, error) {
			used, err := overallUsed(ctx)
			if err != nil || used == nil && want != "" {
				return false, err
			}
			if want == "" {
				return len(used) == 0, nil
			}
			return used.Cpu().Cmp(resource.MustParse(want)) == 0, nil
		}
	}
	scheduled := func(name string) (*workv1alpha2.ResourceBinding, *metav1.Condition, error) {
		rb := &workv1alpha2.ResourceBinding{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: name + "-deployment"}, rb); err != nil {
			return nil, nil, err
		}
		return rb, meta.FindStatusCondition(rb.Status.Conditions, workv1alpha2.Scheduled), nil
	}

	harness.Eventually(t, "the enforcement controller sets overall", func(ctx context.Context) (bool, error) {
		got := &policyv1alpha1.FederatedResourceQuota{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(frq), got); err != nil {
			return false, err
		}
		return got.Status.Overall.Cpu().Cmp(resource.MustParse("10")) == 0, nil
	})
	if err := c.Create(ctx, duplicated("small", 4)); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "small (4 CPU) is scheduled", func(context.Context) (bool, error) {
		rb, cond, err := scheduled("small")
		return err == nil && cond != nil && cond.Status == metav1.ConditionTrue && len(rb.Spec.Clusters) == 1, err
	})
	harness.Eventually(t, "small is charged to the quota", usedCPU("4"))

	if err := c.Create(ctx, duplicated("big", 7)); err != nil {
		t.Fatal(err)
	}
	want := "FederatedResourceQuota(default/team-quota) exceeded for resource cpu: requested sum 11, limit 10."
	harness.Eventually(t, "big (7 CPU more) is refused with QuotaExceeded", func(context.Context) (bool, error) {
		rb, cond, err := scheduled("big")
		if err != nil || cond == nil {
			return false, err
		}
		if len(rb.Spec.Clusters) != 0 {
			t.Fatalf("big was placed on %v beyond the quota", rb.Spec.Clusters)
		}
		return cond.Status == metav1.ConditionFalse && cond.Reason == usage.Reason && strings.Contains(cond.Message, want), nil
	})
	harness.Consistently(t, "the refused placement charges nothing", 2*time.Second, func(ctx context.Context) error {
		if ok, err := usedCPU("4")(ctx); err != nil || !ok {
			used, _ := overallUsed(ctx)
			return &quotaError{used}
		}
		return nil
	})

	if err := c.Delete(ctx, duplicated("small", 4)); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "big is scheduled once small is gone", func(context.Context) (bool, error) {
		rb, cond, err := scheduled("big")
		return err == nil && cond != nil && cond.Status == metav1.ConditionTrue && len(rb.Spec.Clusters) == 1, err
	}, harness.Timeout(time.Minute))
	harness.Eventually(t, "the quota holds big's 7 CPU", usedCPU("7"))
}

type quotaError struct{ used corev1.ResourceList }

func (e *quotaError) Error() string { return "overallUsed is " + e.used.Cpu().String() + ", want 4" }
