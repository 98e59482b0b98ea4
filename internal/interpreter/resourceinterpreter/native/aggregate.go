package native

import (
	"encoding/json"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// observedGeneration is the template's new status.observedGeneration: its
// metadata.generation once every item (the full list, so an item without
// status holds it back) has observed the latest template, else unchanged.
func observedGeneration(latest, items int, old, templateGeneration int64) int64 {
	if latest == items {
		return templateGeneration
	}
	return old
}

// workloadAggregation says how member statuses of a workload kind add up
// into the template's status.
type workloadAggregation struct {
	// summed are the int32 status fields summed over members.
	summed []string
	// known are the other fields of the kind's typed status: a member
	// status holding one is decoded by encoding/json (see memberInts).
	known []string
	// decode is the encoding/json decoding of a member status into the
	// summed fields, then observedGeneration, generation and
	// resourceTemplateGeneration.
	decode func(raw []byte, values []int64) error
	// againstOwnGeneration: a member is caught up when its template
	// generation reaches its own generation (StatefulSet), not the
	// template's.
	againstOwnGeneration bool
	// strict: a status holding anything else (conditions, collisionCount)
	// differs from the aggregated one (DaemonSet, compared whole).
	strict bool
	// required are the summed fields that are not omitempty.
	required []string
	// extra are the other fields of the typed status, by the form they
	// take once converted (see canonical).
	extra map[string]valueForm
	// conditionTimes are the time fields of the kind's conditions.
	conditionTimes []string
	// normalize converts a status through the kind's typed status.
	normalize func(status map[string]interface{}) (map[string]interface{}, error)
}

// valueForm is what a status field looks like after the typed conversion.
type valueForm int

const (
	pointerInt     valueForm = iota // *int32: an integer, 0 included
	omitemptyInt                    // int32,omitempty: a non-zero integer
	omitemptyStr                    // string,omitempty: a non-empty string
	conditionsList                  // []Condition,omitempty: a non-empty list
)

var (
	deploymentAggregation = &workloadAggregation{
		summed:         []string{"replicas", "readyReplicas", "updatedReplicas", "availableReplicas", "unavailableReplicas"},
		known:          []string{"terminatingReplicas", "conditions", "collisionCount"},
		extra:          map[string]valueForm{"terminatingReplicas": pointerInt, "collisionCount": pointerInt, "conditions": conditionsList},
		conditionTimes: []string{"lastUpdateTime", "lastTransitionTime"},
		normalize:      normalizeStatus[appsv1.DeploymentStatus],
		decode: func(raw []byte, v []int64) error {
			var m wrappedDeploymentStatus
			err := json.Unmarshal(raw, &m)
			copy(v, []int64{int64(m.Replicas), int64(m.ReadyReplicas), int64(m.UpdatedReplicas), int64(m.AvailableReplicas),
				int64(m.UnavailableReplicas), m.ObservedGeneration, m.Generation, m.ResourceTemplateGeneration})
			return err
		},
	}
	replicaSetAggregation = &workloadAggregation{
		summed:         []string{"replicas", "readyReplicas", "availableReplicas"},
		known:          []string{"fullyLabeledReplicas", "terminatingReplicas", "conditions"},
		required:       replicaSetRequired,
		extra:          map[string]valueForm{"fullyLabeledReplicas": omitemptyInt, "terminatingReplicas": pointerInt, "conditions": conditionsList},
		conditionTimes: []string{"lastTransitionTime"},
		normalize:      normalizeStatus[appsv1.ReplicaSetStatus],
		decode: func(raw []byte, v []int64) error {
			var m wrappedReplicaSetStatus
			err := json.Unmarshal(raw, &m)
			copy(v, []int64{int64(m.Replicas), int64(m.ReadyReplicas), int64(m.AvailableReplicas),
				m.ObservedGeneration, m.Generation, m.ResourceTemplateGeneration})
			return err
		},
	}
	daemonSetAggregation = &workloadAggregation{
		summed: []string{"currentNumberScheduled", "desiredNumberScheduled", "numberAvailable", "numberMisscheduled",
			"numberReady", "updatedNumberScheduled", "numberUnavailable"},
		known:          []string{"collisionCount", "conditions"},
		required:       daemonSetRequired,
		extra:          map[string]valueForm{"collisionCount": pointerInt, "conditions": conditionsList},
		conditionTimes: []string{"lastTransitionTime"},
		normalize:      normalizeStatus[appsv1.DaemonSetStatus],
		decode: func(raw []byte, v []int64) error {
			var m wrappedDaemonSetStatus
			err := json.Unmarshal(raw, &m)
			copy(v, []int64{int64(m.CurrentNumberScheduled), int64(m.DesiredNumberScheduled), int64(m.NumberAvailable),
				int64(m.NumberMisscheduled), int64(m.NumberReady), int64(m.UpdatedNumberScheduled), int64(m.NumberUnavailable),
				m.ObservedGeneration, m.Generation, m.ResourceTemplateGeneration})
			return err
		},
		strict: true,
	}
	statefulSetAggregation = &workloadAggregation{
		summed:   []string{"availableReplicas", "currentReplicas", "readyReplicas", "replicas", "updatedReplicas"},
		known:    []string{"currentRevision", "updateRevision", "collisionCount", "conditions"},
		required: statefulSetRequired,
		extra: map[string]valueForm{"currentRevision": omitemptyStr, "updateRevision": omitemptyStr,
			"collisionCount": pointerInt, "conditions": conditionsList},
		conditionTimes: []string{"lastTransitionTime"},
		normalize:      normalizeStatus[appsv1.StatefulSetStatus],
		decode: func(raw []byte, v []int64) error {
			var m wrappedStatefulSetStatus
			err := json.Unmarshal(raw, &m)
			copy(v, []int64{int64(m.AvailableReplicas), int64(m.CurrentReplicas), int64(m.ReadyReplicas), int64(m.Replicas),
				int64(m.UpdatedReplicas), m.ObservedGeneration, m.Generation, m.ResourceTemplateGeneration})
			return err
		},
		againstOwnGeneration: true,
	}
)

// maxSummed bounds the summed fields of a kind (DaemonSet has 7).
const maxSummed = 7

// memberFieldsOf lists what is read of a member status: the summed fields,
// then the generations (int64).
func (a *workloadAggregation) memberFields() ([]string, []bool) {
	fields := append(a.summed[:len(a.summed):len(a.summed)], "observedGeneration", "generation", "resourceTemplateGeneration")
	wide := make([]bool, len(fields))
	for i := len(a.summed); i < len(fields); i++ {
		wide[i] = true
	}
	return fields, wide
}

// aggregate sums the members' statuses into the template's. The template
// is returned as is when nothing changes; otherwise a new object sharing
// everything with obj but its metadata and status, which are copies.
func (a *workloadAggregation) aggregate(obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem,
	fields []string, wide []bool) (*unstructured.Unstructured, error) {
	old, err := mapAt(obj.Object, "status")
	if err != nil {
		return nil, err
	}
	n := len(a.summed)
	var oldValues, sum [maxSummed]int32
	for i, field := range a.summed {
		if oldValues[i], err = int32Field(old, field); err != nil {
			return nil, at(err, "status")
		}
	}
	oldObserved, err := int64Field(old, "observedGeneration")
	if err != nil {
		return nil, at(err, "status")
	}
	generation, latest := obj.GetGeneration(), 0
	var member [maxSummed + 3]int64
	for i := range items {
		item := &items[i]
		if item.Status == nil {
			continue
		}
		values := member[:len(fields)]
		clear(values)
		if !memberInts(item.Status.Raw, fields, wide, a.known, values) {
			if err := a.decode(item.Status.Raw, values); err != nil {
				return nil, fmt.Errorf("status from cluster %s: %w", item.ClusterName, err)
			}
		}
		for f := 0; f < n; f++ {
			sum[f] += int32(values[f])
		}
		observed, memberGeneration, templateGeneration := values[n], values[n+1], values[n+2]
		want := generation
		if a.againstOwnGeneration {
			want = memberGeneration
		}
		if caughtUp(&federatedGeneration{Generation: memberGeneration, ResourceTemplateGeneration: templateGeneration}, observed, want) {
			latest++
		}
	}
	observed := observedGeneration(latest, len(items), oldObserved, generation)
	if observed == oldObserved && oldValues == sum && !(a.strict && holdsMore(old)) {
		return obj, nil
	}
	var status map[string]interface{}
	if a.canonical(old) {
		status = make(map[string]interface{}, len(old)+n+1)
		for k, v := range old {
			status[k] = v
		}
	} else if status, err = a.normalize(old); err != nil {
		return nil, at(err, "status")
	}
	setOrDelete(status, "observedGeneration", observed)
	for f, field := range a.summed {
		if slices.Contains(a.required, field) {
			status[field] = int64(sum[f])
		} else {
			setOrDelete(status, field, int64(sum[f]))
		}
	}
	return withStatus(obj, status), nil
}

// canonical reports whether the fields of status that aggregation keeps
// are already as the typed conversion Karmada goes through writes them
// (as an API server returns them), so that they can be kept as they are.
// Otherwise the status is converted through the typed status first.
func (a *workloadAggregation) canonical(status map[string]interface{}) bool {
	for k, v := range status {
		if k == "observedGeneration" || slices.Contains(a.summed, k) {
			continue // overwritten
		}
		form, ok := a.extra[k]
		if !ok {
			return false // dropped by the conversion
		}
		switch form {
		case pointerInt:
			if _, ok := v.(int64); !ok {
				return false
			}
		case omitemptyInt:
			if n, ok := v.(int64); !ok || n == 0 {
				return false
			}
		case omitemptyStr:
			if s, ok := v.(string); !ok || s == "" {
				return false
			}
		case conditionsList:
			if !canonicalConditions(v, a.conditionTimes) {
				return false
			}
		}
	}
	return true
}

// canonicalConditions: a non-empty list of conditions with a string type
// and status, non-empty reason and message when present, and every time
// field present, null or an RFC 3339 UTC time to the second.
func canonicalConditions(v interface{}, times []string) bool {
	list, ok := v.([]interface{})
	if !ok || len(list) == 0 {
		return false
	}
	for _, e := range list {
		c, ok := e.(map[string]interface{})
		if !ok || len(c) > 4+len(times) {
			return false
		}
		fields := 0
		for _, key := range [...]string{"type", "status"} {
			if _, ok := c[key].(string); !ok {
				return false
			}
			fields++
		}
		for _, key := range [...]string{"reason", "message"} {
			if v, present := c[key]; present {
				if s, ok := v.(string); !ok || s == "" {
					return false
				}
				fields++
			}
		}
		for _, key := range times {
			v, present := c[key]
			if !present {
				return false
			}
			if v != nil {
				if s, ok := v.(string); !ok || !canonicalTime(s) {
					return false
				}
			}
			fields++
		}
		if fields != len(c) {
			return false
		}
	}
	return true
}

// canonicalTime reports whether s is a non-zero time as metav1.Time writes
// it: "2006-01-02T15:04:05Z".
func canonicalTime(s string) bool {
	const layout = "dddd-dd-ddTdd:dd:ddZ"
	if len(s) != len(layout) || s == "0001-01-01T00:00:00Z" {
		return false
	}
	for i := 0; i < len(layout); i++ {
		if layout[i] == 'd' {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		} else if s[i] != layout[i] {
			return false
		}
	}
	return true
}

// normalizeStatus converts status through the typed status S.
func normalizeStatus[S any](status map[string]interface{}) (map[string]interface{}, error) {
	var typed S
	if status != nil {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(status, &typed); err != nil {
			return nil, err
		}
	}
	return runtime.DefaultUnstructuredConverter.ToUnstructured(&typed)
}

// holdsMore reports whether a DaemonSet status has conditions or a
// collisionCount.
func holdsMore(status map[string]interface{}) bool {
	conditions, _ := status["conditions"].([]interface{})
	return status["collisionCount"] != nil || len(conditions) > 0 || (status["conditions"] != nil && conditions == nil)
}

// withStatus is obj with status as its .status: a new object sharing
// obj's fields except metadata, copied (callers set its resourceVersion),
// and status.
func withStatus(obj *unstructured.Unstructured, status map[string]interface{}) *unstructured.Unstructured {
	out := make(map[string]interface{}, len(obj.Object)+1)
	for k, v := range obj.Object {
		out[k] = v
	}
	if metadata, ok := obj.Object["metadata"].(map[string]interface{}); ok {
		copied := make(map[string]interface{}, len(metadata))
		for k, v := range metadata {
			copied[k] = v
		}
		out["metadata"] = copied
	}
	out["status"] = status
	return &unstructured.Unstructured{Object: out}
}

// caughtUp reports whether a member reconciled its object
// (observedGeneration >= generation) and that object was built from at
// least the template generation want.
func caughtUp(member *federatedGeneration, memberObserved, want int64) bool {
	return memberObserved >= member.Generation && member.ResourceTemplateGeneration >= want
}

// workloadAggregator is the handler of a workload kind.
func workloadAggregator(a *workloadAggregation) aggregateFunc {
	fields, wide := a.memberFields()
	return func(obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
		return a.aggregate(obj, items, fields, wide)
	}
}
