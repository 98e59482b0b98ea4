package memberwatch

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/propel-mc/propel/internal/shared/membercluster"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// InformerSet is one member cluster's set of unfiltered informers, as
// *membercluster.WatchedObjects provides it.
type InformerSet interface {
	// Informer returns the running informer of gvr with h registered
	// once for owner.
	Informer(gvr schema.GroupVersionResource, owner string, h cache.ResourceEventHandler) (cache.SharedIndexInformer, error)
	// WaitSynced waits up to timeout for the informers' initial lists.
	WaitSynced(ctx context.Context, timeout time.Duration, informers ...cache.SharedIndexInformer) bool
}

// InformerSource hands out the informer set of a member cluster. The
// controllers run with MemberInformers; tests pass sets over fixed member
// objects (memberwatchtest), so the collectors' decisions need no member
// API server.
type InformerSource interface {
	InformerSet(ctx context.Context, cluster *clusterv1alpha1.Cluster) (InformerSet, error)
}

// MemberInformers is the InformerSource of a running Propel: the member
// clients (membercluster.Clients) and the shared member informers.
type MemberInformers struct {
	Clients   membercluster.ClientSource
	Informers *membercluster.Informers
}

// InformerSet returns cluster's unfiltered informer set, built with the
// cluster's current clients.
func (m MemberInformers) InformerSet(ctx context.Context, cluster *clusterv1alpha1.Cluster) (InformerSet, error) {
	member, err := m.Clients.ForCluster(ctx, cluster)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: clients: %w", cluster.Name, err)
	}
	set, err := m.Informers.Watched(cluster, member)
	if err != nil {
		return nil, err
	}
	return set, nil
}
