package memberwatch

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/shared/workcluster"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// Deps are the collaborators of a collector: a controller that starts
// member watches from Works on the control plane and reports the member
// objects back as Works.
type Deps struct {
	// Client reads from the manager's cache and writes to the control
	// plane.
	Client client.Client
	// APIReader reads Works past the cache when writing them.
	APIReader client.Reader
	// Informers hands out the member informers the watches start
	// (MemberInformers in a running Propel).
	Informers InformerSource
}

// Collector is what the collectors share: the control-plane client and
// reader, and the Watcher of the member objects owned by one controller.
type Collector struct {
	Client  client.Client
	Reader  client.Reader
	Watcher *Watcher
}

// NewCollector returns the collector of the controller owner; syncTimeout
// bounds the wait for a member's informers to sync.
func NewCollector(owner string, deps Deps, syncTimeout time.Duration) Collector {
	return Collector{Client: deps.Client, Reader: deps.APIReader, Watcher: &Watcher{
		Owner: owner, Informers: deps.Informers, SyncTimeout: syncTimeout,
	}}
}

// WorkCaches returns the synced caches of gvrs in the cluster of work's
// execution namespace, nil when that Cluster is gone. A cluster that is
// not ready is an error, so the Work is retried.
func (c Collector) WorkCaches(ctx context.Context, work *workv1alpha1.Work, gvrs ...schema.GroupVersionResource) (*Caches, error) {
	cluster, err := workcluster.Get(ctx, c.Client, work.Namespace)
	if err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	if !workcluster.IsReady(cluster) {
		return nil, fmt.Errorf("work %s/%s: cluster %s is not ready", work.Namespace, work.Name, cluster.Name)
	}
	return c.Watcher.Caches(ctx, cluster, gvrs...)
}
