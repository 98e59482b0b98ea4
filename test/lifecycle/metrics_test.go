package lifecycle

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/shared/names"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

// expectedMetric is one line of testdata/karmada-metrics.txt.
type expectedMetric struct {
	binary, name, typ, labels string
}

// expectedMetrics reads the Karmada metrics each binary must serve.
func expectedMetrics(t *testing.T) []expectedMetric {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "karmada-metrics.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []expectedMetric
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Fields(text)
		if len(fields) != 4 {
			t.Fatalf("testdata/karmada-metrics.txt:%d: want 4 fields, got %q", line, text)
		}
		labels := fields[3]
		if labels == "-" {
			labels = ""
		}
		out = append(out, expectedMetric{binary: fields[0], name: fields[1], typ: fields[2], labels: labels})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// surfaceProblems compares a scrape of binary with the expected metrics:
// each must be there with its type, and every series with exactly the
// expected label names.
func surfaceProblems(text, binary string, expected []expectedMetric) []string {
	families := harness.Families(text)
	var problems []string
	for _, e := range expected {
		if e.binary != binary {
			continue
		}
		f := families[e.name]
		switch {
		case f == nil || len(f.LabelSets) == 0:
			problems = append(problems, fmt.Sprintf("%s: %s has no series", binary, e.name))
		case f.Type != e.typ:
			problems = append(problems, fmt.Sprintf("%s: %s is a %s, want %s", binary, e.name, f.Type, e.typ))
		default:
			for set := range f.LabelSets {
				if set != e.labels {
					problems = append(problems, fmt.Sprintf("%s: %s has a series labelled {%s}, want {%s}", binary, e.name, set, e.labels))
				}
			}
		}
	}
	sort.Strings(problems)
	return problems
}

// TestKarmadaMetricsSurface runs the three binaries (the controller
// manager with Karmada's stock arguments, the scheduler with the accurate
// estimator of member1, and that estimator), takes resource templates
// through propagation, division by the estimator, preemption, update and
// deletion, and then scrapes each /metrics: every Karmada metric in
// testdata/karmada-metrics.txt must be there with Karmada's type and label
// names, served from every binary's Karmada metrics address.
func TestKarmadaMetricsSurface(t *testing.T) {
	const ns = "lifecycle-metrics"
	expected := expectedMetrics(t)
	createNamespace(t, names.SystemNamespace)
	createNamespace(t, ns)
	schedBin := buildBinary(t, "propel-scheduler")
	estBin := buildBinary(t, "propel-scheduler-estimator")
	cmIP, schedIP, estIP := podIPs()
	member1 := env.Member("member1")
	cmArgs := localize(stockControllerManagerArgs, map[string]string{"/etc/karmada/config/karmada.config": env.ControllerManagerKubeconfig()}, cmIP)
	cm, err := localenv.StartProcess("metrics-controller-manager", cmBin, cmArgs, env.LogDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cm.Stop)
	// Plain-text gRPC between the scheduler and the estimator (no TLS
	// flags on either side), found through an ExternalName Service as
	// Karmada finds it.
	sched, err := localenv.StartProcess("metrics-scheduler", schedBin, []string{
		"--kubeconfig=" + env.ControllerManagerKubeconfig(), "--enable-scheduler-estimator=true",
		"--metrics-bind-address=" + schedIP + ":8080", "--health-probe-bind-address=" + schedIP + ":10351",
		"--feature-gates=AllAlpha=true,AllBeta=true",
	}, env.LogDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sched.Stop)
	est, err := localenv.StartProcess("metrics-scheduler-estimator", estBin, []string{
		"--kubeconfig=" + member1.Kubeconfig, "--cluster-name=member1", "--bind-address=" + estIP,
		"--metrics-bind-address=" + estIP + ":8080", "--health-probe-bind-address=" + estIP + ":10351",
	}, env.LogDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(est.Stop)
	all := []*localenv.Process{cm, sched, est}
	ctx := context.Background()
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: names.SystemNamespace, Name: "karmada-scheduler-estimator-member1"},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: estIP},
	}
	if err := env.Client.Create(ctx, svc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), svc) })
	waitClustersReady(t, all...)

	// Propagation, duplicated to both members.
	createPolicy(t, ns, "metrics")
	deployed := createDeployments(t, ns, "metrics", "metrics", 2)
	expectPropagated(t, ns, deployed, 3*time.Minute, all...)
	// Division asks the estimator (the outcome does not matter here).
	divided := &policyv1alpha1.PropagationPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "divided"},
		Spec: policyv1alpha1.PropagationSpec{
			ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", Name: "divided"}},
			Placement: policyv1alpha1.Placement{
				ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: memberNames},
				ReplicaScheduling: &policyv1alpha1.ReplicaSchedulingStrategy{
					ReplicaSchedulingType:     policyv1alpha1.ReplicaSchedulingTypeDivided,
					ReplicaDivisionPreference: policyv1alpha1.ReplicaDivisionPreferenceAggregated,
				},
			},
		},
	}
	if err := env.Client.Create(ctx, divided); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Create(ctx, harness.Deployment(ns, "divided", nil)); err != nil {
		t.Fatal(err)
	}
	// Preemption of metrics-0 by a stronger policy (PolicyPreemption is
	// on with the stock AllAlpha/AllBeta gates).
	preempting := &policyv1alpha1.PropagationPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "preempting"},
		Spec: policyv1alpha1.PropagationSpec{
			ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", Name: deployed[0]}},
			Priority:          ptr.To[int32](10),
			Preemption:        policyv1alpha1.PreemptAlways,
			Placement:         policyv1alpha1.Placement{ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: memberNames}},
		},
	}
	if err := env.Client.Create(ctx, preempting); err != nil {
		t.Fatal(err)
	}
	// An update of a template reaches the members; a deletion removes
	// its member objects.
	update := &appsv1.Deployment{}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: deployed[1]}, update); err != nil {
		t.Fatal(err)
	}
	update.Spec.Replicas = ptr.To[int32](3)
	if err := env.Client.Update(ctx, update); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "the updated template reaches the members", func(ctx context.Context) (bool, error) {
		for _, m := range memberNames {
			mc, err := env.MemberClient(m)
			if err != nil {
				return false, err
			}
			d := &appsv1.Deployment{}
			if err := mc.Get(ctx, client.ObjectKey{Namespace: ns, Name: deployed[1]}, d); err != nil || ptr.Deref(d.Spec.Replicas, 0) != 3 {
				return false, client.IgnoreNotFound(err)
			}
		}
		return true, nil
	}, harness.Timeout(2*time.Minute), harness.WhileRunning(all...), harness.LogsIn(env.LogDir))
	if err := env.Client.Delete(ctx, update); err != nil {
		t.Fatal(err)
	}
	// This control plane runs no garbage collector: delete the template's
	// binding as it would, which deletes the Works and so the member
	// objects.
	rb := &workv1alpha2.ResourceBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: names.BindingName("Deployment", deployed[1])}}
	if err := env.Client.Delete(ctx, rb); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct{ binary, addr string }{
		{"controller-manager", cmIP + ":8080"},
		{"scheduler", schedIP + ":8080"},
		{"scheduler-estimator", estIP + ":8080"},
	} {
		harness.Eventually(t, c.binary+" serves every Karmada metric with Karmada's type and labels", func(ctx context.Context) (bool, error) {
			text, err := harness.ScrapeMetrics(ctx, c.addr)
			if err != nil {
				return false, err
			}
			if problems := surfaceProblems(text, c.binary, expected); len(problems) > 0 {
				return false, fmt.Errorf("%s", strings.Join(problems, "; "))
			}
			return true, nil
		}, harness.Timeout(2*time.Minute), harness.WhileRunning(all...), harness.LogsIn(env.LogDir))
	}
	// Karmada's e2e framework finds the leader pods by this gauge.
	for _, c := range []struct{ addr, lease string }{{cmIP + ":8080", names.ControllerManagerLease}, {schedIP + ":8080", names.SchedulerLease}} {
		if status, err := leaderStatus(ctx, c.addr, c.lease); err != nil || status != 1 {
			t.Errorf("leader_election_master_status{name=%q} at %s = %v (%v), want 1", c.lease, c.addr, status, err)
		}
	}
}
