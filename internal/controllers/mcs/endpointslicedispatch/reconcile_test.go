package endpointslicedispatch

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/controllers/mcs/collectedwork"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	networkingv1alpha1 "github.com/propel-mc/propel/pkg/apis/networking/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

func cluster(name string, ready bool) *clusterv1alpha1.Cluster {
	status := metav1.ConditionFalse
	if ready {
		status = metav1.ConditionTrue
	}
	return &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: clusterv1alpha1.ClusterStatus{Conditions: []metav1.Condition{{
		Type: clusterv1alpha1.ClusterConditionReady, Status: status, Reason: "Test", LastTransitionTime: metav1.Now()}}}}
}

// providerSlice is member1's slice web-abc of Service ns/web.
func providerSlice() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
		"metadata":    map[string]interface{}{"namespace": "ns", "name": "web-abc", "uid": "u-1", "resourceVersion": "3", "labels": map[string]interface{}{names.KubeServiceNameLabel: "web", "member-only": "x"}},
		"addressType": "IPv4",
		"endpoints":   []interface{}{map[string]interface{}{"addresses": []interface{}{"10.0.0.1"}}},
	}}
}

func consumerWork(t *testing.T, c client.Client, consumer string) (*workv1alpha1.Work, error) {
	t.Helper()
	w := &workv1alpha1.Work{}
	err := c.Get(context.Background(), client.ObjectKey{Namespace: names.ExecutionSpace(consumer), Name: collectedwork.WorkName("ns", "web-abc")}, w)
	return w, err
}

// TestDispatchToConsumers: the provider's collected slice is copied, as
// <provider>-<slice> with the dispatcher's own labels, into each ready
// consumer; an unready consumer gets none and a warning; the copy of a
// cluster that is no longer a consumer is removed; the MCS records
// EndpointSliceDispatched. When the provider's Work loses its MCS, every
// copy goes.
func TestDispatchToConsumers(t *testing.T) {
	ctx := context.Background()
	mcs := &networkingv1alpha1.MultiClusterService{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"}, Spec: networkingv1alpha1.MultiClusterServiceSpec{
		ConsumerClusters: []networkingv1alpha1.ClusterSelector{{Name: "member1"}, {Name: "member2"}, {Name: "member3"}}}}
	stale := &workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{Namespace: names.ExecutionSpace("member4"), Name: collectedwork.WorkName("ns", "web-abc"),
		Annotations: map[string]string{names.EndpointSliceProvisionClusterAnnotation: "member1"}}}
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).WithStatusSubresource(mcs).WithObjects(mcs, stale,
		cluster("member1", true), cluster("member2", true), cluster("member3", false), cluster("member4", true)).Build()
	if err := collectedwork.Report(ctx, c, c, "member1", "web", providerSlice(), collectedwork.MultiClusterService); err != nil {
		t.Fatal(err)
	}
	events := record.NewFakeRecorder(20)
	r := New(Deps{Client: c, APIReader: c, Recorder: events})
	req := reconcile.Request{NamespacedName: client.ObjectKey{Namespace: names.ExecutionSpace("member1"), Name: collectedwork.WorkName("ns", "web-abc")}}
	if _, err := r.Reconcile(ctx, req); err != nil {
		t.Fatal(err)
	}

	copied, err := consumerWork(t, c, "member2")
	if err != nil {
		t.Fatalf("member2's copy: %v", err)
	}
	slice := &discoveryv1.EndpointSlice{}
	if err := json.Unmarshal(copied.Spec.Workload.Manifests[0].Raw, slice); err != nil {
		t.Fatal(err)
	}
	if slice.Name != "member1-web-abc" || slice.Labels[names.KubeServiceNameLabel] != "web" ||
		slice.Labels[names.KubeEndpointSliceManagedByLabel] != names.EndpointSliceDispatchManagedByValue || slice.Labels["member-only"] != "" {
		t.Errorf("copied slice %s labels %v", slice.Name, slice.Labels)
	}
	if len(slice.Endpoints) != 1 || slice.Endpoints[0].Addresses[0] != "10.0.0.1" {
		t.Errorf("endpoints %+v not carried", slice.Endpoints)
	}
	if copied.Annotations[names.EndpointSliceProvisionClusterAnnotation] != "member1" {
		t.Errorf("copy annotations %v", copied.Annotations)
	}
	for _, none := range []string{"member3", "member4"} {
		if w, err := consumerWork(t, c, none); !apierrors.IsNotFound(err) && w.DeletionTimestamp.IsZero() {
			t.Errorf("%s has a live copy (%v)", none, err)
		}
	}
	got := &networkingv1alpha1.MultiClusterService{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(mcs), got); err != nil {
		t.Fatal(err)
	}
	if !meta.IsStatusConditionTrue(got.Status.Conditions, networkingv1alpha1.EndpointSliceDispatchedConditionType) {
		t.Errorf("conditions %+v, want EndpointSliceDispatched true", got.Status.Conditions)
	}
	var all []string
	for len(events.Events) > 0 {
		all = append(all, <-events.Events)
	}
	if joined := strings.Join(all, "\n"); !strings.Contains(joined, "member3 is not ready") || !strings.Contains(joined, EventReasonDispatchEndpointSliceSucceed) {
		t.Errorf("events %q, want member3's warning and the success", joined)
	}

	provider := &workv1alpha1.Work{}
	if err := c.Get(ctx, req.NamespacedName, provider); err != nil {
		t.Fatal(err)
	}
	delete(provider.Labels, names.MultiClusterServiceNameLabel)
	if err := c.Update(ctx, provider); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Reconcile(ctx, req); err != nil {
		t.Fatal(err)
	}
	if w, err := consumerWork(t, c, "member2"); !apierrors.IsNotFound(err) && w.DeletionTimestamp.IsZero() {
		t.Errorf("member2's copy outlived the provider's MCS (%v)", err)
	}
}
