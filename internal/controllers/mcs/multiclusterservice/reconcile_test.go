package multiclusterservice

import (
	"context"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	networkingv1alpha1 "github.com/propel-mc/propel/pkg/apis/networking/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// fixture is a controller over a fake control plane.
type fixture struct {
	c      client.Client
	events *record.FakeRecorder
	r      *Reconciler
}

func newFixture(objs ...client.Object) *fixture {
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(objs...).
		WithStatusSubresource(&networkingv1alpha1.MultiClusterService{}).Build()
	events := record.NewFakeRecorder(20)
	return &fixture{c: c, events: events, r: New(Deps{Client: c, APIReader: c, Recorder: events})}
}

func (f *fixture) reconcile(t *testing.T) error {
	t.Helper()
	_, err := f.r.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "web"}})
	return err
}

func (f *fixture) mcs(t *testing.T) *networkingv1alpha1.MultiClusterService {
	t.Helper()
	mcs := &networkingv1alpha1.MultiClusterService{}
	if err := f.c.Get(context.Background(), types.NamespacedName{Namespace: "ns", Name: "web"}, mcs); err != nil {
		t.Fatal(err)
	}
	return mcs
}

// drain returns the events recorded so far.
func (f *fixture) drain() string {
	var out []string
	for {
		select {
		case e := <-f.events.Events:
			out = append(out, e)
		default:
			return strings.Join(out, "\n")
		}
	}
}

func readyCluster(name string) *clusterv1alpha1.Cluster {
	return &clusterv1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Status: clusterv1alpha1.ClusterStatus{Conditions: []metav1.Condition{{
			Type: clusterv1alpha1.ClusterConditionReady, Status: metav1.ConditionTrue, Reason: "ClusterReady", LastTransitionTime: metav1.Now(),
		}}},
	}
}

func crossCluster(providers []string, consumers ...string) *networkingv1alpha1.MultiClusterService {
	mcs := &networkingv1alpha1.MultiClusterService{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"},
		Spec:       networkingv1alpha1.MultiClusterServiceSpec{Types: []networkingv1alpha1.ExposureType{networkingv1alpha1.ExposureTypeCrossCluster}},
	}
	for _, p := range providers {
		mcs.Spec.ProviderClusters = append(mcs.Spec.ProviderClusters, networkingv1alpha1.ClusterSelector{Name: p})
	}
	for _, c := range consumers {
		mcs.Spec.ConsumerClusters = append(mcs.Spec.ConsumerClusters, networkingv1alpha1.ClusterSelector{Name: c})
	}
	return mcs
}

func service() *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "svc-uid", Labels: map[string]string{
			names.PropagationPolicyPermanentIDLabel: "pp-id",
		}, Annotations: map[string]string{names.PropagationPolicyNameAnnotation: "pp"}},
	}
}

// TestSyncClaimsServiceAndBindsProvidersAndConsumers: a CrossCluster MCS
// gets its finalizer and permanent id, a suspended marker Work in each
// Ready provider's execution namespace, the Service taken from its
// policy, and a binding to providers and consumers; ServiceApplied is True.
func TestSyncClaimsServiceAndBindsProvidersAndConsumers(t *testing.T) {
	ctx := context.Background()
	f := newFixture(crossCluster([]string{"m1"}, "m2"), service(), readyCluster("m1"), readyCluster("m2"))
	if err := f.reconcile(t); err != nil {
		t.Fatal(err)
	}
	mcs := f.mcs(t)
	id := mcs.Labels[names.MultiClusterServicePermanentIDLabel]
	if id == "" || !slices.Contains(mcs.Finalizers, names.MultiClusterServiceControllerFinalizer) {
		t.Fatalf("mcs not owned: labels %v finalizers %v", mcs.Labels, mcs.Finalizers)
	}
	if c := meta.FindStatusCondition(mcs.Status.Conditions, networkingv1alpha1.ServiceAppliedConditionType); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("ServiceApplied: %+v", c)
	}
	works := &workv1alpha1.WorkList{}
	if err := f.c.List(ctx, works, client.MatchingLabels{names.MultiClusterServicePermanentIDLabel: id}); err != nil {
		t.Fatal(err)
	}
	if len(works.Items) != 1 || works.Items[0].Namespace != names.ExecutionSpace("m1") || works.Items[0].Spec.SuspendDispatching == nil || !*works.Items[0].Spec.SuspendDispatching {
		t.Fatalf("marker works: %+v", works.Items)
	}
	svc := &corev1.Service{}
	if err := f.c.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "web"}, svc); err != nil {
		t.Fatal(err)
	}
	if svc.Labels[names.ClaimedByLabel] != names.ManagedByMultiClusterService || svc.Labels[names.PropagationPolicyPermanentIDLabel] != "" || svc.Annotations[names.PropagationPolicyNameAnnotation] != "" {
		t.Errorf("service not claimed from its policy: labels %v annotations %v", svc.Labels, svc.Annotations)
	}
	rb := &workv1alpha2.ResourceBinding{}
	if err := f.c.Get(ctx, client.ObjectKey{Namespace: "ns", Name: names.BindingName("Service", "web")}, rb); err != nil {
		t.Fatal(err)
	}
	if got := rb.Spec.Placement.ClusterAffinity.ClusterNames; strings.Join(got, ",") != "m1,m2" {
		t.Errorf("binding clusters %v, want providers and consumers m1,m2", got)
	}
	if rb.Labels[names.ResourceBindingPermanentIDLabel] == "" || metav1.GetControllerOf(rb) != nil || rb.OwnerReferences[0].UID != "svc-uid" {
		t.Errorf("binding metadata: labels %v owners %v", rb.Labels, rb.OwnerReferences)
	}
	if ev := f.drain(); !strings.Contains(ev, EventReasonSyncServiceSucceed) {
		t.Errorf("events %q, want %s", ev, EventReasonSyncServiceSucceed)
	}
}

// TestUnfitProviderGetsNoMarkerWork: a provider that is not Ready is
// reported by an event and gets no marker Work; a missing one too.
func TestUnfitProviderGetsNoMarkerWork(t *testing.T) {
	notReady := readyCluster("m1")
	notReady.Status.Conditions[0].Status = metav1.ConditionFalse
	f := newFixture(crossCluster([]string{"m1", "gone"}), service(), notReady)
	if err := f.reconcile(t); err != nil {
		t.Fatal(err)
	}
	works := &workv1alpha1.WorkList{}
	if err := f.c.List(context.Background(), works); err != nil {
		t.Fatal(err)
	}
	if len(works.Items) != 0 {
		t.Errorf("marker works for unfit providers: %d", len(works.Items))
	}
	ev := f.drain()
	if !strings.Contains(ev, "Provider cluster m1 is not ready") || !strings.Contains(ev, "Provider cluster gone is not found") {
		t.Errorf("events %q", ev)
	}
}

// TestMissingServiceFailsServiceApplied: without its Service the MCS
// records ServiceApplied False and a warning, and the reconcile retries.
func TestMissingServiceFailsServiceApplied(t *testing.T) {
	f := newFixture(crossCluster([]string{"m1"}), readyCluster("m1"))
	if err := f.reconcile(t); err == nil {
		t.Fatal("no error without the service")
	}
	c := meta.FindStatusCondition(f.mcs(t).Status.Conditions, networkingv1alpha1.ServiceAppliedConditionType)
	if c == nil || c.Status != metav1.ConditionFalse || c.Reason != networkingv1alpha1.ServiceAppliedFailedReason || !strings.Contains(c.Message, "get service ns/web") {
		t.Errorf("ServiceApplied: %+v", c)
	}
	if ev := f.drain(); !strings.Contains(ev, "Warning "+EventReasonSyncServiceFailed) {
		t.Errorf("events %q", ev)
	}
}

// TestBindingOfAnotherOwnerIsLeftAlone: a binding of the same name
// controlled by another object (an older Service) is not taken over.
func TestBindingOfAnotherOwnerIsLeftAlone(t *testing.T) {
	yes := true
	other := &workv1alpha2.ResourceBinding{ObjectMeta: metav1.ObjectMeta{
		Namespace: "ns", Name: names.BindingName("Service", "web"),
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Service", Name: "web", UID: "old-uid", Controller: &yes}},
	}}
	f := newFixture(crossCluster([]string{"m1"}), service(), readyCluster("m1"), other)
	if err := f.reconcile(t); err == nil || !strings.Contains(err.Error(), "controlled by another object") {
		t.Fatalf("error %v, want the binding refused", err)
	}
}

// TestWithdrawOnDeletion: a deleted MCS gives its Service back, removes
// its marker Works and its finalizer; the binding stays without the MCS
// marks.
func TestWithdrawOnDeletion(t *testing.T) {
	ctx := context.Background()
	f := newFixture(crossCluster([]string{"m1"}), service(), readyCluster("m1"))
	if err := f.reconcile(t); err != nil {
		t.Fatal(err)
	}
	if err := f.c.Delete(ctx, f.mcs(t)); err != nil {
		t.Fatal(err)
	}
	if err := f.reconcile(t); err != nil {
		t.Fatal(err)
	}
	if err := f.c.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "web"}, &networkingv1alpha1.MultiClusterService{}); err == nil {
		t.Error("the mcs kept its finalizer")
	}
	works := &workv1alpha1.WorkList{}
	if err := f.c.List(ctx, works); err != nil {
		t.Fatal(err)
	}
	if len(works.Items) != 0 {
		t.Errorf("marker works left: %d", len(works.Items))
	}
	svc := &corev1.Service{}
	if err := f.c.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "web"}, svc); err != nil {
		t.Fatal(err)
	}
	if _, claimed := svc.Labels[names.ClaimedByLabel]; claimed {
		t.Errorf("service still claimed: %v", svc.Labels)
	}
	rb := &workv1alpha2.ResourceBinding{}
	if err := f.c.Get(ctx, client.ObjectKey{Namespace: "ns", Name: names.BindingName("Service", "web")}, rb); err != nil {
		t.Fatalf("binding gone: %v", err)
	}
	if rb.Labels[names.BindingManagedByLabel] != "" || rb.Annotations[names.MultiClusterServiceNameAnnotation] != "" {
		t.Errorf("binding keeps the mcs marks: %v %v", rb.Labels, rb.Annotations)
	}
}

func TestUnionSortsAndDeduplicates(t *testing.T) {
	if got := strings.Join(union([]string{"b", "a"}, []string{"c", "a"}), ","); got != "a,b,c" {
		t.Errorf("union = %s", got)
	}
}
