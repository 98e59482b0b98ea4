package native

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// requirementsOf is AccuratePodRequirements read straight from an
// unstructured pod spec (nil: an empty spec). Only nodeSelector,
// tolerations, affinity.nodeAffinity's required terms, the containers' and
// init containers' resources and overhead are read.
func requirementsOf(spec map[string]interface{}) (*workv1alpha2.ReplicaRequirements, error) {
	claim, err := nodeClaimFrom(spec)
	if err != nil {
		return nil, err
	}
	request, err := podRequestFrom(spec)
	if err != nil {
		return nil, err
	}
	if claim == nil && request == nil {
		return nil, nil
	}
	return &workv1alpha2.ReplicaRequirements{NodeClaim: claim, ResourceRequest: request}, nil
}

// specRequirements is requirementsOf with, when withPriorityClassName is
// set and there are requirements, the pod's priorityClassName (Karmada's
// ResourceQuotaEstimate gate).
func specRequirements(spec map[string]interface{}, withPriorityClassName bool) (*workv1alpha2.ReplicaRequirements, error) {
	reqs, err := requirementsOf(spec)
	if err == nil && reqs != nil && withPriorityClassName {
		reqs.PriorityClassName, err = stringField(spec, "priorityClassName")
	}
	if err != nil {
		return nil, err
	}
	return reqs, nil
}

// nodeClaimFrom is nodeClaimOf on an unstructured pod spec.
func nodeClaimFrom(spec map[string]interface{}) (*workv1alpha2.NodeClaim, error) {
	selector, err := stringMapFrom(spec["nodeSelector"])
	if err != nil {
		return nil, at(err, "nodeSelector")
	}
	tolerations, err := tolerationsFrom(spec["tolerations"])
	if err != nil {
		return nil, at(err, "tolerations")
	}
	var hard *corev1.NodeSelector
	nodeAffinity, err := mapAt(spec, "affinity", "nodeAffinity")
	if err != nil {
		return nil, err
	}
	if v := nodeAffinity["requiredDuringSchedulingIgnoredDuringExecution"]; v != nil {
		m, err := asMap(v)
		if err == nil {
			hard = &corev1.NodeSelector{}
			err = runtime.DefaultUnstructuredConverter.FromUnstructured(m, hard)
		}
		if err != nil {
			return nil, at(err, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
		}
	}
	if selector == nil && hard == nil && len(tolerations) == 0 {
		return nil, nil
	}
	return &workv1alpha2.NodeClaim{HardNodeAffinity: hard, NodeSelector: selector, Tolerations: tolerations}, nil
}

// stringMapFrom is a map[string]string field: nil for null, empty (not
// nil) for {}.
func stringMapFrom(v interface{}) (map[string]string, error) {
	m, err := asMap(v)
	if m == nil || err != nil {
		return nil, err
	}
	out := make(map[string]string, len(m))
	for k, e := range m {
		s, err := asString(e)
		if err != nil {
			return nil, at(err, k)
		}
		out[k] = s
	}
	return out, nil
}

// tolerationsFrom is a []corev1.Toleration field: nil for null, empty (not
// nil) for [].
func tolerationsFrom(v interface{}) ([]corev1.Toleration, error) {
	list, err := asSlice(v)
	if list == nil || err != nil {
		return nil, err
	}
	out := make([]corev1.Toleration, len(list))
	for i, e := range list {
		if err := tolerationFrom(e, &out[i]); err != nil {
			return nil, at(err, "["+strconv.Itoa(i)+"]")
		}
	}
	return out, nil
}

func tolerationFrom(v interface{}, t *corev1.Toleration) error {
	m, err := asMap(v)
	if err != nil {
		return err
	}
	var op, effect string
	if t.Key, err = stringField(m, "key"); err != nil {
		return err
	}
	if op, err = stringField(m, "operator"); err != nil {
		return err
	}
	if t.Value, err = stringField(m, "value"); err != nil {
		return err
	}
	if effect, err = stringField(m, "effect"); err != nil {
		return err
	}
	t.Operator, t.Effect = corev1.TolerationOperator(op), corev1.TaintEffect(effect)
	if m["tolerationSeconds"] != nil {
		n, err := int64Field(m, "tolerationSeconds")
		if err != nil {
			return err
		}
		t.TolerationSeconds = &n
	}
	return nil
}

// podRequestFrom is podRequest on an unstructured pod spec.
func podRequestFrom(spec map[string]interface{}) (corev1.ResourceList, error) {
	var acc podResources
	if err := eachContainerRequest(spec["containers"], acc.add); err != nil {
		return nil, at(err, "containers")
	}
	if err := eachContainerRequest(spec["initContainers"], acc.raise); err != nil {
		return nil, at(err, "initContainers")
	}
	if err := eachRequest(spec["overhead"], nil, acc.add); err != nil {
		return nil, at(err, "overhead")
	}
	return acc.list(), nil
}

// eachContainerRequest calls fn with the effective requests of every
// container of the list v (see effectiveRequests).
func eachContainerRequest(v interface{}, fn func(corev1.ResourceName, *resource.Quantity)) error {
	containers, err := asSlice(v)
	if err != nil {
		return err
	}
	for i, c := range containers {
		if err := containerRequest(c, fn); err != nil {
			return at(err, "["+strconv.Itoa(i)+"]")
		}
	}
	return nil
}

func containerRequest(v interface{}, fn func(corev1.ResourceName, *resource.Quantity)) error {
	container, err := asMap(v)
	if err != nil {
		return err
	}
	resources, err := mapAt(container, "resources")
	if resources == nil || err != nil {
		return err
	}
	requests, err := asMap(resources["requests"])
	if err != nil {
		return at(err, "resources", "requests")
	}
	if err := eachRequest(requests, nil, fn); err != nil {
		return at(err, "resources", "requests")
	}
	if err := eachRequest(resources["limits"], requests, fn); err != nil {
		return at(err, "resources", "limits")
	}
	return nil
}

// eachRequest calls fn with every quantity of the resource list v whose
// name is not in skip.
func eachRequest(v interface{}, skip map[string]interface{}, fn func(corev1.ResourceName, *resource.Quantity)) error {
	list, err := asMap(v)
	if err != nil {
		return err
	}
	for name, v := range list {
		if _, ok := skip[name]; ok {
			continue
		}
		q, err := asQuantity(v)
		if err != nil {
			return at(err, name)
		}
		fn(corev1.ResourceName(name), &q)
	}
	return nil
}
