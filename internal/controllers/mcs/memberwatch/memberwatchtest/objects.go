package memberwatchtest

import (
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

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
