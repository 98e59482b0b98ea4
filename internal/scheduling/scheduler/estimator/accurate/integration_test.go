package accurate

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/scheduling/estimatorserver"
	"github.com/propel-mc/propel/internal/scheduling/scheduler"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/estimator"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

// loopbackIPs are distinct loopback addresses (per test process), so that
// every estimator listens on the same --scheduler-estimator-port as in a
// real deployment.
func loopbackIPs(n int) []string {
	pid := os.Getpid()
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("127.%d.%d.%d", 1+pid%200, pid/200%250, 10+i)
	}
	return out
}

// listenSamePort listens on every ip at one common free port.
func listenSamePort(t testing.TB, ips []string) ([]net.Listener, int) {
	t.Helper()
	for range 10 {
		first, err := net.Listen("tcp", net.JoinHostPort(ips[0], "0"))
		if err != nil {
			t.Fatal(err)
		}
		port := first.Addr().(*net.TCPAddr).Port
		lis := []net.Listener{first}
		for _, ip := range ips[1:] {
			l, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(port)))
			if err != nil {
				break
			}
			lis = append(lis, l)
		}
		if len(lis) == len(ips) {
			return lis, port
		}
		for _, l := range lis {
			l.Close()
		}
	}
	t.Fatal("no common free port")
	return nil, 0
}

func createNode(ctx context.Context, t *testing.T, kube kubernetes.Interface, name, cpu string) {
	t.Helper()
	rl := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("64Gi"), corev1.ResourcePods: resource.MustParse("110")}
	n, err := kube.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The API server's TaintNodesByCondition admission taints new nodes
	// not-ready; no kubelet or node controller runs here to lift it.
	n.Spec.Taints = nil
	if n, err = kube.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	n.Status.Capacity, n.Status.Allocatable = rl, rl
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}}
	if _, err := kube.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// createCluster registers a Cluster whose status.resourceSummary (what the
// general estimator reads) claims cpus.
func createCluster(ctx context.Context, t *testing.T, c client.Client, name string, cpus int64) {
	t.Helper()
	cl := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: clusterv1alpha1.ClusterSpec{SyncMode: clusterv1alpha1.Push}}
	if err := c.Create(ctx, cl); err != nil {
		t.Fatal(err)
	}
	cl.Status = clusterv1alpha1.ClusterStatus{
		APIEnablements: []clusterv1alpha1.APIEnablement{{GroupVersion: "apps/v1", Resources: []clusterv1alpha1.APIResource{{Name: "deployments", Kind: "Deployment"}}}},
		Conditions:     []metav1.Condition{{Type: clusterv1alpha1.ClusterConditionReady, Status: metav1.ConditionTrue, Reason: "ClusterReady", Message: "ready", LastTransitionTime: metav1.Now()}},
		ResourceSummary: &clusterv1alpha1.ResourceSummary{Allocatable: corev1.ResourceList{
			corev1.ResourceCPU: *resource.NewQuantity(cpus, resource.DecimalSI), corev1.ResourceMemory: resource.MustParse("1000Gi"), corev1.ResourcePods: resource.MustParse("1000"),
		}},
	}
	if err := c.Status().Update(ctx, cl); err != nil {
		t.Fatal(err)
	}
}

func estimatorService(ctx context.Context, t *testing.T, c client.Client, cluster, ip string) {
	t.Helper()
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: names.SystemNamespace, Name: "karmada-scheduler-estimator-" + cluster},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: ip},
	}
	if err := c.Create(ctx, svc); err != nil {
		t.Fatal(err)
	}
}

func binding(name, schedulerName string, replicas int32, pref policyv1alpha1.ReplicaDivisionPreference, clusters ...string) *workv1alpha2.ResourceBinding {
	rs := &policyv1alpha1.ReplicaSchedulingStrategy{ReplicaSchedulingType: policyv1alpha1.ReplicaSchedulingTypeDivided, ReplicaDivisionPreference: pref}
	if pref == policyv1alpha1.ReplicaDivisionPreferenceWeighted {
		rs.WeightPreference = &policyv1alpha1.ClusterPreferences{DynamicWeight: policyv1alpha1.DynamicWeightByAvailableReplicas}
	}
	return &workv1alpha2.ResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-deployment", Namespace: "default",
			Labels: map[string]string{names.PropagationPolicyPermanentIDLabel: "pp-estimators"}},
		Spec: workv1alpha2.ResourceBindingSpec{
			Resource:      workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: name, UID: types.UID("uid-" + name)},
			Replicas:      replicas,
			SchedulerName: schedulerName,
			ReplicaRequirements: &workv1alpha2.ReplicaRequirements{Namespace: "default", ResourceRequest: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Mi"),
			}},
			Placement: &policyv1alpha1.Placement{ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: clusters}, ReplicaScheduling: rs},
		},
	}
}

// TestEstimatorsDecidePlacement runs propel-scheduler-estimator's server
// for two members (real API servers, nodes with different allocatable, a
// bound pod), real gRPC over loopback, found through ExternalName Services
// in the control plane, and the scheduler with --enable-scheduler-estimator
// beside one without. The Clusters' resourceSummary (the general
// estimator's view) says the opposite of the members' nodes, so the
// placements differ only if the estimators are asked. A cluster whose
// estimator Service points nowhere, and one without a Service, are
// scheduled by the general estimator alone.
func TestEstimatorsDecidePlacement(t *testing.T) {
	env := harness.StartT(t, harness.Options{
		Members: []localenv.MemberOptions{{Name: "est-a"}, {Name: "est-b"}}, NoJoin: true, NoControlPlaneControllers: true,
	})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)

	// est-a: 4 CPU free. est-b: 40 CPU node with a bound 10-CPU pod: 30 free.
	kubeA := kubernetes.NewForConfigOrDie(env.Member("est-a").Config)
	kubeB := kubernetes.NewForConfigOrDie(env.Member("est-b").Config)
	createNode(ctx, t, kubeA, "a1", "4")
	createNode(ctx, t, kubeB, "b1", "40")
	busy := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "busy", Namespace: "default"},
		Spec: corev1.PodSpec{NodeName: "b1", Containers: []corev1.Container{{Name: "c", Image: "busy", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10")},
		}}}},
	}
	// No controller manager runs on the bare member: make its service account.
	if _, err := kubeB.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	if _, err := kubeB.CoreV1().Pods("default").Create(ctx, busy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	ips := loopbackIPs(3)
	lis, port := listenSamePort(t, ips[:2])
	for i, kube := range []kubernetes.Interface{kubeA, kubeB} {
		est := estimatorserver.New([]string{"est-a", "est-b"}[i], kube)
		if err := est.Start(ctx); err != nil {
			t.Fatal(err)
		}
		srv, err := estimatorserver.NewGRPCServer(est, estimatorserver.TLSFiles{})
		if err != nil {
			t.Fatal(err)
		}
		go func() { _ = srv.Serve(lis[i]) }()
		t.Cleanup(srv.Stop)
	}

	// The general estimator's view: est-a 100 CPU, est-b 60 (the smallest
	// answer wins, so the estimators must say less), est-dead and
	// est-nosvc 10.
	for name, cpus := range map[string]int64{"est-a": 100, "est-b": 60, "est-dead": 10, "est-nosvc": 10} {
		createCluster(ctx, t, env.Client, name, cpus)
	}
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: names.SystemNamespace}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	estimatorService(ctx, t, env.Client, "est-a", ips[0])
	estimatorService(ctx, t, env.Client, "est-b", ips[1])
	estimatorService(ctx, t, env.Client, "est-dead", ips[2]) // nothing listens there

	mgr, err := ctrl.NewManager(env.ControllerManagerConfig(), ctrl.Options{
		Scheme: apis.Scheme, Metrics: metricsserver.Options{BindAddress: "0"},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	opts := *NewOptions()
	opts.Enabled, opts.Port, opts.Timeout = true, port, 2*time.Second
	accurate := New(opts, mgr.GetAPIReader(), testr.New(t))
	if err := mgr.Add(accurate); err != nil {
		t.Fatal(err)
	}
	for _, o := range []scheduler.Options{{SchedulerName: "est", Accurate: []estimator.BatchEstimator{accurate}}, {SchedulerName: "gen"}} {
		s, err := scheduler.New(o)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetupWithManager(mgr); err != nil {
			t.Fatal(err)
		}
	}
	go func() { _ = mgr.Start(ctx) }()

	agg, dyn := policyv1alpha1.ReplicaDivisionPreferenceAggregated, policyv1alpha1.ReplicaDivisionPreferenceWeighted
	errorsBefore := testutil.ToFloat64(callsTotal.WithLabelValues("MaxAvailableReplicas", "error"))
	type placed map[string]int32
	cases := []struct {
		rb   *workv1alpha2.ResourceBinding
		want func(placed) bool
		what string
	}{
		{binding("agg-est", "est", 6, agg, "est-a", "est-b"), func(p placed) bool { return len(p) == 1 && p["est-b"] == 6 },
			"est-b: 6 (only est-b holds 6 per the estimators; the general estimator alone picks est-a)"},
		{binding("agg-gen", "gen", 6, agg, "est-a", "est-b"), func(p placed) bool { return len(p) == 1 && p["est-a"] == 6 },
			"est-a: 6 (without estimators)"},
		{binding("dyn-est", "est", 7, dyn, "est-a", "est-b"), func(p placed) bool { return p["est-b"] > p["est-a"] && p["est-a"]+p["est-b"] == 7 },
			"more on est-b (30 free, less what agg-est reserved) than est-a (4); 100:60 without estimators"},
		// The unreachable estimator is ignored: est-dead keeps the general
		// estimator's 10, so Aggregated 6 goes there rather than est-a (4).
		{binding("agg-dead", "est", 6, agg, "est-a", "est-dead"), func(p placed) bool { return len(p) == 1 && p["est-dead"] == 6 },
			"est-dead: 6 (its unreachable estimator ignored)"},
		{binding("nosvc", "est", 3, agg, "est-nosvc"), func(p placed) bool { return len(p) == 1 && p["est-nosvc"] == 3 },
			"est-nosvc: 3 (no estimator Service)"},
	}
	for _, c := range cases {
		if err := env.Client.Create(ctx, c.rb); err != nil {
			t.Fatal(err)
		}
		harness.Eventually(t, c.rb.Name+" scheduled", func(ctx context.Context) (bool, error) {
			rb := &workv1alpha2.ResourceBinding{}
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(c.rb), rb); err != nil {
				return false, err
			}
			if c := meta.FindStatusCondition(rb.Status.Conditions, workv1alpha2.Scheduled); c != nil && c.Status != metav1.ConditionTrue {
				return false, fmt.Errorf("not scheduled: %s: %s", c.Reason, c.Message)
			}
			return meta.IsStatusConditionTrue(rb.Status.Conditions, workv1alpha2.Scheduled), nil
		}, harness.Timeout(time.Minute))
		rb := &workv1alpha2.ResourceBinding{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(c.rb), rb); err != nil {
			t.Fatal(err)
		}
		got := placed{}
		for _, tc := range rb.Spec.Clusters {
			if tc.Replicas > 0 {
				got[tc.Name] = tc.Replicas
			}
		}
		if !c.want(got) {
			t.Errorf("%s: placed %v, want %s", c.rb.Name, got, c.what)
		}
	}
	if after := testutil.ToFloat64(callsTotal.WithLabelValues("MaxAvailableReplicas", "error")); after <= errorsBefore {
		t.Errorf("calls to the unreachable estimator not counted as errors (%v before, %v after)", errorsBefore, after)
	}
}
