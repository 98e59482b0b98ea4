package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/cli/localenv"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// Every loaded node is the same machine; podsPerNode bounds -pods per
// -nodes as the kubelet's default max-pods does.
const (
	nodeCPU     = "32"
	nodeMemory  = "128Gi"
	nodeStorage = "200Gi"
	podsPerNode = 110
	podCPU      = "100m"
	podMemory   = "128Mi"
)

// loadNamespace holds the loaded pods on every member.
const loadNamespace = "bench-load"

func validLoad(nodes, pods int) error {
	if nodes < 0 || pods < 0 {
		return fmt.Errorf("-nodes %d -pods %d: must not be negative", nodes, pods)
	}
	if pods > nodes*podsPerNode {
		return fmt.Errorf("-pods %d: at most %d per node (-nodes %d)", pods, podsPerNode, nodes)
	}
	return nil
}

func loadNodeName(member string, i int) string { return fmt.Sprintf("%s-node-%d", member, i) }

// loadNode is node i of member as a kubelet registers it and a healthy
// kubelet keeps it: capacity, allocatable, addresses, node info and the
// Ready condition, with the well-known and topology labels (three zones
// per member).
func loadNode(member string, i int, now time.Time) *corev1.Node {
	name := loadNodeName(member, i)
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:              resource.MustParse(nodeCPU),
		corev1.ResourceMemory:           resource.MustParse(nodeMemory),
		corev1.ResourceEphemeralStorage: resource.MustParse(nodeStorage),
		corev1.ResourcePods:             *resource.NewQuantity(podsPerNode, resource.DecimalSI),
	}
	allocatable := capacity.DeepCopy()
	allocatable[corev1.ResourceMemory] = resource.MustParse("127Gi") // system reserved
	t := metav1.NewTime(now)
	condition := func(typ corev1.NodeConditionType, status corev1.ConditionStatus, reason string) corev1.NodeCondition {
		return corev1.NodeCondition{Type: typ, Status: status, Reason: reason, LastHeartbeatTime: t, LastTransitionTime: t}
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: name,
			Labels: map[string]string{
				"kubernetes.io/hostname":           name,
				"kubernetes.io/os":                 "linux",
				"kubernetes.io/arch":               "amd64",
				"node.kubernetes.io/instance-type": "bench-32c-128g",
				"topology.kubernetes.io/region":    member,
				"topology.kubernetes.io/zone":      fmt.Sprintf("%s-zone-%d", member, i%3),
				"type":                             "kwok",
			},
			Annotations: map[string]string{"node.alpha.kubernetes.io/ttl": "0"},
		},
		Status: corev1.NodeStatus{
			Capacity:    capacity,
			Allocatable: allocatable,
			Phase:       corev1.NodeRunning,
			Conditions: []corev1.NodeCondition{
				condition(corev1.NodeReady, corev1.ConditionTrue, "KubeletReady"),
				condition(corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory"),
				condition(corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure"),
				condition(corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID"),
			},
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: nodeIP(i)},
				{Type: corev1.NodeHostName, Address: name},
			},
			NodeInfo: corev1.NodeSystemInfo{
				Architecture: "amd64", OperatingSystem: "linux", KubeletVersion: "v1.36.3",
				ContainerRuntimeVersion: "containerd://2.0.0", OSImage: "bench",
			},
		},
	}
}

// nodeIP is node i's address: 10.128.0.0/9, unique per member.
func nodeIP(i int) string { return fmt.Sprintf("10.%d.%d.%d", 128+(i>>16)&127, (i>>8)&255, i&255) }

// loadPod is pod i of member, bound to node i mod nodes, as the API server
// takes it on create (the status is written after, see runningStatus).
func loadPod(member string, i, nodes int) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: loadNamespace,
			Name:      fmt.Sprintf("load-%d", i),
			Labels:    map[string]string{"app": fmt.Sprintf("load-%d", i%100)},
		},
		Spec: corev1.PodSpec{
			NodeName:                     loadNodeName(member, i%nodes),
			AutomountServiceAccountToken: ptr.To(false),
			Containers: []corev1.Container{{
				Name:  "app",
				Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU:    resource.MustParse(podCPU),
					corev1.ResourceMemory: resource.MustParse(podMemory),
				}},
			}},
		},
	}
}

// runningStatus sets what a kubelet reports for pod i (of loadPod, on
// node i mod nodes) once its container runs: phase Running, the four
// conditions true, addresses and the container's state.
func runningStatus(pod *corev1.Pod, i, nodes int, now time.Time) {
	t := metav1.NewTime(now)
	st := &pod.Status
	st.Phase = corev1.PodRunning
	st.StartTime = &t
	st.Conditions = nil
	for _, c := range []corev1.PodConditionType{corev1.PodScheduled, corev1.PodInitialized, corev1.ContainersReady, corev1.PodReady} {
		st.Conditions = append(st.Conditions, corev1.PodCondition{Type: c, Status: corev1.ConditionTrue, LastTransitionTime: t})
	}
	st.HostIP = nodeIP(i % nodes)
	st.HostIPs = []corev1.HostIP{{IP: st.HostIP}}
	st.PodIP = fmt.Sprintf("10.%d.%d.%d", (i>>16)&127, (i>>8)&255, i&255)
	st.PodIPs = []corev1.PodIP{{IP: st.PodIP}}
	st.ContainerStatuses = []corev1.ContainerStatus{{
		Name: "app", Image: "registry.k8s.io/pause:3.10", ImageID: "registry.k8s.io/pause@sha256:bench",
		ContainerID: fmt.Sprintf("containerd://%064d", i), Ready: true, Started: ptr.To(true),
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: t}},
	}}
}

// loadMembers creates nodes Nodes and pods Pods (Running) on every member,
// workers requests in flight per member and the members in parallel,
// without client-side rate limit, and returns how long it took.
func loadMembers(ctx context.Context, members []*localenv.Member, nodes, pods, workers int) (time.Duration, error) {
	start := time.Now()
	if nodes == 0 {
		return 0, nil
	}
	fmt.Fprintf(os.Stderr, "bench: creating %d nodes and %d pods on each of %d members\n", nodes, pods, len(members))
	errs := make(chan error, len(members))
	for _, m := range members {
		go func() { errs <- loadMember(ctx, m, nodes, pods, workers) }()
	}
	var first error
	for range members {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return time.Since(start), first
}

func loadMember(ctx context.Context, m *localenv.Member, nodes, pods, workers int) error {
	cfg := rest.CopyConfig(m.Config)
	cfg.QPS = -1 // no client-side limit: the API server's own is what bounds the load
	cfg.ContentType = runtime.ContentTypeProtobuf
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	name := m.Options.Name
	if err := prepareLoadNamespace(ctx, kube); err != nil {
		return fmt.Errorf("member %s: %w", name, err)
	}
	now := time.Now()
	err = inParallel(ctx, workers, nodes, func(ctx context.Context, i int) error {
		err := retry.OnError(loadBackoff, transientLoadError, func() error {
			_, err := kube.CoreV1().Nodes().Create(ctx, loadNode(name, i, now), metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				return nil // an earlier attempt that timed out was stored
			}
			return err
		})
		if err != nil {
			return fmt.Errorf("member %s: create node %d: %w", name, i, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	podClient := kube.CoreV1().Pods(loadNamespace)
	return inParallel(ctx, workers, pods, func(ctx context.Context, i int) error {
		var pod *corev1.Pod
		err := retry.OnError(loadBackoff, transientLoadError, func() error {
			var err error
			pod, err = podClient.Create(ctx, loadPod(name, i, nodes), metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				pod, err = podClient.Get(ctx, loadPod(name, i, nodes).Name, metav1.GetOptions{})
			}
			return err
		})
		if err != nil {
			return fmt.Errorf("member %s: create pod %d: %w", name, i, err)
		}
		err = retry.OnError(loadBackoff, func(err error) bool { return transientLoadError(err) || apierrors.IsConflict(err) }, func() error {
			runningStatus(pod, i, nodes, now)
			_, err := podClient.UpdateStatus(ctx, pod, metav1.UpdateOptions{})
			if apierrors.IsConflict(err) {
				// An earlier attempt that timed out may have been stored:
				// the next attempt writes the status over what is there now.
				if latest, getErr := podClient.Get(ctx, pod.Name, metav1.GetOptions{}); getErr == nil {
					pod = latest
				}
			}
			return err
		})
		if err != nil {
			return fmt.Errorf("member %s: pod %d status: %w", name, i, err)
		}
		return nil
	})
}

// loadBackoff retries a load request for about a minute: tens of member
// API servers share one etcd, which times requests out when it falls
// behind.
var loadBackoff = wait.Backoff{Duration: 500 * time.Millisecond, Factor: 2, Jitter: 0.2, Steps: 8, Cap: 15 * time.Second}

// transientLoadError is an error a retry can clear: the API server or
// etcd overloaded or timing out.
func transientLoadError(err error) bool {
	return apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) ||
		apierrors.IsInternalError(err) || apierrors.IsServiceUnavailable(err)
}

// prepareLoadNamespace creates loadNamespace and its default
// ServiceAccount, which the ServiceAccount admission plugin requires of
// every pod and which no controller creates on a bare member.
func prepareLoadNamespace(ctx context.Context, kube kubernetes.Interface) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: loadNamespace}}
	if _, err := kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create namespace %s: %w", loadNamespace, err)
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: loadNamespace, Name: "default"}}
	if _, err := kube.CoreV1().ServiceAccounts(loadNamespace).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create service account %s/default: %w", loadNamespace, err)
	}
	return nil
}

// inParallel runs do(0..count-1) with workers calls at a time and returns
// the first error; after one, the remaining calls are not started.
func inParallel(ctx context.Context, workers, count int, do func(context.Context, int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int)
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for range max(1, workers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if err := do(ctx, i); err != nil {
					once.Do(func() { first = err; cancel() })
				}
			}
		}()
	}
feed:
	for i := range count {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	return first
}

// reportClusterSummary prints what Propel's cluster status made of the
// first member's nodes and pods (node counts, allocatable and allocated
// resources), to show that the loaded objects count as a real cluster's.
func reportClusterSummary(ctx context.Context, c client.Client, member string) error {
	var cl clusterv1alpha1.Cluster
	if err := c.Get(ctx, client.ObjectKey{Name: member}, &cl); err != nil {
		return fmt.Errorf("cluster %s: %w", member, err)
	}
	st := cl.Status
	if st.NodeSummary == nil || st.ResourceSummary == nil {
		fmt.Printf("\nCluster %s has no node or resource summary.\n", member)
		return nil
	}
	rs := st.ResourceSummary
	fmt.Printf("\nCluster %s status: %d nodes, %d ready; allocatable cpu %s, memory %s, pods %s; allocated cpu %s, memory %s, pods %s.\n",
		member, st.NodeSummary.TotalNum, st.NodeSummary.ReadyNum,
		rs.Allocatable.Cpu(), rs.Allocatable.Memory(), rs.Allocatable.Pods(),
		rs.Allocated.Cpu(), rs.Allocated.Memory(), rs.Allocated.Pods())
	return nil
}
