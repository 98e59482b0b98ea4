package federatedhpa

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	metricsapi "k8s.io/metrics/pkg/apis/metrics/v1beta1"

	"github.com/propel-mc/propel/internal/controllers/autoscaling/federatedhpa/replicas"
	"github.com/propel-mc/propel/internal/shared/membercluster"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// memberState is what one member contributes: its scale of the workload
// and the pods its selector picks.
type memberState struct {
	cluster  string
	member   *membercluster.Member
	metrics  *memberMetrics
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
	np, err := r.informers.NodesAndPods(cluster, m)
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
	mm, err := r.memberMetrics(m)
	if err != nil {
		return nil, err
	}
	st := &memberState{cluster: cluster.Name, member: m, metrics: mm}
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
	// The cache keeps pod records; the replica calculation reads Pods,
	// rebuilt for the selected pods only.
	for _, obj := range np.Pods.GetStore().List() {
		rec, ok := obj.(*membercluster.PodRecord)
		if ok && rec.Namespace() == namespace && st.selector.Matches(rec.Labels()) {
			st.pods = append(st.pods, rec.Pod())
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
		list, err := st.metrics.pods.PodMetricses(namespace).List(ctx, metav1.ListOptions{LabelSelector: st.rawSel})
		if err != nil {
			return nil, fmt.Errorf("unable to get metrics for resource %s from cluster %s: %w", res, st.cluster, err)
		}
		if len(list.Items) > maxMetricValues {
			return nil, fmt.Errorf("unable to get metrics for resource %s from cluster %s: %d pod metrics, more than %d", res, st.cluster, len(list.Items), maxMetricValues)
		}
		for i := range list.Items {
			sample, ok, err := podSample(&list.Items[i], res, container, st.cluster, &agg.report)
			if err != nil {
				return nil, err
			}
			if ok {
				samples[list.Items[i].Name] = sample
			}
		}
	}
	if len(samples) == 0 {
		return nil, fmt.Errorf("unable to get metrics for resource %s: no metrics returned from resource metrics API", res)
	}
	return samples, nil
}

func podSample(item *metricsapi.PodMetrics, res corev1.ResourceName, container, cluster string, report *sampleReport) (replicas.Sample, bool, error) {
	var sum int64
	found := false
	for _, c := range item.Containers {
		if container != "" && c.Name != container {
			continue
		}
		found = true
		q, ok := c.Usage[res]
		if !ok {
			return replicas.Sample{}, false, nil
		}
		v, ok := report.milliValue(cluster, q)
		if !ok {
			return replicas.Sample{}, false, nil
		}
		sum = replicas.AddSaturating(sum, v)
	}
	if container != "" && !found {
		return replicas.Sample{}, false, fmt.Errorf("container %s not present in metrics for pod %s/%s", container, item.Namespace, item.Name)
	}
	if !found {
		return replicas.Sample{}, false, nil
	}
	s := replicas.Sample{Value: sum, Timestamp: item.Timestamp.Time}
	if d := item.Window.Duration; d >= 0 && d <= 24*time.Hour {
		s.Window = d
	}
	return s, true, nil
}
