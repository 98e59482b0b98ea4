// Package clusterset resolves the provider and consumer clusters of a
// MultiClusterService and tells whether a cluster can take part: it must
// exist, be Ready and serve discovery.k8s.io/v1 EndpointSlices.
package clusterset

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/propel-mc/propel/internal/shared/workcluster"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	networkingv1alpha1 "github.com/propel-mc/propel/pkg/apis/networking/v1alpha1"
)

// Event reasons (Karmada's) for a cluster that cannot take part.
const (
	EventReasonClusterNotFound   = "ClusterNotFound"
	EventReasonSyncServiceFailed = "SyncServiceFailed"
	EventReasonAPIIncompatible   = "APIIncompatible"
)

// Names returns the clusters selectors name, or every registered cluster
// when they name none (Karmada's "empty means all").
func Names(ctx context.Context, reader client.Reader, selectors []networkingv1alpha1.ClusterSelector) ([]string, error) {
	if len(selectors) == 0 {
		clusters := &clusterv1alpha1.ClusterList{}
		if err := reader.List(ctx, clusters); err != nil {
			return nil, fmt.Errorf("list clusters: %w", err)
		}
		out := make([]string, 0, len(clusters.Items))
		for _, c := range clusters.Items {
			out = append(out, c.Name)
		}
		return out, nil
	}
	out := make([]string, 0, len(selectors))
	for _, s := range selectors {
		if !slices.Contains(out, s.Name) {
			out = append(out, s.Name)
		}
	}
	return out, nil
}

// Selects reports whether selectors select cluster (empty selects all).
func Selects(selectors []networkingv1alpha1.ClusterSelector, cluster string) bool {
	return len(selectors) == 0 || slices.ContainsFunc(selectors, func(s networkingv1alpha1.ClusterSelector) bool { return s.Name == cluster })
}

// Unfit says why a cluster cannot take part: an event reason and message,
// or an empty reason when it can.
type Unfit struct {
	Reason, Message string
}

// Check reads cluster name and tells whether it can take part; role
// ("Provider" or "Consumer") and mcsName go into the message.
func Check(ctx context.Context, reader client.Reader, name, role, mcsName string) (*clusterv1alpha1.Cluster, Unfit, error) {
	cluster := &clusterv1alpha1.Cluster{}
	if err := reader.Get(ctx, types.NamespacedName{Name: name}, cluster); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, Unfit{EventReasonClusterNotFound, fmt.Sprintf("%s cluster %s is not found", role, name)}, nil
		}
		return nil, Unfit{}, err
	}
	if !workcluster.IsReady(cluster) {
		return cluster, Unfit{EventReasonSyncServiceFailed, fmt.Sprintf("%s cluster %s is not ready, skip to propagate MultiClusterService %s", role, name, mcsName)}, nil
	}
	if !ServesEndpointSlices(cluster) {
		return cluster, Unfit{EventReasonAPIIncompatible, fmt.Sprintf("%s cluster %s does not support EndpointSlice", role, name)}, nil
	}
	return cluster, Unfit{}, nil
}

// ServesEndpointSlices is false only when the cluster's complete API list
// lacks discovery.k8s.io/v1 EndpointSlice; an incomplete list counts as
// serving it.
func ServesEndpointSlices(cluster *clusterv1alpha1.Cluster) bool {
	if !meta.IsStatusConditionTrue(cluster.Status.Conditions, clusterv1alpha1.ClusterConditionCompleteAPIEnablements) {
		return true
	}
	for _, e := range cluster.Status.APIEnablements {
		if e.GroupVersion != "discovery.k8s.io/v1" {
			continue
		}
		for _, r := range e.Resources {
			if r.Kind == "EndpointSlice" {
				return true
			}
		}
	}
	return false
}

// FitnessChanged passes Cluster creations and deletions, and updates that
// change what Check reads (readiness, the EndpointSlice API): a cluster's
// status is rewritten every status period, and reacting to each rewrite
// would reconcile (and record an event for) every MultiClusterService
// that selects it.
func FitnessChanged() predicate.Funcs {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		o, ok1 := e.ObjectOld.(*clusterv1alpha1.Cluster)
		n, ok2 := e.ObjectNew.(*clusterv1alpha1.Cluster)
		return !ok1 || !ok2 || workcluster.IsReady(o) != workcluster.IsReady(n) ||
			ServesEndpointSlices(o) != ServesEndpointSlices(n) || !n.DeletionTimestamp.IsZero()
	}}
}

// HasCrossCluster reports whether the MCS asks for CrossCluster exposure,
// the only type these controllers act on.
func HasCrossCluster(mcs *networkingv1alpha1.MultiClusterService) bool {
	return slices.Contains(mcs.Spec.Types, networkingv1alpha1.ExposureTypeCrossCluster)
}
