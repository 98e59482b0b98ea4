package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/shared/names"
	networkingv1alpha1 "github.com/propel-mc/propel/pkg/apis/networking/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

// TestMultiClusterService follows Karmada's MultiClusterService guide
// (gate MultiClusterService on) with config/samples/multiclusterservice: Deployment foo runs in member1, the MCS
// foo names member1 as provider and member2 as consumer. The Service foo is
// claimed and bound to both members, member2 gets member1's endpoints as
// the EndpointSlice member1-<slice> of Service foo, scaling updates them,
// and deleting the MCS removes the copies and gives the Service back.
func TestMultiClusterService(t *testing.T) {
	membersReady(t)
	ctx := context.Background()
	logs := harness.LogsIn(env.LogDir)
	ns := harness.UniqueName("mcsgate")
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.Client.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	})
	applySample(t, "multiclusterservice/foo.yaml", ns)
	deploy := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "foo"}}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "foo"}}
	mcs := &networkingv1alpha1.MultiClusterService{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "foo"}}

	member1, err := env.MemberClient("member1")
	if err != nil {
		t.Fatal(err)
	}
	member2, err := env.MemberClient("member2")
	if err != nil {
		t.Fatal(err)
	}
	addresses := func(ctx context.Context, c client.Client, managedBy string) ([]string, error) {
		list := &discoveryv1.EndpointSliceList{}
		if err := c.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{names.KubeServiceNameLabel: "foo"}); err != nil {
			return nil, err
		}
		list.Items = slices.DeleteFunc(list.Items, func(s discoveryv1.EndpointSlice) bool {
			return s.Labels[names.KubeEndpointSliceManagedByLabel] != managedBy
		})
		return readyAddresses(list.Items), nil
	}
	dispatchedAddresses := func(want int) func(ctx context.Context) (bool, error) {
		return func(ctx context.Context) (bool, error) {
			p, err := addresses(ctx, member1, "endpointslice-controller.k8s.io")
			if err != nil {
				return false, err
			}
			c, err := addresses(ctx, member2, names.EndpointSliceDispatchManagedByValue)
			if err != nil {
				return false, err
			}
			return len(p) == want && slices.Equal(p, c), nil
		}
	}
	harness.Eventually(t, "member2 has member1's 2 endpoints of foo in dispatched slices", dispatchedAddresses(2), harness.Timeout(3*time.Minute), logs)

	harness.Eventually(t, "the Service is claimed, bound to member1 and member2 and runs in both", func(ctx context.Context) (bool, error) {
		got := &corev1.Service{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(svc), got); err != nil {
			return false, err
		}
		if got.Labels[names.ClaimedByLabel] != names.ManagedByMultiClusterService {
			return false, nil
		}
		rb := &workv1alpha2.ResourceBinding{}
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "foo-service"}, rb); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		if rb.Labels[names.BindingManagedByLabel] != names.ManagedByMultiClusterService || rb.Spec.ConflictResolution != "Overwrite" ||
			!slices.Equal(rb.Spec.Placement.ClusterAffinity.ClusterNames, []string{"member1", "member2"}) {
			return false, nil
		}
		for _, m := range []client.Client{member1, member2} {
			if err := m.Get(ctx, client.ObjectKeyFromObject(svc), &corev1.Service{}); err != nil {
				return false, client.IgnoreNotFound(err)
			}
		}
		return true, nil
	}, logs)
	harness.Eventually(t, "the MCS reports ServiceApplied and EndpointSliceDispatched", func(ctx context.Context) (bool, error) {
		got := &networkingv1alpha1.MultiClusterService{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(mcs), got); err != nil {
			return false, err
		}
		applied := meta.FindStatusCondition(got.Status.Conditions, networkingv1alpha1.ServiceAppliedConditionType)
		dispatched := meta.FindStatusCondition(got.Status.Conditions, networkingv1alpha1.EndpointSliceDispatchedConditionType)
		return applied != nil && applied.Status == metav1.ConditionTrue && applied.Reason == networkingv1alpha1.ServiceAppliedSucceedReason &&
			dispatched != nil && dispatched.Status == metav1.ConditionTrue && dispatched.Reason == networkingv1alpha1.EndpointSliceDispatchedSucceedReason &&
			got.Labels[names.MultiClusterServicePermanentIDLabel] != "", nil
	}, logs)
	// The consumer's copy is named after the provider and carries it.
	list := &discoveryv1.EndpointSliceList{}
	if err := member2.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{names.KubeEndpointSliceManagedByLabel: names.EndpointSliceDispatchManagedByValue}); err != nil {
		t.Fatal(err)
	}
	for _, s := range list.Items {
		if !strings.HasPrefix(s.Name, "member1-foo-") || s.Annotations[names.EndpointSliceProvisionClusterAnnotation] != "member1" {
			t.Errorf("dispatched slice %s: annotations %v", s.Name, s.Annotations)
		}
	}

	harness.Eventually(t, "scale foo to 3", func(ctx context.Context) (bool, error) {
		got := &appsv1.Deployment{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(deploy), got); err != nil {
			return false, err
		}
		got.Spec.Replicas = ptr.To[int32](3)
		return env.Client.Update(ctx, got) == nil, nil
	}, logs)
	harness.Eventually(t, "member2 has member1's 3 endpoints", dispatchedAddresses(3), harness.Timeout(3*time.Minute), logs)

	if err := env.Client.Delete(ctx, mcs); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "the MCS is gone with its Works and member2's copies, and the Service is given back", func(ctx context.Context) (bool, error) {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(mcs), &networkingv1alpha1.MultiClusterService{})
		if !apierrors.IsNotFound(err) {
			return false, client.IgnoreNotFound(err)
		}
		c, err := addresses(ctx, member2, names.EndpointSliceDispatchManagedByValue)
		if err != nil || len(c) != 0 {
			return false, err
		}
		works := &workv1alpha1.WorkList{}
		if err := env.Client.List(ctx, works, client.MatchingLabels{names.MultiClusterServiceNamespaceLabel: ns}); err != nil || len(works.Items) != 0 {
			return false, err
		}
		got := &corev1.Service{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(svc), got); err != nil {
			return false, err
		}
		return got.Labels[names.ClaimedByLabel] == "", nil
	}, harness.Timeout(2*time.Minute), logs)
}
