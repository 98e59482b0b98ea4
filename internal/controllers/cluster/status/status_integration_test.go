package status_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	"github.com/propel-mc/propel/test/harness"
)

// TestMembersReadyWithExecutionSpaces: every joined member gets its
// labelled execution namespace, the finalizer, Ready=True with Karmada's
// reason, its version and complete API enablements, and no taint.
func TestMembersReadyWithExecutionSpaces(t *testing.T) {
	for _, name := range env.MemberNames() {
		t.Run(name, func(t *testing.T) {
			c := env.WaitClusterReady(t, name, harness.Timeout(2*time.Minute))
			ctx := context.Background()
			ns := &corev1.Namespace{}
			if err := env.Client.Get(ctx, client.ObjectKey{Name: "karmada-es-" + name}, ns); err != nil {
				t.Fatalf("execution space: %v", err)
			}
			if ns.Labels["karmada.io/system"] != "true" {
				t.Errorf("execution space labels %v, want karmada.io/system=true", ns.Labels)
			}
			if len(c.Finalizers) != 1 || c.Finalizers[0] != "karmada.io/cluster-controller" {
				t.Errorf("finalizers %v", c.Finalizers)
			}
			if r := readyOf(c); r.Reason != "ClusterReady" || r.Message != "cluster is healthy and ready to accept workloads" {
				t.Errorf("Ready condition %+v", r)
			}
			if !strings.HasPrefix(c.Status.KubernetesVersion, "v1.") {
				t.Errorf("kubernetesVersion %q", c.Status.KubernetesVersion)
			}
			harness.Eventually(t, "apps/v1 Deployment in apiEnablements", func(ctx context.Context) (bool, error) {
				c, err := getCluster(ctx, name)
				if err != nil {
					return false, err
				}
				complete := meta.FindStatusCondition(c.Status.Conditions, "CompleteAPIEnablements")
				return complete != nil && complete.Status == metav1.ConditionTrue && complete.Reason == "Complete" &&
					hasAPI(c, "apps/v1", "deployments", "Deployment") && hasAPI(c, "v1", "pods", "Pod"), nil
			})
			if c, _ := getCluster(ctx, name); hasAPI(c, "v1", "pods/status", "Pod") {
				t.Error("subresource pods/status listed in apiEnablements")
			}
		})
	}
}

func hasAPI(c *clusterv1alpha1.Cluster, gv, resource, kind string) bool {
	for _, e := range c.Status.APIEnablements {
		if e.GroupVersion != gv {
			continue
		}
		for _, r := range e.Resources {
			if r.Name == resource && r.Kind == kind {
				return true
			}
		}
	}
	return false
}

// TestMember1ResourceSummary: allocatable equals the sum of member1's
// kwok nodes, nodeSummary counts them, and the requests of a scheduled pod
// and of an unschedulable pod show up as allocated and allocating.
func TestMember1ResourceSummary(t *testing.T) {
	env.WaitClusterReady(t, "member1", harness.Timeout(2*time.Minute))
	member, err := env.MemberClient("member1")
	if err != nil {
		t.Fatal(err)
	}
	nodes := &corev1.NodeList{}
	if err := member.List(context.Background(), nodes); err != nil || len(nodes.Items) == 0 {
		t.Fatalf("member1 nodes: %d, %v", len(nodes.Items), err)
	}
	want := corev1.ResourceList{}
	for _, n := range nodes.Items {
		for k, v := range n.Status.Allocatable {
			q := want[k]
			q.Add(v)
			want[k] = q
		}
	}
	harness.Eventually(t, "member1 allocatable and node summary", func(ctx context.Context) (bool, error) {
		c, err := getCluster(ctx, "member1")
		if err != nil || c.Status.ResourceSummary == nil || c.Status.NodeSummary == nil {
			return false, err
		}
		return equality.Semantic.DeepEqual(c.Status.ResourceSummary.Allocatable, want) &&
			c.Status.NodeSummary.TotalNum == int32(len(nodes.Items)) && c.Status.NodeSummary.ReadyNum == int32(len(nodes.Items)), nil
	})
	c, _ := getCluster(context.Background(), "member1")
	if m := c.Status.ResourceSummary.AllocatableModelings; len(m) != 9 || m[3].Count != len(nodes.Items) {
		// One 8-CPU 32Gi node: cpu grade 4 ([8,16)), memory grade 3 ([32Gi,64Gi)).
		t.Errorf("allocatableModelings %+v, want 9 default grades with the node in grade 3", m)
	}

	base := c.Status.ResourceSummary.DeepCopy()
	ns := createNamespace(t, member, harness.UniqueName("summary"))
	bound := podWithRequests(ns, "bound", "250m", "100Mi", nil)
	pending := podWithRequests(ns, "pending", "1500m", "1Gi", map[string]string{"no-such-node": "true"})
	waitServiceAccount(t, member, ns)
	for _, p := range []*corev1.Pod{bound, pending} {
		if err := member.Create(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	// Later tests need an idle member1: remove the pods and wait until the
	// summary no longer counts them.
	defer func() {
		for _, p := range []*corev1.Pod{bound, pending} {
			_ = member.Delete(context.Background(), p, client.GracePeriodSeconds(0))
		}
		harness.Eventually(t, "deleted pods leave the summary", func(ctx context.Context) (bool, error) {
			c, err := getCluster(ctx, "member1")
			if err != nil {
				return false, err
			}
			s := c.Status.ResourceSummary
			return grew(s.Allocated, base.Allocated, corev1.ResourcePods, "0") && grew(s.Allocating, base.Allocating, corev1.ResourcePods, "0"), nil
		})
	}()
	harness.Eventually(t, "pod requests in allocated and allocating", func(ctx context.Context) (bool, error) {
		c, err := getCluster(ctx, "member1")
		if err != nil {
			return false, err
		}
		s := c.Status.ResourceSummary
		return grew(s.Allocated, base.Allocated, corev1.ResourceCPU, "250m") && grew(s.Allocated, base.Allocated, corev1.ResourceMemory, "100Mi") &&
			grew(s.Allocated, base.Allocated, corev1.ResourcePods, "1") &&
			grew(s.Allocating, base.Allocating, corev1.ResourceCPU, "1500m") && grew(s.Allocating, base.Allocating, corev1.ResourcePods, "1"), nil
	})
}

func createNamespace(t *testing.T, c client.Client, name string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := c.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), ns) })
	return name
}

// waitServiceAccount waits for the default ServiceAccount pod admission needs.
func waitServiceAccount(t *testing.T, c client.Client, ns string) {
	t.Helper()
	harness.Eventually(t, "default ServiceAccount in "+ns, func(ctx context.Context) (bool, error) {
		return c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "default"}, &corev1.ServiceAccount{}) == nil, nil
	})
}

func podWithRequests(ns, name, cpu, memory string, nodeSelector map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.PodSpec{
			NodeSelector: nodeSelector,
			Containers: []corev1.Container{{Name: "app", Image: "app", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)},
			}}},
			TerminationGracePeriodSeconds: ptr.To[int64](0),
		},
	}
}

// grew tells whether list[name] is base[name] plus delta.
func grew(list, base corev1.ResourceList, name corev1.ResourceName, delta string) bool {
	want := base[name].DeepCopy()
	want.Add(resource.MustParse(delta))
	q, ok := list[name]
	return ok && q.Cmp(want) == 0
}

// TestIdleStatusCycleWritesNothing: once member1's status is settled, a
// status cycle writes nothing to the control plane. Cluster writes are
// counted; the cluster controller in the same manager may still write.
func TestIdleStatusCycleWritesNothing(t *testing.T) {
	env.WaitClusterReady(t, "member1", harness.Timeout(2*time.Minute))
	ctx := context.Background()
	req := ctrl.Request{NamespacedName: client.ObjectKey{Name: "member1"}}
	// Let the status settle: a cycle that finds nothing to change.
	harness.Eventually(t, "a status cycle without writes", func(ctx context.Context) (bool, error) {
		before := clusterWrites()
		if _, err := statusControl.Reconcile(ctx, req); err != nil {
			return false, err
		}
		return clusterWrites() == before, nil
	})
	before, beforeAll := clusterWrites(), writes.Len()
	for i := range 3 {
		res, err := statusControl.Reconcile(ctx, req)
		if err != nil {
			t.Fatalf("cycle %d: %v", i, err)
		}
		if res.RequeueAfter != statusFrequency {
			t.Errorf("cycle %d requeues after %v, want %v", i, res.RequeueAfter, statusFrequency)
		}
	}
	if got := clusterWrites() - before; got != 0 {
		t.Errorf("3 idle status cycles of member1 wrote %d times, want 0", got)
	}
	t.Logf("writes in 3 idle status cycles: %d to clusters, %d in total", clusterWrites()-before, writes.Len()-beforeAll)
}
