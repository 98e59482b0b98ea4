// Package lifecycle runs the real propel-controller-manager binary as
// separate processes against a real control plane and two bare member
// clusters, and checks what only whole processes can show: a controller
// manager killed in the middle of propagation is replaced without
// duplicate bindings or Works and without losing claims, and with leader
// election only the leader writes, until it dies and the follower takes
// over.
package lifecycle

import (
	"context"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/shared/names"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

var (
	env *harness.Env
	// cmBin is the propel-controller-manager binary built for this run.
	cmBin string
)

// memberNames are the two bare member clusters (API servers only: Propel's
// own work is what is checked, no pods are needed).
var memberNames = []string{"member1", "member2"}

func TestMain(m *testing.M) {
	var members []localenv.MemberOptions
	for _, n := range memberNames {
		members = append(members, localenv.MemberOptions{Name: n, Provider: "local"})
	}
	harness.Main(m, harness.Options{Members: members, NoControlPlaneControllers: true}, &env,
		func(ctx context.Context, e *harness.Env) error {
			var err error
			cmBin, err = harness.BuildControllerManager(ctx, e.Dir)
			return err
		})
}

// startControllerManager runs propel-controller-manager as its own process
// (log <LogDir>/<name>.log), with the in-process scheduler, and stops it
// when the test ends.
func startControllerManager(t *testing.T, name string, args ...string) *localenv.Process {
	t.Helper()
	base := []string{"--controllers=*,scheduler", "--health-probe-bind-address=0", "--cluster-status-update-frequency=2s",
		"--cluster-api-qps=200", "--cluster-api-burst=400"}
	p, err := env.StartControllerManager(cmBin, name, append(base, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	return p
}

func waitClustersReady(t *testing.T, running ...*localenv.Process) {
	t.Helper()
	harness.Eventually(t, "member clusters Ready", func(ctx context.Context) (bool, error) {
		return harness.ClustersReady(ctx, env.Client, len(memberNames))
	}, harness.Timeout(2*time.Minute), harness.WhileRunning(running...), harness.LogsIn(env.LogDir))
}

func createNamespace(t *testing.T, name string) {
	t.Helper()
	err := env.Client.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create namespace %s: %v", name, err)
	}
}

// createPolicy propagates the Deployments of ns labelled lifecycle=<value>
// to both members (Duplicated).
func createPolicy(t *testing.T, ns, value string) *policyv1alpha1.PropagationPolicy {
	t.Helper()
	pol := &policyv1alpha1.PropagationPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: value},
		Spec: policyv1alpha1.PropagationSpec{
			ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment",
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"lifecycle": value}}}},
			Placement: policyv1alpha1.Placement{ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: memberNames}},
		},
	}
	if err := env.Client.Create(context.Background(), pol); err != nil {
		t.Fatalf("create policy: %v", err)
	}
	return pol
}

// createDeployments creates <prefix>-0 ... <prefix>-<n-1> in ns, labelled
// lifecycle=<value>, and returns their names.
func createDeployments(t *testing.T, ns, prefix, value string, n int) []string {
	t.Helper()
	objs := make([]client.Object, n)
	created := make([]string, n)
	for i := range objs {
		created[i] = fmt.Sprintf("%s-%d", prefix, i)
		objs[i] = harness.Deployment(ns, created[i], map[string]string{"lifecycle": value})
	}
	if err := harness.CreateConcurrently(context.Background(), env.Client, 10, objs); err != nil {
		t.Fatal(err)
	}
	return created
}

// state is what the control plane and the members hold for one namespace.
type state struct {
	templates []appsv1.Deployment
	bindings  []workv1alpha2.ResourceBinding
	// allWorks are every Work of each member's execution space; works only
	// those whose manifest lives in the namespace.
	allWorks, works map[string][]workv1alpha1.Work
	// members are the Deployments of the namespace in each member.
	members map[string][]appsv1.Deployment
}

func observe(ctx context.Context, ns string) (*state, error) {
	s := &state{allWorks: map[string][]workv1alpha1.Work{}, works: map[string][]workv1alpha1.Work{}, members: map[string][]appsv1.Deployment{}}
	templates := &appsv1.DeploymentList{}
	if err := env.Client.List(ctx, templates, client.InNamespace(ns)); err != nil {
		return nil, err
	}
	s.templates = templates.Items
	bindings := &workv1alpha2.ResourceBindingList{}
	if err := env.Client.List(ctx, bindings, client.InNamespace(ns)); err != nil {
		return nil, err
	}
	s.bindings = bindings.Items
	for _, m := range memberNames {
		works := &workv1alpha1.WorkList{}
		if err := env.Client.List(ctx, works, client.InNamespace(names.ExecutionSpace(m))); err != nil {
			return nil, err
		}
		s.allWorks[m] = works.Items
		for _, w := range works.Items {
			obj, err := manifest(&w)
			if err != nil {
				return nil, err
			}
			if obj.GetNamespace() == ns {
				s.works[m] = append(s.works[m], w)
			}
		}
		mc, err := env.MemberClient(m)
		if err != nil {
			return nil, err
		}
		deploys := &appsv1.DeploymentList{}
		if err := mc.List(ctx, deploys, client.InNamespace(ns)); err != nil && !apierrors.IsNotFound(err) {
			return nil, err
		}
		s.members[m] = deploys.Items
	}
	return s, nil
}

// manifest decodes the (single) manifest of a Work.
func manifest(w *workv1alpha1.Work) (*unstructured.Unstructured, error) {
	if len(w.Spec.Workload.Manifests) != 1 {
		return nil, fmt.Errorf("work %s/%s has %d manifests, want 1", w.Namespace, w.Name, len(w.Spec.Workload.Manifests))
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(w.Spec.Workload.Manifests[0].Raw); err != nil {
		return nil, fmt.Errorf("work %s/%s: %w", w.Namespace, w.Name, err)
	}
	return obj, nil
}

// aggregated reports whether the binding has the status of exactly the
// members, each applied, and the FullyApplied condition.
func aggregated(rb *workv1alpha2.ResourceBinding) bool {
	if len(rb.Status.AggregatedStatus) != len(memberNames) || !meta.IsStatusConditionTrue(rb.Status.Conditions, workv1alpha2.FullyApplied) {
		return false
	}
	seen := map[string]bool{}
	for _, item := range rb.Status.AggregatedStatus {
		if !item.Applied {
			return false
		}
		seen[item.ClusterName] = true
	}
	for _, m := range memberNames {
		if !seen[m] {
			return false
		}
	}
	return true
}

// propagated reports whether every Deployment in want is bound with
// aggregated status and runs in every member; the error describes the
// progress otherwise.
func (s *state) propagated(want []string) (bool, error) {
	wanted := map[string]bool{}
	for _, n := range want {
		wanted[n] = true
	}
	done := 0
	for i := range s.bindings {
		rb := &s.bindings[i]
		if wanted[rb.Spec.Resource.Name] && aggregated(rb) {
			done++
		}
	}
	progress := []string{fmt.Sprintf("%d/%d bindings aggregated", done, len(want))}
	ok := done == len(want)
	for _, m := range memberNames {
		present := 0
		for _, d := range s.members[m] {
			if wanted[d.Name] {
				present++
			}
		}
		progress = append(progress, fmt.Sprintf("%s runs %d/%d", m, present, len(want)))
		ok = ok && present == len(want)
	}
	if !ok {
		return false, fmt.Errorf("%s", strings.Join(progress, ", "))
	}
	return true, nil
}

// expectPropagated waits until every Deployment in want is propagated.
func expectPropagated(t *testing.T, ns string, want []string, timeout time.Duration, running ...*localenv.Process) {
	t.Helper()
	// Listing every Work and Deployment is not free: look once a second,
	// leaving the CPU to the controller manager.
	var last time.Time
	harness.Eventually(t, fmt.Sprintf("%d Deployments of %s propagated to both members", len(want), ns),
		func(ctx context.Context) (bool, error) {
			if time.Since(last) < time.Second {
				return false, nil
			}
			last = time.Now()
			s, err := observe(ctx, ns)
			if err != nil {
				return false, err
			}
			return s.propagated(want)
		}, harness.Timeout(timeout), harness.WhileRunning(running...), harness.LogsIn(env.LogDir))
}

func freeAddr(t *testing.T) string {
	t.Helper()
	port, err := localenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
}

// clientWrites sums a controller manager's own rest_client_requests_total
// (controller-runtime's client-go metrics, over every API server it talks
// to) for mutating methods, and describes them by method, host and code.
func clientWrites(ctx context.Context, addr string) (float64, string, error) {
	text, err := harness.ScrapeMetrics(ctx, addr)
	if err != nil {
		return 0, "", err
	}
	samples := harness.Samples(text, "rest_client_requests_total")
	if len(samples) == 0 {
		return 0, "", fmt.Errorf("no rest_client_requests_total at %s", addr)
	}
	var parts []string
	total := 0.0
	for _, s := range samples {
		switch s.Labels["method"] {
		case "POST", "PUT", "PATCH", "DELETE":
			if s.Value > 0 {
				total += s.Value
				parts = append(parts, fmt.Sprintf("%s %s %s: %.0f", s.Labels["method"], s.Labels["host"], s.Labels["code"], s.Value))
			}
		}
	}
	sort.Strings(parts)
	return total, strings.Join(parts, "; "), nil
}

// leaderStatus is a controller manager's leader_election_master_status
// for the lease: 1 leading, 0 following, -1 not reported yet.
func leaderStatus(ctx context.Context, addr, lease string) (float64, error) {
	text, err := harness.ScrapeMetrics(ctx, addr)
	if err != nil {
		return -1, err
	}
	for _, s := range harness.Samples(text, "leader_election_master_status") {
		if s.Labels["name"] == lease {
			return s.Value, nil
		}
	}
	return -1, nil
}
