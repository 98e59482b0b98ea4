package detector

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/yaml"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/customization"
	"github.com/propel-mc/propel/internal/pipeline/detector/templatecache"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

var (
	env *harness.Env
	// writes counts the detector's writes to the control plane.
	writes harness.WriteCounter
	det    *Detector
	cl     client.Client
	// interp is the shared detector's interpreter (hardening_integration_test.go).
	interp *panicOnce
)

func TestMain(m *testing.M) {
	harness.Main(m, harness.Options{Members: []localenv.MemberOptions{}}, &env)
}

// startDetector runs the detector in a manager against the test control
// plane, once for the package.
func startDetector(t *testing.T) {
	t.Helper()
	if det != nil {
		return
	}
	cfg := writes.Count(env.ControllerManagerConfig(), "karmada")
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: apis.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}, Logger: captureLogger()})
	if err != nil {
		t.Fatal(err)
	}
	lua := customization.New(customization.Options{})
	if err := lua.Watch(context.Background(), mgr.GetCache()); err != nil {
		t.Fatal(err)
	}
	interp = testInterpreter(t, lua)
	// Karmada records core/v1 Events, which the deprecated recorder writes.
	//lint:ignore SA1019 the detector's Deps take a record.EventRecorder
	recorder := mgr.GetEventRecorderFor("resource-detector")
	d, err := New(Deps{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Cache: mgr.GetCache(),
		Dynamic: dynamic.NewForConfigOrDie(cfg), Discovery: discovery.NewDiscoveryClientForConfigOrDie(cfg),
		Mapper: mgr.GetRESTMapper(), Interpreter: interp,
		Recorder: recorder,
	}, Options{DiscoveryInterval: time.Second, PriorityBasedScheduling: true, MultiplePodTemplatesScheduling: true})
	if err != nil {
		t.Fatal(err)
	}
	lua.OnLoad(d.RequeueClaimed)
	if err := d.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	go func() { _ = mgr.Start(context.Background()) }()
	det, cl = d, env.Client
}

func sample(t *testing.T, rel string, into client.Object) {
	t.Helper()
	shared := harness.SharedDir()
	if shared == "" {
		t.Skip("../shared is absent: the Karmada samples cannot be read")
	}
	data, err := os.ReadFile(filepath.Join(shared, "reference", "karmada-samples", rel))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, into); err != nil {
		t.Fatal(err)
	}
}

func getRB(ctx context.Context, ns, name string) (*workv1alpha2.ResourceBinding, error) {
	rb := &workv1alpha2.ResourceBinding{}
	return rb, cl.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, rb)
}

// TestNginxSampleGetsBinding applies Karmada's nginx sample with a 2:1
// weighted policy and checks the binding, the claims and the write count.
func TestNginxSampleGetsBinding(t *testing.T) {
	startDetector(t)
	ctx := context.Background()
	deploy := &appsv1.Deployment{}
	sample(t, "nginx/deployment.yaml", deploy)
	pol := &policyv1alpha1.PropagationPolicy{}
	sample(t, "nginx/propagationpolicy.yaml", pol)
	pol.Spec.Placement.ReplicaScheduling.WeightPreference.StaticWeightList[0].Weight = 2
	deploy.Namespace, pol.Namespace = "default", "default"

	before := writes.Len()
	if err := cl.Create(ctx, pol); err != nil {
		t.Fatal(err)
	}
	if err := cl.Create(ctx, deploy); err != nil {
		t.Fatal(err)
	}
	var rb *workv1alpha2.ResourceBinding
	harness.Eventually(t, "binding nginx-deployment", func(ctx context.Context) (bool, error) {
		var err error
		rb, err = getRB(ctx, "default", "nginx-deployment")
		return err == nil, nil
	})
	if err := cl.Get(ctx, client.ObjectKeyFromObject(pol), pol); err != nil {
		t.Fatal(err)
	}
	id := pol.Labels[names.PropagationPolicyPermanentIDLabel]
	if id == "" || len(pol.Finalizers) != 1 || pol.Finalizers[0] != names.PropagationPolicyControllerFinalizer {
		t.Fatalf("policy identity: labels %v finalizers %v", pol.Labels, pol.Finalizers)
	}
	if err := cl.Get(ctx, client.ObjectKeyFromObject(deploy), deploy); err != nil {
		t.Fatal(err)
	}
	if deploy.Labels[names.PropagationPolicyPermanentIDLabel] != id ||
		deploy.Annotations[names.PropagationPolicyNameAnnotation] != "nginx-propagation" ||
		deploy.Annotations[names.PropagationPolicyNamespaceAnnotation] != "default" {
		t.Fatalf("template claim: labels %v annotations %v", deploy.Labels, deploy.Annotations)
	}
	spec := rb.Spec
	if spec.Replicas != 2 || spec.Resource.Kind != "Deployment" || spec.Resource.UID != deploy.UID || spec.SchedulerName != "default-scheduler" {
		t.Fatalf("binding spec: replicas %d resource %+v scheduler %q", spec.Replicas, spec.Resource, spec.SchedulerName)
	}
	if spec.Resource.ResourceVersion != deploy.ResourceVersion {
		t.Errorf("binding records template resourceVersion %s, template has %s", spec.Resource.ResourceVersion, deploy.ResourceVersion)
	}
	if w := spec.Placement.ReplicaScheduling.WeightPreference.StaticWeightList; len(w) != 2 || w[0].Weight != 2 || w[1].Weight != 1 {
		t.Fatalf("placement weights: %+v", w)
	}
	if owner := metav1.GetControllerOf(rb); owner == nil || owner.UID != deploy.UID || !ptr.Deref(owner.BlockOwnerDeletion, false) {
		t.Fatalf("binding owner: %+v", rb.OwnerReferences)
	}
	if rb.Labels[names.ResourceBindingPermanentIDLabel] == "" || rb.Labels[names.PropagationPolicyPermanentIDLabel] != id ||
		len(rb.Finalizers) != 1 || rb.Finalizers[0] != names.BindingControllerFinalizer {
		t.Fatalf("binding meta: labels %v finalizers %v", rb.Labels, rb.Finalizers)
	}
	if rb.Spec.ReplicaRequirements != nil {
		t.Errorf("nginx has no requests, want nil requirements, got %+v", rb.Spec.ReplicaRequirements)
	}
	// Policy create + deployment create by the test, then exactly: policy
	// identity patch, template claim, binding create. The control plane's
	// deployment controller may update the template between the
	// detector's read and its optimistic-lock claim: the claim is then
	// sent again (same request), which is not an extra write of state.
	distinct := map[string]bool{}
	for _, w := range writes.Since(before) {
		distinct[w.Method+" "+w.Path] = true
	}
	if len(distinct) != 3 || writes.Len()-before > 4 {
		t.Errorf("detector wrote %v, want 3 writes (policy id, claim, binding create)", writes.Since(before))
	}

	// A reconcile of the unchanged template writes nothing.
	before = writes.Len()
	if res, err := det.templates.Reconcile(ctx, templatecache.Key{GVK: appsv1.SchemeGroupVersion.WithKind("Deployment"), Namespace: "default", Name: "nginx"}); err != nil || res.RequeueAfter != 0 {
		t.Fatalf("reconcile of an unchanged template: %+v, %v", res, err)
	}
	if got := writes.Len() - before; got != 0 {
		t.Errorf("reconcile of an unchanged template wrote %d times", got)
	}

	// Scaling the template updates the binding's replicas.
	deploy.Spec.Replicas = ptr.To[int32](6)
	if err := cl.Update(ctx, deploy); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "binding replicas 6", func(ctx context.Context) (bool, error) {
		rb, err := getRB(ctx, "default", "nginx-deployment")
		return err == nil && rb.Spec.Replicas == 6, nil
	})
}

func configMap(name string, labels map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Labels: labels}}
}

func cmPolicy(name string, prio int32, s policyv1alpha1.ResourceSelector) *policyv1alpha1.PropagationPolicy {
	return &policyv1alpha1.PropagationPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec:       policyv1alpha1.PropagationSpec{ResourceSelectors: []policyv1alpha1.ResourceSelector{s}, Priority: ptr.To(prio)},
	}
}

func claimedBy(ctx context.Context, name string) (string, error) {
	cm := &corev1.ConfigMap{}
	if err := cl.Get(ctx, client.ObjectKey{Namespace: "default", Name: name}, cm); err != nil {
		return "", err
	}
	if a := cm.Annotations[names.PropagationPolicyNameAnnotation]; a != "" {
		return a, nil
	}
	return cm.Annotations[names.ClusterPropagationPolicyNameAnnotation], nil
}

// TestPriorityAndDeletion: explicit priority beats implicit, a PP beats a
// CPP, claims are sticky, and deleting a policy releases the template but
// keeps its binding.
func TestPriorityAndDeletion(t *testing.T) {
	startDetector(t)
	ctx := context.Background()
	cpp := &policyv1alpha1.ClusterPropagationPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "all-configmaps"},
		Spec: policyv1alpha1.PropagationSpec{Priority: ptr.To[int32](100), ResourceSelectors: []policyv1alpha1.ResourceSelector{
			{APIVersion: "v1", Kind: "ConfigMap", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "web"}}}}},
	}
	policies := []client.Object{
		cpp,
		cmPolicy("by-name", 0, policyv1alpha1.ResourceSelector{APIVersion: "v1", Kind: "ConfigMap", Name: "web-config"}),
		cmPolicy("by-label-prio", 1, policyv1alpha1.ResourceSelector{APIVersion: "v1", Kind: "ConfigMap",
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "web"}}}),
	}
	for _, o := range policies {
		if err := cl.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	// The template must meet every policy: a claim is sticky, and a
	// template seen before the detector's policy informer delivered the
	// higher-priority policy is claimed by a lower one (as in Karmada). The
	// detector gives each policy its permanent id once it has seen it.
	harness.Eventually(t, "the detector has seen the three policies", func(ctx context.Context) (bool, error) {
		for _, o := range policies {
			if err := cl.Get(ctx, client.ObjectKeyFromObject(o), o); err != nil {
				return false, err
			}
			l := o.GetLabels()
			if l[names.PropagationPolicyPermanentIDLabel] == "" && l[names.ClusterPropagationPolicyPermanentIDLabel] == "" {
				return false, nil
			}
		}
		return true, nil
	})
	if err := cl.Create(ctx, configMap("web-config", map[string]string{"tier": "web"})); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "web-config claimed by the higher explicit priority", func(ctx context.Context) (bool, error) {
		by, err := claimedBy(ctx, "web-config")
		return by == "by-label-prio", err
	})
	rbName := names.BindingName("ConfigMap", "web-config")

	// Deleting the claiming policy releases the template and its binding's
	// claim; the binding itself stays, and the template is matched again.
	if err := cl.Delete(ctx, cmPolicy("by-label-prio", 1, policyv1alpha1.ResourceSelector{})); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "web-config re-claimed by the next PropagationPolicy", func(ctx context.Context) (bool, error) {
		by, err := claimedBy(ctx, "web-config")
		return by == "by-name", err
	})
	harness.Eventually(t, "policy gone after its finalizer", func(ctx context.Context) (bool, error) {
		err := cl.Get(ctx, client.ObjectKey{Namespace: "default", Name: "by-label-prio"}, &policyv1alpha1.PropagationPolicy{})
		return apierrors.IsNotFound(err), nil
	})
	if _, err := getRB(ctx, "default", rbName); err != nil {
		t.Fatalf("binding was removed with its policy: %v", err)
	}

	// With no PropagationPolicy left, the ClusterPropagationPolicy takes it.
	if err := cl.Delete(ctx, cmPolicy("by-name", 0, policyv1alpha1.ResourceSelector{})); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "web-config claimed by the ClusterPropagationPolicy", func(ctx context.Context) (bool, error) {
		by, err := claimedBy(ctx, "web-config")
		return by == "all-configmaps", err
	})

	// Deleting the template garbage-collects its binding (kube-controller-
	// manager on the control plane, as in Karmada).
	if err := cl.Delete(ctx, configMap("web-config", nil)); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "binding garbage collected", func(ctx context.Context) (bool, error) {
		rb, err := getRB(ctx, "default", rbName)
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		// The binding controller (not running here) would drop its finalizer.
		if err == nil && rb.DeletionTimestamp != nil {
			rb.Finalizers = nil
			return false, client.IgnoreNotFound(cl.Update(ctx, rb))
		}
		return false, nil
	})
}

// TestCRDInstalledAfterStart: a kind that did not exist when the detector
// started gets bindings once discovery finds it.
func TestCRDInstalledAfterStart(t *testing.T) {
	startDetector(t)
	ctx := context.Background()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	sample(t, "guestbook/guestbooks-crd.yaml", crd)
	if err := localenv.InstallCRDs(ctx, env.ControlPlane.Config, []*apiextensionsv1.CustomResourceDefinition{crd}); err != nil {
		t.Fatal(err)
	}
	// The kind is outside Propel's role: the user grants its claim.
	if err := env.GrantTemplates(ctx, "guestbooks", crd.Spec.Group); err != nil {
		t.Fatal(err)
	}
	pol := &policyv1alpha1.PropagationPolicy{}
	sample(t, "guestbook/guestbooks-propagationpolicy.yaml", pol)
	pol.Namespace = "default"
	gb := &unstructured.Unstructured{}
	sample(t, "guestbook/guestbook.yaml", gb)
	gb.SetNamespace("default")
	if err := cl.Create(ctx, pol); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "create guestbook", func(ctx context.Context) (bool, error) {
		return cl.Create(ctx, gb.DeepCopy()) == nil, nil // the RESTMapper learns the new kind lazily
	})
	harness.Eventually(t, "guestbook binding", func(ctx context.Context) (bool, error) {
		rb, err := getRB(ctx, "default", "guestbook-sample-guestbook")
		return err == nil && rb.Spec.Resource.Kind == "Guestbook" && rb.Spec.Replicas == 0, nil
	})
}

// TestPolicyReplacedKeepsPermanentID: replacing a policy wholesale (its
// permanent-id label dropped, as a full PUT of the original manifest does)
// keeps the id its bindings carry, so the claim stays valid and later
// policy changes still reach the binding.
func TestPolicyReplacedKeepsPermanentID(t *testing.T) {
	startDetector(t)
	ctx := context.Background()
	pol := cmPolicy("replaced", 0, policyv1alpha1.ResourceSelector{APIVersion: "v1", Kind: "ConfigMap", Name: "replaced-config"})
	if err := cl.Create(ctx, pol); err != nil {
		t.Fatal(err)
	}
	if err := cl.Create(ctx, configMap("replaced-config", nil)); err != nil {
		t.Fatal(err)
	}
	rbName := names.BindingName("ConfigMap", "replaced-config")
	var id string
	harness.Eventually(t, "binding claimed by the policy", func(ctx context.Context) (bool, error) {
		rb, err := getRB(ctx, "default", rbName)
		if err != nil {
			return false, nil
		}
		id = rb.Labels[names.PropagationPolicyPermanentIDLabel]
		return id != "", nil
	})
	// Replace the policy with its original manifest plus a placement change.
	if err := cl.Get(ctx, client.ObjectKeyFromObject(pol), pol); err != nil {
		t.Fatal(err)
	}
	replacement := cmPolicy("replaced", 0, policyv1alpha1.ResourceSelector{APIVersion: "v1", Kind: "ConfigMap", Name: "replaced-config"})
	replacement.ResourceVersion = pol.ResourceVersion
	replacement.Finalizers = pol.Finalizers
	replacement.Spec.Placement.ClusterAffinity = &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member3"}}
	if err := cl.Update(ctx, replacement); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "policy gets its old id back and the binding the new placement", func(ctx context.Context) (bool, error) {
		if err := cl.Get(ctx, client.ObjectKeyFromObject(pol), pol); err != nil {
			return false, err
		}
		rb, err := getRB(ctx, "default", rbName)
		if err != nil {
			return false, err
		}
		aff := rb.Spec.Placement.ClusterAffinity
		return pol.Labels[names.PropagationPolicyPermanentIDLabel] == id && aff != nil && len(aff.ClusterNames) == 1, nil
	})
}

// TestSchedulePriorityFromPriorityClass: under PriorityBasedScheduling (on
// by default, as in Karmada) the binding carries the value of the
// PriorityClass the policy's schedulePriority names.
func TestSchedulePriorityFromPriorityClass(t *testing.T) {
	startDetector(t)
	ctx := context.Background()
	pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "detector-test-high"}, Value: 100000}
	if err := cl.Create(ctx, pc); err != nil {
		t.Fatal(err)
	}
	pol := &policyv1alpha1.PropagationPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "prio"},
		Spec: policyv1alpha1.PropagationSpec{
			ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", Name: "prio-web"}},
			SchedulePriority:  &policyv1alpha1.SchedulePriority{PriorityClassSource: policyv1alpha1.KubePriorityClass, PriorityClassName: pc.Name},
		},
	}
	if err := cl.Create(ctx, pol); err != nil {
		t.Fatal(err)
	}
	deploy := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "prio-web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "prio-web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "prio-web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
			},
		},
	}
	if err := cl.Create(ctx, deploy); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "binding prio-web-deployment with schedulePriority 100000", func(ctx context.Context) (bool, error) {
		rb, err := getRB(ctx, "default", "prio-web-deployment")
		if err != nil {
			return false, client.IgnoreNotFound(err)
		}
		return rb.Spec.SchedulePriority != nil && rb.Spec.SchedulePriority.Priority == pc.Value, nil
	})
}
