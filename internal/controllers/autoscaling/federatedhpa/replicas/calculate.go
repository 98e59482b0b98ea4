// Package replicas is the pure core of the FederatedHPA controller: the
// replica count each metric proposes (Kubernetes' HPA algorithm, with
// Karmada's calibration that turns member-wide pod counts back into
// template replicas) and the normalisation of the proposal (stabilisation
// windows, scaling rules, bounds). It reads no API: the controller hands
// it pods, samples and the clock.
package replicas

import (
	"errors"
	"fmt"
	"math"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Sample is one pod's metric value (milli-units) and when it was taken. A
// negative value is no measure: the pod counts as having no sample.
type Sample struct {
	Value     int64
	Timestamp time.Time
	Window    time.Duration
}

// Samples are keyed by pod name (as in Karmada, same-named pods of two
// clusters share an entry).
type Samples map[string]Sample

// Calculator proposes replica counts.
type Calculator struct {
	// Tolerance is --horizontal-pod-autoscaler-tolerance (0.1).
	Tolerance float64
	// CPUInitializationPeriod is
	// --horizontal-pod-autoscaler-cpu-initialization-period (5m).
	CPUInitializationPeriod time.Duration
	// InitialReadinessDelay is
	// --horizontal-pod-autoscaler-initial-readiness-delay (30s).
	InitialReadinessDelay time.Duration
}

// Errors a metric can fail with.
var (
	ErrNoPods    = errors.New("no pods returned by selector while calculating replica count")
	ErrNoMetrics = errors.New("did not receive metrics for targeted pods (pods might be unready)")
)

// podGroups sorts pods as the HPA does: ignored (deleting or failed),
// unready (pending, or for cpu not yet ready long enough), missing (no
// sample) and ready.
type podGroups struct {
	ready                     int
	unready, missing, ignored map[string]bool
}

func (c Calculator) group(pods []*corev1.Pod, samples Samples, resource corev1.ResourceName, now time.Time) podGroups {
	g := podGroups{unready: map[string]bool{}, missing: map[string]bool{}, ignored: map[string]bool{}}
	for _, pod := range pods {
		if pod.DeletionTimestamp != nil || pod.Status.Phase == corev1.PodFailed {
			g.ignored[pod.Name] = true
			continue
		}
		if pod.Status.Phase == corev1.PodPending {
			g.unready[pod.Name] = true
			continue
		}
		sample, found := samples[pod.Name]
		if !found || sample.Value < 0 {
			g.missing[pod.Name] = true
			continue
		}
		if resource == corev1.ResourceCPU && c.cpuUnready(pod, sample, now) {
			g.unready[pod.Name] = true
			continue
		}
		g.ready++
	}
	return g
}

// cpuUnready: a pod's cpu sample is not trusted until the pod has been
// ready for a whole sample window (during the initialisation period), or
// when it turned unready right after starting.
func (c Calculator) cpuUnready(pod *corev1.Pod, sample Sample, now time.Time) bool {
	var ready *corev1.PodCondition
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == corev1.PodReady {
			ready = &pod.Status.Conditions[i]
		}
	}
	if ready == nil || pod.Status.StartTime == nil {
		return true
	}
	start := pod.Status.StartTime.Time
	if start.Add(c.CPUInitializationPeriod).After(now) {
		return ready.Status == corev1.ConditionFalse || sample.Timestamp.Before(ready.LastTransitionTime.Time.Add(sample.Window))
	}
	return ready.Status == corev1.ConditionFalse && start.Add(c.InitialReadinessDelay).After(ready.LastTransitionTime.Time)
}

// withoutPods is samples without those of pods and without negative ones.
func withoutPods(samples Samples, pods ...map[string]bool) Samples {
	out := make(Samples, len(samples))
	for name, s := range samples {
		drop := s.Value < 0
		for _, set := range pods {
			drop = drop || set[name]
		}
		if !drop {
			out[name] = s
		}
	}
	return out
}

// Requests sums each pod's request of resource over its containers (or
// the named container only). A container without the request is an error.
func Requests(pods []*corev1.Pod, container string, resource corev1.ResourceName) (map[string]int64, error) {
	out := make(map[string]int64, len(pods))
	for _, pod := range pods {
		var sum int64
		found := false
		for _, ctr := range pod.Spec.Containers {
			if container != "" && ctr.Name != container {
				continue
			}
			found = true
			req, ok := ctr.Resources.Requests[resource]
			if !ok {
				return nil, fmt.Errorf("missing request for %s in container %s of Pod %s", resource, ctr.Name, pod.Name)
			}
			sum = AddSaturating(sum, max(MilliValue(req), 0))
		}
		if container != "" && !found {
			return nil, fmt.Errorf("container %s not present in pod %s", container, pod.Name)
		}
		out[pod.Name] = sum
	}
	return out, nil
}

// utilization is the usage of the sampled pods as a percentage of their
// requests, the ratio to target and the raw average usage.
func utilization(samples Samples, requests map[string]int64, target int32) (ratio float64, util int32, rawAverage int64, err error) {
	var usage, request int64
	n := 0
	for name, s := range samples {
		r, ok := requests[name]
		if !ok {
			continue
		}
		usage = AddSaturating(usage, s.Value)
		request = AddSaturating(request, r)
		n++
	}
	if request == 0 {
		return 0, 0, 0, errors.New("no metrics returned matched known pods")
	}
	util = percentOf(usage, request)
	return float64(util) / float64(target), util, usage / int64(n), nil
}

// Utilization is the result of a utilization metric.
type Utilization struct {
	Replicas    int32
	Utilization int32
	RawAverage  int64
}

// ResourceUtilization proposes replicas for a Resource or
// ContainerResource metric with an averageUtilization target.
// currentReplicas is the template's; calibration is Σ member spec
// replicas / template replicas.
func (c Calculator) ResourceUtilization(currentReplicas, target int32, resource corev1.ResourceName, container string,
	samples Samples, pods []*corev1.Pod, calibration float64, now time.Time) (Utilization, error) {
	if len(pods) == 0 {
		return Utilization{}, ErrNoPods
	}
	g := c.group(pods, samples, resource, now)
	samples = withoutPods(samples, g.ignored, g.unready)
	if len(samples) == 0 {
		return Utilization{}, ErrNoMetrics
	}
	requests, err := Requests(pods, container, resource)
	if err != nil {
		return Utilization{}, err
	}
	ratio, util, raw, err := utilization(samples, requests, target)
	if err != nil {
		return Utilization{}, err
	}
	out := Utilization{Replicas: currentReplicas, Utilization: util, RawAverage: raw}
	scaleUpWithUnready := len(g.unready) > 0 && ratio > 1.0
	if !scaleUpWithUnready && len(g.missing) == 0 {
		if math.Abs(1.0-ratio) > c.Tolerance {
			out.Replicas = ceilReplicas(ratio * float64(g.ready) / calibration)
		}
		return out, nil
	}
	for name := range g.missing {
		if ratio < 1.0 {
			samples[name] = Sample{Value: mulSaturating(requests[name], int64(max(100, target))) / 100}
		} else {
			samples[name] = Sample{}
		}
	}
	if scaleUpWithUnready {
		for name := range g.unready {
			samples[name] = Sample{}
		}
	}
	newRatio, _, _, err := utilization(samples, requests, target)
	if err != nil {
		return Utilization{}, err
	}
	if n, ok := c.rebalanced(ratio, newRatio, len(samples), currentReplicas, calibration); ok {
		out.Replicas = n
	}
	return out, nil
}

// rebalanced is the proposal after missing and unready pods were given
// their conservative values; not ok keeps the current count (within
// tolerance, the direction flipped, or the count moves against it).
func (c Calculator) rebalanced(ratio, newRatio float64, samples int, currentReplicas int32, calibration float64) (int32, bool) {
	if math.Abs(1.0-newRatio) <= c.Tolerance || (ratio < 1.0 && newRatio > 1.0) || (ratio > 1.0 && newRatio < 1.0) {
		return 0, false
	}
	n := ceilReplicas(newRatio * float64(samples) / calibration)
	if (newRatio < 1.0 && n > currentReplicas) || (newRatio > 1.0 && n < currentReplicas) {
		return 0, false
	}
	return n, true
}

// PlainAverage proposes replicas for a per-pod average target (Resource or
// ContainerResource averageValue, Pods metrics); target is in
// milli-units. It returns the proposal and the average usage.
func (c Calculator) PlainAverage(currentReplicas int32, target int64, resource corev1.ResourceName,
	samples Samples, pods []*corev1.Pod, calibration float64, now time.Time) (int32, int64, error) {
	if len(pods) == 0 {
		return 0, 0, ErrNoPods
	}
	g := c.group(pods, samples, resource, now)
	samples = withoutPods(samples, g.ignored, g.unready)
	if len(samples) == 0 {
		return 0, 0, ErrNoMetrics
	}
	ratio, usage := averageRatio(samples, target)
	scaleUpWithUnready := len(g.unready) > 0 && ratio > 1.0
	if !scaleUpWithUnready && len(g.missing) == 0 {
		if math.Abs(1.0-ratio) <= c.Tolerance {
			return currentReplicas, usage, nil
		}
		return ceilReplicas(ratio * float64(g.ready) / calibration), usage, nil
	}
	for name := range g.missing {
		if ratio < 1.0 {
			samples[name] = Sample{Value: target}
		} else {
			samples[name] = Sample{}
		}
	}
	if scaleUpWithUnready {
		for name := range g.unready {
			samples[name] = Sample{}
		}
	}
	newRatio, _ := averageRatio(samples, target)
	if n, ok := c.rebalanced(ratio, newRatio, len(samples), currentReplicas, calibration); ok {
		return n, usage, nil
	}
	return currentReplicas, usage, nil
}

func averageRatio(samples Samples, target int64) (float64, int64) {
	var total int64
	for _, s := range samples {
		total = AddSaturating(total, s.Value)
	}
	avg := total / int64(len(samples))
	return float64(avg) / float64(target), avg
}

// ObjectValue proposes replicas for an Object metric with a Value target:
// usage and target in milli-units, readyRunning the ready, running pods.
func (c Calculator) ObjectValue(currentReplicas int32, usage, target int64, readyRunning int, calibration float64) int32 {
	ratio := float64(usage) / float64(target)
	if currentReplicas == 0 {
		return ceilReplicas(ratio)
	}
	if math.Abs(1.0-ratio) <= c.Tolerance {
		return currentReplicas
	}
	return ceilReplicas(ratio * float64(readyRunning) / calibration)
}

// ObjectAverageValue proposes replicas for an Object metric with an
// AverageValue target; statusReplicas is Σ member status replicas. The
// calibration applies twice on the adjusted path, as in Karmada.
func (c Calculator) ObjectAverageValue(usage, target int64, statusReplicas int32, calibration float64) int32 {
	n := statusReplicas
	if math.Abs(1.0-float64(usage)/(float64(target)*float64(n))) > c.Tolerance {
		n = ceilReplicas(float64(usage) / float64(target) / calibration)
	}
	return ceilReplicas(float64(n) / calibration)
}

// ReadyRunning counts the running pods whose Ready condition is True.
func ReadyRunning(pods []*corev1.Pod) int {
	n := 0
	for _, pod := range pods {
		if pod.Status.Phase != corev1.PodRunning {
			continue
		}
		for _, c := range pod.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				n++
			}
		}
	}
	return n
}
