package memberwatchtest

import (
	"context"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/controllers/mcs/collectedwork"

	"github.com/propel-mc/propel/internal/shared/names"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// PushCluster is a Push-mode Cluster whose Ready condition is ready.
func PushCluster(name string, ready bool) *clusterv1alpha1.Cluster {
	status := metav1.ConditionFalse
	if ready {
		status = metav1.ConditionTrue
	}
	return &clusterv1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       clusterv1alpha1.ClusterSpec{SyncMode: clusterv1alpha1.Push},
		Status: clusterv1alpha1.ClusterStatus{Conditions: []metav1.Condition{{
			Type: clusterv1alpha1.ClusterConditionReady, Status: status, Reason: "Test", LastTransitionTime: metav1.Now()}}},
	}
}

// Slice is a member EndpointSlice namespace/name of Service service (no
// service label when service is empty) with extra labels.
func Slice(namespace, name, service string, extra map[string]string) *unstructured.Unstructured {
	labels := map[string]interface{}{}
	if service != "" {
		labels[names.KubeServiceNameLabel] = service
	}
	for k, v := range extra {
		labels[k] = v
	}
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
		"metadata":    map[string]interface{}{"namespace": namespace, "name": name, "uid": "uid-" + name, "resourceVersion": "1", "labels": labels},
		"addressType": "IPv4",
		"endpoints":   []interface{}{map[string]interface{}{"addresses": []interface{}{"10.0.0.1"}}},
	}}
}

// Export is a member ServiceExport namespace/name.
func Export(namespace, name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "multicluster.x-k8s.io/v1alpha1", "kind": "ServiceExport",
		"metadata": map[string]interface{}{"namespace": namespace, "name": name, "uid": "uid-" + name, "resourceVersion": "1"},
	}}
}

// Work is a control-plane Work namespace/name with labels that holds
// manifests.
func Work(namespace, name string, labels map[string]string, manifests ...*unstructured.Unstructured) *workv1alpha1.Work {
	w := &workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels}}
	for _, m := range manifests {
		raw, err := json.Marshal(m.Object)
		if err != nil {
			panic(err) // fixtures are maps of plain values
		}
		w.Spec.Workload.Manifests = append(w.Spec.Workload.Manifests, workv1alpha1.Manifest{RawExtension: runtime.RawExtension{Raw: raw}})
	}
	return w
}

// CollectedWorks returns the managed-by set of each live Work (not being
// deleted) in cluster's execution namespace that holds an EndpointSlice,
// by the slice's namespace/name.
func CollectedWorks(ctx context.Context, c client.Reader, cluster string) (map[string]string, error) {
	works := &workv1alpha1.WorkList{}
	if err := c.List(ctx, works, client.InNamespace(names.ExecutionSpace(cluster))); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for i := range works.Items {
		w := &works.Items[i]
		if !w.DeletionTimestamp.IsZero() || !collectedwork.HoldsEndpointSlice(w) {
			continue
		}
		var slice struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
		}
		if err := json.Unmarshal(w.Spec.Workload.Manifests[0].Raw, &slice); err != nil {
			return nil, fmt.Errorf("work %s/%s: %w", w.Namespace, w.Name, err)
		}
		out[slice.Metadata.Namespace+"/"+slice.Metadata.Name] = w.Labels[names.EndpointSliceWorkManagedByLabel]
	}
	return out, nil
}
