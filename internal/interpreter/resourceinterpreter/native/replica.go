package native

import "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

// workloadReplicas is spec.replicas, 0 when absent (no defaulting to 1),
// and spec.template.spec.
func workloadReplicas(obj *unstructured.Unstructured) (int32, map[string]interface{}, error) {
	spec, err := mapAt(obj.Object, "spec")
	if err != nil {
		return 0, nil, err
	}
	replicas, err := int32Field(spec, "replicas")
	if err != nil {
		return 0, nil, at(err, "spec")
	}
	podSpec, err := mapAt(spec, "template", "spec")
	return replicas, podSpec, at(err, "spec")
}

// jobReplicas is min(parallelism, completions): parallelism 0 when absent,
// completions defaulting to parallelism.
func jobReplicas(obj *unstructured.Unstructured) (int32, map[string]interface{}, error) {
	spec, err := mapAt(obj.Object, "spec")
	if err != nil {
		return 0, nil, err
	}
	parallelism, err := int32Field(spec, "parallelism")
	if err != nil {
		return 0, nil, at(err, "spec")
	}
	completions := parallelism
	if spec["completions"] != nil {
		if completions, err = int32Field(spec, "completions"); err != nil {
			return 0, nil, at(err, "spec")
		}
	}
	podSpec, err := mapAt(spec, "template", "spec")
	return min(parallelism, completions), podSpec, at(err, "spec")
}

// podReplicas is always 1, with the requirements of the pod's own spec.
func podReplicas(obj *unstructured.Unstructured) (int32, map[string]interface{}, error) {
	spec, err := mapAt(obj.Object, "spec")
	return 1, spec, err
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
