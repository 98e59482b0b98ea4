package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/controllers/mcs/serviceimport"
	"github.com/propel-mc/propel/internal/shared/names"
	mcsv1alpha1 "github.com/propel-mc/propel/pkg/apis/multicluster/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	"github.com/propel-mc/propel/test/harness"
)

// TestMultiClusterServiceExportImport follows Karmada's MCS-API guide with
// the manifests of config/samples/mcs-api (what `make up` users apply): the
// ServiceExport and ServiceImport CRDs are propagated to the members by a
// ClusterPropagationPolicy; Deployment, Service and ServiceExport "serve"
// go to member1, the ServiceImport to member2. member2 then gets the
// derived Service and an EndpointSlice holding the addresses of member1's
// kwok-backed pods; scaling the Deployment updates it; deleting the export
// removes the imported slices from the control plane and from member2.
func TestMultiClusterServiceExportImport(t *testing.T) {
	membersReady(t)
	ctx := context.Background()
	logs := harness.LogsIn(env.LogDir)
	ns := harness.UniqueName("mcs")
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	var crdPolicy client.Object
	t.Cleanup(func() {
		_ = env.Client.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		if crdPolicy != nil {
			_ = env.Client.Delete(context.Background(), crdPolicy)
		}
	})
	// Claiming CRDs is outside the generated role: a user grants it, as
	// config/deploy/README.md says.
	if err := env.GrantTemplates(ctx, "crds", "apiextensions.k8s.io"); err != nil {
		t.Fatal(err)
	}
	crdPolicy = applySample(t, "mcs-api/crds-propagation.yaml", ns)[0]
	applySample(t, "mcs-api/provider.yaml", ns)
	applySample(t, "mcs-api/consumer.yaml", ns)
	deploy := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "serve"}}
	export := &mcsv1alpha1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "serve"}}
	imp := &mcsv1alpha1.ServiceImport{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "serve"}}

	member1, err := env.MemberClient("member1")
	if err != nil {
		t.Fatal(err)
	}
	member2, err := env.MemberClient("member2")
	if err != nil {
		t.Fatal(err)
	}
	// providerAddresses are the ready addresses of member1's own slices of
	// Service serve.
	providerAddresses := func(ctx context.Context) ([]string, error) {
		list := &discoveryv1.EndpointSliceList{}
		if err := member1.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{names.KubeServiceNameLabel: "serve"}); err != nil {
			return nil, err
		}
		return readyAddresses(list.Items), nil
	}
	// importedAddresses are the addresses of member2's slices of the
	// derived Service.
	importedAddresses := func(ctx context.Context) ([]string, error) {
		list := &discoveryv1.EndpointSliceList{}
		if err := member2.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{names.KubeServiceNameLabel: names.DerivedServiceName("serve")}); err != nil {
			return nil, err
		}
		for _, s := range list.Items {
			if s.Labels[names.KubeEndpointSliceManagedByLabel] != names.EndpointSliceControllerManagedByValue {
				return nil, fmt.Errorf("slice %s is managed by %q", s.Name, s.Labels[names.KubeEndpointSliceManagedByLabel])
			}
		}
		return readyAddresses(list.Items), nil
	}
	sameAddresses := func(want int) func(ctx context.Context) (bool, error) {
		return func(ctx context.Context) (bool, error) {
			p, err := providerAddresses(ctx)
			if err != nil {
				return false, err
			}
			i, err := importedAddresses(ctx)
			if err != nil {
				return false, err
			}
			return len(p) == want && slices.Equal(p, i), nil
		}
	}
	harness.Eventually(t, "member2 has member1's 2 endpoints of serve in slices of derived-serve", sameAddresses(2), harness.Timeout(3*time.Minute), logs)

	harness.Eventually(t, "member2 has the selector-less Service derived-serve with port 80", func(ctx context.Context) (bool, error) {
		got := &corev1.Service{}
		if err := member2.Get(ctx, client.ObjectKey{Namespace: ns, Name: names.DerivedServiceName("serve")}, got); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		return len(got.Spec.Selector) == 0 && len(got.Spec.Ports) == 1 && got.Spec.Ports[0].Port == 80 && got.Spec.ClusterIP != "", nil
	}, logs)
	harness.Eventually(t, "a SyncDerivedServiceSucceed event on the ServiceImport", func(ctx context.Context) (bool, error) {
		events := &corev1.EventList{}
		if err := env.Client.List(ctx, events, client.InNamespace(ns)); err != nil {
			return false, err
		}
		for _, e := range events.Items {
			if e.InvolvedObject.Kind == "ServiceImport" && e.Reason == serviceimport.EventReasonSyncDerivedServiceSucceed && e.Source.Component == names.ServiceImportControllerName {
				return true, nil
			}
		}
		return false, nil
	}, logs)

	// The collected Work carries Karmada's labels and finalizer and is
	// never dispatched.
	works := &workv1alpha1.WorkList{}
	if err := env.Client.List(ctx, works, client.InNamespace(names.ExecutionSpace("member1")),
		client.MatchingLabels{names.EndpointSliceNamespaceLabel: ns, names.EndpointSliceNameLabel: "serve"}); err != nil {
		t.Fatal(err)
	}
	if len(works.Items) == 0 {
		t.Fatal("no collected Work in member1's execution namespace")
	}
	for _, w := range works.Items {
		if w.Labels[names.EndpointSliceWorkManagedByLabel] != names.ManagedByServiceExport || !ptr.Deref(w.Spec.SuspendDispatching, false) ||
			!slices.Contains(w.Finalizers, names.EndpointSliceControllerFinalizer) || slices.Contains(w.Finalizers, names.ExecutionControllerFinalizer) {
			t.Errorf("collected Work %s: labels %v, suspended %v, finalizers %v", w.Name, w.Labels, w.Spec.SuspendDispatching, w.Finalizers)
		}
	}

	// Scaling the Deployment reaches member2's slices.
	harness.Eventually(t, "scale serve to 3", func(ctx context.Context) (bool, error) {
		got := &appsv1.Deployment{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(deploy), got); err != nil {
			return false, err
		}
		got.Spec.Replicas = ptr.To[int32](3)
		return env.Client.Update(ctx, got) == nil, nil
	}, logs)
	harness.Eventually(t, "member2 has member1's 3 endpoints", sameAddresses(3), harness.Timeout(3*time.Minute), logs)

	// Deleting the export withdraws everything derived from it.
	if err := env.Client.Delete(ctx, export); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "the imported slices are gone from the control plane and member2", func(ctx context.Context) (bool, error) {
		list := &discoveryv1.EndpointSliceList{}
		if err := env.Client.List(ctx, list, client.InNamespace(ns)); err != nil {
			return false, err
		}
		for _, s := range list.Items {
			if strings.HasPrefix(s.Name, names.ImportedEndpointSliceName("member1", "")) {
				return false, nil
			}
		}
		imported, err := importedAddresses(ctx)
		if err != nil {
			return false, err
		}
		works := &workv1alpha1.WorkList{}
		if err := env.Client.List(ctx, works, client.InNamespace(names.ExecutionSpace("member1")),
			client.MatchingLabels{names.EndpointSliceNamespaceLabel: ns}); err != nil {
			return false, err
		}
		return len(imported) == 0 && len(works.Items) == 0, nil
	}, harness.Timeout(2*time.Minute), logs)
	// The consumer keeps its derived Service while the import exists.
	if err := member2.Get(ctx, client.ObjectKey{Namespace: ns, Name: names.DerivedServiceName("serve")}, &corev1.Service{}); err != nil {
		t.Errorf("derived-serve in member2 after the export went: %v", err)
	}
	// Deleting the import removes the derived Service.
	if err := env.Client.Delete(ctx, imp); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "derived-serve is gone from the control plane", func(ctx context.Context) (bool, error) {
		err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: names.DerivedServiceName("serve")}, &corev1.Service{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	}, logs)
}

// readyAddresses lists the addresses of the ready endpoints of slices,
// sorted.
func readyAddresses(list []discoveryv1.EndpointSlice) []string {
	var out []string
	for _, s := range list {
		for _, e := range s.Endpoints {
			if e.Conditions.Ready != nil && !*e.Conditions.Ready {
				continue
			}
			out = append(out, e.Addresses...)
		}
	}
	slices.Sort(out)
	return out
}
