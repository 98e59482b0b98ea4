package collectedwork

import (
	"context"
	"slices"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

func memberSlice(name, service, managedBy string) *unstructured.Unstructured {
	labels := map[string]interface{}{names.KubeServiceNameLabel: service}
	if managedBy != "" {
		labels[names.KubeEndpointSliceManagedByLabel] = managedBy
	}
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
		"metadata":    map[string]interface{}{"namespace": "demo", "name": name, "uid": "u-1", "resourceVersion": "7", "labels": labels},
		"addressType": "IPv4",
		"endpoints":   []interface{}{map[string]interface{}{"addresses": []interface{}{"10.0.0.1"}}},
	}}
}

// TestBothPathsShareOneWork: the ServiceExport and MultiClusterService
// collectors report the same member slice into one Work; withdrawing one
// path keeps the Work for the other and drops only its labels; withdrawing
// the last deletes it.
func TestBothPathsShareOneWork(t *testing.T) {
	ctx := context.Background()
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).Build()
	slice := memberSlice("serve-x7k2p", "serve", "")
	for _, path := range []Path{ServiceExport, MultiClusterService} {
		if err := Report(ctx, c, c, "member1", "serve", slice, path); err != nil {
			t.Fatal(err)
		}
	}
	key := client.ObjectKey{Namespace: "karmada-es-member1", Name: "serve-x7k2p-788fcbf6b5"}
	work := &workv1alpha1.Work{}
	if err := c.Get(ctx, key, work); err != nil {
		t.Fatalf("Work %s (Karmada's name for the slice): %v", key, err)
	}
	if got := work.Labels[names.EndpointSliceWorkManagedByLabel]; got != "MultiClusterService.ServiceExport" {
		t.Errorf("managed-by %q", got)
	}
	if work.Labels[names.EndpointSliceNameLabel] != "serve" || work.Labels[names.MultiClusterServiceNameLabel] != "serve" {
		t.Errorf("labels %v lack a path's service labels", work.Labels)
	}
	if !slices.Equal(work.Finalizers, []string{names.EndpointSliceControllerFinalizer, names.MCSEndpointSliceDispatchControllerFinalizer}) {
		t.Errorf("finalizers %v, want both collectors' and not the execution controller's", work.Finalizers)
	}
	if !IsCollected(work, ServiceExport) || !IsCollected(work, MultiClusterService) || !HoldsEndpointSlice(work) {
		t.Error("the Work is not recognised as collected by both paths")
	}

	if err := Clean(ctx, c, work, ServiceExport); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, key, work); err != nil {
		t.Fatalf("the Work went while the MCS path still uses it: %v", err)
	}
	if _, ok := work.Labels[names.EndpointSliceNameLabel]; ok || work.Labels[names.EndpointSliceWorkManagedByLabel] != "MultiClusterService" ||
		work.Labels[names.MultiClusterServiceNameLabel] != "serve" {
		t.Errorf("after withdrawing ServiceExport: labels %v", work.Labels)
	}
	// Withdrawing a path that is not in the set changes nothing.
	rv := work.ResourceVersion
	if err := Clean(ctx, c, work, ServiceExport); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, key, work); err != nil || work.ResourceVersion != rv {
		t.Errorf("a second withdrawal wrote the Work (%v)", err)
	}
	if err := Clean(ctx, c, work, MultiClusterService); err != nil {
		t.Fatal(err)
	}
	// Deleted: the collectors' finalizers hold it until their follow-up
	// controllers have removed what they derived from it.
	if err := c.Get(ctx, key, work); apierrors.IsNotFound(err) || work.DeletionTimestamp.IsZero() {
		t.Errorf("the Work is not being deleted after its last path went (%v)", err)
	}
	for _, path := range []Path{ServiceExport, MultiClusterService} {
		if err := RemoveFinalizer(ctx, c, work, path); err != nil {
			t.Fatal(err)
		}
		if err := c.Get(ctx, key, work); err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
	}
	if err := c.Get(ctx, key, work); !apierrors.IsNotFound(err) {
		t.Errorf("the Work outlived its finalizers: %v", err)
	}
}

func TestKarmadaManagedSlicesAreNotCollected(t *testing.T) {
	for value, want := range map[string]bool{
		names.EndpointSliceControllerManagedByValue: true,
		names.EndpointSliceDispatchManagedByValue:   true,
		"endpointslice-controller.k8s.io":           false,
		"":                                          false,
	} {
		if got := IsKarmadaManaged(memberSlice("s", "svc", value)); got != want {
			t.Errorf("managed-by %q: %v, want %v", value, got, want)
		}
	}
}

func TestDispatchedWorkIsNotCollected(t *testing.T) {
	w := &workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{names.EndpointSliceWorkManagedByLabel: "ServiceExport"}}}
	if IsCollected(w, ServiceExport) {
		t.Error("a Work neither suspended nor holding an EndpointSlice counts as collected")
	}
}
