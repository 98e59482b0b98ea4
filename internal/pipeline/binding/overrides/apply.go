package overrides

import (
	"encoding/json"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

// Applied is one applied rule, as recorded in the applied-overrides
// annotations (Karmada's OverridePolicyShadow; the policy namespace is not
// recorded).
type Applied struct {
	PolicyName string                    `json:"policyName"`
	Overriders policyv1alpha1.Overriders `json:"overriders"`

	// Policy is the applied policy, for events.
	Policy *Policy `json:"-"`
}

// Result is what Set.Apply applied to one object for one cluster.
type Result struct {
	// ClusterOverrides are the applied ClusterOverridePolicy rules, in
	// application order.
	ClusterOverrides []Applied
	// Overrides are the applied OverridePolicy rules, in application order.
	Overrides []Applied
}

// Policies returns the applied policies in application order, each once.
func (r *Result) Policies() []*Policy {
	var out []*Policy
	seen := map[*Policy]bool{}
	for _, list := range [][]Applied{r.ClusterOverrides, r.Overrides} {
		for _, a := range list {
			if !seen[a.Policy] {
				seen[a.Policy] = true
				out = append(out, a.Policy)
			}
		}
	}
	return out
}

// Annotations returns the values of the applied-cluster-overrides and
// applied-overrides annotations: a JSON list of the applied rules sorted by
// policy name, or "" when nothing was applied (the annotation is then
// omitted).
func (r *Result) Annotations() (clusterOverrides, overrides string, err error) {
	if clusterOverrides, err = marshalApplied(r.ClusterOverrides); err != nil {
		return "", "", err
	}
	overrides, err = marshalApplied(r.Overrides)
	return clusterOverrides, overrides, err
}

func marshalApplied(items []Applied) (string, error) {
	if len(items) == 0 {
		return "", nil
	}
	sorted := make([]Applied, len(items))
	copy(sorted, items)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].PolicyName < sorted[j].PolicyName })
	data, err := json.Marshal(sorted)
	return string(data), err
}

// Apply applies, in place, the rules of the Set's policies that match obj
// and cluster c: ClusterOverridePolicies first, then, for a namespaced
// object, OverridePolicies (matched against the object as the cluster
// policies left it). It stops at the first failing overrider and returns
// an *Error; the Result then lists the rules applied before it.
func (s *Set) Apply(obj *unstructured.Unstructured, c *clusterv1alpha1.Cluster) (*Result, error) {
	res := &Result{}
	if s.Empty() {
		return res, nil
	}
	var err error
	if res.ClusterOverrides, err = s.applyRules(s.cluster, obj, c); err != nil {
		return res, err
	}
	if obj.GetNamespace() != "" && len(s.namespaced) > 0 {
		res.Overrides, err = s.applyRules(s.namespaced, obj, c)
	}
	return res, err
}

func (s *Set) applyRules(policies []*Policy, obj *unstructured.Unstructured, c *clusterv1alpha1.Cluster) ([]Applied, error) {
	rules := s.rulesFor(policies, obj, c)
	applied := make([]Applied, 0, len(rules))
	for _, r := range rules {
		if err := ApplyOverriders(obj, &r.rule.Overriders); err != nil {
			err.Policy, err.Rule = r.policy.String(), r.index
			return applied, err
		}
		applied = append(applied, Applied{PolicyName: r.policy.Name, Overriders: r.rule.Overriders, Policy: r.policy})
	}
	return applied, nil
}

// ApplyOverriders applies one rule's overriders to obj in Karmada's fixed
// order: image, command, args, labels, annotations, field, plaintext. Each
// sees the result of the previous ones. The returned *Error has no policy
// or rule set.
func ApplyOverriders(obj *unstructured.Unstructured, o *policyv1alpha1.Overriders) *Error {
	for i := range o.ImageOverrider {
		if err := applyImage(obj, &o.ImageOverrider[i]); err != nil {
			return overriderError("imageOverrider", i, err.path, err.err)
		}
	}
	for i := range o.CommandOverrider {
		if err := applyCommandArgs(obj, fieldCommand, &o.CommandOverrider[i]); err != nil {
			return overriderError("commandOverrider", i, err.path, err.err)
		}
	}
	for i := range o.ArgsOverrider {
		if err := applyCommandArgs(obj, fieldArgs, &o.ArgsOverrider[i]); err != nil {
			return overriderError("argsOverrider", i, err.path, err.err)
		}
	}
	for i := range o.LabelsOverrider {
		if err := applyLabelsAnnotations(obj, "labels", &o.LabelsOverrider[i]); err != nil {
			return overriderError("labelsOverrider", i, err.path, err.err)
		}
	}
	for i := range o.AnnotationsOverrider {
		if err := applyLabelsAnnotations(obj, "annotations", &o.AnnotationsOverrider[i]); err != nil {
			return overriderError("annotationsOverrider", i, err.path, err.err)
		}
	}
	for i := range o.FieldOverrider {
		if err := applyField(obj, &o.FieldOverrider[i]); err != nil {
			return overriderError("fieldOverrider", i, err.path, err.err)
		}
	}
	if err := applyPlaintext(obj, o.Plaintext); err != nil {
		return overriderError("plaintext", err.index, err.path, err.err)
	}
	return nil
}

// pathError is an overrider failure at a JSON pointer.
type pathError struct {
	path string
	err  error
	// index of the failing item, for overriders applied as one patch.
	index int
}
