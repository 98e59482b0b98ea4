package membercluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// NodePodInformers is the Node and Pod informer pair of one member cluster.
// It runs until its Cluster goes away or its connection changes. Their
// stores hold *NodeRecord and *PodRecord items (see node_pod_records.go).
type NodePodInformers struct {
	// key identifies the connection the informers use.
	key    string
	Nodes  cache.SharedIndexInformer
	Pods   cache.SharedIndexInformer
	ctx    context.Context
	cancel context.CancelFunc
	// changes counts informer events, so that a reader can tell whether
	// anything moved since it last looked.
	changes atomic.Uint64
}

// NodesAndPods returns the running Node and Pod informers of cluster,
// starting them with m's config on first use. They are restarted only when
// the connection changes (endpoint, credentials, proxy, or the Cluster was
// recreated), not when unrelated spec fields such as taints change: a
// restart re-lists every Pod of the member.
func (i *Informers) NodesAndPods(cluster *clusterv1alpha1.Cluster, m *Member) (*NodePodInformers, error) {
	key := connectionKey(cluster, m.Config)
	i.mu.Lock()
	defer i.mu.Unlock()
	if np := i.nodePods[cluster.Name]; np != nil {
		if np.key == key {
			return np, nil
		}
		np.stop()
		delete(i.nodePods, cluster.Name)
	}
	np, err := startNodePodInformers(key, m.Config)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: node and pod informers: %w", cluster.Name, err)
	}
	i.nodePods[cluster.Name] = np
	return np, nil
}

// StopNodesAndPods stops and forgets the Node and Pod informers of cluster
// only, for a reader that no longer needs them (the member-object informers
// of the cluster keep running).
func (i *Informers) StopNodesAndPods(cluster string) {
	i.mu.Lock()
	np := i.nodePods[cluster]
	delete(i.nodePods, cluster)
	i.mu.Unlock()
	if np != nil {
		np.stop()
	}
}

// connectionKey changes when the endpoint, credentials or proxy do; not
// when unrelated spec fields such as taints change.
func connectionKey(cluster *clusterv1alpha1.Cluster, cfg *rest.Config) string {
	h := sha256.New()
	headers := make([]string, 0, len(cluster.Spec.ProxyHeader))
	for k, v := range cluster.Spec.ProxyHeader {
		headers = append(headers, k+"="+v)
	}
	sort.Strings(headers)
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%t\x00%s\x00%v\x00", cluster.UID, cfg.Host, cfg.BearerToken, cfg.Insecure, cluster.Spec.ProxyURL, headers)
	h.Write(cfg.CAData)
	return hex.EncodeToString(h.Sum(nil))
}

func startNodePodInformers(key string, cfg *rest.Config) (*NodePodInformers, error) {
	cfg = nodePodConfig(cfg)
	// The core/v1 client alone: client-go's clientset and informer
	// factory would link every API group's client into the binary.
	core, err := corev1client.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	np := &NodePodInformers{key: key,
		Nodes: cache.NewSharedIndexInformer(newRecordListWatch(cache.NewListWatchFromClient(core.RESTClient(), "nodes", metav1.NamespaceAll, fields.Everything()), nodeListRecord),
			&corev1.Node{}, 0, cache.Indexers{}),
		Pods: cache.NewSharedIndexInformer(newRecordListWatch(cache.NewListWatchFromClient(core.RESTClient(), "pods", metav1.NamespaceAll, fields.Everything()), podListRecord),
			&corev1.Pod{}, 0, cache.Indexers{}),
	}
	for inf, transform := range map[cache.SharedIndexInformer]cache.TransformFunc{np.Nodes: nodeRecord, np.Pods: podRecord} {
		if err := inf.SetTransform(transform); err != nil {
			return nil, err
		}
		if _, err := inf.AddEventHandler(np.countChanges()); err != nil {
			return nil, err
		}
	}
	np.ctx, np.cancel = context.WithCancel(context.Background())
	go np.Nodes.RunWithContext(np.ctx)
	go np.Pods.RunWithContext(np.ctx)
	return np, nil
}

func (np *NodePodInformers) countChanges() cache.ResourceEventHandler {
	bump := func() { np.changes.Add(1) }
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { bump() },
		UpdateFunc: func(any, any) { bump() },
		DeleteFunc: func(any) { bump() },
	}
}

// Changes is the number of Node and Pod events seen since the informers
// started; it moves whenever their caches do.
func (np *NodePodInformers) Changes() uint64 { return np.changes.Load() }

// WaitSynced waits up to timeout for both informers' initial lists.
func (np *NodePodInformers) WaitSynced(ctx context.Context, timeout time.Duration) bool {
	if np.Nodes.HasSynced() && np.Pods.HasSynced() {
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return cache.WaitForCacheSync(ctx.Done(), np.Nodes.HasSynced, np.Pods.HasSynced)
}

// Stopped tells whether the informers were stopped.
func (np *NodePodInformers) Stopped() bool { return np.ctx.Err() != nil }

func (np *NodePodInformers) stop() { np.cancel() }

// nodePodConfig is cfg for the Node and Pod informers: no timeout, as
// watches are long requests the reflector bounds itself, and protobuf,
// which every member API server serves for core/v1: a big member's
// initial list and watch events decode with a fraction of the CPU and
// garbage JSON costs.
func nodePodConfig(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Timeout = 0
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	return cfg
}
