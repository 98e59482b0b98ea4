package overrides

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

const (
	fieldCommand = "command"
	fieldArgs    = "args"
)

// applyCommandArgs applies one command or args overrider to every
// container named o.ContainerName of the known workload kinds: add appends
// the values, remove deletes every element equal to one of them. A
// container without the field gets the result of applying the operator to
// an empty list.
func applyCommandArgs(obj *unstructured.Unstructured, field string, o *policyv1alpha1.CommandArgsOverrider) *pathError {
	return eachContainer(obj, field, func(container map[string]interface{}, fieldPath string) *pathError {
		if name, _ := container["name"].(string); name != o.ContainerName {
			return nil
		}
		current, err := stringList(container[field])
		if err != nil {
			return &pathError{path: fieldPath, err: err}
		}
		next, err := overrideList(current, o)
		if err != nil {
			return &pathError{path: fieldPath, err: err}
		}
		container[field] = next
		return nil
	})
}

// stringList reads a command or args list; a missing or null field is an
// empty list. Non-string items are rendered with %s, as Karmada does.
func stringList(v interface{}) ([]string, error) {
	if v == nil {
		return []string{}, nil
	}
	items, ok := v.([]interface{})
	if !ok {
		return nil, fmt.Errorf("is a %T, not a list", v)
	}
	out := make([]string, 0, len(items))
	for _, item := range items {
		s, ok := item.(string)
		if !ok {
			s = fmt.Sprintf("%s", item)
		}
		out = append(out, s)
	}
	return out, nil
}

// overrideList returns the new list as JSON-compatible values.
func overrideList(current []string, o *policyv1alpha1.CommandArgsOverrider) ([]interface{}, error) {
	var next []string
	switch o.Operator {
	case policyv1alpha1.OverriderOpAdd:
		next = append(current, o.Value...)
	case policyv1alpha1.OverriderOpRemove:
		remove := make(map[string]struct{}, len(o.Value))
		for _, v := range o.Value {
			remove[v] = struct{}{}
		}
		next = make([]string, 0, len(current))
		for _, v := range current {
			if _, drop := remove[v]; !drop {
				next = append(next, v)
			}
		}
	default:
		return nil, fmt.Errorf("%w %q (want add or remove)", errUnsupportedOperator, o.Operator)
	}
	out := make([]interface{}, len(next))
	for i, v := range next {
		out[i] = v
	}
	return out, nil
}
