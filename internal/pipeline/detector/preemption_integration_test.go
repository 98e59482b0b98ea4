package detector

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	"github.com/propel-mc/propel/internal/pipeline/detector/preemption"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

// runDetector runs a detector with opts in its own manager against e until
// the test ends. Controller names repeat those of the package's shared
// detector, hence SkipNameValidation.
func runDetector(t *testing.T, e *harness.Env, opts Options) *Detector {
	t.Helper()
	cfg := e.ControllerManagerConfig()
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: apis.Scheme, Metrics: metricsserver.Options{BindAddress: "0"},
		Controller: ctrlconfig.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	// Karmada records core/v1 Events, which the deprecated recorder writes.
	//lint:ignore SA1019 the detector's Deps take a record.EventRecorder
	recorder := mgr.GetEventRecorderFor("resource-detector")
	d, err := New(Deps{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Cache: mgr.GetCache(),
		Dynamic: dynamic.NewForConfigOrDie(cfg), Discovery: discovery.NewDiscoveryClientForConfigOrDie(cfg),
		Mapper: mgr.GetRESTMapper(), Interpreter: resourceinterpreter.New(native.New()),
		Recorder: recorder,
	}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			t.Errorf("manager: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return d
}

// preemptionEnv is a control plane of its own with a detector whose
// PropagationPolicyPreemption gate is on.
type preemptionEnv struct {
	t   *testing.T
	env *harness.Env
	c   client.Client
}

// cmSelector selects ConfigMap default/target by name.
func cmSelector(target string) policyv1alpha1.ResourceSelector {
	return policyv1alpha1.ResourceSelector{APIVersion: "v1", Kind: "ConfigMap", Namespace: "default", Name: target}
}

// preemptionSpec selects ConfigMap target and places it on cluster, with
// priority prio and the given preemption.
func preemptionSpec(target, cluster string, prio int32, preemption policyv1alpha1.PreemptionBehavior) policyv1alpha1.PropagationSpec {
	return policyv1alpha1.PropagationSpec{
		ResourceSelectors: []policyv1alpha1.ResourceSelector{cmSelector(target)},
		Priority:          ptr.To(prio),
		Preemption:        preemption,
		Placement:         policyv1alpha1.Placement{ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: []string{cluster}}},
	}
}

func (p *preemptionEnv) createPP(name string, spec policyv1alpha1.PropagationSpec) *policyv1alpha1.PropagationPolicy {
	pol := &policyv1alpha1.PropagationPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}, Spec: spec}
	p.create(pol)
	return pol
}

func (p *preemptionEnv) createCPP(name string, spec policyv1alpha1.PropagationSpec) *policyv1alpha1.ClusterPropagationPolicy {
	pol := &policyv1alpha1.ClusterPropagationPolicy{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}
	p.create(pol)
	return pol
}

func (p *preemptionEnv) create(obj client.Object) {
	p.t.Helper()
	if err := p.c.Create(context.Background(), obj); err != nil {
		p.t.Fatalf("create %s: %v", obj.GetName(), err)
	}
}

// policyID waits until the detector gave pol its permanent id (the first
// phase of its reconcile) and returns it.
func (p *preemptionEnv) policyID(pol client.Object) string {
	p.t.Helper()
	label := names.PropagationPolicyPermanentIDLabel
	if _, ok := pol.(*policyv1alpha1.ClusterPropagationPolicy); ok {
		label = names.ClusterPropagationPolicyPermanentIDLabel
	}
	var id string
	harness.Eventually(p.t, pol.GetName()+" has a permanent id", func(ctx context.Context) (bool, error) {
		if err := p.c.Get(ctx, client.ObjectKeyFromObject(pol), pol); err != nil {
			return false, err
		}
		id = pol.GetLabels()[label]
		return id != "", nil
	})
	return id
}

// claim is who a ConfigMap template and its binding say claims it.
type claim struct {
	policy, id string // the claiming policy's name and permanent id
	cluster    bool   // claimed by a ClusterPropagationPolicy
	// bindingCluster is the binding's single placement cluster; "" until
	// the binding carries the same claim as the template.
	bindingCluster string
}

func claimFrom(obj metav1.Object) claim {
	l, a := obj.GetLabels(), obj.GetAnnotations()
	if id := l[names.PropagationPolicyPermanentIDLabel]; id != "" {
		if l[names.ClusterPropagationPolicyPermanentIDLabel] != "" || a[names.ClusterPropagationPolicyNameAnnotation] != "" {
			return claim{policy: "<PP and CPP claim keys both set>"}
		}
		return claim{policy: a[names.PropagationPolicyNameAnnotation], id: id}
	}
	return claim{policy: a[names.ClusterPropagationPolicyNameAnnotation], id: l[names.ClusterPropagationPolicyPermanentIDLabel], cluster: true}
}

// claimOfCM reads the claim of ConfigMap default/name and of its binding.
func (p *preemptionEnv) claimOfCM(ctx context.Context, name string) (claim, error) {
	cm := &corev1.ConfigMap{}
	if err := p.c.Get(ctx, client.ObjectKey{Namespace: "default", Name: name}, cm); err != nil {
		return claim{}, err
	}
	c := claimFrom(cm)
	rb := &workv1alpha2.ResourceBinding{}
	if err := p.c.Get(ctx, client.ObjectKey{Namespace: "default", Name: names.BindingName("ConfigMap", name)}, rb); err != nil {
		return c, client.IgnoreNotFound(err)
	}
	if claimFrom(rb) == c && rb.Spec.Placement != nil && rb.Spec.Placement.ClusterAffinity != nil &&
		len(rb.Spec.Placement.ClusterAffinity.ClusterNames) == 1 {
		c.bindingCluster = rb.Spec.Placement.ClusterAffinity.ClusterNames[0]
	}
	return c, nil
}

// waitClaim waits until ConfigMap name and its binding are claimed as want.
func (p *preemptionEnv) waitClaim(name string, want claim) {
	p.t.Helper()
	var got claim
	harness.Eventually(p.t, name+" claimed by "+want.policy, func(ctx context.Context) (bool, error) {
		var err error
		got, err = p.claimOfCM(ctx, name)
		return got == want, err
	})
}

// keepsClaim checks that ConfigMap name stays claimed as want for a while,
// long enough for a preemption that should not happen to show.
func (p *preemptionEnv) keepsClaim(name string, want claim) {
	p.t.Helper()
	harness.Consistently(p.t, name+" keeps its claim", 3*time.Second, func(ctx context.Context) error {
		got, err := p.claimOfCM(ctx, name)
		if err != nil {
			return err
		}
		if got != want {
			return fmt.Errorf("claim changed to %+v, want it to stay %+v", got, want)
		}
		return nil
	}, harness.Interval(200*time.Millisecond))
}

// events returns the messages of events with reason on the object of kind
// and name in default.
func (p *preemptionEnv) events(ctx context.Context, kind, name, reason string) ([]string, error) {
	list, err := p.env.Kube.CoreV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + name})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range list.Items {
		if e.InvolvedObject.Kind == kind && e.Reason == reason {
			out = append(out, e.Message)
		}
	}
	return out, nil
}

func (p *preemptionEnv) waitEvent(kind, name, reason, contains string) {
	p.t.Helper()
	harness.Eventually(p.t, reason+" event on "+kind+" "+name, func(ctx context.Context) (bool, error) {
		msgs, err := p.events(ctx, kind, name, reason)
		for _, m := range msgs {
			if strings.Contains(m, contains) {
				return true, nil
			}
		}
		return false, err
	})
}

func (p *preemptionEnv) noEvent(kind, name, reason string) {
	p.t.Helper()
	msgs, err := p.events(context.Background(), kind, name, reason)
	if err != nil {
		p.t.Fatal(err)
	}
	if len(msgs) > 0 {
		p.t.Errorf("unexpected %s events on %s %s: %q", reason, kind, name, msgs)
	}
}

// TestPreemption runs a detector with the PropagationPolicyPreemption gate
// on, against a control plane of its own (the package's shared detector has
// the gate off).
func TestPreemption(t *testing.T) {
	e := harness.StartT(t, harness.Options{Members: []localenv.MemberOptions{}, NoJoin: true, NoControlPlaneControllers: true})
	runDetector(t, e, Options{DiscoveryInterval: time.Second, PropagationPolicyPreemption: true})
	env := func(t *testing.T) *preemptionEnv { return &preemptionEnv{t: t, env: e, c: e.Client} }

	t.Run("PPPreemptsLowerPriorityPP", func(t *testing.T) {
		p := env(t)
		low := p.createPP("pp-low", preemptionSpec("pp-vs-pp", "member1", 1, policyv1alpha1.PreemptNever))
		p.create(configMap("pp-vs-pp", nil))
		p.waitClaim("pp-vs-pp", claim{policy: "pp-low", id: p.policyID(low), bindingCluster: "member1"})
		p.noEvent("ConfigMap", "pp-vs-pp", preemption.ReasonPreemptSucceed)

		high := p.createPP("pp-high", preemptionSpec("pp-vs-pp", "member2", 2, policyv1alpha1.PreemptAlways))
		p.waitClaim("pp-vs-pp", claim{policy: "pp-high", id: p.policyID(high), bindingCluster: "member2"})
		p.waitEvent("ConfigMap", "pp-vs-pp", preemption.ReasonPreemptSucceed,
			"PropagationPolicy(default/pp-high) preempted PropagationPolicy(default/pp-low)")
	})

	t.Run("EqualOrNeverPriorityDoesNotPreempt", func(t *testing.T) {
		p := env(t)
		first := p.createPP("eq-first", preemptionSpec("eq", "member1", 5, policyv1alpha1.PreemptNever))
		p.create(configMap("eq", nil))
		want := claim{policy: "eq-first", id: p.policyID(first), bindingCluster: "member1"}
		p.waitClaim("eq", want)
		p.policyID(p.createPP("eq-same", preemptionSpec("eq", "member2", 5, policyv1alpha1.PreemptAlways)))
		p.policyID(p.createPP("eq-higher-never", preemptionSpec("eq", "member3", 9, policyv1alpha1.PreemptNever)))
		p.keepsClaim("eq", want)
		p.noEvent("ConfigMap", "eq", preemption.ReasonPreemptSucceed)
	})

	t.Run("PPPreemptsCPP", func(t *testing.T) {
		p := env(t)
		c := p.createCPP("cpp-preempted", preemptionSpec("pp-vs-cpp", "member1", 100, policyv1alpha1.PreemptNever))
		p.create(configMap("pp-vs-cpp", nil))
		p.waitClaim("pp-vs-cpp", claim{policy: "cpp-preempted", id: p.policyID(c), cluster: true, bindingCluster: "member1"})

		// Any PropagationPolicy preempts a ClusterPropagationPolicy, whatever
		// the priorities; the CPP claim keys go from template and binding.
		pp := p.createPP("pp-over-cpp", preemptionSpec("pp-vs-cpp", "member2", -1, policyv1alpha1.PreemptAlways))
		p.waitClaim("pp-vs-cpp", claim{policy: "pp-over-cpp", id: p.policyID(pp), bindingCluster: "member2"})
		p.waitEvent("ConfigMap", "pp-vs-cpp", preemption.ReasonPreemptSucceed,
			"PropagationPolicy(default/pp-over-cpp) preempted ClusterPropagationPolicy(cpp-preempted)")
	})

	t.Run("CPPNeverPreemptsPP", func(t *testing.T) {
		p := env(t)
		pp := p.createPP("pp-kept", preemptionSpec("cpp-vs-pp", "member1", 0, policyv1alpha1.PreemptNever))
		p.create(configMap("cpp-vs-pp", nil))
		want := claim{policy: "pp-kept", id: p.policyID(pp), bindingCluster: "member1"}
		p.waitClaim("cpp-vs-pp", want)
		p.policyID(p.createCPP("cpp-strong", preemptionSpec("cpp-vs-pp", "member2", 1000, policyv1alpha1.PreemptAlways)))
		p.keepsClaim("cpp-vs-pp", want)
		p.noEvent("ConfigMap", "cpp-vs-pp", preemption.ReasonPreemptSucceed)
	})

	t.Run("CPPPreemptsLowerPriorityCPP", func(t *testing.T) {
		p := env(t)
		low := p.createCPP("cpp-low", preemptionSpec("cpp-vs-cpp", "member1", 1, policyv1alpha1.PreemptNever))
		p.create(configMap("cpp-vs-cpp", nil))
		p.waitClaim("cpp-vs-cpp", claim{policy: "cpp-low", id: p.policyID(low), cluster: true, bindingCluster: "member1"})
		high := p.createCPP("cpp-high", preemptionSpec("cpp-vs-cpp", "member2", 2, policyv1alpha1.PreemptAlways))
		p.waitClaim("cpp-vs-cpp", claim{policy: "cpp-high", id: p.policyID(high), cluster: true, bindingCluster: "member2"})
		p.waitEvent("ConfigMap", "cpp-vs-cpp", preemption.ReasonPreemptSucceed,
			"ClusterPropagationPolicy(cpp-high) preempted ClusterPropagationPolicy(cpp-low)")
	})

	t.Run("LoweringPriorityRequeuesPreemptors", func(t *testing.T) {
		p := env(t)
		top := p.createPP("lower-top", preemptionSpec("lowered", "member1", 10, policyv1alpha1.PreemptNever))
		p.create(configMap("lowered", nil))
		want := claim{policy: "lower-top", id: p.policyID(top), bindingCluster: "member1"}
		p.waitClaim("lowered", want)
		mid := p.createPP("lower-mid", preemptionSpec("lowered", "member2", 5, policyv1alpha1.PreemptAlways))
		p.policyID(mid)
		p.policyID(p.createPP("lower-low", preemptionSpec("lowered", "member3", 3, policyv1alpha1.PreemptAlways)))
		p.keepsClaim("lowered", want) // both are below lower-top

		// Dropping lower-top to 1 requeues lower-mid (5) and lower-low (3),
		// highest first: lower-mid takes over and lower-low cannot outrank it.
		patch := client.MergeFrom(top.DeepCopy())
		top.Spec.Priority = ptr.To[int32](1)
		if err := p.c.Patch(context.Background(), top, patch); err != nil {
			t.Fatal(err)
		}
		taken := claim{policy: "lower-mid", id: p.policyID(mid), bindingCluster: "member2"}
		p.waitClaim("lowered", taken)
		p.keepsClaim("lowered", taken)
	})

	t.Run("UnnamedSelectorDisablesPreemption", func(t *testing.T) {
		p := env(t)
		low := p.createPP("unnamed-low", preemptionSpec("unnamed", "member1", 0, policyv1alpha1.PreemptNever))
		p.create(configMap("unnamed", nil))
		want := claim{policy: "unnamed-low", id: p.policyID(low), bindingCluster: "member1"}
		p.waitClaim("unnamed", want)
		spec := preemptionSpec("unnamed", "member2", 9, policyv1alpha1.PreemptAlways)
		spec.ResourceSelectors = append(spec.ResourceSelectors, policyv1alpha1.ResourceSelector{APIVersion: "v1", Kind: "Secret"})
		p.createPP("unnamed-high", spec)
		p.waitEvent("PropagationPolicy", "unnamed-high", preemption.ReasonPreemptFailed, "resourceSelectors[1] has none")
		p.keepsClaim("unnamed", want)
	})
}

// TestPreemptionNeedsFeatureGate: with the gate off (the shared detector),
// a higher-priority policy with preemption Always leaves the claim alone.
func TestPreemptionNeedsFeatureGate(t *testing.T) {
	startDetector(t)
	p := &preemptionEnv{t: t, env: env, c: cl}
	low := p.createPP("gate-off-low", preemptionSpec("gate-off", "member1", 1, policyv1alpha1.PreemptNever))
	p.create(configMap("gate-off", nil))
	want := claim{policy: "gate-off-low", id: p.policyID(low), bindingCluster: "member1"}
	p.waitClaim("gate-off", want)
	p.policyID(p.createPP("gate-off-high", preemptionSpec("gate-off", "member2", 10, policyv1alpha1.PreemptAlways)))
	p.keepsClaim("gate-off", want)
	p.noEvent("ConfigMap", "gate-off", preemption.ReasonPreemptSucceed)
}
