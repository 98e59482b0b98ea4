// Command bench measures Propel end to end on real API servers: N
// Deployments with one PropagationPolicy to every member cluster. It runs
// propel-controller-manager as its own process (so its peak memory is its
// own) and reports the seconds until every Work is applied and until every
// binding has the aggregated status of all clusters, the API writes per
// propagated Deployment (from the API servers' own request metrics), what
// each write is, and the controller manager's peak memory.
//
//	go run ./test/bench -n 1000
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/pkg/localenv"
	"github.com/propel-mc/propel/test/harness"
)

func main() {
	n := flag.Int("n", 1000, "number of Deployments")
	members := flag.Int("members", 3, "number of member clusters (bare API servers: only Propel's work is measured)")
	timeout := flag.Duration("timeout", 30*time.Minute, "give up after this long")
	policies := flag.Int("policies", 1, "number of PropagationPolicies; all but one select other Deployments (matching must not slow down)")
	flag.Parse()
	if err := run(*n, *members, *policies, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(n, memberCount, policies int, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	dir, err := os.MkdirTemp("", "propel-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var ms []localenv.MemberOptions
	for i := 1; i <= memberCount; i++ {
		ms = append(ms, localenv.MemberOptions{Name: fmt.Sprintf("member%d", i)})
	}
	fmt.Fprintf(os.Stderr, "bench: starting a control plane and %d members\n", memberCount)
	env, err := harness.Start(ctx, filepath.Join(dir, "env"), harness.Options{Members: ms})
	if err != nil {
		return err
	}
	defer env.Stop()
	cm, err := startControllerManager(ctx, dir, env)
	if err != nil {
		return err
	}
	defer cm.Stop()
	if err := waitClustersReady(ctx, env.Client, memberCount); err != nil {
		return err
	}
	before, err := writeCounts(ctx, env)
	if err != nil {
		return err
	}
	if err := createDecoyPolicies(ctx, env.Client, policies-1); err != nil {
		return err
	}
	start := time.Now()
	if err := createWorkload(ctx, env.Client, n); err != nil {
		return err
	}
	bound, err := waitFor(ctx, start, func(ctx context.Context) (bool, error) { return bindingsCreated(ctx, env.Client, n) })
	if err != nil {
		return fmt.Errorf("waiting for bindings: %w", err)
	}
	applied, err := waitFor(ctx, start, func(ctx context.Context) (bool, error) { return worksApplied(ctx, env.Client, n*memberCount) })
	if err != nil {
		return fmt.Errorf("waiting for applied Works: %w", err)
	}
	aggregated, err := waitFor(ctx, start, func(ctx context.Context) (bool, error) { return bindingsAggregated(ctx, env.Client, n, memberCount) })
	if err != nil {
		return fmt.Errorf("waiting for aggregated status: %w", err)
	}
	time.Sleep(5 * time.Second) // let trailing status writes land before counting
	after, err := writeCounts(ctx, env)
	if err != nil {
		return err
	}
	before["karmada POST propagationpolicies"] += float64(policies - 1)
	report(n, memberCount, policies, bound, applied, aggregated, before, after, peakRSS(cm.Pid()))
	return nil
}

// peakRSS is VmHWM of process pid, in MiB.
func peakRSS(pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			var kb float64
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:")), "%f", &kb)
			return kb / 1024
		}
	}
	return -1
}

func startControllerManager(ctx context.Context, dir string, env *harness.Env) (*localenv.Process, error) {
	fmt.Fprintln(os.Stderr, "bench: building propel-controller-manager")
	bin, err := harness.BuildControllerManager(ctx, dir)
	if err != nil {
		return nil, err
	}
	return env.StartControllerManager(bin, "propel-controller-manager", "--leader-elect=false",
		"--metrics-bind-address=0", "--health-probe-bind-address=0",
		"--kube-api-qps=500", "--kube-api-burst=1000", "--cluster-api-qps=500", "--cluster-api-burst=1000",
		"--cluster-status-update-frequency=2s")
}

func waitClustersReady(ctx context.Context, c client.Client, want int) error {
	return wait.PollUntilContextCancel(ctx, 500*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		ready, _ := harness.ClustersReady(ctx, c, want)
		return ready, nil
	})
}

func createWorkload(ctx context.Context, c client.Client, n int) error {
	pol := &policyv1alpha1.PropagationPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "bench"},
		Spec: policyv1alpha1.PropagationSpec{
			ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment",
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"bench": "true"}}}},
		},
	}
	if err := c.Create(ctx, pol); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "bench: creating %d Deployments\n", n)
	objs := make([]client.Object, n)
	for i := range objs {
		objs[i] = harness.Deployment("default", fmt.Sprintf("bench-%d", i), map[string]string{"bench": "true"})
	}
	return harness.CreateConcurrently(ctx, c, 20, objs)
}

// createDecoyPolicies adds policies that select other Deployments, so the
// run shows whether matching slows down with the number of policies.
func createDecoyPolicies(ctx context.Context, c client.Client, count int) error {
	for i := range count {
		pol := &policyv1alpha1.PropagationPolicy{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("decoy-%d", i)},
			Spec: policyv1alpha1.PropagationSpec{
				ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment",
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"decoy": fmt.Sprint(i)}}}},
			},
		}
		if err := c.Create(ctx, pol); err != nil {
			return err
		}
	}
	return nil
}

func bindingsCreated(ctx context.Context, c client.Client, want int) (bool, error) {
	rbs := &workv1alpha2.ResourceBindingList{}
	if err := c.List(ctx, rbs, client.InNamespace("default")); err != nil {
		return false, nil
	}
	return len(rbs.Items) >= want, nil
}

func waitFor(ctx context.Context, start time.Time, cond wait.ConditionWithContextFunc) (time.Duration, error) {
	err := wait.PollUntilContextCancel(ctx, time.Second, true, cond)
	return time.Since(start), err
}

func worksApplied(ctx context.Context, c client.Client, want int) (bool, error) {
	works := &workv1alpha1.WorkList{}
	if err := c.List(ctx, works); err != nil {
		return false, nil
	}
	applied, created := 0, 0
	for _, w := range works.Items {
		if strings.HasPrefix(w.Name, "bench-") {
			created++
			if meta.IsStatusConditionTrue(w.Status.Conditions, workv1alpha1.WorkApplied) {
				applied++
			}
		}
	}
	rbs := &workv1alpha2.ResourceBindingList{}
	bound, scheduled := 0, 0
	if err := c.List(ctx, rbs, client.InNamespace("default")); err == nil {
		for _, rb := range rbs.Items {
			bound++
			if len(rb.Spec.Clusters) > 0 {
				scheduled++
			}
		}
	}
	fmt.Fprintf(os.Stderr, "\rbench: bindings %d, scheduled %d, Works %d, applied %d/%d   ", bound, scheduled, created, applied, want)
	if applied >= want {
		fmt.Fprintln(os.Stderr)
	}
	return applied >= want, nil
}

func bindingsAggregated(ctx context.Context, c client.Client, want, clusters int) (bool, error) {
	rbs := &workv1alpha2.ResourceBindingList{}
	if err := c.List(ctx, rbs, client.InNamespace("default")); err != nil {
		return false, nil
	}
	done := 0
	for _, rb := range rbs.Items {
		if strings.HasPrefix(rb.Name, "bench-") && len(rb.Status.AggregatedStatus) == clusters &&
			meta.IsStatusConditionTrue(rb.Status.Conditions, workv1alpha2.FullyApplied) {
			done++
		}
	}
	fmt.Fprintf(os.Stderr, "\rbench: %d/%d bindings with aggregated status", done, want)
	if done >= want {
		fmt.Fprintln(os.Stderr)
	}
	return done >= want, nil
}

func report(n, clusters, policies int, bound, applied, aggregated time.Duration, before, after map[string]float64, peakMiB float64) {
	delta := map[string]float64{}
	total := 0.0
	for k, v := range after {
		if d := v - before[k]; d > 0 {
			delta[k] = d
			total += d
		}
	}
	// The benchmark itself created the policy and the Deployments.
	total -= float64(n + 1)
	delta["karmada POST deployments"] -= float64(n)
	delta["karmada POST propagationpolicies"]--
	fmt.Printf("\n| N | clusters | policies | all bindings created (templates/s) | all Works applied (Works/s) | all bindings aggregated | API writes per Deployment | peak memory |\n|---|---|---|---|---|---|---|---|\n")
	fmt.Printf("| %d | %d | %d | %.1f s (%.0f/s) | %.1f s (%.0f/s) | %.1f s | %.1f | %.0f MiB |\n\n", n, clusters, policies,
		bound.Seconds(), float64(n)/bound.Seconds(), applied.Seconds(), float64(n*clusters)/applied.Seconds(),
		aggregated.Seconds(), total/float64(n), peakMiB)
	keys := make([]string, 0, len(delta))
	for k := range delta {
		if delta[k] > 0 {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return delta[keys[i]] > delta[keys[j]] })
	fmt.Println("| writes per Deployment | API server, verb, resource |\n|---|---|")
	for _, k := range keys {
		fmt.Printf("| %.2f | %s |\n", delta[k]/float64(n), k)
	}
}
