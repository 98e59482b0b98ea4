package federatedhpa

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	"github.com/propel-mc/propel/pkg/autoscaling/federatedhpa/replicas"
	"github.com/propel-mc/propel/pkg/membercluster"
)

// podMetricsResource is metrics.k8s.io's PodMetrics, which each member's
// metrics server serves (Propel reads the members directly; Karmada reads
// them through karmada-metrics-adapter).
var podMetricsResource = schema.GroupVersionResource{Group: "metrics.k8s.io", Version: "v1beta1", Resource: "pods"}

// memberState is what one member contributes: its scale of the workload
// and the pods its selector picks.
type memberState struct {
	cluster  string
	member   *membercluster.Member
	spec     int32
	status   int32
	selector labels.Selector
	rawSel   string
	pods     []*corev1.Pod
}

// aggregate is the workload across its target clusters.
type aggregate struct {
	members   []*memberState
	spec      int32
	status    int32
	selector  string
	pods      []*corev1.Pod
	skipped   []string
	selectErr error
	// report gathers the member metric values not taken as reported.
	report sampleReport
}

// readMember reads the member scale of the workload and its pods from the
// member's pod cache.
func (r *Reconciler) readMember(ctx context.Context, cluster *clusterv1alpha1.Cluster, gvr schema.GroupVersionResource, namespace, name string) (*memberState, error) {
	m, err := r.clients.ForCluster(ctx, cluster)
	if err != nil {
		return nil, err
	}
	np, err := r.informers.NodesAndPods(cluster, m, membercluster.NodePodTrim)
	if err != nil {
		return nil, err
	}
	if !np.WaitSynced(ctx, r.opts.ClusterCacheSyncTimeout) {
		return nil, fmt.Errorf("pod cache not synced within %s", r.opts.ClusterCacheSyncTimeout)
	}
	scale, err := m.Dynamic.Resource(gvr).Namespace(namespace).Get(ctx, name, metav1.GetOptions{}, "scale")
	if err != nil {
		return nil, fmt.Errorf("get scale: %w", err)
	}
	st := &memberState{cluster: cluster.Name, member: m}
	spec, _, _ := unstructured.NestedInt64(scale.Object, "spec", "replicas")
	status, _, _ := unstructured.NestedInt64(scale.Object, "status", "replicas")
	st.spec, st.status = int32(spec), int32(status)
	st.rawSel, _, _ = unstructured.NestedString(scale.Object, "status", "selector")
	if st.rawSel == "" {
		return st, nil
	}
	if st.selector, err = labels.Parse(st.rawSel); err != nil {
		return st, nil
	}
	for _, obj := range np.Pods.GetStore().List() {
		pod, ok := obj.(*corev1.Pod)
		if ok && pod.Namespace == namespace && st.selector.Matches(labels.Set(pod.Labels)) {
			st.pods = append(st.pods, pod)
		}
	}
	return st, nil
}

// resourceSamples lists the PodMetrics of selector in every member that
// has matching pods and returns each pod's usage of res (milli-units):
// the sum over its containers, or the named container's. A pod missing
// the resource in a container, or with a negative usage, is left out.
func resourceSamples(ctx context.Context, agg *aggregate, namespace string, res corev1.ResourceName, container string) (replicas.Samples, error) {
	samples := replicas.Samples{}
	for _, st := range agg.members {
		if len(st.pods) == 0 || st.selector == nil {
			continue
		}
		list, err := st.member.Dynamic.Resource(podMetricsResource).Namespace(namespace).List(ctx, metav1.ListOptions{LabelSelector: st.rawSel})
		if err != nil {
			return nil, fmt.Errorf("unable to get metrics for resource %s from cluster %s: %w", res, st.cluster, err)
		}
		for _, item := range list.Items {
			sample, ok, err := podSample(&item, res, container, st.cluster, &agg.report)
			if err != nil {
				return nil, err
			}
			if ok {
				samples[item.GetName()] = sample
			}
		}
	}
	if len(samples) == 0 {
		return nil, fmt.Errorf("unable to get metrics for resource %s: no metrics returned from resource metrics API", res)
	}
	return samples, nil
}

func podSample(item *unstructured.Unstructured, res corev1.ResourceName, container, cluster string, report *sampleReport) (replicas.Sample, bool, error) {
	containers, _, _ := unstructured.NestedSlice(item.Object, "containers")
	var sum int64
	found := false
	for _, c := range containers {
		cm, ok := c.(map[string]interface{})
		if !ok {
			continue
		}
		name, _, _ := unstructured.NestedString(cm, "name")
		if container != "" && name != container {
			continue
		}
		found = true
		raw, ok, _ := unstructured.NestedString(cm, "usage", string(res))
		if !ok {
			return replicas.Sample{}, false, nil
		}
		q, err := resource.ParseQuantity(raw)
		if err != nil {
			return replicas.Sample{}, false, fmt.Errorf("pod %s: container %s: %s usage %q: %w", item.GetName(), name, res, raw, err)
		}
		v, ok := report.milliValue(cluster, q)
		if !ok {
			return replicas.Sample{}, false, nil
		}
		sum = replicas.AddSaturating(sum, v)
	}
	if container != "" && !found {
		return replicas.Sample{}, false, fmt.Errorf("container %s not present in metrics for pod %s/%s", container, item.GetNamespace(), item.GetName())
	}
	if !found {
		return replicas.Sample{}, false, nil
	}
	s := replicas.Sample{Value: sum}
	if ts, _, _ := unstructured.NestedString(item.Object, "timestamp"); ts != "" {
		if t, err := time.Parse(time.RFC3339, ts); err == nil {
			s.Timestamp = t
		}
	}
	if w, _, _ := unstructured.NestedString(item.Object, "window"); w != "" {
		if d, err := time.ParseDuration(w); err == nil && d >= 0 && d <= 24*time.Hour {
			s.Window = d
		}
	}
	return s, true, nil
}
