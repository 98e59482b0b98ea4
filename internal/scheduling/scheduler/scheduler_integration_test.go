package scheduler

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/yaml"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

// objectGets records the scheduler manager's GETs of single Karmada
// objects: it must read them from its cache, never from the API.
type objectGets struct {
	mu    sync.Mutex
	paths []string
}

func (g *objectGets) wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		g.record(r)
		return next.RoundTrip(r)
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// listedResources are the collections the manager lists and watches.
var listedResources = []string{"resourcebindings", "clusterresourcebindings", "clusters"}

func (g *objectGets) record(r *http.Request) {
	path := r.URL.Path
	switch {
	case r.Method != http.MethodGet, strings.Contains(path, "/events"):
	case r.URL.Query().Get("watch") == "true" || strings.HasPrefix(path, "/api") && slices.Contains(listedResources, filepath.Base(path)):
	case strings.HasPrefix(path, "/apis/work.karmada.io") || strings.HasPrefix(path, "/apis/cluster.karmada.io"):
		g.mu.Lock()
		defer g.mu.Unlock()
		g.paths = append(g.paths, path)
	}
}

func (g *objectGets) list() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.paths...)
}

// writesTo counts the scheduler's writes to the object name (its status
// included).
func (f *fixture) writesTo(name string) int {
	return f.writes.Matching(func(w harness.Write) bool {
		return strings.HasSuffix(strings.TrimSuffix(w.Path, "/status"), "/"+name)
	})
}

// specWritesTo counts the scheduler's writes to the object name other
// than to its status.
func (f *fixture) specWritesTo(name string) int {
	return f.writes.Matching(func(w harness.Write) bool {
		return strings.HasSuffix(w.Path, "/"+name)
	})
}

type fixture struct {
	c      client.Client
	sched  *Scheduler
	writes harness.WriteCounter
	gets   objectGets
}

func TestSchedulerIntegration(t *testing.T) {
	if testing.Verbose() {
		ctrl.SetLogger(funcr.New(func(prefix, args string) { fmt.Fprintln(os.Stderr, prefix, args) }, funcr.Options{Verbosity: 1}))
	}
	env := harness.StartT(t, harness.Options{Members: []localenv.MemberOptions{}, NoControlPlaneControllers: true})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	f := &fixture{c: env.Client}
	for _, c := range []struct{ name, region string }{{"member1", "region-a"}, {"member2", "region-b"}, {"member3", "region-b"}} {
		f.createCluster(ctx, t, c.name, c.region)
	}
	f.startScheduler(ctx, t, env.ControllerManagerConfig())

	t.Run("static weights 2:1 of 3 then 6", f.testStaticWeights)
	t.Run("no cluster fits", f.testNoClusterFit)
	t.Run("other scheduler name is ignored", f.testOtherScheduler)
	t.Run("invalid spread constraint", f.testInvalidSpread)
	t.Run("taint changes requeue bindings", f.testTaints)
	t.Run("cluster resource binding", f.testClusterResourceBinding)
	t.Run("no API GET per cluster or binding", func(t *testing.T) {
		t.Logf("writes: %s", harness.Summarize(f.writes.Since(0)))
		if gets := f.gets.list(); len(gets) > 0 {
			t.Fatalf("the scheduler read single objects from the API instead of the cache: %v", gets)
		}
	})
}

func (f *fixture) startScheduler(ctx context.Context, t *testing.T, base *rest.Config) {
	cfg := f.writes.Count(base, "karmada")
	cfg.Wrap(f.gets.wrap)
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:  apis.Scheme,
		Metrics: metricsserver.Options{BindAddress: "0"},
		// -count=N starts the controller again in the same process.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if f.sched, err = New(Options{}); err != nil {
		t.Fatal(err)
	}
	if err := f.sched.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	go func() { _ = mgr.Start(ctx) }()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		t.Fatal("cache did not sync")
	}
}

func (f *fixture) createCluster(ctx context.Context, t *testing.T, name, region string) {
	c := &clusterv1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"name": name}},
		Spec:       clusterv1alpha1.ClusterSpec{SyncMode: clusterv1alpha1.Push, Provider: "local", Region: region, Zones: []string{region + "-1"}},
	}
	if err := f.c.Create(ctx, c); err != nil {
		t.Fatalf("create cluster %s: %v", name, err)
	}
	c.Status = clusterv1alpha1.ClusterStatus{
		KubernetesVersion: "v1.36.3",
		APIEnablements:    []clusterv1alpha1.APIEnablement{{GroupVersion: "apps/v1", Resources: []clusterv1alpha1.APIResource{{Name: "deployments", Kind: "Deployment"}}}},
		Conditions: []metav1.Condition{
			{Type: clusterv1alpha1.ClusterConditionReady, Status: metav1.ConditionTrue, Reason: "ClusterReady", Message: "cluster is healthy and ready to accept workloads", LastTransitionTime: metav1.Now()},
			{Type: clusterv1alpha1.ClusterConditionCompleteAPIEnablements, Status: metav1.ConditionTrue, Reason: "Complete", Message: "all APIs", LastTransitionTime: metav1.Now()},
		},
		ResourceSummary: &clusterv1alpha1.ResourceSummary{Allocatable: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourceMemory: resource.MustParse("32Gi"), corev1.ResourcePods: resource.MustParse("110"),
		}},
	}
	if err := f.c.Status().Update(ctx, c); err != nil {
		t.Fatalf("update status of cluster %s: %v", name, err)
	}
}

// nginxPlacement is the nginx sample's placement (static weights over
// member1 and member2) with weights w1:w2.
func nginxPlacement(t *testing.T, w1, w2 int64) *policyv1alpha1.Placement {
	var pp policyv1alpha1.PropagationPolicy
	if shared := harness.SharedDir(); shared != "" {
		data, err := os.ReadFile(filepath.Join(shared, "reference", "karmada-samples", "nginx", "propagationpolicy.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.UnmarshalStrict(data, &pp); err != nil {
			t.Fatal(err)
		}
	} else {
		t.Log("../shared is absent: using an inline copy of the nginx sample's placement")
		pp.Spec.Placement = policyv1alpha1.Placement{
			ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member1", "member2"}},
			ReplicaScheduling: &policyv1alpha1.ReplicaSchedulingStrategy{
				ReplicaSchedulingType: policyv1alpha1.ReplicaSchedulingTypeDivided, ReplicaDivisionPreference: policyv1alpha1.ReplicaDivisionPreferenceWeighted,
				WeightPreference: &policyv1alpha1.ClusterPreferences{StaticWeightList: []policyv1alpha1.StaticClusterWeight{
					{TargetCluster: policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member1"}}, Weight: 1},
					{TargetCluster: policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member2"}}, Weight: 1},
				}},
			},
		}
	}
	p := pp.Spec.Placement.DeepCopy()
	weights := p.ReplicaScheduling.WeightPreference.StaticWeightList
	weights[0].Weight, weights[1].Weight = w1, w2
	return p
}

func newRB(name string, replicas int32, p *policyv1alpha1.Placement) *workv1alpha2.ResourceBinding {
	return &workv1alpha2.ResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{names.PropagationPolicyPermanentIDLabel: "pp-" + name}},
		Spec: workv1alpha2.ResourceBindingSpec{
			Resource:  workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: strings.TrimSuffix(name, "-deployment"), UID: types.UID("uid-" + name)},
			Replicas:  replicas,
			Placement: p,
		},
	}
}

func (f *fixture) getRB(ctx context.Context, name string) (*workv1alpha2.ResourceBinding, error) {
	rb := &workv1alpha2.ResourceBinding{}
	return rb, f.c.Get(ctx, types.NamespacedName{Namespace: "default", Name: name}, rb)
}

// waitScheduled waits for the Scheduled condition with reason and, on
// success, for clusters and a caught-up observed generation.
func (f *fixture) waitScheduled(t *testing.T, name, reason, clusters string) *workv1alpha2.ResourceBinding {
	t.Helper()
	var rb *workv1alpha2.ResourceBinding
	harness.Eventually(t, "binding "+name+" scheduled "+reason+" "+clusters, func(ctx context.Context) (bool, error) {
		var err error
		if rb, err = f.getRB(ctx, name); err != nil {
			return false, err
		}
		c := meta.FindStatusCondition(rb.Status.Conditions, workv1alpha2.Scheduled)
		if c == nil || c.Reason != reason || formatTargets(rb.Spec.Clusters) != clusters {
			return false, nil
		}
		return reason != workv1alpha2.BindingReasonSuccess || rb.Status.SchedulerObservedGeneration == rb.Generation, nil
	})
	return rb
}

func formatTargets(tcs []workv1alpha2.TargetCluster) string {
	var parts []string
	for _, tc := range tcs {
		parts = append(parts, tc.Name+":"+strconv.Itoa(int(tc.Replicas)))
	}
	return strings.Join(parts, " ")
}

// reconcileAgain runs one extra reconcile of name and returns the writes it
// made.
func (f *fixture) reconcileAgain(ctx context.Context, t *testing.T, key types.NamespacedName) int {
	t.Helper()
	before := f.writesTo(key.Name)
	if _, err := f.sched.Reconcile(ctx, reconcile.Request{NamespacedName: key}); err != nil {
		t.Fatalf("reconcile %s: %v", key, err)
	}
	return f.writesTo(key.Name) - before
}

func (f *fixture) waitEvent(t *testing.T, object, reason, message string) {
	t.Helper()
	harness.Eventually(t, "event "+reason+" on "+object, func(ctx context.Context) (bool, error) {
		var events corev1.EventList
		if err := f.c.List(ctx, &events, client.InNamespace("default")); err != nil {
			return false, err
		}
		for _, e := range events.Items {
			if e.InvolvedObject.Name == object && e.Reason == reason && strings.Contains(e.Message, message) {
				return e.Source.Component == names.DefaultSchedulerName, nil
			}
		}
		return false, nil
	})
}

func (f *fixture) testStaticWeights(t *testing.T) {
	ctx := context.Background()
	p := nginxPlacement(t, 2, 1)
	if err := f.c.Create(ctx, newRB("nginx-deployment", 3, p)); err != nil {
		t.Fatal(err)
	}
	rb := f.waitScheduled(t, "nginx-deployment", workv1alpha2.BindingReasonSuccess, "member1:2 member2:1")
	cond := meta.FindStatusCondition(rb.Status.Conditions, workv1alpha2.Scheduled)
	if cond.Status != metav1.ConditionTrue || cond.Message != "Binding has been scheduled successfully." || rb.Status.LastScheduledTime == nil {
		t.Errorf("Scheduled condition %+v, lastScheduledTime %v", cond, rb.Status.LastScheduledTime)
	}
	var applied policyv1alpha1.Placement
	if err := json.Unmarshal([]byte(rb.Annotations[names.AppliedPlacementAnnotation]), &applied); err != nil || !equalJSON(t, &applied, p) {
		t.Errorf("applied-placement annotation %q does not hold the placement (%v)", rb.Annotations[names.AppliedPlacementAnnotation], err)
	}
	if n := f.writesTo("nginx-deployment"); n != 2 {
		t.Errorf("first schedule made %d writes, want 2 (spec and status)", n)
	}
	f.waitEvent(t, "nginx-deployment", EventReasonScheduleBindingSucceed, "Result: {member1:2, member2:1}")
	f.waitEvent(t, "nginx", EventReasonScheduleBindingSucceed, "Result: {member1:2, member2:1}")
	key := types.NamespacedName{Namespace: "default", Name: "nginx-deployment"}
	if n := f.reconcileAgain(ctx, t, key); n != 0 {
		t.Errorf("a second reconcile of an unchanged binding made %d writes", n)
	}

	before := f.writesTo("nginx-deployment")
	rb.Spec.Replicas = 6
	if err := f.c.Update(ctx, rb); err != nil {
		t.Fatal(err)
	}
	f.waitScheduled(t, "nginx-deployment", workv1alpha2.BindingReasonSuccess, "member1:4 member2:2")
	if n := f.writesTo("nginx-deployment") - before; n > 2 {
		t.Errorf("rescheduling to 6 replicas made %d writes, want at most 2", n)
	}
	if n := f.reconcileAgain(ctx, t, key); n != 0 {
		t.Errorf("a second reconcile after scaling made %d writes", n)
	}
}

func equalJSON(t *testing.T, a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	return string(ja) == string(jb)
}

func (f *fixture) testNoClusterFit(t *testing.T) {
	ctx := context.Background()
	p := nginxPlacement(t, 1, 1)
	p.ClusterAffinity.ClusterNames = []string{"nowhere"}
	if err := f.c.Create(ctx, newRB("nofit-deployment", 2, p)); err != nil {
		t.Fatal(err)
	}
	rb := f.waitScheduled(t, "nofit-deployment", workv1alpha2.BindingReasonNoClusterFit, "")
	want := "0/3 clusters are available: 3 cluster(s) did not match the placement cluster affinity constraint."
	if c := meta.FindStatusCondition(rb.Status.Conditions, workv1alpha2.Scheduled); c.Status != metav1.ConditionFalse || c.Message != want {
		t.Errorf("condition %+v, want message %q", c, want)
	}
	f.waitEvent(t, "nofit-deployment", EventReasonScheduleBindingFailed, want)
	if n := f.reconcileAgain(ctx, t, types.NamespacedName{Namespace: "default", Name: "nofit-deployment"}); n != 0 {
		t.Errorf("a second reconcile of a NoClusterFit binding made %d writes", n)
	}
}

func (f *fixture) testOtherScheduler(t *testing.T) {
	ctx := context.Background()
	other := newRB("other-deployment", 2, nginxPlacement(t, 1, 1))
	other.Spec.SchedulerName = "other-scheduler"
	if err := f.c.Create(ctx, other); err != nil {
		t.Fatal(err)
	}
	// A binding created afterwards is scheduled; by then the other one has
	// been seen and skipped.
	if err := f.c.Create(ctx, newRB("after-deployment", 2, nginxPlacement(t, 1, 1))); err != nil {
		t.Fatal(err)
	}
	f.waitScheduled(t, "after-deployment", workv1alpha2.BindingReasonSuccess, "member1:1 member2:1")
	rb, err := f.getRB(ctx, "other-deployment")
	if err != nil {
		t.Fatal(err)
	}
	if len(rb.Status.Conditions) != 0 || len(rb.Spec.Clusters) != 0 || rb.Annotations[names.AppliedPlacementAnnotation] != "" {
		t.Errorf("binding for another scheduler was touched: %+v", rb)
	}
	if n := f.reconcileAgain(ctx, t, client.ObjectKeyFromObject(rb)); n != 0 || f.writesTo("other-deployment") != 0 {
		t.Errorf("binding for another scheduler got writes")
	}
}

func (f *fixture) testInvalidSpread(t *testing.T) {
	ctx := context.Background()
	p := &policyv1alpha1.Placement{
		ClusterAffinity:   &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member1", "member2"}},
		SpreadConstraints: []policyv1alpha1.SpreadConstraint{{SpreadByField: policyv1alpha1.SpreadByFieldCluster, MinGroups: 3, MaxGroups: 1}},
	}
	if err := f.c.Create(ctx, newRB("badspread-deployment", 2, p)); err != nil {
		t.Fatal(err)
	}
	rb := f.waitScheduled(t, "badspread-deployment", workv1alpha2.BindingReasonSchedulerError, "")
	if c := meta.FindStatusCondition(rb.Status.Conditions, workv1alpha2.Scheduled); !strings.Contains(c.Message, "spec.placement.spreadConstraints[0].maxGroups") {
		t.Errorf("condition message %q does not name the field", c.Message)
	}
	f.waitEvent(t, "badspread-deployment", EventReasonScheduleBindingFailed, "spec.placement.spreadConstraints[0].maxGroups")
}

func (f *fixture) setTaints(ctx context.Context, t *testing.T, cluster string, taints ...corev1.Taint) {
	t.Helper()
	var c clusterv1alpha1.Cluster
	if err := f.c.Get(ctx, types.NamespacedName{Name: cluster}, &c); err != nil {
		t.Fatal(err)
	}
	c.Spec.Taints = taints
	if err := f.c.Update(ctx, &c); err != nil {
		t.Fatal(err)
	}
	// Bindings created next must be decided on the new taints: wait until
	// the scheduler's own cache shows them.
	harness.Eventually(t, "the scheduler's cache shows the taints of "+cluster, func(ctx context.Context) (bool, error) {
		var cached clusterv1alpha1.Cluster
		if err := f.sched.client.Get(ctx, types.NamespacedName{Name: cluster}, &cached); err != nil {
			return false, err
		}
		return cached.ResourceVersion == c.ResourceVersion, nil
	})
}

func (f *fixture) testTaints(t *testing.T) {
	ctx := context.Background()
	maintenance := corev1.Taint{Key: "example.com/maintenance", Effect: corev1.TaintEffectNoSchedule}
	f.setTaints(ctx, t, "member3", maintenance)
	onlyMember3 := &policyv1alpha1.Placement{ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member3"}}}
	if err := f.c.Create(ctx, newRB("tainted-deployment", 2, onlyMember3)); err != nil {
		t.Fatal(err)
	}
	rb := f.waitScheduled(t, "tainted-deployment", workv1alpha2.BindingReasonNoClusterFit, "")
	want := "0/3 clusters are available: 1 cluster(s) had untolerated taint {example.com/maintenance:NoSchedule}, 2 cluster(s) did not match the placement cluster affinity constraint."
	if c := meta.FindStatusCondition(rb.Status.Conditions, workv1alpha2.Scheduled); c.Message != want {
		t.Errorf("message %q, want %q", c.Message, want)
	}
	// A FitError is not retried; removing the taint (a cluster generation
	// change) requeues the binding and it is scheduled.
	f.setTaints(ctx, t, "member3")
	f.waitScheduled(t, "tainted-deployment", workv1alpha2.BindingReasonSuccess, "member3:2")
	// Tainting again requeues it, but an existing target is kept: the run
	// stamps lastScheduledTime and leaves the spec alone.
	before := f.specWritesTo("tainted-deployment")
	f.setTaints(ctx, t, "member3", maintenance)
	if err := f.c.Create(ctx, newRB("late-deployment", 1, onlyMember3.DeepCopy())); err != nil {
		t.Fatal(err)
	}
	f.waitScheduled(t, "late-deployment", workv1alpha2.BindingReasonNoClusterFit, "")
	f.waitScheduled(t, "tainted-deployment", workv1alpha2.BindingReasonSuccess, "member3:2")
	if n := f.specWritesTo("tainted-deployment") - before; n != 0 {
		t.Errorf("re-tainting a cluster rewrote the spec of its existing binding %d times", n)
	}
	f.setTaints(ctx, t, "member3")
}

func clusterRoleBinding(name string) *workv1alpha2.ClusterResourceBinding {
	return &workv1alpha2.ClusterResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-clusterrole", Labels: map[string]string{names.ClusterPropagationPolicyPermanentIDLabel: "cpp-1"}},
		Spec: workv1alpha2.ResourceBindingSpec{
			Resource:  workv1alpha2.ObjectReference{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: name},
			Placement: &policyv1alpha1.Placement{ClusterAffinity: &policyv1alpha1.ClusterAffinity{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"name": "member2"}}}},
		},
	}
}

func (f *fixture) waitCRB(t *testing.T, crb *workv1alpha2.ClusterResourceBinding, reason, message, clusters string) {
	t.Helper()
	defer func() {
		if t.Failed() {
			t.Logf("last seen: clusters %v status %+v", crb.Spec.Clusters, crb.Status)
		}
	}()
	harness.Eventually(t, "cluster resource binding "+crb.Name+" "+reason, func(ctx context.Context) (bool, error) {
		if err := f.c.Get(ctx, client.ObjectKeyFromObject(crb), crb); err != nil {
			return false, err
		}
		c := meta.FindStatusCondition(crb.Status.Conditions, workv1alpha2.Scheduled)
		return c != nil && c.Reason == reason && strings.HasPrefix(c.Message, message) && formatTargets(crb.Spec.Clusters) == clusters, nil
	})
}

func (f *fixture) testClusterResourceBinding(t *testing.T) {
	ctx := context.Background()
	// No cluster lists the RBAC API; API enablement is the first filter.
	first := clusterRoleBinding("reader")
	if err := f.c.Create(ctx, first); err != nil {
		t.Fatal(err)
	}
	f.waitCRB(t, first, workv1alpha2.BindingReasonNoClusterFit,
		"0/3 clusters are available: 3 cluster(s) did not have the API resource.", "")
	var member2 clusterv1alpha1.Cluster
	if err := f.c.Get(ctx, types.NamespacedName{Name: "member2"}, &member2); err != nil {
		t.Fatal(err)
	}
	member2.Status.APIEnablements = append(member2.Status.APIEnablements, clusterv1alpha1.APIEnablement{
		GroupVersion: "rbac.authorization.k8s.io/v1", Resources: []clusterv1alpha1.APIResource{{Name: "clusterroles", Kind: "ClusterRole"}}})
	if err := f.c.Status().Update(ctx, &member2); err != nil {
		t.Fatal(err)
	}
	// A non-workload goes to every selected cluster without replicas.
	second := clusterRoleBinding("writer")
	if err := f.c.Create(ctx, second); err != nil {
		t.Fatal(err)
	}
	f.waitCRB(t, second, workv1alpha2.BindingReasonSuccess, workv1alpha2.BindingScheduleSuccessMessage, "member2:0")
	// Non-workloads are recomputed on every reconcile; an unchanged result
	// writes only the lastScheduledTime stamp of the run.
	harness.Eventually(t, "observed generation of "+second.Name, func(ctx context.Context) (bool, error) {
		err := f.c.Get(ctx, client.ObjectKeyFromObject(second), second)
		return err == nil && second.Status.SchedulerObservedGeneration == second.Generation, err
	})
	if n := f.reconcileAgain(ctx, t, client.ObjectKeyFromObject(second)); n != 1 {
		t.Errorf("a second reconcile of an unchanged non-workload binding made %d writes, want the status stamp only", n)
	}
}
