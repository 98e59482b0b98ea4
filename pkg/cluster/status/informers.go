package status

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	"github.com/propel-mc/propel/pkg/membercluster"
)

// memberCache holds the Node and Pod informers of one member cluster and
// the last summary computed from them.
type memberCache struct {
	// key identifies the connection the informers use.
	key    string
	nodes  cache.SharedIndexInformer
	pods   cache.SharedIndexInformer
	cancel context.CancelFunc
	// changes counts informer events; the summary is recomputed only when
	// it moved (or the cluster spec changed).
	changes atomic.Uint64

	mu   sync.Mutex
	memo *memo
}

type memo struct {
	changes    uint64
	generation int64
	summary    summary
}

// caches keeps one memberCache per cluster.
type caches struct {
	mu     sync.Mutex
	byName map[string]*memberCache
}

func newCaches() *caches { return &caches{byName: map[string]*memberCache{}} }

// get returns the running caches of cluster, starting them on first use and
// restarting them when the connection changed.
func (c *caches) get(cluster *clusterv1alpha1.Cluster, m *membercluster.Member) (*memberCache, error) {
	key := connectionKey(cluster, m.Config)
	c.mu.Lock()
	defer c.mu.Unlock()
	if mc := c.byName[cluster.Name]; mc != nil {
		if mc.key == key {
			return mc, nil
		}
		mc.cancel()
	}
	mc, err := startMemberCache(key, m.Config)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: node and pod informers: %w", cluster.Name, err)
	}
	c.byName[cluster.Name] = mc
	return mc, nil
}

// stop ends the informers of a cluster that went away.
func (c *caches) stop(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if mc := c.byName[name]; mc != nil {
		mc.cancel()
		delete(c.byName, name)
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

func startMemberCache(key string, cfg *rest.Config) (*memberCache, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.Timeout = 0 // watches are long requests; the reflector bounds them itself
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	factory := informers.NewSharedInformerFactory(kube, 0)
	mc := &memberCache{key: key, nodes: factory.Core().V1().Nodes().Informer(), pods: factory.Core().V1().Pods().Informer()}
	for inf, trim := range map[cache.SharedIndexInformer]cache.TransformFunc{mc.nodes: trimNode, mc.pods: trimPod} {
		if err := inf.SetTransform(trim); err != nil {
			return nil, err
		}
		if _, err := inf.AddEventHandler(mc.countChanges()); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	mc.cancel = cancel
	factory.Start(ctx.Done())
	go func() { <-ctx.Done(); factory.Shutdown() }()
	return mc, nil
}

func (mc *memberCache) countChanges() cache.ResourceEventHandler {
	bump := func() { mc.changes.Add(1) }
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { bump() },
		UpdateFunc: func(any, any) { bump() },
		DeleteFunc: func(any) { bump() },
	}
}

// waitSynced waits up to timeout for both informers' initial lists.
func (mc *memberCache) waitSynced(ctx context.Context, timeout time.Duration) bool {
	if mc.nodes.HasSynced() && mc.pods.HasSynced() {
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return cache.WaitForCacheSync(ctx.Done(), mc.nodes.HasSynced, mc.pods.HasSynced)
}

// summary returns the summary of the cached nodes and pods, recomputing it
// only after an informer event or a change of the cluster spec.
func (mc *memberCache) summary(cluster *clusterv1alpha1.Cluster) summary {
	mc.mu.Lock()
	defer mc.mu.Unlock()
	changes := mc.changes.Load()
	if m := mc.memo; m != nil && m.changes == changes && m.generation == cluster.Generation {
		return m.summary
	}
	objs := mc.nodes.GetStore().List()
	nodes := make([]*corev1.Node, 0, len(objs))
	for _, o := range objs {
		nodes = append(nodes, o.(*corev1.Node))
	}
	objs = mc.pods.GetStore().List()
	pods := make([]*corev1.Pod, 0, len(objs))
	for _, o := range objs {
		pods = append(pods, o.(*corev1.Pod))
	}
	s := summarize(nodes, pods, modelsOf(cluster))
	mc.memo = &memo{changes: changes, generation: cluster.Generation, summary: s}
	return s
}

// trimNode keeps only what the summary reads: allocatable and the Ready
// condition. Node images and managed fields are large.
func trimNode(obj any) (any, error) {
	n, ok := obj.(*corev1.Node)
	if !ok {
		return obj, nil
	}
	out := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.Name, UID: n.UID, ResourceVersion: n.ResourceVersion}}
	out.Status.Allocatable = n.Status.Allocatable
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			out.Status.Conditions = []corev1.NodeCondition{{Type: c.Type, Status: c.Status}}
		}
	}
	return out, nil
}

// trimPod keeps only what the summary reads: node, phase and requests.
func trimPod(obj any) (any, error) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil
	}
	out := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name, UID: p.UID, ResourceVersion: p.ResourceVersion}}
	out.Spec.NodeName, out.Spec.Overhead, out.Status.Phase = p.Spec.NodeName, p.Spec.Overhead, p.Status.Phase
	out.Spec.Containers = trimContainers(p.Spec.Containers)
	out.Spec.InitContainers = trimContainers(p.Spec.InitContainers)
	return out, nil
}

func trimContainers(cs []corev1.Container) []corev1.Container {
	if len(cs) == 0 {
		return nil
	}
	out := make([]corev1.Container, len(cs))
	for i := range cs {
		out[i] = corev1.Container{Name: cs[i].Name, Resources: corev1.ResourceRequirements{Requests: cs[i].Resources.Requests}}
	}
	return out
}
