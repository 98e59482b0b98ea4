package endpointslice

import (
	"context"
	"encoding/json"
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/controllers/mcs/collectedwork"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// collected is the Work a member cluster's exported slice is collected
// into, holding one endpoint address.
func collected(t *testing.T, cluster, slice, address string) *workv1alpha1.Work {
	t.Helper()
	member := &discoveryv1.EndpointSlice{
		TypeMeta:    metav1.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice"},
		ObjectMeta:  metav1.ObjectMeta{Namespace: "demo", Name: slice, Labels: map[string]string{names.KubeServiceNameLabel: "serve"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{address}}},
	}
	raw, err := json.Marshal(member)
	if err != nil {
		t.Fatal(err)
	}
	return &workv1alpha1.Work{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: names.ExecutionSpace(cluster), Name: collectedwork.WorkName("demo", slice),
			Labels: map[string]string{
				names.EndpointSliceNamespaceLabel: "demo", names.EndpointSliceNameLabel: "serve",
				names.EndpointSliceWorkManagedByLabel: names.ManagedByServiceExport,
				names.WorkPermanentIDLabel:            "id-" + cluster + "-" + slice,
			},
			Finalizers: []string{names.EndpointSliceControllerFinalizer},
		},
		Spec: workv1alpha1.WorkSpec{Workload: workv1alpha1.WorkloadTemplate{Manifests: []workv1alpha1.Manifest{{RawExtension: runtime.RawExtension{Raw: raw}}}}},
	}
}

func reconcileWork(t *testing.T, r *Reconciler, work *workv1alpha1.Work) {
	t.Helper()
	if _, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: client.ObjectKeyFromObject(work)}); err != nil {
		t.Fatalf("reconcile Work %s/%s: %v", work.Namespace, work.Name, err)
	}
}

// importedAddresses maps each control-plane slice of Service serve to
// the address it holds.
func importedAddresses(t *testing.T, c client.Client) map[string]string {
	t.Helper()
	list := &discoveryv1.EndpointSliceList{}
	if err := c.List(context.Background(), list, client.InNamespace("demo"), client.MatchingLabels{names.KubeServiceNameLabel: names.DerivedServiceName("serve")}); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, s := range list.Items {
		if len(s.Endpoints) != 1 || len(s.Endpoints[0].Addresses) != 1 {
			t.Fatalf("slice %s endpoints %+v", s.Name, s.Endpoints)
		}
		out[s.Name] = s.Endpoints[0].Addresses[0]
	}
	return out
}

// TestImportedNamesCollide: cluster "a" exporting slice "b-x" and cluster
// "a-b" exporting slice "x" share Karmada's name imported-a-b-x. The
// first keeps it, the second gets the collision-free name; neither
// overwrites the other, whichever order the Works are reconciled in, and
// deleting either Work removes only its own slice.
func TestImportedNamesCollide(t *testing.T) {
	shared := names.ImportedEndpointSliceName("a", "b-x")
	if shared != names.ImportedEndpointSliceName("a-b", "x") {
		t.Fatalf("the two clusters' slices no longer share Karmada's name %s", shared)
	}
	for _, tc := range []struct {
		name          string
		first, second [3]string // cluster, slice, address
	}{
		{"a first", [3]string{"a", "b-x", "10.0.0.1"}, [3]string{"a-b", "x", "10.0.0.2"}},
		{"a-b first", [3]string{"a-b", "x", "10.0.0.2"}, [3]string{"a", "b-x", "10.0.0.1"}},
	} {
		for _, deleted := range []string{"first", "second"} {
			t.Run(tc.name+", "+deleted+" deleted", func(t *testing.T) {
				first := collected(t, tc.first[0], tc.first[1], tc.first[2])
				second := collected(t, tc.second[0], tc.second[1], tc.second[2])
				c := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(first, second).Build()
				r := &Reconciler{client: c}
				reconcileWork(t, r, first)
				reconcileWork(t, r, second)
				reconcileWork(t, r, first) // the first owner's next reconcile takes nothing back
				alternate := names.CollisionFreeImportedEndpointSliceName(tc.second[0], tc.second[1])
				want := map[string]string{shared: tc.first[2], alternate: tc.second[2]}
				if got := importedAddresses(t, c); len(got) != 2 || got[shared] != want[shared] || got[alternate] != want[alternate] {
					t.Fatalf("imported slices %v, want %v", got, want)
				}

				gone, kept, keptName := first, second, alternate
				if deleted == "second" {
					gone, kept, keptName = second, first, shared
				}
				if err := c.Delete(context.Background(), gone); err != nil {
					t.Fatal(err)
				}
				reconcileWork(t, r, gone)
				if err := c.Get(context.Background(), client.ObjectKeyFromObject(gone), &workv1alpha1.Work{}); !apierrors.IsNotFound(err) {
					t.Errorf("deleted Work still there after its slices were removed: %v", err)
				}
				got := importedAddresses(t, c)
				if len(got) != 1 || got[keptName] != want[keptName] {
					t.Fatalf("after deleting Work %s/%s: imported slices %v, want only %s=%s", gone.Namespace, gone.Name, got, keptName, want[keptName])
				}

				// The remaining Work moves to Karmada's name once it is free,
				// and its other copy goes.
				reconcileWork(t, r, kept)
				if got := importedAddresses(t, c); len(got) != 1 || got[shared] != want[keptName] {
					t.Fatalf("after the next reconcile of Work %s/%s: imported slices %v, want only %s=%s", kept.Namespace, kept.Name, got, shared, want[keptName])
				}
			})
		}
	}
}

// TestImportedSliceOfAnotherOwnerIsLeftAlone: a slice of Karmada's name
// that another Work wrote before owners were told apart (it carries the
// deleted Work's permanent id, but its annotations name the other Work) is
// not deleted with the Work, and a slice a user made under that name is
// never overwritten.
func TestImportedSliceOfAnotherOwnerIsLeftAlone(t *testing.T) {
	owner := collected(t, "a", "b-x", "10.0.0.1")
	other := collected(t, "a-b", "x", "10.0.0.2")
	shared := names.ImportedEndpointSliceName("a", "b-x")
	legacy := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: shared,
			Labels: map[string]string{names.WorkPermanentIDLabel: other.Labels[names.WorkPermanentIDLabel],
				names.KubeServiceNameLabel: names.DerivedServiceName("serve")},
			Annotations: map[string]string{names.WorkNamespaceAnnotation: owner.Namespace, names.WorkNameAnnotation: owner.Name}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.2"}}},
	}
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(owner, other, legacy).Build()
	r := &Reconciler{client: c}
	if err := c.Delete(context.Background(), other); err != nil {
		t.Fatal(err)
	}
	reconcileWork(t, r, other)
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(legacy), &discoveryv1.EndpointSlice{}); err != nil {
		t.Fatalf("the slice Work %s/%s made was deleted with Work %s/%s: %v", owner.Namespace, owner.Name, other.Namespace, other.Name, err)
	}
	reconcileWork(t, r, owner)
	if got := importedAddresses(t, c); len(got) != 1 || got[shared] != "10.0.0.1" {
		t.Fatalf("imported slices %v, want the owner's address back in %s", got, shared)
	}

	user := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: "demo", Name: names.ImportedEndpointSliceName("c", "y")},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"192.0.2.1"}}},
	}
	if err := c.Create(context.Background(), user); err != nil {
		t.Fatal(err)
	}
	third := collected(t, "c", "y", "10.0.0.3")
	if err := c.Create(context.Background(), third); err != nil {
		t.Fatal(err)
	}
	reconcileWork(t, r, third)
	got := &discoveryv1.EndpointSlice{}
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(user), got); err != nil || got.Endpoints[0].Addresses[0] != "192.0.2.1" {
		t.Fatalf("the user's slice was overwritten: %+v, %v", got.Endpoints, err)
	}
}

func TestCollisionFreeNameIsAValidName(t *testing.T) {
	long := ""
	for len(long) < 250 {
		long += "segment-"
	}
	name := names.CollisionFreeImportedEndpointSliceName("member", long)
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 || name == names.ImportedEndpointSliceName("member", long) {
		t.Fatalf("collision-free name %q (%d bytes): %v", name, len(name), errs)
	}
	if names.CollisionFreeImportedEndpointSliceName("a", "b-x") == names.CollisionFreeImportedEndpointSliceName("a-b", "x") {
		t.Error("the collision-free names of the two colliding slices are equal")
	}
}
