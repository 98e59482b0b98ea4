package overrides

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

// RBAC: overrides are read from both kinds of OverridePolicy.
// +kubebuilder:rbac:groups=policy.karmada.io,resources=overridepolicies;clusteroverridepolicies,verbs=get;list;watch

// Policy is an OverridePolicy or a ClusterOverridePolicy as override
// selection needs it. Spec is shared with the caller and never modified.
type Policy struct {
	// Cluster is true for a ClusterOverridePolicy.
	Cluster   bool
	Namespace string
	Name      string
	Spec      *policyv1alpha1.OverrideSpec
}

// String names the policy in errors and events.
func (p *Policy) String() string {
	if p.Cluster {
		return "ClusterOverridePolicy " + p.Name
	}
	return "OverridePolicy " + p.Namespace + "/" + p.Name
}

// Key is the policy reference used in event messages: "name" for a
// ClusterOverridePolicy, "namespace/name" for an OverridePolicy.
func (p *Policy) Key() string {
	if p.Cluster {
		return p.Name
	}
	return p.Namespace + "/" + p.Name
}

// FromOverridePolicy wraps op.
func FromOverridePolicy(op *policyv1alpha1.OverridePolicy) *Policy {
	return &Policy{Namespace: op.Namespace, Name: op.Name, Spec: &op.Spec}
}

// FromClusterOverridePolicy wraps cop.
func FromClusterOverridePolicy(cop *policyv1alpha1.ClusterOverridePolicy) *Policy {
	return &Policy{Cluster: true, Name: cop.Name, Spec: &cop.Spec}
}

// rules returns the policy's rules: overrideRules, or the deprecated
// targetCluster/overriders pair (index -1) when there are none.
func (p *Policy) rules() []indexedRule {
	if len(p.Spec.OverrideRules) == 0 {
		return []indexedRule{{index: -1, rule: &policyv1alpha1.RuleWithCluster{
			TargetCluster: p.Spec.TargetCluster, Overriders: p.Spec.Overriders,
		}}}
	}
	out := make([]indexedRule, len(p.Spec.OverrideRules))
	for i := range p.Spec.OverrideRules {
		out[i] = indexedRule{index: i, rule: &p.Spec.OverrideRules[i]}
	}
	return out
}

type indexedRule struct {
	index int
	rule  *policyv1alpha1.RuleWithCluster
}

// Load reads, through r (usually a cache), the policies that can apply to
// objects of namespace: every ClusterOverridePolicy and, for a namespaced
// object, the OverridePolicies of its namespace. clusterOnly skips the
// OverridePolicies (the namespace-sync controller applies cluster policies
// only). The returned Set shares the listed objects: it must not outlive
// the caller's use of them, and nothing may modify them.
func Load(ctx context.Context, r client.Reader, namespace string, clusterOnly bool) (*Set, error) {
	var cops policyv1alpha1.ClusterOverridePolicyList
	if err := r.List(ctx, &cops, client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("list ClusterOverridePolicies: %w", err)
	}
	s := &Set{cluster: make([]*Policy, 0, len(cops.Items))}
	for i := range cops.Items {
		s.cluster = append(s.cluster, FromClusterOverridePolicy(&cops.Items[i]))
	}
	if namespace == "" || clusterOnly {
		return s, nil
	}
	var ops policyv1alpha1.OverridePolicyList
	if err := r.List(ctx, &ops, client.InNamespace(namespace), client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("list OverridePolicies in %s: %w", namespace, err)
	}
	s.namespaced = make([]*Policy, 0, len(ops.Items))
	for i := range ops.Items {
		s.namespaced = append(s.namespaced, FromOverridePolicy(&ops.Items[i]))
	}
	return s, nil
}
