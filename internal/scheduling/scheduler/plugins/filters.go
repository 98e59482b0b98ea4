package plugins

import (
	"github.com/propel-mc/propel/internal/scheduling/scheduler/framework"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

// Plugin names (Karmada's).
const (
	APIEnablementName    = "APIEnablement"
	TaintTolerationName  = "TaintToleration"
	ClusterAffinityName  = "ClusterAffinity"
	SpreadConstraintName = "SpreadConstraint"
	ClusterEvictionName  = "ClusterEviction"
	ClusterLocalityName  = "ClusterLocality"
)

// Failure reasons (Karmada's exact strings).
const (
	ReasonAPIMissing       = "cluster(s) did not have the API resource"
	ReasonAffinityMismatch = "cluster(s) did not match the placement cluster affinity constraint"
	ReasonNoProvider       = "cluster(s) did not have provider property"
	ReasonNoRegion         = "cluster(s) did not have region property"
	ReasonNoZones          = "cluster(s) did not have zones property"
	ReasonEvicting         = "cluster(s) is in the process of eviction"
)

// APIEnablement passes clusters already targeted and clusters whose
// status.apiEnablements list the resource's groupVersion and kind. A
// cluster whose API list is incomplete and lacks the API fails as well.
type APIEnablement struct{}

// Name implements framework.FilterPlugin.
func (APIEnablement) Name() string { return APIEnablementName }

// Filter implements framework.FilterPlugin.
func (APIEnablement) Filter(b *framework.BindingInfo, c *clusterv1alpha1.Cluster) string {
	if b.Targeted(c.Name) || apiEnabled(c, b.Spec.Resource.APIVersion, b.Spec.Resource.Kind) {
		return ""
	}
	// An incomplete API list (CompleteAPIEnablements not True) without the
	// API is "API unknown" in Karmada; it fails with the same reason.
	return ReasonAPIMissing
}

func apiEnabled(c *clusterv1alpha1.Cluster, groupVersion, kind string) bool {
	for i := range c.Status.APIEnablements {
		e := &c.Status.APIEnablements[i]
		if e.GroupVersion != groupVersion {
			continue
		}
		for _, r := range e.Resources {
			if r.Kind == kind {
				return true
			}
		}
	}
	return false
}

// ClusterAffinity passes clusters matching the attempt's effective
// affinity (primary or overflow); no affinity passes every cluster.
type ClusterAffinity struct{}

// Name implements framework.FilterPlugin and framework.ScorePlugin.
func (ClusterAffinity) Name() string { return ClusterAffinityName }

// Filter implements framework.FilterPlugin.
func (ClusterAffinity) Filter(b *framework.BindingInfo, c *clusterv1alpha1.Cluster) string {
	if b.Affinity == nil || b.Affinity.Matches(c) {
		return ""
	}
	return ReasonAffinityMismatch
}

// Score implements framework.ScorePlugin; the affinity score is always 0.
func (ClusterAffinity) Score(*framework.BindingInfo, *clusterv1alpha1.Cluster) int64 { return 0 }

// SpreadConstraint requires the cluster properties the spread constraints
// group by: provider, region, or at least one zone.
type SpreadConstraint struct{}

// Name implements framework.FilterPlugin.
func (SpreadConstraint) Name() string { return SpreadConstraintName }

// Filter implements framework.FilterPlugin.
func (SpreadConstraint) Filter(b *framework.BindingInfo, c *clusterv1alpha1.Cluster) string {
	for _, sc := range b.Spec.Placement.SpreadConstraints {
		switch {
		case sc.SpreadByField == policyv1alpha1.SpreadByFieldProvider && c.Spec.Provider == "":
			return ReasonNoProvider
		case sc.SpreadByField == policyv1alpha1.SpreadByFieldRegion && c.Spec.Region == "":
			return ReasonNoRegion
		case sc.SpreadByField == policyv1alpha1.SpreadByFieldZone && len(c.Spec.Zones) == 0:
			return ReasonNoZones
		}
	}
	return ""
}

// ClusterEviction fails clusters that a graceful eviction task is moving
// the binding away from.
type ClusterEviction struct{}

// Name implements framework.FilterPlugin.
func (ClusterEviction) Name() string { return ClusterEvictionName }

// Filter implements framework.FilterPlugin.
func (ClusterEviction) Filter(b *framework.BindingInfo, c *clusterv1alpha1.Cluster) string {
	if _, evicting := b.Evicting[c.Name]; evicting {
		return ReasonEvicting
	}
	return ""
}

// ClusterLocality scores 100 for clusters already in spec.clusters.
type ClusterLocality struct{}

// Name implements framework.ScorePlugin.
func (ClusterLocality) Name() string { return ClusterLocalityName }

// Score implements framework.ScorePlugin.
func (ClusterLocality) Score(b *framework.BindingInfo, c *clusterv1alpha1.Cluster) int64 {
	if b.Targeted(c.Name) {
		return 100
	}
	return 0
}
