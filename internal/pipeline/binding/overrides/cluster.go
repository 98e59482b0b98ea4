package overrides

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// ClusterApplier applies only ClusterOverridePolicies, read from a cached
// reader at each call: what the namespace-sync controller needs for the
// Namespaces it propagates without any binding.
type ClusterApplier struct{ Reader client.Reader }

// ApplyClusterOverrides mutates obj with the matching ClusterOverridePolicy
// rules for cluster and returns the applied-cluster-overrides annotation
// value ("" when no rule applied).
func (a ClusterApplier) ApplyClusterOverrides(ctx context.Context, obj *unstructured.Unstructured, cluster *clusterv1alpha1.Cluster) (string, error) {
	set, err := Load(ctx, a.Reader, "", true)
	if err != nil {
		return "", err
	}
	result, err := set.Apply(obj, cluster)
	if err != nil {
		return "", err
	}
	applied, _, err := result.Annotations()
	return applied, err
}
