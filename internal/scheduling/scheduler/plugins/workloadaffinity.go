package plugins

import (
	"github.com/propel-mc/propel/internal/scheduling/scheduler/framework"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// Workload affinity plugins (gate WorkloadAffinity): their names and
// failure reasons are Karmada's.
const (
	WorkloadAffinityName     = "WorkloadAffinity"
	WorkloadAntiAffinityName = "WorkloadAntiAffinity"

	ReasonAffinityGroupElsewhere = "ResourceBinding with the same affinity group does not target this cluster"
	ReasonAntiAffinityGroupHere  = "cluster already has workload with the same anti-affinity group"
)

// WorkloadAffinity co-locates the members of an affinity group: a cluster
// fits only if every other member with a placement targets it. Clusters
// the binding already targets always pass, so the filter never takes a
// workload away from where it runs.
type WorkloadAffinity struct{}

// Name implements framework.FilterPlugin.
func (WorkloadAffinity) Name() string { return WorkloadAffinityName }

// Filter implements framework.FilterPlugin.
func (WorkloadAffinity) Filter(b *framework.BindingInfo, c *clusterv1alpha1.Cluster) string {
	if b.Peers == nil || b.Peers.Colocate == nil || b.Targeted(c.Name) {
		return ""
	}
	if _, ok := b.Peers.Colocate[c.Name]; ok {
		return ""
	}
	return ReasonAffinityGroupElsewhere
}

// WorkloadAntiAffinity separates the members of an anti-affinity group: a
// cluster that another member targets does not fit, unless the binding
// already targets it.
type WorkloadAntiAffinity struct{}

// Name implements framework.FilterPlugin.
func (WorkloadAntiAffinity) Name() string { return WorkloadAntiAffinityName }

// Filter implements framework.FilterPlugin.
func (WorkloadAntiAffinity) Filter(b *framework.BindingInfo, c *clusterv1alpha1.Cluster) string {
	if b.Peers == nil || b.Targeted(c.Name) {
		return ""
	}
	if _, ok := b.Peers.Separate[c.Name]; ok {
		return ReasonAntiAffinityGroupHere
	}
	return ""
}
