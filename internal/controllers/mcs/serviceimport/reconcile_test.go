package serviceimport

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
	mcsv1alpha1 "github.com/propel-mc/propel/pkg/apis/multicluster/v1alpha1"
)

func newController(objs ...client.Object) (client.Client, *record.FakeRecorder, *Reconciler) {
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(objs...).WithStatusSubresource(&corev1.Service{}).Build()
	events := record.NewFakeRecorder(10)
	return c, events, New(Deps{Client: c, Recorder: events})
}

func serviceImport(typ mcsv1alpha1.ServiceImportType, ips ...string) *mcsv1alpha1.ServiceImport {
	return &mcsv1alpha1.ServiceImport{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"},
		Spec: mcsv1alpha1.ServiceImportSpec{
			Type: typ, IPs: ips,
			Ports: []mcsv1alpha1.ServicePort{{Name: "http", Protocol: corev1.ProtocolTCP, Port: 80}},
		},
	}
}

func reconcileWeb(t *testing.T, r *Reconciler) error {
	t.Helper()
	_, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "web"}})
	return err
}

func derived(t *testing.T, c client.Client) (*corev1.Service, error) {
	t.Helper()
	svc := &corev1.Service{}
	err := c.Get(context.Background(), types.NamespacedName{Namespace: "ns", Name: names.DerivedServiceName("web")}, svc)
	return svc, err
}

// TestClusterSetIPImportGetsDerivedService: the derived Service carries
// the import's ports, no selector, and the import's IPs as ingress.
func TestClusterSetIPImportGetsDerivedService(t *testing.T) {
	c, events, r := newController(serviceImport(mcsv1alpha1.ClusterSetIP, "10.0.0.1", "10.0.0.2"))
	if err := reconcileWeb(t, r); err != nil {
		t.Fatal(err)
	}
	svc, err := derived(t, c)
	if err != nil {
		t.Fatal(err)
	}
	if svc.Spec.Type != corev1.ServiceTypeClusterIP || len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != 80 || len(svc.Spec.Selector) != 0 {
		t.Errorf("derived spec: %+v", svc.Spec)
	}
	if in := svc.Status.LoadBalancer.Ingress; len(in) != 2 || in[0].IP != "10.0.0.1" || in[1].IP != "10.0.0.2" {
		t.Errorf("ingress %+v", in)
	}
	if e := <-events.Events; !strings.Contains(e, EventReasonSyncDerivedServiceSucceed) {
		t.Errorf("event %q", e)
	}
}

// TestDerivedServiceUpdateKeepsClusterIP: a changed port list is written
// back, the allocated cluster IP stays and a selector is removed.
func TestDerivedServiceUpdateKeepsClusterIP(t *testing.T) {
	existing := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: names.DerivedServiceName("web")},
		Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.96.0.9", ClusterIPs: []string{"10.96.0.9"},
			Selector: map[string]string{"app": "web"},
			Ports:    []corev1.ServicePort{{Name: "http", Protocol: corev1.ProtocolTCP, Port: 8080}},
		},
	}
	c, _, r := newController(serviceImport(mcsv1alpha1.ClusterSetIP), existing)
	if err := reconcileWeb(t, r); err != nil {
		t.Fatal(err)
	}
	svc, err := derived(t, c)
	if err != nil {
		t.Fatal(err)
	}
	if svc.Spec.ClusterIP != "10.96.0.9" || svc.Spec.Ports[0].Port != 80 || len(svc.Spec.Selector) != 0 {
		t.Errorf("derived spec after update: %+v", svc.Spec)
	}
}

func TestHeadlessImportGetsNoDerivedService(t *testing.T) {
	c, _, r := newController(serviceImport(mcsv1alpha1.Headless))
	if err := reconcileWeb(t, r); err != nil {
		t.Fatal(err)
	}
	if _, err := derived(t, c); err == nil {
		t.Error("a Headless import got a derived Service")
	}
}

func TestDeletedImportRemovesDerivedService(t *testing.T) {
	existing := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: names.DerivedServiceName("web")}}
	c, _, r := newController(existing)
	if err := reconcileWeb(t, r); err != nil {
		t.Fatal(err)
	}
	if _, err := derived(t, c); err == nil {
		t.Error("the derived Service of a deleted import stays")
	}
}
