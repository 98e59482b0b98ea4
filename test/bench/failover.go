package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/pkg/apis"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

// failoverArgs turn cluster failover on as a user following Karmada's
// failover guide would, with cluster health timings shortened so that
// detection (30-40 s with Karmada's defaults) does not dominate the
// figure. --resource-eviction-rate is left at Karmada's default (0.5/s)
// unless -cm-args sets it.
var failoverArgs = []string{
	allControllers,
	"--feature-gates=Failover=true",
	"--enable-no-execute-taint-eviction=true",
	"--cluster-status-update-frequency=1s",
	"--cluster-failure-threshold=2s",
	"--cluster-success-threshold=2s",
	"--cluster-monitor-period=1s",
	"--cluster-monitor-grace-period=4s",
	"--cluster-startup-grace-period=8s",
	"--graceful-eviction-timeout=10m",
}

// failoverMembers have real workloads (kube-controller-manager,
// kube-scheduler, kwok) and one node large enough for every pod.
func failoverMembers() []localenv.MemberOptions {
	var ms []localenv.MemberOptions
	for i := 1; i <= 3; i++ {
		name := fmt.Sprintf("member%d", i)
		ms = append(ms, localenv.MemberOptions{Name: name, Workloads: true,
			Nodes: []localenv.NodeSpec{{Name: name + "-node", CPU: "1000", Memory: "4Ti", Pods: "5000"}}})
	}
	return ms
}

// maintenanceTaint keeps member3 out of the first placement: replicas only
// go there when member1 is evicted.
var maintenanceTaint = corev1.Taint{Key: "example.io/maintenance", Effect: corev1.TaintEffectNoSchedule}

// failoverTimes are the moments, after member1's API server stopped, at
// which each stage was complete for every Deployment.
type failoverTimes struct {
	tainted, evicted, ready, tasksDone time.Duration
}

// runFailover measures cluster failover for cfg.n Deployments of two
// replicas, one on member1 and one on member2: the time from member1's
// API server stopping until member1 is tainted NoExecute, every binding
// has left it, every Deployment has its two replicas Ready on member2 and
// member3, and every graceful eviction task is gone; and the control
// plane's writes per evicted binding. Progress is read from watch caches,
// so the benchmark does not poll the API servers it measures.
func runFailover(ctx context.Context, cfg config, dir string) error {
	fmt.Fprintln(os.Stderr, "bench: starting a control plane and 3 members with workloads")
	env, err := harness.Start(ctx, filepath.Join(dir, "env"), harness.Options{Members: failoverMembers()})
	if err != nil {
		return err
	}
	defer env.Stop()
	bin, err := controllerManagerBinary(ctx, cfg, dir)
	if err != nil {
		return err
	}
	cm, err := startControllerManager(env, bin, cfg, failoverArgs...)
	if err != nil {
		return err
	}
	defer func() { cm.Stop() }()
	if err := waitClustersReady(ctx, env.Client, 3); err != nil {
		return err
	}
	if err := setClusterTaints(ctx, env.Client, "member3", []corev1.Taint{maintenanceTaint}); err != nil {
		return err
	}
	view, err := newFailoverView(ctx, env)
	if err != nil {
		return err
	}
	if err := createFailoverWorkload(ctx, env.Client, cfg.n); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "bench: waiting for %d Deployments to run one Ready replica on member1 and one on member2\n", cfg.n)
	start := time.Now()
	if err := view.waitUntil(ctx, func(s failoverState) bool {
		return s.readyOn["member1"] >= cfg.n && s.readyOn["member2"] >= cfg.n
	}); err != nil {
		return fmt.Errorf("waiting for the first placement: %w", err)
	}
	fmt.Fprintf(os.Stderr, "bench: first placement Ready after %.0f s; lifting member3's NoSchedule taint\n", time.Since(start).Seconds())
	if err := setClusterTaints(ctx, env.Client, "member3", nil); err != nil {
		return err
	}
	// The scheduler's cluster cache must see member3 untainted before the
	// eviction; it is not observable from outside.
	time.Sleep(3 * time.Second)

	controlPlane := map[string]*rest.Config{"karmada": env.ControlPlane.Config}
	before, err := writeCountsOf(ctx, controlPlane)
	if err != nil {
		return err
	}
	cpu := newCPUMeter(env)
	cpu.begin()
	cpu.controllerManager(cm)
	fmt.Fprintln(os.Stderr, "bench: stopping member1's API server")
	stopped := time.Now()
	view.stopped = "member1"
	// Stop returns once the process has exited, which a draining API
	// server takes seconds to do: watch meanwhile.
	go env.Member("member1").APIServer.Stop()
	var times failoverTimes
	err = view.waitUntil(ctx, func(s failoverState) bool {
		since := time.Since(stopped)
		if times.tainted == 0 && s.member1NoExecute {
			times.tainted = since
		}
		if times.evicted == 0 && s.onMember1 == 0 {
			times.evicted = since
		}
		if times.ready == 0 && s.fullyReadyElsewhere >= cfg.n {
			times.ready = since
		}
		if times.evicted > 0 && times.tasksDone == 0 && s.withTasks == 0 {
			times.tasksDone = since
		}
		return times.tainted > 0 && times.evicted > 0 && times.ready > 0 && times.tasksDone > 0
	})
	if err != nil {
		return fmt.Errorf("waiting for failover (%+v so far): %w", times, err)
	}
	time.Sleep(5 * time.Second) // let trailing status writes land before counting
	cpu.end()
	after, err := writeCountsOf(ctx, controlPlane)
	if err != nil {
		return err
	}
	delta := map[string]float64{}
	for k, v := range after {
		delta[k] = v - before[k]
	}
	reportFailover(cfg, times, delta, cpu)
	return nil
}

func setClusterTaints(ctx context.Context, c client.Client, cluster string, taints []corev1.Taint) error {
	return wait.PollUntilContextCancel(ctx, 500*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		cl := &clusterv1alpha1.Cluster{}
		if err := c.Get(ctx, client.ObjectKey{Name: cluster}, cl); err != nil {
			return false, nil
		}
		cl.Spec.Taints = taints
		return c.Update(ctx, cl) == nil, nil
	})
}

// createFailoverWorkload creates the ClusterTaintPolicy of Karmada's
// failover guide (NoExecute while Ready is not True), one policy placing
// the benchmark's Deployments 1:1 on member1 and member2 (member3 weighs
// the same, but is tainted NoSchedule until the eviction) with
// failover.cluster purgeMode Gracefully, and n two-replica Deployments.
func createFailoverWorkload(ctx context.Context, c client.Client, n int) error {
	ctp := &policyv1alpha1.ClusterTaintPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "failover-not-ready"},
		Spec: policyv1alpha1.ClusterTaintPolicySpec{
			AddOnConditions:    []policyv1alpha1.MatchCondition{{ConditionType: "Ready", Operator: "NotIn", StatusValues: []metav1.ConditionStatus{"True"}}},
			RemoveOnConditions: []policyv1alpha1.MatchCondition{{ConditionType: "Ready", Operator: "In", StatusValues: []metav1.ConditionStatus{"True"}}},
			Taints:             []policyv1alpha1.Taint{{Key: clusterv1alpha1.TaintClusterNotReady, Effect: corev1.TaintEffectNoExecute}},
		},
	}
	weight := func(cluster string) policyv1alpha1.StaticClusterWeight {
		return policyv1alpha1.StaticClusterWeight{TargetCluster: policyv1alpha1.ClusterAffinity{ClusterNames: []string{cluster}}, Weight: 1}
	}
	pol := &policyv1alpha1.PropagationPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "bench"},
		Spec: policyv1alpha1.PropagationSpec{
			ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment",
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"bench": "true"}}}},
			Placement: policyv1alpha1.Placement{
				ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member1", "member2", "member3"}},
				ReplicaScheduling: &policyv1alpha1.ReplicaSchedulingStrategy{
					ReplicaSchedulingType:     policyv1alpha1.ReplicaSchedulingTypeDivided,
					ReplicaDivisionPreference: policyv1alpha1.ReplicaDivisionPreferenceWeighted,
					WeightPreference: &policyv1alpha1.ClusterPreferences{StaticWeightList: []policyv1alpha1.StaticClusterWeight{
						weight("member1"), weight("member2"), weight("member3"),
					}},
				},
			},
			Failover: &policyv1alpha1.FailoverBehavior{Cluster: &policyv1alpha1.ClusterFailoverBehavior{PurgeMode: policyv1alpha1.PurgeModeGracefully}},
		},
	}
	for _, o := range []client.Object{ctp, pol} {
		if err := c.Create(ctx, o); err != nil {
			return fmt.Errorf("create %T: %w", o, err)
		}
	}
	fmt.Fprintf(os.Stderr, "bench: creating %d Deployments\n", n)
	objs := make([]client.Object, n)
	for i := range objs {
		objs[i] = harness.Deployment("default", fmt.Sprintf("bench-%d", i), map[string]string{"bench": "true"})
	}
	return harness.CreateConcurrently(ctx, c, 20, objs)
}

// failoverView reads the control plane's bindings and clusters and the
// Deployments of member1..3 from watch caches.
type failoverView struct {
	controlPlane cache.Cache
	members      map[string]cache.Cache
	// stopped is the member whose API server is stopped: its cache is not
	// read any more (it would only retry).
	stopped string
}

func newFailoverView(ctx context.Context, env *harness.Env) (*failoverView, error) {
	start := func(cfg *rest.Config) (cache.Cache, error) {
		c, err := cache.New(cfg, cache.Options{Scheme: apis.Scheme})
		if err != nil {
			return nil, err
		}
		go func() { _ = c.Start(ctx) }()
		return c, nil
	}
	v := &failoverView{members: map[string]cache.Cache{}}
	var err error
	if v.controlPlane, err = start(env.ControlPlane.Config); err != nil {
		return nil, err
	}
	for _, m := range env.Members {
		if v.members[m.Options.Name], err = start(m.Config); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// failoverState is one read of the view.
type failoverState struct {
	// readyOn counts the Deployments with a Ready replica per member
	// (member1's stays at its last value once its API server stops).
	readyOn map[string]int
	// fullyReadyElsewhere counts the Deployments whose two replicas are
	// Ready on member2 and member3 together.
	fullyReadyElsewhere int
	// onMember1 counts the bindings still placing replicas on member1;
	// withTasks those with a graceful eviction task.
	onMember1, withTasks int
	member1NoExecute     bool
}

func (v *failoverView) read(ctx context.Context) (failoverState, error) {
	s := failoverState{readyOn: map[string]int{}}
	elsewhere := map[string]int32{}
	for name, c := range v.members {
		if name == v.stopped {
			continue
		}
		list := &appsv1.DeploymentList{}
		if err := c.List(ctx, list, client.InNamespace("default"), client.MatchingLabels{"bench": "true"}); err != nil {
			return s, fmt.Errorf("list %s Deployments: %w", name, err)
		}
		for _, d := range list.Items {
			if d.Status.ReadyReplicas > 0 {
				s.readyOn[name]++
			}
			if name != "member1" {
				elsewhere[d.Name] += d.Status.ReadyReplicas
			}
		}
	}
	for _, ready := range elsewhere {
		if ready >= 2 {
			s.fullyReadyElsewhere++
		}
	}
	rbs := &workv1alpha2.ResourceBindingList{}
	if err := v.controlPlane.List(ctx, rbs, client.InNamespace("default")); err != nil {
		return s, fmt.Errorf("list bindings: %w", err)
	}
	for _, rb := range rbs.Items {
		if slices.ContainsFunc(rb.Spec.Clusters, func(tc workv1alpha2.TargetCluster) bool { return tc.Name == "member1" }) {
			s.onMember1++
		}
		if len(rb.Spec.GracefulEvictionTasks) > 0 {
			s.withTasks++
		}
	}
	cl := &clusterv1alpha1.Cluster{}
	if err := v.controlPlane.Get(ctx, client.ObjectKey{Name: "member1"}, cl); err != nil {
		return s, fmt.Errorf("get cluster member1: %w", err)
	}
	s.member1NoExecute = slices.ContainsFunc(cl.Spec.Taints, func(t corev1.Taint) bool { return t.Effect == corev1.TaintEffectNoExecute })
	return s, nil
}

// waitUntil reads the view every 250 ms until done holds.
func (v *failoverView) waitUntil(ctx context.Context, done func(failoverState) bool) error {
	lastErr := ""
	return wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		s, err := v.read(ctx)
		if err != nil { // caches still syncing
			if err.Error() != lastErr {
				lastErr = err.Error()
				fmt.Fprintf(os.Stderr, "bench: %v (retrying)\n", err)
			}
			return false, nil
		}
		return done(s), nil
	})
}

func reportFailover(cfg config, t failoverTimes, delta map[string]float64, cpu *cpuMeter) {
	n := float64(cfg.n)
	fmt.Printf("\n%d Deployments (2 replicas: member1 + member2), member1's API server stopped; controller manager flags: %s %s\n\n", cfg.n, strings.Join(failoverArgs, " "), cfg.cmArgs)
	fmt.Println("| member1 tainted NoExecute | every binding off member1 | every Deployment 2/2 Ready on member2 + member3 | every graceful eviction task removed |\n|---|---|---|---|")
	fmt.Printf("| %.1f s | %.1f s | %.1f s | %.1f s |\n\n", t.tainted.Seconds(), t.evicted.Seconds(), t.ready.Seconds(), t.tasksDone.Seconds())
	keys := make([]string, 0, len(delta))
	total := 0.0
	for k, d := range delta {
		if d > 0 && !isEventWrite(k) {
			keys = append(keys, k)
			total += d
		}
	}
	sort.Slice(keys, func(i, j int) bool { return delta[keys[i]] > delta[keys[j]] })
	fmt.Printf("Control-plane writes per evicted binding, from the stop to the end + 5 s: %.2f\n\n| writes per evicted binding | verb, resource |\n|---|---|\n", total/n)
	for _, k := range keys {
		fmt.Printf("| %.2f | %s |\n", delta[k]/n, k)
	}
	fmt.Println("\n| process | CPU s | CPU ms per evicted binding |\n|---|---|---|")
	for _, name := range cpu.order {
		d := cpu.spent[name]
		fmt.Printf("| %s | %.1f | %.1f |\n", name, d.Seconds(), d.Seconds()*1000/n)
	}
}
